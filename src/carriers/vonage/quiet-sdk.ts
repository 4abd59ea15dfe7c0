import { createRequire } from 'node:module';

/*
 * The Vonage SDK logs through the `debug` package under `vonage:*`: with DEBUG=vonage:* (or DEBUG=*) it
 * prints the application's private key, the credentials, and every request's body (numbers, texts).
 * Those namespaces are switched off whatever DEBUG says; other namespaces stay as DEBUG set them.
 */

interface Debug {
  disable(): string;
  enable(namespaces: string): void;
}

/** The `debug` instance the SDK itself loaded (resolved from its own package, so it is the same one). */
function sdkDebug(): Debug | undefined {
  try {
    return createRequire(require.resolve('@vonage/server-client'))('debug') as Debug;
  } catch {
    return undefined;
  }
}

export function silenceVonageDebugLog(): void {
  const debug = sdkDebug();
  if (!debug) return;
  const namespaces = debug.disable();
  if (namespaces) debug.enable(`${namespaces},-vonage:*`);
}
