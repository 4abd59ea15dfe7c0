import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream/promises';
import { Writable } from 'node:stream';
import { fetchCarrierMedia } from '../../src/carriers/media-fetch';
import type { NumberCarriers } from '../../src/carriers/numbers';
import { type Carrier, CarrierRejected } from '../../src/carriers/types';
import type { Prisma } from '../../src/db/prisma';
import type { Scope } from '../../src/db/scope';
import { refusalOf, type UseCaseError } from '../../src/use-cases/errors';
import { inboundMedia } from '../../src/use-cases/messages/media';
import { startEndlessAnswer, type EndlessAnswer } from '../support/endless-answer';

/*
 * An inbound file streamed from a carrier's media host that never ends: the stream fails once it has
 * carried the cap (MEDIA_MAX_BYTES, 100 MiB; 1 MiB here) and the carrier's connection is closed. A file
 * whose Content-Length is over the cap is refused before any byte is streamed.
 */

const CAP = 1024 * 1024;
const BUFFERS = 16 * 1024 * 1024;
let endless: EndlessAnswer;
beforeAll(async () => {
  endless = await startEndlessAnswer({ headers: { 'content-type': 'image/jpeg' } });
});
afterAll(() => endless?.close());

const source = { carrier: 'Telnyx', allowed: () => true, maxBytes: CAP };

test('an endless media file fails once it passes the cap, and the carrier connection is closed', async () => {
  const before = endless.bytesSent;
  const closed = endless.nextClose();
  const file = await fetchCarrierMedia(`${endless.url}/media/1`, source);
  let received = 0;
  const sink = new Writable({ write: (chunk: Buffer, _encoding, done) => ((received += chunk.length), done()) });
  await expect(pipeline(file.body as NodeJS.ReadableStream, sink)).rejects.toMatchObject({ code: 'ERESPONSETOOLARGE' });
  await closed;
  expect(received).toBeLessThanOrEqual(CAP);
  expect(endless.bytesSent - before).toBeLessThan(CAP + BUFFERS);
});

test('a media file whose Content-Length is over the cap is refused before streaming', async () => {
  const big = createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': String(CAP + 1) }).end(Buffer.alloc(CAP + 1)));
  await new Promise<void>((resolve) => big.listen(0, '127.0.0.1', resolve));
  try {
    const fetched = fetchCarrierMedia(`http://127.0.0.1:${(big.address() as AddressInfo).port}/media/2`, source);
    await expect(fetched).rejects.toBeInstanceOf(CarrierRejected);
    await expect(fetched).rejects.toMatchObject({ code: 'media-too-large', message: "Telnyx's file is larger than this service streams" });
  } finally {
    big.closeAllConnections();
    big.close();
  }
});

describe('GET /messages/{_id}/media/{n} of a file over the cap', () => {
  const tooLarge: NumberCarriers = {
    forReceived: async () => ({ fetchMedia: async () => Promise.reject(new CarrierRejected('media-too-large', "Twilio's file is larger than this service streams")) }) as unknown as Carrier,
  } as unknown as NumberCarriers;

  test('answers its own 502 naming the cap, not the 404 of a file the carrier dropped', async () => {
    // The caller's inbound message with one file (the database is not this file's subject).
    const message = { direction: 'inbound', media: [{ url: 'https://api.twilio.com/media/1' }], business: 'acme', sender: null };
    const prisma = { message: { findFirst: async () => message } } as unknown as Prisma;
    const refused = await inboundMedia({ prisma, carriers: tooLarge }, {} as Scope, '7616bcb2-cfcf-48ac-9ea5-d07f6dce2ea4', '0').catch((error: UseCaseError) => error);
    expect(refusalOf(refused as UseCaseError)).toEqual({ status: 502, type: '/problems/media-too-large', detail: 'Media file is larger than 100 MiB' });
  });
});
