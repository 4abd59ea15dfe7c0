/** A word as a POSIX shell reads it back unchanged. */
const shellWord = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

export interface CodecCommand {
  url: string;
  /** Where the bearer secret is: an environment variable, or a file; none: the codec is off. */
  secret: { env: string } | { file: string } | undefined;
  /** The Temporal CLI's path, when this machine has one. */
  cli: string | undefined;
  address: string;
  namespace: string;
}

/**
 * npm start's `Codec` line: how an operator reads a run's payloads with the Temporal CLI, as a command
 * that runs when pasted — the CLI's own path (it is seldom on PATH), this stack's Temporal address and
 * namespace, and where the secret is rather than the secret. Only WORKFLOW_ID is the operator's to fill in.
 */
export function codecLine(codec: CodecCommand): string {
  if (!codec.secret) return 'off: set CODEC_AUTH_TOKEN (production has no default secret) or CODEC_JWT_AUDIENCE';
  const secret = 'env' in codec.secret ? `$${codec.secret.env}` : `$(cat ${shellWord(codec.secret.file)})`;
  const namespace = codec.namespace === 'default' ? '' : ` --namespace ${shellWord(codec.namespace)}`;
  const command = `${shellWord(codec.cli ?? 'temporal')} workflow show --address ${shellWord(codec.address)}${namespace} --codec-endpoint ${shellWord(codec.url)} --codec-auth "Bearer ${secret}" -w WORKFLOW_ID`;
  return codec.cli ? command : `${command}   (no Temporal CLI on this machine: npm run temporal:install installs one)`;
}
