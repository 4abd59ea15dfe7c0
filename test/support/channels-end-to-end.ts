import { randomBytes } from 'node:crypto';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCarrier } from '../../src/carriers';
import { loadConfig } from '../../src/config/index';
import { expectProblem, waitForStatus as waitForMessageStatus } from './helpers';
import { originOf, startTestStack, type TestStack } from './stack';

/*
 * What the carriers' WhatsApp and MMS end-to-end suites share (test/carriers/channels-end-to-end-*.test.ts):
 * a whole stack whose carrier is built from its configuration, as a process builds it, with a shared
 * sender that carries WhatsApp; the flows of docs/messages.md ("Channels") as a CRM calls them; and, for
 * Twilio, whose signatures cover the URL it posts to, a forwarding origin that stands for the API.
 */

/** What a suite's stack adds to its carrier's settings: the shared sender carries every channel. */
export const CHANNELS_ENV = { SHARED_SENDER_CHANNELS: 'sms,mms,whatsapp' };

/** A stack whose worker sends and whose API verifies through `createCarrier(loadConfig(env))`, and alice's token. */
export async function startChannelsStack(env: Record<string, string>): Promise<{ stack: TestStack; token: string }> {
  const full = { ...env, ...CHANNELS_ENV };
  const carrier = createCarrier(loadConfig(full));
  if (!carrier) throw new Error(`no carrier for ${env.MESSAGE_PROVIDER}`);
  const stack = await startTestStack({ env: full, carrier });
  return { stack, token: stack.token('alice') };
}

/**
 * An origin that forwards every request, as is, to the API once it is known: PUBLIC_BASE_URL for a
 * carrier that signs the URL it posts to and posts to that URL itself (Twilio).
 */
export async function startForwarder(): Promise<{ url: string; target(origin: string): void; stop(): Promise<void> }> {
  let target: URL | undefined;
  const server: Server = createServer((req, res) => {
    if (!target) return void res.writeHead(502).end();
    const upstream = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    target: (origin) => void (target = new URL(origin)),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A client's picture: bytes of its own, so the file streamed back is known to be this one. */
export const pictureBytes = () => Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(2048)]);

/** Two public pictures a business sends by MMS. */
export const OUR_MEDIA = [{ url: 'https://cdn.example.com/menu.jpg' }, { url: 'https://cdn.example.com/map.png' }];

/** The template a suite registers: two variables, shown as this text. */
export const VISIT = { variables: ['1', '2'], body: 'Hello {{1}}, your appointment is on {{2}}.' };

/** The flows of the channels as the suite's caller (alice) runs them through the API; `context()` is read at each call. */
export function channelFlows(context: () => { stack: TestStack; token: string }) {
  const api = (method: string, path: string, body?: unknown) => context().stack.api(method, path, { token: context().token, ...(body !== undefined && { body }) });
  const send = (body: Record<string, unknown>) => api('POST', '/messages', { message_type: 'text', ...body });
  const waitForStatus = (id: string, status: string) => waitForMessageStatus(context().stack.api, context().token, id, status);
  const getMessage = async (id: string) => (await api('GET', `/messages/${id}`)).body;

  /** Accepted (202) and then handed to the carrier: the message as `sent`. */
  const sent = async (body: Record<string, unknown>) => {
    const res = await send(body);
    expect(res.status).toBe(202);
    return waitForStatus(res.body._id, 'sent');
  };

  /** A client `id` (phone `phone`) alice has texted once by SMS: its messages then come to her. */
  const textedClient = async (id: string, phone: string) => {
    expect((await api('POST', '/clients', { _id: id, name: 'Ada', phone })).status).toBe(201);
    return sent({ client: id, text_message: 'Thanks for your enquiry' });
  };

  /** The newest inbound message of a client. */
  const lastInbound = async (client: string) => (await api('GET', `/clients/${client}/messages?direction=inbound`)).body.messages[0];

  /** The client's WhatsApp consent, recorded a minute ago. */
  const consent = async (client: string) => {
    const res = await api('PUT', `/clients/${client}/consents/whatsapp`, { source: 'web form', at: new Date(Date.now() - 60_000).toISOString() });
    expect(res.status).toBe(200);
  };

  /** A template registered by the carrier's reference (`content_sid`, or `name` and `language`), with VISIT's variables and body unless told others. */
  const putTemplate = async (id: string, ref: Record<string, string>, shape: { variables: string[]; body: string } = VISIT) => {
    const res = await api('PUT', `/templates/${id}`, { ...ref, ...shape });
    expect(res.status).toBe(201);
    return res.body;
  };

  /** A WhatsApp message of template `id` (VISIT's unless told) to `client`. */
  const template = (client: string, variables: Record<string, string>, id = 'visit') => ({ client, channel: 'whatsapp', template: { _id: id, variables } });

  /** VISIT's template to a client who texted from `phone` first: refused until the client consents, then for a missing variable. */
  const expectTemplateRules = async (client: string, phone: string) => {
    await textedClient(client, phone);
    expectProblem(await send(template(client, { 1: 'Ada', 2: 'Tuesday' })), 409, new RegExp(`^Client ${client} has not opted in to WhatsApp`));
    await consent(client);
    expectProblem(await send(template(client, { 1: 'Ada' })), 400, 'Invalid template.variables: missing 2');
  };

  /** VISIT's template sent with its variables named out of order: the message shows the body they fill. */
  const sentVisit = async (client: string) => {
    const message = await sent(template(client, { 2: 'Tuesday', 1: 'Ada' }));
    expect(message).toMatchObject({ channel: 'whatsapp', text_message: 'Hello Ada, your appointment is on Tuesday.', template: { _id: 'visit', variables: { 1: 'Ada', 2: 'Tuesday' } } });
    return message;
  };

  /** The n-th file of an inbound message through the API, at the URL its view names. */
  const fetchMedia = async (message: { media: { url: string }[] }, n = 0) => {
    const { stack, token } = context();
    const res = await fetch(`${originOf(stack)}${message.media[n].url}`, { headers: { authorization: `Bearer ${token}` } });
    return { status: res.status, contentType: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
  };

  /** The message's events in the feed, by type. */
  const eventTypesOf = async (id: string): Promise<string[]> => (await api('GET', '/events?type=message.*&limit=100')).body.events.filter((e: any) => e.data._id === id).map((e: any) => e.type);

  /** The phone's opt-outs, per sender and channel. */
  const optOutsOf = async (phone: string) => (await api('GET', `/opt-outs?phone=${encodeURIComponent(phone)}`)).body.opt_outs;

  /** The 409 of a free WhatsApp text to a client who has not written on WhatsApp within 24 hours. */
  const expectOutsideWindow = async (body: Record<string, unknown>) =>
    expectProblem(await send({ channel: 'whatsapp', text_message: 'Are you still there?', ...body }), 409, "Outside WhatsApp's 24-hour window: send an approved template");

  return { api, send, sent, waitForStatus, getMessage, textedClient, lastInbound, consent, putTemplate, template, expectTemplateRules, sentVisit, fetchMedia, eventTypesOf, optOutsOf, expectOutsideWindow };
}

/**
 * Runs `body` while the suite's business has an RCS sender: `number` (carrying SMS, MMS and RCS) with its
 * RCS agent and messaging service or profile. Every send of the business then goes from it, so a suite
 * runs this last; the number is retired after.
 */
export async function withRcsNumber(stack: TestStack, registration: { number: string; carrier: string; rcsAgent: string; messagingServiceSid?: string }, body: () => Promise<void>): Promise<void> {
  const { number, carrier, rcsAgent, messagingServiceSid } = registration;
  await stack.prisma.businessNumber.create({ data: { business: stack.business, number, carrier, channels: ['sms', 'mms', 'rcs'], rcsAgent, messagingServiceSid: messagingServiceSid ?? null } });
  try {
    await body();
  } finally {
    await stack.prisma.businessNumber.updateMany({ where: { number, business: stack.business }, data: { activeSlot: null, retiredAt: new Date() } });
  }
}
