import { z } from 'zod';
import { EVENT_PATTERNS } from '../../domain';
import { namesNonPublicHost } from '../../net/public-address';
import { Invalid } from '../errors';
import { parseBody } from '../input/validation';

export const MAX_URL_LENGTH = 2048;
export const MAX_DESCRIPTION_LENGTH = 500;
const PATTERN_LIST = EVENT_PATTERNS.join(', ');

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

const subscriptionRequest = z.object({
  url: z
    .string({ error: 'must be an http or https URL' })
    .max(MAX_URL_LENGTH, `must be at most ${MAX_URL_LENGTH} characters`)
    .refine(isHttpUrl, 'must be an http or https URL'),
  events: z
    .array(z.enum(EVENT_PATTERNS, { error: `must be one of ${PATTERN_LIST}` }), { error: `must be an array of event types (${PATTERN_LIST})` })
    .min(1, 'must name at least one event type, or be left out for all of them')
    .max(EVENT_PATTERNS.length, `must name at most ${EVENT_PATTERNS.length} patterns`)
    .nullish(),
  description: z.string({ error: 'must be a string' }).max(MAX_DESCRIPTION_LENGTH, `must be at most ${MAX_DESCRIPTION_LENGTH} characters`).nullish(),
});

export interface SubscriptionRequest {
  url: string;
  /** Each pattern once, in the order given; `["*"]` when none were. */
  events: string[];
  description: string | null;
}

/** The body of `POST /webhooks`, or a 400 naming the first bad field. */
export function parseSubscriptionRequest(body: unknown, options: { allowPrivateUrls: boolean }): SubscriptionRequest {
  const { url, events, description } = parseBody(subscriptionRequest, body);
  if (!options.allowPrivateUrls && namesNonPublicHost(new URL(url))) {
    throw new Invalid('Invalid url: must be a public address (private, loopback and link-local hosts are refused)');
  }
  return { url, events: events ? [...new Set(events)] : ['*'], description: description ?? null };
}
