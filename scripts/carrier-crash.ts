import { randomBytes } from 'node:crypto';
import { TwilioApi } from '../src/stack/simulator/twilio-api';
import { log, sleep, startProcessStack } from './process-stack';

/*
 * npm run fault:carrier -- [messages=200] [answer delay ms=300]
 *
 * Duplicates under kill -9 of the worker while it sends through Twilio. PostgreSQL, a Temporal dev
 * server, `dist/main/api.js` and `dist/main/worker.js` as separate processes, MESSAGE_PROVIDER=twilio
 * with TWILIO_API_URL at a Twilio-compatible fake in this process. The fake answers each send after a
 * delay (a slow network), so that kills land between Twilio creating a message and the worker recording
 * it. The messages (one text per recipient) come due over max(30 s, count/4 s); the worker is
 * killed with SIGKILL at random moments (every 1.5–5.5 s) and restarted at once, until every message is
 * sent. Printed: messages, kills, messages that needed more than one attempt, lookups made, lookups
 * made after Twilio had created the copy (sends a blind retry would have duplicated), and numbers
 * Twilio received a text for twice (duplicates).
 */

const COUNT = Number(process.argv[2] ?? 200);
const ANSWER_DELAY_MS = Number(process.argv[3] ?? 300);
const SPREAD_S = Math.max(30, Math.ceil(COUNT / 4));
const DRAIN_MS = 10 * 60_000;

async function main() {
  const accountSid = `AC${randomBytes(16).toString('hex')}`;
  const authToken = randomBytes(16).toString('hex');
  const from = '+15005550006';
  const twilio = new TwilioApi({ accountSid, authToken, from: [from], answerDelayMs: ANSWER_DELAY_MS });
  const twilioUrl = await twilio.start();

  const stack = await startProcessStack({
    name: 'crash',
    dirPrefix: 'crm-carrier-crash-',
    user: 'crash-user',
    env: {
      MESSAGE_PROVIDER: 'twilio',
      TWILIO_ACCOUNT_SID: accountSid,
      TWILIO_AUTH_TOKEN: authToken,
      TWILIO_FROM: from,
      TWILIO_API_URL: twilioUrl,
      // Receipts are not exercised here: nothing listens there.
      PUBLIC_BASE_URL: 'http://127.0.0.1:9',
    },
  });
  const { call } = stack;
  const phoneOf = (n: number) => `+1415${String(5_000_000 + n).padStart(7, '0')}`;

  const ids: string[] = [];
  for (let n = 0; n < COUNT; n++) {
    for (;;) {
      // Due over the next SPREAD_S seconds, while the worker is being killed.
      const delay = `${Math.floor((n / COUNT) * SPREAD_S) + 5}s`;
      const answer = await call('POST', '/messages', { message_type: 'text', client_phone: phoneOf(n), text_message: `crash test ${n}`, delay }).catch(() => undefined);
      if (answer?.status === 202) {
        ids.push(String(answer.body._id));
        break;
      }
      await sleep(500);
    }
  }
  log(`${ids.length} messages accepted; killing the worker at random moments until all are sent`);

  let kills = 0;
  const statusOf = async (id: string) => String((await call('GET', `/messages/${id}`).catch(() => undefined))?.body.status ?? 'unknown');
  const unsent = async () => (await Promise.all(ids.map(async (id) => ((await statusOf(id)) === 'sent' ? undefined : id)))).filter(Boolean);
  const drainUntil = Date.now() + DRAIN_MS;
  let killing = true;
  const killer = (async () => {
    while (killing) {
      // A restarted worker needs a moment to poll again: kills come every 1.5–5.5 s.
      await sleep(1500 + Math.random() * 4000);
      if (!killing) break;
      await stack.killProcess('worker');
      kills += 1;
      stack.startProcess('worker');
    }
  })();
  // Kill while sends go on; stop killing once the sends made so far reach the count.
  while (twilio.messages.length < ids.length && Date.now() < drainUntil) await sleep(200);
  killing = false;
  await killer;
  let left = await unsent();
  while (left.length && Date.now() < drainUntil) {
    await sleep(2000);
    left = await unsent();
  }

  const copies = new Map<string, number>();
  for (const message of twilio.messages) copies.set(message.to, (copies.get(message.to) ?? 0) + 1);
  const duplicated = [...copies.values()].filter((count) => count > 1).length;
  const lookups = twilio.requests.filter((request) => request.method === 'GET');
  const rows = await Promise.all(ids.map((id) => call('GET', `/messages/${id}`)));
  const retried = rows.filter((row) => Number(row.body.attempts) > 1).length;
  // A lookup saved a send when Twilio had already created the copy (a POST for that number answered 201 came
  // first): a blind retry would have sent it twice. The other lookups found nothing and the retry sent it.
  const saved = new Set(
    lookups
      .filter((lookup) => twilio.requests.slice(0, twilio.requests.indexOf(lookup)).some((earlier) => earlier.method === 'POST' && earlier.status === 201 && earlier.params.To === lookup.params.To))
      .map((lookup) => lookup.params.To),
  ).size;
  const figures = {
    messages: ids.length,
    answerDelayMs: ANSWER_DELAY_MS,
    workerKills: kills,
    notSent: left.length,
    retried,
    lookups: lookups.length,
    sendsSavedByLookup: saved,
    duplicated,
    duplicateRate: duplicated / ids.length,
  };
  console.log(JSON.stringify(figures, null, 2));

  await stack.stop();
  await twilio.stop();
  process.exit(left.length || duplicated ? 1 : 0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
