import { webhookBody } from '../../src/activities/providers/types';
import { Invalid } from '../../src/use-cases/errors';
import { parseSuggestions } from '../../src/use-cases/messages/channel-request';
import { storedContent } from '../../src/use-cases/messages/content-at-send';
import { parseMessageRequest } from '../../src/use-cases/messages/request';
import { messageView } from '../../src/views/message';
import { senderLacks } from '../../src/use-cases/messages/channel-rules';
import { deliveredChannelOf } from '../../src/db/messages/receipts';

/* RCS's rules without a server (docs/design.md, "RCS with SMS fallback"): suggested replies, what is stored and handed to the carrier, what a message shows. */

const chip = (text: string, postback_data?: string) => ({ text, ...(postback_data !== undefined && { postback_data }) });

test.each([
  ['absent', undefined, 'rcs', []],
  ['null', null, 'rcs', []],
  ['a reply with its postback', [chip('Yes', 'confirm')], 'rcs', [chip('Yes', 'confirm')]],
  ['a reply without postback', [chip('Another time')], 'rcs', [chip('Another time')]],
] as const)('parseSuggestions: %s', (_name, value, channel, parsed) => {
  expect(parseSuggestions(value, channel)).toEqual(parsed);
});

test.each([
  ['on SMS', [chip('Yes')], 'sms', 'Invalid suggestions: only an RCS message ("channel": "rcs") carries suggested replies'],
  ['on WhatsApp', [chip('Yes')], 'whatsapp', 'Invalid suggestions: only an RCS message ("channel": "rcs") carries suggested replies'],
  ['empty', [], 'rcs', 'Invalid suggestions: must be an array of at most 10 objects { "text", "postback_data"? }'],
  ['eleven', Array.from({ length: 11 }, (_, k) => chip(`Option ${k}`)), 'rcs', 'Invalid suggestions: must be an array of at most 10 objects { "text", "postback_data"? }'],
  ['not objects', ['Yes'], 'rcs', 'Invalid suggestions: must be an array of at most 10 objects { "text", "postback_data"? }'],
  ['a blank text', [chip(' ')], 'rcs', 'Invalid suggestions[0].text: must be a non-empty string of at most 25 characters'],
  ['26 characters', [chip('x'.repeat(26))], 'rcs', 'Invalid suggestions[0].text: must be a non-empty string of at most 25 characters'],
  ['a repeated text', [chip('Yes'), chip('Yes', 'again')], 'rcs', 'Invalid suggestions[1].text: repeats another suggestion'],
  ['a postback of 201', [chip('Yes', 'p'.repeat(201))], 'rcs', 'Invalid suggestions[0].postback_data: must be a non-empty string of at most 200 characters'],
] as const)('parseSuggestions refuses %s', (_name, value, channel, detail) => {
  expect(() => parseSuggestions(value, channel)).toThrow(new Invalid(detail));
});

test('25 characters of emoji are 25 characters, not 50 UTF-16 units', () => {
  expect(parseSuggestions([chip('👍'.repeat(25))], 'rcs')).toHaveLength(1);
});

test('an RCS request keeps channel, media and suggestions, and its fingerprint names them; an SMS request hashes as before RCS', async () => {
  const request = await parseMessageRequest(
    { message_type: 'text', client_phone: '+14155550100', channel: 'rcs', text_message: 'Table for two at 7?', media: [{ url: 'https://cdn.example.com/menu.jpg' }], suggestions: [chip('Yes', 'confirm')] },
    async () => null,
  );
  expect(request).toMatchObject({ channel: 'rcs', media: [{ url: 'https://cdn.example.com/menu.jpg' }], suggestions: [chip('Yes', 'confirm')] });
  expect(request.fingerprint).toMatchObject({ channel: 'rcs', suggestions: [chip('Yes', 'confirm')] });
  const sms = await parseMessageRequest({ message_type: 'text', client_phone: '+14155550100', text_message: 'Hi' }, async () => null);
  expect(Object.keys(sms.fingerprint)).not.toContain('suggestions');
  await expect(parseMessageRequest({ message_type: 'text', client_phone: '+14155550100', channel: 'rcs', text_message: 'x', media: [{ url: 'https://a.example.com/1.jpg' }, { url: 'https://a.example.com/2.jpg' }] }, async () => null)).rejects.toThrow(
    'Invalid media: must be an array of at most 1 objects { "url" } for rcs',
  );
  await expect(parseMessageRequest({ message_type: 'text', client_phone: '+14155550100', channel: 'rcs', text_message: 'x', suggestions: [{ text: 'Yes', color: 'red' }] }, async () => null)).rejects.toThrow(
    'Unknown field: suggestions[0].color',
  );
});

test('what an RCS row hands the carrier: its channel, media and suggestions with their postback data; an SMS row hands none', () => {
  const row = { channel: 'rcs', media: [{ url: 'https://cdn.example.com/a.jpg' }], template: null, suggestions: [{ text: 'Yes', postback_data: 'confirm' }] };
  expect(storedContent(row)).toEqual({ channel: 'rcs', media: ['https://cdn.example.com/a.jpg'], suggestions: [{ text: 'Yes', postbackData: 'confirm' }] });
  expect(storedContent({ ...row, suggestions: null })).toEqual({ channel: 'rcs', media: ['https://cdn.example.com/a.jpg'] });
  expect(storedContent({ ...row, channel: 'sms' })).toEqual({ channel: 'sms', media: ['https://cdn.example.com/a.jpg'] });
});

const row = (fields: Record<string, unknown>) =>
  ({
    id: '7616bcb2-cfcf-48ac-9ea5-d07f6dce2ea4', business: 'acme', status: 'delivered', sendAt: new Date(0), workflowId: null, messageType: 'text', client: null, phone: '+14155550100', name: null,
    sender: '+15005550001', direction: 'outbound', text: 'x', attempts: 1, provider: 'simulator', providerRef: null, error: null, createdAt: new Date(0), updatedAt: new Date(0), dispatchedAt: null,
    sentAt: null, canceledAt: null, canceledBy: null, encoding: 'GSM-7', segments: 1, sendWindow: null, deferredUntil: null, deliveredAt: null, errorCode: null, price: null, priceUnit: null,
    suppressedAt: null, suppressedReason: null, receivedAt: null, batchId: null, conversationId: null, channel: 'sms', media: null, template: null, readAt: null, suggestions: null, deliveredChannel: null,
    ...fields,
  }) as unknown as Parameters<typeof messageView>[0];

test.each([
  ['an SMS shows neither field (its answer as before RCS)', { channel: 'sms' }, undefined, undefined],
  ['a WhatsApp message neither', { channel: 'whatsapp' }, undefined, undefined],
  ['an RCS message before any receipt: null', { channel: 'rcs' }, null, []],
  ['an RCS message the carrier fell back to SMS for', { channel: 'rcs', deliveredChannel: 'sms', suggestions: [{ text: 'Yes', postback_data: 'confirm' }] }, 'sms', [{ text: 'Yes', postback_data: 'confirm' }]],
  ['an inbound RCS tap: rcs, and the chip tapped', { channel: 'rcs', direction: 'inbound', suggestions: [{ text: 'Yes', postback_data: 'confirm' }] }, 'rcs', [{ text: 'Yes', postback_data: 'confirm' }]],
])('messageView: %s', (_name, fields, deliveredChannel, suggestions) => {
  const view = messageView(row(fields));
  expect(view).toHaveProperty('channel', fields.channel);
  if (deliveredChannel === undefined) expect(Object.keys(view)).not.toEqual(expect.arrayContaining(['delivered_channel']));
  else expect(view).toMatchObject({ delivered_channel: deliveredChannel, suggestions });
  if (suggestions === undefined) expect(Object.keys(view)).not.toContain('suggestions');
});

test('a sender without RCS is refused naming it and what to register; others keep their words', () => {
  expect(senderLacks('+15005550006', 'rcs').message).toBe('No RCS sender: +15005550006 carries no RCS; register a business number whose channels include rcs, with its rcs_agent');
  expect(senderLacks('+15005550006', 'whatsapp').message).toBe('Sender +15005550006 does not carry WhatsApp');
});

test('the webhook provider\'s body names an RCS message\'s channel and suggested replies; a plain SMS\'s stays as before', () => {
  const handOff = { id: 'm1', business: 'acme', client: null, to: '+14155550100', name: null, text: 'Still coming?', dispatchedAt: new Date(0), media: [] };
  expect(webhookBody({ ...handOff, channel: 'rcs', suggestions: [{ text: 'Yes', postbackData: 'confirm' }] })).toEqual({
    id: 'm1', business: 'acme', client: null, to: '+14155550100', name: null, text: 'Still coming?', sent_at: '1970-01-01T00:00:00.000Z', channel: 'rcs', suggestions: [{ text: 'Yes', postback_data: 'confirm' }],
  });
  expect(Object.keys(webhookBody({ ...handOff, channel: 'sms' }))).toEqual(['id', 'business', 'client', 'to', 'name', 'text', 'sent_at']);
});

test.each([
  ['a receipt naming RCS', 'delivered', 'rcs', 'rcs'],
  ['a receipt naming SMS (Vonage\'s failover)', 'delivered', 'sms', 'sms'],
  ['a delivered receipt naming neither: the number\'s SMS, the carrier\'s fallback', 'delivered', undefined, 'sms'],
  ['a read receipt naming neither: RCS (SMS has no read receipt)', 'read', undefined, 'rcs'],
] as const)('deliveredChannelOf: %s', (_name, status, named, channel) => {
  expect(deliveredChannelOf({ status, deliveredChannel: named })).toBe(channel);
});
