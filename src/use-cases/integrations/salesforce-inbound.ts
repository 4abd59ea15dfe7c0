import type { NewInboundEvent } from '../../db/crm-inbound-events';
import { Invalid } from '../errors';
import { connectorForInbound, invalidSignature, recordAndHandOver, type InboundDeps, type Recorded } from './inbound';

/*
 * Salesforce Outbound Messages: a SOAP envelope of up to 100 notifications of `Lead`, from the org the
 * connector names (`OrganizationId`). Each notification's `Id` is recorded once; the answer is the
 * SOAP acknowledgement, without which Salesforce retries for 24 hours.
 */

export const MAX_SALESFORCE_NOTIFICATIONS = 100;
const SALESFORCE_ID = /^[A-Za-z0-9]{15}(?:[A-Za-z0-9]{3})?$/;

export const SOAP_ACK =
  '<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body>' +
  '<notificationsResponse xmlns="http://soap.sforce.com/2005/09/outbound"><Ack>true</Ack></notificationsResponse></soapenv:Body></soapenv:Envelope>';

/** The text of the first element named `name` (any namespace prefix) inside `xml`. */
function elementText(xml: string, name: string): string | undefined {
  return new RegExp(`<(?:[A-Za-z0-9_]+:)?${name}(?:\\s[^>]*)?>([^<]*)</(?:[A-Za-z0-9_]+:)?${name}>`).exec(xml)?.[1]?.trim();
}

/** Each `<Notification>` element's inner XML; linear: one pass with a non-backtracking pattern. */
function notificationsOf(xml: string): string[] {
  return [...xml.matchAll(/<(?:[A-Za-z0-9_]+:)?Notification(?:\s[^>]*)?>([\s\S]*?)<\/(?:[A-Za-z0-9_]+:)?Notification>/g)].map((m) => m[1]);
}

export async function receiveSalesforceOutboundMessage(deps: InboundDeps, business: string, rawBody: Buffer): Promise<Recorded> {
  const { connector } = await connectorForInbound(deps, business, 'salesforce');
  const xml = rawBody.toString('utf8');
  const organizationId = elementText(xml, 'OrganizationId');
  const expected = (connector.settings as Record<string, string>).organization_id;
  // Salesforce writes the 18-character form; a connector may hold the 15-character one.
  if (!organizationId || !expected || organizationId.slice(0, 15) !== expected.slice(0, 15)) throw invalidSignature();
  const notifications = notificationsOf(xml);
  if (notifications.length === 0 || notifications.length > MAX_SALESFORCE_NOTIFICATIONS) {
    throw new Invalid(`Invalid body: must be an Outbound Message of 1 to ${MAX_SALESFORCE_NOTIFICATIONS} notifications`);
  }
  const events: NewInboundEvent[] = notifications.map((notification, i) => {
    const id = elementText(notification, 'Id');
    const sObject = /<(?:[A-Za-z0-9_]+:)?sObject(?:\s[^>]*)?>([\s\S]*?)<\/(?:[A-Za-z0-9_]+:)?sObject>/.exec(notification)?.[1] ?? '';
    const recordId = elementText(sObject, 'Id');
    if (!id || id.length > 64 || !recordId || !SALESFORCE_ID.test(recordId)) throw new Invalid(`Invalid notification ${i}: needs its Id and the Lead's sf:Id`);
    return { eventKey: id, recordId, kind: 'created', ownerValue: null, occurredAt: null };
  });
  return recordAndHandOver(deps, business, 'salesforce', events);
}
