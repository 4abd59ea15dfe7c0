/*
 * Search attributes the workflows keep up to date themselves (the starting ones are in
 * src/starters/search-attributes.ts). Ids, dates and statuses only: nothing a user typed.
 * Plain key objects (as `defineSearchAttributeKey` makes them), since workflow code imports only
 * `@temporalio/workflow`, which does not re-export it.
 */

/** The `dt_until` of the pair's current active assignment, after every re-assignment; on a client's run, the earliest of its active assignments. */
export const ASSIGNMENT_DT_UNTIL = { name: 'AssignmentDtUntil', type: 'DATETIME' } as const;
/** The agents holding the client now (a client's run): "which clients does agent a1 hold" is `AgentIds = 'a1'`. */
export const AGENT_IDS = { name: 'AgentIds', type: 'KEYWORD_LIST' } as const;
/**
 * The message's status as its row has it: `scheduled`, `sending`, `sent`, `delivered`, `undelivered`,
 * `failed`, `canceled`, `suppressed`; a run follows its carrier's receipts until one is final (or for
 * MESSAGE_RECEIPT_WAIT_MS).
 */
export const MESSAGE_STATUS = { name: 'MessageStatus', type: 'KEYWORD' } as const;

