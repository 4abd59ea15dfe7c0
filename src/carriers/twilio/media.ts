import { MEDIA_MAX_BYTES } from '../../net/capped-body';
import { cappedBody } from '../media-fetch';
import type twilio from 'twilio';
import { retryAfterMs } from '../../retry-after';
import { CarrierRejected, CarrierUnavailable, type FetchedMedia } from '../types';
import { basicCredentials, type TwilioCredentials } from './client';
import { twilioCodeMeaning } from './errors';

/*
 * An inbound message's file, from Twilio. Only a media URL of the account's REST base (Twilio's, or
 * TWILIO_API_URL, where a URL on Twilio's own is sent as every REST call is): `/2010-04-01/Accounts/
 * <this account, or one of its subaccounts>/Messages/<MM|SM…>/Media/<ME…>`, asked with the account's
 * Basic credentials. Twilio answers with a redirect to a short-lived URL on its CDN, which is followed
 * (a few hops at most, https only unless the base itself is a plain-http test double) without the
 * credentials. The body is streamed through, never held whole.
 */

const TWILIO_REST = 'https://api.twilio.com';
const MEDIA_PATH = /^\/2010-04-01\/Accounts\/(AC[0-9a-f]{32})\/Messages\/(?:MM|SM)[0-9a-f]{32}\/Media\/ME[0-9a-f]{32}$/;
const MAX_REDIRECTS = 3;
/** Accounts checked for being our subaccounts, kept at most this many. */
const MAX_KNOWN_ACCOUNTS = 1000;

const NOT_OURS = 'The media URL is not one of this Twilio account\'s media files';
const GONE = 'Twilio no longer has this media file';

function sizeOf(header: string | null): number | null {
  const size = header === null ? NaN : Number(header);
  return Number.isSafeInteger(size) && size >= 0 ? size : null;
}

/** A refusal of the media request: at Twilio (`first`: the credentialed hop) or at the redirect's target. */
function failure(status: number, first: boolean, retryAfter: string | null): Error {
  if (status === 404 || status === 410) return new CarrierRejected('20404', GONE);
  if (status === 408 || status === 429 || status >= 500) return new CarrierUnavailable(`Twilio's media answered HTTP ${status}`, retryAfterMs(retryAfter ?? undefined));
  if (first && (status === 401 || status === 403)) return new CarrierRejected('20003', twilioCodeMeaning('20003')!);
  // A short-lived link refused (expired on the way): the next attempt is given a new one.
  if (!first) return new CarrierUnavailable(`Twilio's media link answered HTTP ${status}`);
  return new CarrierRejected(`http-${status}`, `Twilio refused the media request (HTTP ${status})`);
}

async function get(url: URL, headers: Record<string, string>, timeoutMs: number): Promise<Response> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  try {
    return await fetch(url, { headers, redirect: 'manual', signal: abort.signal });
  } catch (error) {
    const cause = (error as { cause?: { code?: unknown } }).cause;
    const code = abort.signal.aborted ? 'timeout' : typeof cause?.code === 'string' ? cause.code : 'error';
    throw new CarrierUnavailable(`Twilio unreachable: ${code}`);
  } finally {
    // Only the answer's headers are timed: the body streams for as long as it takes.
    clearTimeout(timer);
  }
}

export function twilioMediaFetcher(settings: TwilioCredentials, client: twilio.Twilio): (url: string) => Promise<FetchedMedia> {
  const base = settings.apiUrl ? new URL(settings.apiUrl) : undefined;
  const basePath = base ? base.pathname.replace(/\/+$/, '') : '';
  const accounts = new Map<string, Promise<boolean>>();

  /** The media path of `url`, if it is on the REST base, and where to ask for it. */
  function locate(url: string): { account: string; target: URL } | undefined {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return undefined;
    }
    if (parsed.search || parsed.hash || parsed.username || parsed.password) return undefined;
    const path =
      parsed.origin === TWILIO_REST ? parsed.pathname
      : base && parsed.origin === base.origin && parsed.pathname.startsWith(`${basePath}/`) ? parsed.pathname.slice(basePath.length)
      : undefined;
    const account = path === undefined ? undefined : MEDIA_PATH.exec(path)?.[1];
    if (!account) return undefined;
    return { account, target: new URL((base ? base.origin + basePath : TWILIO_REST) + path) };
  }

  /** This account, or one Twilio says is its subaccount (asked once per account). */
  function ours(account: string): Promise<boolean> {
    if (account === settings.accountSid) return Promise.resolve(true);
    let known = accounts.get(account);
    if (!known) {
      if (accounts.size >= MAX_KNOWN_ACCOUNTS) accounts.clear();
      known = client.api.v2010
        .accounts(account)
        .fetch()
        .then(
          (found) => found.ownerAccountSid === settings.accountSid,
          (error: unknown) => {
            if (error instanceof CarrierRejected) return false;
            accounts.delete(account);
            throw error instanceof CarrierUnavailable ? error : new CarrierUnavailable('Twilio unreachable: error');
          },
        );
      accounts.set(account, known);
    }
    return known;
  }

  return async (url) => {
    const located = locate(url);
    if (!located || !(await ours(located.account))) throw new CarrierRejected('media-url', NOT_OURS);
    const { username, password } = basicCredentials(settings);
    const plainHttp = located.target.protocol === 'http:';
    let target = located.target;
    let headers: Record<string, string> = { authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}` };
    for (let hop = 0; ; hop++) {
      const response = await get(target, headers, settings.timeoutMs ?? 10_000);
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location) {
        await response.body?.cancel();
        if (hop >= MAX_REDIRECTS) throw new CarrierUnavailable('Twilio redirected the media request too many times');
        target = new URL(location, target);
        if (target.protocol !== 'https:' && !(plainHttp && target.protocol === 'http:')) throw new CarrierRejected('media-redirect', 'Twilio redirected the media request to a URL that is not https');
        // The credentials are Twilio's alone: never sent to where it redirects.
        headers = {};
        continue;
      }
      if (response.status >= 200 && response.status < 300) {
        const size = sizeOf(response.headers.get('content-length'));
        if (size !== null && size > MEDIA_MAX_BYTES) {
          await response.body?.cancel();
          throw new CarrierRejected('media-too-large', "Twilio's file is larger than this service streams");
        }
        return { contentType: response.headers.get('content-type'), size, body: cappedBody(response.body, MEDIA_MAX_BYTES) };
      }
      await response.body?.cancel();
      throw failure(response.status, hop === 0, response.headers.get('retry-after'));
    }
  };
}
