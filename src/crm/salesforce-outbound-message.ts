import { SaxesParser } from 'saxes';

/*
 * Salesforce's Outbound Message (a SOAP envelope), read with a streaming XML parser in one pass that
 * stops at the first thing out of place: a DOCTYPE (never expanded), a processing instruction other
 * than the XML declaration, an entity beyond XML's five, an element deeper than an envelope goes, more
 * notifications than Salesforce sends, or XML that is not well formed. Elements count only where the
 * envelope puts them (Envelope/Body/notifications/…), so one inside a comment, a CDATA section or
 * another element is not read.
 */

export const MAX_SALESFORCE_NOTIFICATIONS = 100;
/** Envelope/Body/notifications/Notification/sObject/field: 6; room for a compound field's parts. */
const MAX_DEPTH = 12;
/** The longest text kept of an element read (ids are 15 to 64 characters). */
const MAX_TEXT = 256;
/** 100 notifications of a record with every field of a Lead (a few hundred) fit; a flood of elements does not. */
const MAX_ELEMENTS = 60_000;
/** An envelope's elements carry a namespace or two and `xsi:type`. */
const MAX_ATTRIBUTES = 32;

export interface OutboundNotification {
  /** The notification's own id: Salesforce sends it again when it retries. */
  id: string;
  /** The record's `sf:Id`. */
  recordId: string;
}

export interface OutboundMessage {
  organizationId: string;
  notifications: OutboundNotification[];
}

/** Why a body is no Outbound Message, in words for the 400. */
export class MalformedOutboundMessage extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'MalformedOutboundMessage';
  }
}

const localName = (name: string) => name.slice(name.indexOf(':') + 1);
const NOTIFICATIONS = ['Envelope', 'Body', 'notifications'];
const isAt = (path: string[], expected: string[]) => path.length === expected.length && expected.every((name, i) => path[i] === name);

/** Reads the envelope; throws MalformedOutboundMessage at the first thing out of place, before reading further. */
export function readOutboundMessage(rawBody: Buffer): OutboundMessage {
  const parser = new SaxesParser({ position: false });
  const path: string[] = [];
  let organizationId: string | undefined;
  const notifications: Partial<OutboundNotification>[] = [];
  // The text of the element being read (OrganizationId, a notification's Id, its record's Id), if any.
  let reading: ((text: string) => void) | undefined;
  let text = '';
  const refuse = (reason: string): never => {
    throw new MalformedOutboundMessage(reason);
  };

  parser.on('error', (error) => refuse(`not well-formed XML (${error.message.replace(/^[^:]*:\d+:\d+: /, '')})`));
  parser.on('doctype', () => refuse('a DOCTYPE is not accepted'));
  parser.on('processinginstruction', () => refuse('processing instructions are not accepted'));
  let elements = 0;
  let attributes = 0;
  parser.on('opentagstart', () => {
    if (++elements > MAX_ELEMENTS) refuse(`more than ${MAX_ELEMENTS} elements`);
    attributes = 0;
  });
  parser.on('attribute', () => {
    if (++attributes > MAX_ATTRIBUTES) refuse(`an element with more than ${MAX_ATTRIBUTES} attributes`);
  });
  parser.on('opentag', (tag) => {
    path.push(localName(tag.name));
    if (path.length > MAX_DEPTH) refuse(`elements nested deeper than ${MAX_DEPTH}`);
    if (reading) refuse(`unexpected element inside ${path[path.length - 2]}`);
    const inNotifications = path.length === 4 && isAt(path.slice(0, 3), NOTIFICATIONS);
    if (inNotifications && path[3] === 'OrganizationId') {
      if (organizationId !== undefined) refuse('more than one OrganizationId');
      reading = (value) => (organizationId = value);
    } else if (inNotifications && path[3] === 'Notification') {
      if (notifications.length === MAX_SALESFORCE_NOTIFICATIONS) refuse(`more than ${MAX_SALESFORCE_NOTIFICATIONS} notifications`);
      notifications.push({});
    } else if (path.length === 5 && path[3] === 'Notification' && path[4] === 'Id' && isAt(path.slice(0, 3), NOTIFICATIONS)) {
      const notification = notifications[notifications.length - 1];
      reading = (value) => (notification.id = value);
    } else if (path.length === 6 && path[3] === 'Notification' && path[4] === 'sObject' && path[5] === 'Id' && isAt(path.slice(0, 3), NOTIFICATIONS)) {
      const notification = notifications[notifications.length - 1];
      reading = (value) => (notification.recordId = value);
    }
    text = '';
  });
  const keep = (chunk: string) => {
    if (!reading) return;
    text += chunk;
    if (text.length > MAX_TEXT) refuse(`${path[path.length - 1]} longer than ${MAX_TEXT} characters`);
  };
  parser.on('text', keep);
  parser.on('cdata', keep);
  parser.on('closetag', () => {
    reading?.(text.trim());
    reading = undefined;
    path.pop();
  });

  parser.write(rawBody.toString('utf8')).close();
  if (!organizationId) refuse('no OrganizationId in Envelope/Body/notifications');
  const complete = notifications.map((n, i) => (n.id && n.recordId ? { id: n.id, recordId: n.recordId } : refuse(`notification ${i} needs its Id and its sObject's Id`)));
  return { organizationId: organizationId!, notifications: complete };
}
