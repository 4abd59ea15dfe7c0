import { Context } from '@temporalio/activity';
import type { ActivityInboundCallsInterceptor } from '@temporalio/worker';
import { createWebhookProvider } from '../../src/activities/providers/webhook';
import { useOwnWorker } from '../support/own-worker';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

/*
 * A worker killed after the receiver accepted a message but before Temporal heard of it: the attempt
 * times out and is tried again. The retry must find the delivery recorded and not post it again.
 */
const own = useOwnWorker('redeliver');
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(() => receiver?.close());

/** The first attempt of the hand-over (`sendDue`, a local activity) does its work, then never reports back: a worker killed at that moment. */
const loseFirstDeliveryReport = (attempts: number[]): ActivityInboundCallsInterceptor => ({
  async execute(input, next) {
    const result = await next(input);
    const { activityType, attempt } = Context.current().info;
    if (activityType !== 'sendDue') return result;
    attempts.push(attempt);
    if (attempt === 1) await Context.current().cancelled;
    return result;
  },
});

test('a retry of an attempt whose report was lost after the receiver accepted the message does not post it again', async () => {
  const attempts: number[] = [];
  const { id, send } = await own.messageOnOwnWorker({ phone: '+14155550123', text: 'Once only' }, createWebhookProvider({ url: receiver.url }), {
    activity: [() => ({ inbound: loseFirstDeliveryReport(attempts) })],
  });
  await send();

  // The lost attempt is given up after its start-to-close timeout (13 s: the webhook's 10 s and a margin), then tried again.
  expect(attempts).toEqual([1, 2]);
  expect(receiver.requestsFor(id)).toHaveLength(1);
  const message = await own.prisma.message.findUniqueOrThrow({ where: { id } });
  expect(message).toEqual(expect.objectContaining({ status: 'sent', attempts: 1, providerRef: `rcv-${id}`, providerAcceptedAt: expect.any(Date) }));
}, 120_000);
