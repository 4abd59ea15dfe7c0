import type { NumberCarriers } from '../../carriers/numbers';
import { CarrierRejected, type FetchedMedia } from '../../carriers/types';
import type { Prisma } from '../../db/prisma';
import type { Scope } from '../../db/scope';
import { bytesInWords, MEDIA_MAX_BYTES } from '../../net/capped-body';
import { NotFound, TooLargeToRelay, Unavailable } from '../errors';
import { findOwnedMessage } from './owned-message';

export interface MediaDeps {
  prisma: Prisma;
  /** The carrier of each number's account: a file is fetched with the business's account of the number it was sent to. */
  carriers?: NumberCarriers;
}

const MEDIA_NOT_FOUND = 'Media not found';
export const MEDIA_TOO_LARGE = `Media file is larger than ${bytesInWords(MEDIA_MAX_BYTES)}`;

/**
 * `GET /messages/{_id}/media/{n}`: the n-th file of the caller's inbound message, fetched from the
 * carrier with the credentials of the account its number belongs to, to be streamed through.
 */
export async function inboundMedia(deps: MediaDeps, scope: Scope, messageId: string, index: string): Promise<FetchedMedia> {
  const message = await findOwnedMessage(deps.prisma, scope, messageId);
  const files = message.direction === 'inbound' && Array.isArray(message.media) ? (message.media as { url: string }[]) : [];
  const n = /^\d{1,2}$/.test(index) ? Number(index) : -1;
  const file = files[n];
  if (!file || !deps.carriers) throw new NotFound(MEDIA_NOT_FOUND);
  // This business's own registration of the number (even retired, or moved to another business since), else the deployment's account.
  const carrier = await deps.carriers.forReceived(message.business, message.sender);
  if (!carrier.fetchMedia) throw new NotFound(MEDIA_NOT_FOUND);
  try {
    return await carrier.fetchMedia(file.url);
  } catch (error) {
    // The carrier has it, but it is over what the service streams: not the "no longer there" below.
    if (error instanceof CarrierRejected && error.code === 'media-too-large') throw new TooLargeToRelay(MEDIA_TOO_LARGE);
    if (error instanceof CarrierRejected) throw new NotFound('Media no longer available at the carrier');
    throw new Unavailable('The carrier could not be reached: try again', 5);
  }
}
