import { MalformedOutboundMessage, readOutboundMessage } from '../../src/crm/salesforce-outbound-message';

/*
 * The Outbound Message reader on its own: what it reads, what it refuses, and that it stops early on
 * the shapes that made the old patterns take quadratic time.
 */

const ORG = '00D000000000001AAA';
const notification = (i: number) =>
  `<Notification><Id>04l00000000${String(i).padStart(4, '0')}AAA</Id><sObject xsi:type="sf:Lead" xmlns:sf="urn:sobject.enterprise.soap.sforce.com"><sf:Id>00Q00000000${String(i).padStart(4, '0')}AAA</sf:Id><sf:Company>A &amp; B &#65;</sf:Company></sObject></Notification>`;
const envelope = (inner: string, org = `<OrganizationId>${ORG}</OrganizationId>`) =>
  '<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">' +
  `<soapenv:Body><notifications xmlns="http://soap.sforce.com/2005/09/outbound">${org}<ActionId>04k000000000001AAA</ActionId><SessionId xsi:nil="true"/>${inner}</notifications></soapenv:Body></soapenv:Envelope>`;
const read = (xml: string) => readOutboundMessage(Buffer.from(xml, 'utf8'));
const refusal = (xml: string) => {
  try {
    read(xml);
  } catch (error) {
    if (error instanceof MalformedOutboundMessage) return error.message;
    throw error;
  }
  throw new Error('read without a refusal');
};

test('reads the org id and each notification\'s Id and record Id, entities and character references included', () => {
  expect(read(envelope(notification(1) + notification(2)))).toEqual({
    organizationId: ORG,
    notifications: [
      { id: '04l000000000001AAA', recordId: '00Q000000000001AAA' },
      { id: '04l000000000002AAA', recordId: '00Q000000000002AAA' },
    ],
  });
  expect(read(envelope(notification(1), `<OrganizationId>\n  ${ORG}\n</OrganizationId>`)).organizationId).toBe(ORG);
});

test('refuses a DOCTYPE, entities beyond the five, processing instructions, and more than 100 notifications', () => {
  expect(refusal('<!DOCTYPE a [<!ENTITY x "y">]>' + envelope(notification(1)))).toBe('a DOCTYPE is not accepted');
  expect(refusal(envelope(notification(1)).replace('A &amp;', '&x;'))).toMatch(/^not well-formed XML \(undefined entity/);
  expect(refusal(envelope(notification(1)).replace('?>', '?><?evil x?>'))).toBe('processing instructions are not accepted');
  expect(refusal(envelope(Array.from({ length: 101 }, (_, i) => notification(i)).join('')))).toBe('more than 100 notifications');
  expect(read(envelope(Array.from({ length: 100 }, (_, i) => notification(i)).join(''))).notifications).toHaveLength(100);
});

test('an OrganizationId in a comment, in CDATA or outside Envelope/Body/notifications is no OrganizationId', () => {
  const org = `<OrganizationId>${ORG}</OrganizationId>`;
  expect(refusal(envelope(notification(1), `<!--${org}-->`))).toBe('no OrganizationId in Envelope/Body/notifications');
  expect(refusal(envelope(notification(1), `<ActionId><![CDATA[${org}]]></ActionId>`))).toBe('no OrganizationId in Envelope/Body/notifications');
  expect(refusal(envelope(`<Other>${org}</Other>${notification(1)}`, ''))).toBe('no OrganizationId in Envelope/Body/notifications');
  expect(refusal(envelope(notification(1), org + org))).toBe('more than one OrganizationId');
});

test('1 MB of each pathological shape costs no more than reading a legitimate 1 MB envelope, and is refused', () => {
  const MB = 1 << 20;
  const shapes: Record<string, string> = {
    'open OrganizationId tags': '<OrganizationId '.repeat(MB / 16),
    'open Notification tags': '<Notification>'.repeat(MB / 14),
    'deep nesting': '<a>'.repeat(MB / 3),
    'a huge attribute': `<a b="${'x'.repeat(MB)}"/>`,
    'many attributes': `<a ${Array.from({ length: MB / 10 }, (_, i) => `a${i}="1"`).join(' ')}/>`,
    'repeated attribute': `<a ${'b="1" '.repeat(MB / 6)}/>`,
    'many elements': envelope(notification(1) + '<x/>'.repeat(MB / 4)),
    'a long Id': envelope(notification(1).replace('04l', 'x'.repeat(MB))),
  };
  // The largest real delivery: 100 notifications of Leads with 450 fields each and a long description.
  const fields = Array.from({ length: 450 }, (_, i) => `<sf:F${i}>v</sf:F${i}>`).join('');
  const lead = (i: number) => notification(i).replace('</sObject>', `${fields}<sf:Description>${'d'.repeat(MB / 100 - 400 - fields.length)}</sf:Description></sObject>`);
  const legitimate = Buffer.from(envelope(Array.from({ length: 100 }, (_, i) => lead(i)).join('')));
  expect(readOutboundMessage(legitimate).notifications).toHaveLength(100);
  const timed = (run: () => void) => {
    const started = performance.now();
    run();
    return performance.now() - started;
  };
  // Timed in turns, the fastest of five each: the parser's own cost, and a busy spell on the machine
  // slows both sides of the comparison rather than one.
  const fastestInTurns = (baselineRun: () => void, run: () => void) => {
    const turns = [0, 1, 2, 3, 4].map(() => [timed(baselineRun), timed(run)]);
    return { baseline: Math.min(...turns.map(([b]) => b)), cost: Math.min(...turns.map(([, c]) => c)) };
  };
  expect(legitimate.length).toBeGreaterThan(MB * 0.95);
  for (const [shape, xml] of Object.entries(shapes)) {
    const body = Buffer.from(xml);
    const { baseline, cost } = fastestInTurns(
      () => readOutboundMessage(legitimate),
      () => expect(() => readOutboundMessage(body)).toThrow(MalformedOutboundMessage),
    );
    expect({ shape, withinBound: cost <= 3 * baseline + 20, cost, baseline }).toEqual({ shape, withinBound: true, cost, baseline });
  }
});
