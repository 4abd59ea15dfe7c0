import { defineSearchAttributeKey, SearchAttributeType, TypedSearchAttributes } from '@temporalio/common';

export const BUSINESS_NAME = defineSearchAttributeKey('BusinessName', SearchAttributeType.KEYWORD);
export const CLIENT_ID = defineSearchAttributeKey('ClientId', SearchAttributeType.KEYWORD);
export const AGENT_ID = defineSearchAttributeKey('AgentId', SearchAttributeType.KEYWORD);

export const SEARCH_ATTRIBUTE_KEYS = [BUSINESS_NAME, CLIENT_ID, AGENT_ID];

export function searchAttributesOf(keys: { business: string; clientId?: string | null; agentId?: string }): TypedSearchAttributes {
  return new TypedSearchAttributes([
    { key: BUSINESS_NAME, value: keys.business },
    ...(keys.clientId ? [{ key: CLIENT_ID, value: keys.clientId }] : []),
    ...(keys.agentId ? [{ key: AGENT_ID, value: keys.agentId }] : []),
  ]);
}
