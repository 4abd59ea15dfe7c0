import { createHmac } from 'node:crypto';

/* Twilio's webhook signature (HMAC-SHA1 with the auth token over the URL and the sorted parameters, base64), and a form posted with it. */

export interface CallbackAnswer {
  status: number;
  body: string;
}

/** Twilio's signature of a request to `url` with these form parameters. */
export function twilioSignature(authToken: string, url: string, params: Record<string, string>): string {
  const data = Object.keys(params)
    .sort()
    .reduce((acc, key) => acc + key + params[key], url);
  return createHmac('sha1', authToken).update(Buffer.from(data, 'utf-8')).digest('base64');
}

/** POSTs a form to `url` signed as Twilio signs its webhooks (or unsigned, or with another token). */
export async function postSignedForm(url: string, params: Record<string, string>, authToken: string | undefined): Promise<CallbackAnswer> {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8', 'user-agent': 'TwilioProxy/1.1' };
  if (authToken) headers['x-twilio-signature'] = twilioSignature(authToken, url, params);
  const response = await fetch(url, { method: 'POST', headers, body: new URLSearchParams(params).toString() });
  return { status: response.status, body: await response.text() };
}
