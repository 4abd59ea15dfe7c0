import { startTestStack, type TestStack } from '../../support/stack';

/* What accept stores besides the request: the text's SMS encoding and parts, shown by the message view. */

let stack: TestStack;
let alice: string;

beforeAll(async () => {
  stack = await startTestStack();
  alice = stack.token('alice');
});
afterAll(() => stack.stop());

test.each([
  ['a GSM-7 text of one part', 'Hello Ada, your order has shipped.', 'GSM-7', 1],
  ['a GSM-7 text of 161 septets (a € counts two)', `${'a'.repeat(159)}€`, 'GSM-7', 2],
  ['a text with an emoji', 'See you soon 😀', 'UCS-2', 1],
  ['a UCS-2 text of 71 code units', 'á'.repeat(71), 'UCS-2', 2],
])('%s: the view shows its encoding and segments from accept', async (_name, text, encoding, segments) => {
  const sent = await stack.api('POST', '/messages', { token: alice, body: { message_type: 'text', client_phone: '+14155550123', text_message: text, delay: '1h' } });
  expect(sent.status).toBe(202);
  const view = (await stack.api('GET', `/messages/${sent.body._id}`, { token: alice })).body;
  expect(view).toEqual(expect.objectContaining({ status: 'scheduled', encoding, segments }));
});
