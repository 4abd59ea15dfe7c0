import { randomBytes } from 'node:crypto';

/*
 * The files of inbound messages (MMS, WhatsApp media), kept as Twilio keeps them: each at a REST URL of
 * the account, `/2010-04-01/Accounts/{AC}/Messages/{MM}/Media/{ME}`, which wants the account's Basic
 * credentials and answers 307 to a short-lived URL that serves the bytes to anyone who has it (Twilio's
 * CDN; here `/simulator/media/{token}` on the same port). Kept in memory, the oldest forgotten first
 * beyond a count and a total size: a file no longer kept is a 404, as Twilio answers for a deleted one.
 */

export interface StoredMedia {
  sid: string;
  accountSid: string;
  messageSid: string;
  contentType: string;
  data: Buffer;
}

export const MEDIA_PATH = /^\/2010-04-01\/Accounts\/(AC[0-9a-f]{32})\/Messages\/((?:MM|SM)[0-9a-f]{32})\/Media\/(ME[0-9a-f]{32})$/;
/** A message's list of media (Twilio's Media subresource): `/2010-04-01/Accounts/{AC}/Messages/{MM}/Media.json`. */
export const MEDIA_LIST_PATH = /^\/2010-04-01\/Accounts\/(AC[0-9a-f]{32})\/Messages\/((?:MM|SM)[0-9a-f]{32})\/Media\.json$/;
export const MEDIA_LINK_PATH = /^\/simulator\/media\/([0-9a-f]{48})$/;

export const mediaPath = (media: StoredMedia) => `/2010-04-01/Accounts/${media.accountSid}/Messages/${media.messageSid}/Media/${media.sid}`;

export class MediaStore {
  private readonly files = new Map<string, StoredMedia>();
  private readonly links = new Map<string, { mediaSid: string; expiresAt: number }>();
  private bytes = 0;

  constructor(private readonly limits = { files: 200, bytes: 100 * 1024 * 1024, linkTtlMs: 5 * 60_000 }) {}

  add(accountSid: string, messageSid: string, contentType: string, data: Buffer): StoredMedia {
    const media = { sid: `ME${randomBytes(16).toString('hex')}`, accountSid, messageSid, contentType, data };
    this.files.set(media.sid, media);
    this.bytes += data.length;
    for (const oldest of this.files.keys()) {
      if (this.files.size <= this.limits.files && this.bytes <= this.limits.bytes) break;
      if (oldest !== media.sid) this.forget(oldest);
    }
    return media;
  }

  /** The file at a media URL's path, if this account's message still has it. */
  at(accountSid: string, messageSid: string, mediaSid: string): StoredMedia | undefined {
    const media = this.files.get(mediaSid);
    return media && media.accountSid === accountSid && media.messageSid === messageSid ? media : undefined;
  }

  /** The files this account's message still has, oldest first. */
  of(accountSid: string, messageSid: string): StoredMedia[] {
    return [...this.files.values()].filter((media) => media.accountSid === accountSid && media.messageSid === messageSid);
  }

  /** Deletes a file (as deleting a Media resource on Twilio does). */
  forget(mediaSid: string): void {
    const media = this.files.get(mediaSid);
    if (!media) return;
    this.files.delete(mediaSid);
    this.bytes -= media.data.length;
  }

  /** A new short-lived token for the file's credential-free URL. */
  link(media: StoredMedia, now = Date.now()): string {
    for (const [token, link] of this.links) if (link.expiresAt <= now) this.links.delete(token);
    const token = randomBytes(24).toString('hex');
    this.links.set(token, { mediaSid: media.sid, expiresAt: now + this.limits.linkTtlMs });
    return token;
  }

  /** The file a token still opens. */
  byLink(token: string, now = Date.now()): StoredMedia | undefined {
    const link = this.links.get(token);
    if (!link || link.expiresAt <= now) return undefined;
    return this.files.get(link.mediaSid);
  }
}

/**
 * The files of outbound messages (MMS, WhatsApp media): the simulator never fetches a `MediaUrl`, so each
 * is kept as the URL it was sent, listed under its message's Media subresource as Twilio lists the files
 * it fetched, its content read as a 307 to that URL. What lets a black-box test see which media reached
 * the carrier.
 */
export interface SentMedia {
  sid: string;
  url: string;
  /** From the URL's extension (Twilio reads it from the file it fetched). */
  contentType: string;
}

/** Twilio's media resource as its Media list shows it. */
export function mediaView(accountSid: string, messageSid: string, media: { sid: string; contentType: string }, created: string) {
  return {
    account_sid: accountSid,
    content_type: media.contentType,
    date_created: created,
    date_updated: created,
    parent_sid: messageSid,
    sid: media.sid,
    uri: `/2010-04-01/Accounts/${accountSid}/Messages/${messageSid}/Media/${media.sid}.json`,
  };
}
