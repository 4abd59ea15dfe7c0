import { namesNonPublicHost } from '../../net/public-address';
import { Invalid } from '../errors';
import { parseBody } from '../input/validation';
import { NewWebhook } from './contract';

export interface SubscriptionRequest {
  url: string;
  /** Each pattern once, in the order given; `["*"]` when none were. */
  events: string[];
  description: string | null;
}

/** The body of `POST /webhooks`, or a 400 naming the first bad field. */
export function parseSubscriptionRequest(body: unknown, options: { allowPrivateUrls: boolean }): SubscriptionRequest {
  const { url, events, description } = parseBody(NewWebhook, body);
  if (!options.allowPrivateUrls && namesNonPublicHost(new URL(url))) {
    throw new Invalid('Invalid url: must be a public address (private, loopback and link-local hosts are refused)');
  }
  return { url, events: events ? [...new Set(events)] : ['*'], description: description ?? null };
}
