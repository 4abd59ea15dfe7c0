import { type ReceiptFacts, type ReceiptTarget, receiptStep } from '../../src/domain/message-receipts';

/* A carrier's receipt as a rule (src/domain/message-receipts.ts): what it does to its message, each case a row, no database. */

const SENDING: ReceiptTarget = { status: 'sending', provider: null, providerRef: null, sender: '+15559999' };
const SENT: ReceiptTarget = { status: 'sent', provider: 'twilio', providerRef: 'SM1', sender: '+15559999' };
const receipt = (status: ReceiptFacts['status'], fields: Partial<ReceiptFacts> = {}): ReceiptFacts => ({ provider: 'twilio', providerRef: 'SM1', status, ...fields });

test.each([
  ['delivered on a sent message moves it', SENT, receipt('delivered'), 'move'],
  ['undelivered on a sent message moves it', SENT, receipt('undelivered'), 'move'],
  ['a final receipt that overtakes the run (still sending) moves it', SENDING, receipt('failed'), 'move'],
  ['sent on a message still sending records the reference only', SENDING, receipt('sent'), 'reference'],
  ['sent on a message that has its reference changes nothing', { ...SENDING, providerRef: 'SM1' }, receipt('sent'), 'ignore'],
  ['sent on a sent message changes nothing', SENT, receipt('sent'), 'ignore'],
  ['a repeat of a final status changes nothing', { ...SENT, status: 'delivered' }, receipt('delivered'), 'ignore'],
  ['an older status after a final one changes nothing', { ...SENT, status: 'failed' }, receipt('delivered'), 'ignore'],
  ['WhatsApp read moves a delivered message on', { ...SENT, status: 'delivered' }, receipt('read'), 'move'],
  ['nothing moves a read message', { ...SENT, status: 'read' }, receipt('delivered'), 'ignore'],
  ['another carrier\'s receipt is not this message\'s', SENT, receipt('delivered', { provider: 'telnyx' }), 'ignore'],
  ['another reference is not this message\'s (a body replayed to another URL)', SENT, receipt('delivered', { providerRef: 'SM2' }), 'ignore'],
  ['a receipt for another of our numbers does not move it', SENT, receipt('delivered', { sender: '+15558888' }), 'ignore'],
  ['a receipt for its number moves it', SENT, receipt('delivered', { sender: '+15559999' }), 'move'],
  ['a messaging service\'s message moves by any number\'s receipt', { ...SENT, sender: 'MG123' }, receipt('delivered', { sender: '+15558888' }), 'move'],
  ['an RCS fallback copy\'s receipt (its own reference) moves the RCS message', SENT, receipt('delivered', { providerRef: 'SM2', fallback: true }), 'move'],
  ['a fallback copy\'s receipt from another carrier does not', SENT, receipt('delivered', { provider: 'telnyx', providerRef: 'SM2', fallback: true }), 'ignore'],
  ['a canceled message never moves', { ...SENDING, status: 'canceled' }, receipt('delivered'), 'ignore'],
] as const)('%s', (_name, message, facts, step) => {
  expect(receiptStep(message, facts)).toBe(step);
});
