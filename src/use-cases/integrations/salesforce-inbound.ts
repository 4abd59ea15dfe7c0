import { MalformedOutboundMessage, MAX_SALESFORCE_NOTIFICATIONS, readOutboundMessage } from '../../crm/salesforce-outbound-message';
import { verifyInboundToken } from '../../crm';
import type { NewInboundEvent } from '../../db/crm-inbound-events';
import { Invalid, Unauthenticated } from '../errors';
import { connectorForInbound, invalidSignature, recordAndHandOver, type InboundDeps, type Recorded } from './inbound';

/*
 * Salesforce Outbound Messages: a SOAP envelope of up to 100 notifications of `Lead`, posted to the
 * connector's inbound URL, whose last segment is the connector's secret (Salesforce signs nothing; an
 * org id is no secret). The secret is checked before the body is read; then the envelope must come from
 * the org the connector names (`OrganizationId`). Each notification's `Id` is recorded once; the answer
 * is the SOAP acknowledgement, without which Salesforce retries for 24 hours.
 */

export { MAX_SALESFORCE_NOTIFICATIONS };
const SALESFORCE_ID = /^[A-Za-z0-9]{15}(?:[A-Za-z0-9]{3})?$/;

export const SOAP_ACK =
  '<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body>' +
  '<notificationsResponse xmlns="http://soap.sforce.com/2005/09/outbound"><Ack>true</Ack></notificationsResponse></soapenv:Body></soapenv:Envelope>';

export const invalidInboundToken = () =>
  new Unauthenticated('Invalid inbound URL: post to the inbound_url the connector\'s PUT or POST /integrations/salesforce/rotate-inbound-token answered');

/** The 401 of a URL without the connector's secret, or with another; compared in constant time. Nothing is read or stored before. */
export async function verifySalesforceInboundToken(deps: InboundDeps, business: string, token: string | undefined): Promise<void> {
  const key = await connectorForInbound(deps, business, 'salesforce').catch((error: unknown) => {
    if (error instanceof Unauthenticated) return undefined;
    throw error;
  });
  if (!verifyInboundToken(token, key?.connector.inboundTokenHash)) throw invalidInboundToken();
}

/** Reads the envelope (its token already checked): another org's is a 401, one that is no Outbound Message a 400. */
export async function receiveSalesforceOutboundMessage(deps: InboundDeps, business: string, rawBody: Buffer): Promise<Recorded> {
  const { connector } = await connectorForInbound(deps, business, 'salesforce');
  let message;
  try {
    message = readOutboundMessage(rawBody);
  } catch (error) {
    if (error instanceof MalformedOutboundMessage) throw new Invalid(`Invalid body: must be an Outbound Message of 1 to ${MAX_SALESFORCE_NOTIFICATIONS} notifications: ${error.message}`);
    throw error;
  }
  const expected = (connector.settings as Record<string, string>).organization_id;
  // Salesforce writes the 18-character form; a connector may hold the 15-character one.
  if (!expected || message.organizationId.slice(0, 15) !== expected.slice(0, 15)) throw invalidSignature();
  if (message.notifications.length === 0) throw new Invalid(`Invalid body: must be an Outbound Message of 1 to ${MAX_SALESFORCE_NOTIFICATIONS} notifications`);
  const events: NewInboundEvent[] = message.notifications.map(({ id, recordId }, i) => {
    if (id.length > 64 || !SALESFORCE_ID.test(recordId)) throw new Invalid(`Invalid notification ${i}: needs its Id and the Lead's sf:Id`);
    return { eventKey: id, recordId, kind: 'created', ownerValue: null, occurredAt: null };
  });
  return recordAndHandOver(deps, business, 'salesforce', events);
}
