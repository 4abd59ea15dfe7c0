/** Telnyx's SDK, loaded on first use: a process that never talks to Telnyx does without its few hundred modules. */
export const telnyxSdk = () => require('telnyx') as typeof import('telnyx');
