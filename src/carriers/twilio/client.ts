import type twilio from 'twilio';
import type RequestClient from 'twilio/lib/base/RequestClient';
import type Response from 'twilio/lib/http/response';
import { CARRIER_ANSWER_MAX_BYTES, isResponseTooLarge } from '../../net/capped-body';
import { retryAfterMs } from '../../retry-after';
import { CarrierAnswerTooLarge } from '../answer-cap';
import { classifyTwilioAnswer } from './errors';

/** The REST API's origin, with the edge and region the SDK may have put in it (TWILIO_EDGE, TWILIO_REGION). */
export const TWILIO_API_HOST = /^https:\/\/api(\.[a-z0-9-]+)*\.twilio\.com/;
/** The Messaging API's origin (Messaging Services, A2P brands and campaigns, toll-free verifications), likewise: served where the REST base is. */
const TWILIO_MESSAGING_HOST = /^https:\/\/messaging(\.[a-z0-9-]+)*\.twilio\.com/;
/** The Content API's origin (WhatsApp templates), likewise. */
const TWILIO_CONTENT_HOST = /^https:\/\/content(\.[a-z0-9-]+)*\.twilio\.com/;

export interface TwilioCredentials {
  accountSid: string;
  /** The account's auth token (it also signs Twilio's callbacks). */
  authToken?: string;
  /** An API key for the REST calls instead of the auth token. */
  apiKey?: { sid: string; secret: string };
  /** Another REST base than https://api.twilio.com (a regional edge, a test double). */
  apiUrl?: string;
  /** Another Content API base than https://content.twilio.com (a test double, the simulator). */
  contentApiUrl?: string;
  timeoutMs?: number;
}

// Loaded on first use: a process that never talks to Twilio does without the SDK's modules.
export const twilioSdk = () => require('twilio') as typeof twilio;

/** `uri` with its origin replaced by `base` when `host` matches it and a base is given. */
function rebased(uri: string, host: RegExp, base: string | undefined): string | undefined {
  const origin = base && host.exec(uri)?.[0];
  return origin ? base.replace(/\/+$/, '') + uri.slice(origin.length) : undefined;
}

/**
 * The SDK's own HTTP client (auth, form encoding, paging) with two changes: requests for Twilio's REST
 * base and its Messaging API go to `apiUrl` instead (and the Content API's to `contentApiUrl`), and an answer that is not a
 * success becomes CarrierRejected or CarrierUnavailable here, where its status, its code and its
 * Retry-After header are still at hand (the SDK's RestException keeps Twilio's message text and drops
 * the headers); an answer over CARRIER_ANSWER_MAX_BYTES (axios's `maxContentLength`, the connection
 * closed) is CarrierAnswerTooLarge with its status.
 */
const httpClientClass = () => class TwilioHttpClient extends twilioSdk().RequestClient {
  constructor(
    private readonly apiUrl: string | undefined,
    private readonly contentApiUrl: string | undefined,
    timeoutMs: number,
  ) {
    super({ timeout: timeoutMs, keepAlive: true, autoRetry: false });
    this.axios.defaults.maxContentLength = CARRIER_ANSWER_MAX_BYTES;
  }

  override async request<TData>(opts: RequestClient.RequestOptions<TData>): Promise<Response<TData>> {
    const uri = rebased(opts.uri, TWILIO_API_HOST, this.apiUrl) ?? rebased(opts.uri, TWILIO_MESSAGING_HOST, this.apiUrl) ?? rebased(opts.uri, TWILIO_CONTENT_HOST, this.contentApiUrl) ?? opts.uri;
    // Never the SDK's debug log (TWILIO_LOG_LEVEL=debug): it prints requests, numbers and texts included.
    let response: Response<TData>;
    try {
      response = await super.request({ ...opts, uri, logLevel: undefined });
    } catch (error) {
      // axios's refusal keeps the request, whose answer has the status.
      if (isResponseTooLarge(error)) throw new CarrierAnswerTooLarge('Twilio', (error as { request?: { res?: { statusCode?: number } } }).request?.res?.statusCode ?? 0);
      throw error;
    }
    if (response.statusCode >= 200 && response.statusCode < 300) return response;
    const body = typeof response.body === 'string' ? safeJson(response.body) : (response.body as unknown);
    const code = (body as { code?: number | string } | null)?.code;
    throw classifyTwilioAnswer(response.statusCode, code, retryAfterMs((response.headers as Record<string, string | undefined>)?.['retry-after']));
  }
};

let TwilioHttpClient: ReturnType<typeof httpClientClass> | undefined;

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** The official client: the auth token, or an API key and secret with the account SID. */
export function twilioClient(credentials: TwilioCredentials): twilio.Twilio {
  TwilioHttpClient ??= httpClientClass();
  const httpClient = new TwilioHttpClient(credentials.apiUrl, credentials.contentApiUrl, credentials.timeoutMs ?? 10_000);
  const { username, password } = basicCredentials(credentials);
  return twilioSdk()(username, password, { accountSid: credentials.accountSid, httpClient });
}

/** The REST calls' Basic credentials: the API key when there is one, else the account SID and auth token. */
export function basicCredentials(credentials: TwilioCredentials): { username: string; password: string } {
  const [username, password] = credentials.apiKey ? [credentials.apiKey.sid, credentials.apiKey.secret] : [credentials.accountSid, credentials.authToken];
  if (!password) throw new Error('Twilio needs TWILIO_AUTH_TOKEN or TWILIO_API_KEY_SID and TWILIO_API_KEY_SECRET');
  return { username, password };
}
