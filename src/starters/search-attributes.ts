import type { Connection } from '@temporalio/client';
import { defineSearchAttributeKey, SearchAttributeType, TypedSearchAttributes } from '@temporalio/common';
import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes';
import { AGENT_IDS, ASSIGNMENT_DT_UNTIL, MESSAGE_STATUS, type MessageStatus } from '../domain';

export const BUSINESS_NAME = defineSearchAttributeKey('BusinessName', SearchAttributeType.KEYWORD);
export const CLIENT_ID = defineSearchAttributeKey('ClientId', SearchAttributeType.KEYWORD);
export const AGENT_ID = defineSearchAttributeKey('AgentId', SearchAttributeType.KEYWORD);
/** The type of the event a webhook delivery carries, e.g. `assignment.expired`. */
export const WEBHOOK_EVENT_TYPE = defineSearchAttributeKey('WebhookEventType', SearchAttributeType.KEYWORD);

/**
 * Set on the service's own upkeep runs only (`housekeeping`; `webhook-sweep`, `reconcile-recent`, `reconcile-full` before it),
 * so that the UI's saved view `Housekeeping IS NULL` lists the business runs alone.
 */
export const HOUSEKEEPING = defineSearchAttributeKey('Housekeeping', SearchAttributeType.KEYWORD);
export type HousekeepingKind = 'housekeeping';
export const housekeepingAttributes = (kind: HousekeepingKind) => new TypedSearchAttributes([{ key: HOUSEKEEPING, value: kind }]);

/** Every attribute the workflows use, as the dev server registers them and a cluster must. */
export const SEARCH_ATTRIBUTE_KEYS = [BUSINESS_NAME, CLIENT_ID, AGENT_ID, AGENT_IDS, ASSIGNMENT_DT_UNTIL, MESSAGE_STATUS, WEBHOOK_EVENT_TYPE, HOUSEKEEPING];

export function searchAttributesOf(keys: {
  business: string;
  clientId?: string | null;
  agentId?: string;
  eventType?: string;
  messageStatus?: MessageStatus;
}): TypedSearchAttributes {
  return new TypedSearchAttributes([
    { key: BUSINESS_NAME, value: keys.business },
    ...(keys.clientId ? [{ key: CLIENT_ID, value: keys.clientId }] : []),
    ...(keys.agentId ? [{ key: AGENT_ID, value: keys.agentId }] : []),
    ...(keys.eventType ? [{ key: WEBHOOK_EVENT_TYPE, value: keys.eventType }] : []),
    ...(keys.messageStatus ? [{ key: MESSAGE_STATUS, value: keys.messageStatus }] : []),
  ]);
}

const SEARCH_ATTRIBUTE_TYPE_NAMES: Record<string, string> = { DATETIME: 'Datetime', KEYWORD: 'Keyword', KEYWORD_LIST: 'KeywordList' };

/** What an operator runs once on a cluster where the worker may not register the attributes itself. */
export const REGISTER_COMMANDS = SEARCH_ATTRIBUTE_KEYS.map(
  (key) => `temporal operator search-attribute create --name ${key.name} --type ${SEARCH_ATTRIBUTE_TYPE_NAMES[key.type]}`,
);

type OperatorService = Connection['operatorService'];

/**
 * Makes sure the namespace knows every search attribute the workflows set. A workflow that upserts an
 * unknown one fails its task again and again, so a worker refuses to start without them: it registers
 * the missing ones where it may (a dev server, a self-hosted cluster), and otherwise names the commands.
 * Where the server cannot list them (Temporal Cloud without admin rights), it trusts the operator.
 */
export async function ensureSearchAttributes(operator: OperatorService, namespace: string): Promise<void> {
  let known: Record<string, unknown>;
  try {
    const listed = await operator.listSearchAttributes({ namespace });
    known = { ...listed.customAttributes, ...listed.systemAttributes };
  } catch {
    return;
  }
  const missing = SEARCH_ATTRIBUTE_KEYS.filter((key) => !(key.name in known));
  if (missing.length === 0) return;
  await addSearchAttributes(operator, namespace, missing).catch((error: Error) => {
    throw new Error(
      `Namespace ${namespace} lacks the search attributes ${missing.map((k) => k.name).join(', ')} and they could not be registered (${error.message}). ` +
        `Register them once:\n  ${REGISTER_COMMANDS.join('\n  ')}`,
    );
  });
}

/** Registers `keys` (all of them by default); the time-skipping test server takes this call but cannot list. */
export async function addSearchAttributes(operator: OperatorService, namespace: string, keys: readonly { name: string; type: string }[] = SEARCH_ATTRIBUTE_KEYS): Promise<void> {
  await operator.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(keys.map((key) => [key.name, encodeSearchAttributeIndexedValueType(key.type as SearchAttributeType)!])),
  });
}
