import { randomBytes } from 'node:crypto';
import { SECRET_PREFIX } from '../../domain';

/** 32 random bytes in Standard Webhooks form: `whsec_` and their base64. */
export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}
