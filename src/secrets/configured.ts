import type { Config } from '../config/index';
import { developmentSecret } from './development-secret';
import { dataPaths } from '../paths';
import { generateNamedKey, parseKeyList } from '../config/key-list';
import { SecretBox } from './secret-box';

/**
 * The SecretBox of a process: SECRETS_KEY's keys. Production has no default and refuses to start
 * without it. Elsewhere the key kept in the data directory serves (`dev-secrets-key`, mode 0600, made by
 * the first process that needs it), so `npm start`, `npm run api` and `npm run worker` on one data
 * directory agree and what they sealed stays readable across restarts.
 */
export async function secretBoxOf(config: Pick<Config, 'secretKeys' | 'NODE_ENV' | 'DATA_DIR'>): Promise<SecretBox> {
  if (config.secretKeys) return new SecretBox(config.secretKeys);
  if (config.NODE_ENV === 'production') {
    throw new Error('Invalid configuration: set SECRETS_KEY in production (id:base64 of 32 bytes, e.g. "s1:$(openssl rand -base64 32)"); webhook secrets are encrypted at rest with it');
  }
  const file = dataPaths(config.DATA_DIR).devSecretsKey;
  return new SecretBox(parseKeyList(file, await developmentSecret(file, () => generateNamedKey('dev-1'))));
}
