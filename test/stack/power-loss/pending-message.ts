import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { dataPaths } from '../../../src/paths';
import { eventually } from '../../support/stack';
import { callerOf, type PowerLossJourney, type PowerLossStack } from './journey';

/* A delayed message pending at the power loss: npm start, back on the same data, sends it, once. */

const BUSINESS = 'power';
const PHONE = '+14155550177';
const TEXT = 'After the power loss';

/** What npm start's simulator holds for `phone` under Twilio's message list: what it was handed since it started. */
async function simulatorMessagesTo(stack: PowerLossStack, phone: string): Promise<{ body: string }[]> {
  const { simulator } = JSON.parse(await readFile(dataPaths(stack.dataDir).stackLock, 'utf8')) as { simulator: { url: string; accountSid: string } };
  const token = (await readFile(join(stack.dataDir, 'dev-simulator-token'), 'utf8')).trim();
  const res = await fetch(`${simulator.url}/2010-04-01/Accounts/${simulator.accountSid}/Messages.json?To=${encodeURIComponent(phone)}&PageSize=100`, {
    headers: { authorization: `Basic ${Buffer.from(`${simulator.accountSid}:${token}`).toString('base64')}` },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { messages: { body: string }[] }).messages;
}

export function pendingMessage(): PowerLossJourney {
  let stack: PowerLossStack;
  let call: ReturnType<typeof callerOf>;
  let pending: string;

  return {
    before: 'npm start accepts a client to text',
    after: 'after kill -9 of every npm start process, npm start comes up on the same data and sends what was pending exactly once',

    async setUp(shared) {
      stack = shared;
      call = callerOf(stack, BUSINESS, 'crash-user');
      expect((await call('POST', '/clients', { _id: 'c1', phone: PHONE })).status).toBe(201);
    },

    async arm() {
      const accepted = await call('POST', '/messages', { message_type: 'text', client: 'c1', text_message: TEXT, delay: '5s' });
      expect(accepted.status).toBe(202);
      pending = accepted.body._id;
    },

    // The simulator came back with the stack: what it holds was handed to it after the power loss.
    async check() {
      await eventually(async () => (await call('GET', `/messages/${pending}`)).body.status === 'delivered', 60_000);
      expect((await simulatorMessagesTo(stack, PHONE)).map((m) => m.body)).toEqual([TEXT]);
    },
  };
}
