import * as http from 'node:http';
import * as https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, buildConnector, type Dispatcher } from 'undici';
import { CRM_ANSWER_MAX_BYTES, ResponseTooLarge } from './capped-body';
import { causesOf } from './causes';
import { wholeAnswerInterceptor } from './whole-answer';
import { crmEndpointsOf, webhookSettingsOf, type Config } from '../config/index';
import { isLocalName, isPublicAddress, systemLookup, type HostLookup } from './public-address';

/*
 * How the service reaches addresses a business chose (webhook receivers, CRM APIs): the public-address
 * guard applied where the socket is opened. The name is resolved once, by the lookup the socket then
 * connects with, so no answer checked earlier can be swapped for a private one later (DNS rebinding);
 * a literal address, which sockets connect to without any lookup, is judged before connecting. Every
 * client the service uses goes through one of these: undici's fetch (webhooks, jsforce) through
 * `dispatcher`, node:http (the HubSpot SDK, axios under Pipedrive's SDK) through `agentFor`.
 */

/** Why a connection was not opened: the address is not public. Its `code` travels inside the clients' own errors. */
export const NON_PUBLIC_ADDRESS = 'ENONPUBLIC';

export class NonPublicAddressRefused extends Error {
  readonly code = NON_PUBLIC_ADDRESS;
  constructor() {
    super('Address is not public: private, loopback and link-local addresses are refused');
    this.name = 'NonPublicAddressRefused';
  }
}

/** The guard's refusal, however deep a client wrapped it (fetch's TypeError, axios's AxiosError …). */
export function isNonPublicAddressRefusal(error: unknown): boolean {
  return causesOf(error).some((cause) => (cause as { code?: unknown }).code === NON_PUBLIC_ADDRESS);
}

export interface OutboundNetwork {
  /** Private, loopback and link-local addresses are refused at connect time. */
  publicOnly: boolean;
  /** How names are resolved, before (a check that answers early) and at connect time. */
  lookup: HostLookup;
  /** For undici's fetch: with `maxResponseBytes`, each answer read whole to it before fetch sees it (jsforce's). */
  dispatcher: Dispatcher;
  /** For node:http and node:https clients (axios takes both). */
  readonly httpAgent: http.Agent;
  readonly httpsAgent: https.Agent;
  /** The one of the two for this URL's protocol. */
  agentFor(url: string | URL): http.Agent;
}

const stripBrackets = (host: string) => host.replace(/^\[|\]$/g, '');

/** The refusal of a literal address or a local name, or undefined when the host is left to the lookup. */
function refusalOfHost(host: string): NonPublicAddressRefused | undefined {
  const bare = stripBrackets(host);
  const refused = isIP(bare) ? !isPublicAddress(bare) : isLocalName(bare);
  return refused ? new NonPublicAddressRefused() : undefined;
}

const familyOf = (family: unknown) => (family === 4 || family === 'IPv4' ? 4 : family === 6 || family === 'IPv6' ? 6 : 0);

/** A `dns.lookup` for sockets: `resolve`'s answer, refused whole when any address in it is not public. */
function connectLookup(resolve: HostLookup, publicOnly: boolean): LookupFunction {
  return (hostname, options, callback) => {
    const wanted = familyOf(options?.family);
    const answer = async () => {
      if (publicOnly && refusalOfHost(hostname)) throw new NonPublicAddressRefused();
      const addresses = (await resolve(hostname)).map(({ address }) => ({ address, family: isIP(address) }));
      if (publicOnly && addresses.some(({ address }) => !isPublicAddress(address))) throw new NonPublicAddressRefused();
      const usable = addresses.filter(({ family }) => family !== 0 && (wanted === 0 || family === wanted));
      if (usable.length === 0) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
      return usable;
    };
    answer().then(
      (usable) => (options?.all ? callback(null, usable) : callback(null, usable[0].address, usable[0].family)),
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };
}

const HEADERS_ALLOWANCE = 64 * 1024;

/**
 * The agent's sockets, guarded and capped: a socket that receives more than `maxBytes` between two
 * requests (an answer, its headers included) is destroyed with ResponseTooLarge, which the client reports.
 */
function guardedAgent<A extends http.Agent>(agent: A, publicOnly: boolean, maxBodyBytes: number | undefined): A {
  if (!publicOnly && maxBodyBytes === undefined) return agent;
  // The socket carries the headers too: room for them, so that a client's own body cap (axios's) speaks first.
  const maxBytes = maxBodyBytes === undefined ? undefined : maxBodyBytes + HEADERS_ALLOWANCE;
  const open = agent.createConnection.bind(agent);
  const received = new WeakMap<object, number>();
  if (maxBytes !== undefined) agent.on('free', (socket: object) => received.set(socket, 0));
  agent.createConnection = (options, callback) => {
    const refusal = publicOnly ? refusalOfHost(String(options.host ?? options.hostname ?? '')) : undefined;
    if (refusal) {
      process.nextTick(() => callback?.(refusal, undefined as never));
      return undefined;
    }
    const socket = open(options, callback);
    if (socket && maxBytes !== undefined) {
      socket.on('data', (chunk: Buffer) => {
        const total = (received.get(socket) ?? 0) + chunk.length;
        received.set(socket, total);
        if (total <= maxBytes!) return;
        // The answer itself fails with the reason (a socket's own error would reach it as a bare ECONNRESET).
        const error = new ResponseTooLarge(maxBodyBytes!);
        (socket as { _httpMessage?: { res?: { destroy(error: Error): void } } })._httpMessage?.res?.destroy(error);
        socket.destroy(error);
      });
    }
    return socket;
  };
  return agent;
}

let publicOnlyDefault: OutboundNetwork | undefined;
/** The guard with the system's resolver, shared by the clients built without a network of their own. */
export const publicOnlyNetwork = () => (publicOnlyDefault ??= outboundNetwork({ publicOnly: true }));
let publicOnlyCrmDefault: OutboundNetwork | undefined;
/** The same for the CRMs' SDKs, their answers capped at CRM_ANSWER_MAX_BYTES. */
export const publicOnlyCrmNetwork = () => (publicOnlyCrmDefault ??= outboundNetwork({ publicOnly: true, maxResponseBytes: CRM_ANSWER_MAX_BYTES }));

/**
 * The guard (or, with `publicOnly` false, the same clients without it, for development and tests' fakes).
 * `maxResponseBytes`: the largest answer it reads. Its node:http agents cut the socket at it (the SDKs
 * that read whole answers themselves: HubSpot's, axios under Pipedrive's); its undici dispatcher reads
 * each answer whole before fetch sees it (jsforce, which pipes a body without an error handler, so one
 * cut off midway would crash the process), so an answer over it is a fetch that rejects.
 */
export function outboundNetwork(options: { publicOnly: boolean; lookup?: HostLookup; maxResponseBytes?: number }): OutboundNetwork {
  const { publicOnly, lookup = systemLookup, maxResponseBytes } = options;
  const socketLookup = connectLookup(lookup, publicOnly);
  let dispatcher: Dispatcher | undefined;
  let agents: { http: http.Agent; https: https.Agent } | undefined;
  const agentsOf = () =>
    (agents ??= {
      http: guardedAgent(new http.Agent({ keepAlive: true, lookup: socketLookup }), publicOnly, maxResponseBytes),
      https: guardedAgent(new https.Agent({ keepAlive: true, lookup: socketLookup }), publicOnly, maxResponseBytes),
    });
  return {
    publicOnly,
    lookup,
    get dispatcher() {
      if (!dispatcher) {
        // jsforce's own choice (it speaks HTTP/1.1 to Salesforce), kept for every client.
        const connect = buildConnector({ allowH2: false, lookup: socketLookup });
        const agent = new Agent({
          connect: (connectOptions, callback) => {
            const refusal = publicOnly ? refusalOfHost(connectOptions.hostname) : undefined;
            if (refusal) return callback(refusal, null);
            connect(connectOptions, callback);
          },
        });
        dispatcher = maxResponseBytes === undefined ? agent : agent.compose(wholeAnswerInterceptor(maxResponseBytes));
      }
      return dispatcher;
    },
    get httpAgent() {
      return agentsOf().http;
    },
    get httpsAgent() {
      return agentsOf().https;
    },
    agentFor: (url) => (new URL(url).protocol === 'https:' ? agentsOf().https : agentsOf().http),
  };
}

/** The networks of a process: its event webhooks' and `webhook` provider's (WEBHOOK_ALLOW_PRIVATE_URLS), its CRMs' (CRM_ALLOW_PRIVATE_URLS). */
export function outboundNetworksOf(config: Config, lookup?: HostLookup): { webhooks: OutboundNetwork; crm: OutboundNetwork } {
  return {
    webhooks: outboundNetwork({ publicOnly: !webhookSettingsOf(config).allowPrivateUrls, lookup }),
    crm: outboundNetwork({ publicOnly: !crmEndpointsOf(config).allowPrivateUrls, lookup, maxResponseBytes: CRM_ANSWER_MAX_BYTES }),
  };
}
