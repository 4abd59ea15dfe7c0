import {
  type HeldAssignment,
  type StatedAssignment,
  assignmentReason,
  assignmentStep,
  replacedWorkflowId,
  replayed,
  requestStatement,
  unauthorizedAgent,
} from '../../src/domain/assignment-changes';

/* Recording an assignment as rules (src/domain/assignment-changes.ts): each case a row, no database. */

const JAN = new Date('2030-01-01T00:00:00.000Z');
const FEB = new Date('2030-02-01T00:00:00.000Z');
const ROUTED = { policy: 'p', version: 1, decision_id: 'd1' };

const held = (fields: Partial<HeldAssignment> = {}): HeldAssignment => ({ dtUntil: FEB, notes: 'n', rotation: false, routedBy: null, workflowId: 'client/b/c/pk', ...fields });
const stated = (fields: Partial<StatedAssignment> = {}): StatedAssignment => ({ dtUntil: FEB, notes: 'n', rotation: false, routedBy: null, ...fields });

test.each([
  ['no active row: created', null, stated(), { action: 'create', dtUntil: FEB, event: 'assignment.created' }],
  ['a request for a later date: restated, updated', held({ dtUntil: JAN }), stated(), { action: 'restate', dtUntil: FEB, event: 'assignment.updated' }],
  ['a request for an earlier date shortens it', held(), stated({ dtUntil: JAN }), { action: 'restate', dtUntil: JAN, event: 'assignment.updated' }],
  ['a request that says again what is there: restated, nothing to report', held(), stated(), { action: 'restate', dtUntil: FEB, event: null }],
  ['other notes: updated', held(), stated({ notes: 'other' }), { action: 'restate', dtUntil: FEB, event: 'assignment.updated' }],
  ['notes cleared: updated', held(), stated({ notes: null }), { action: 'restate', dtUntil: FEB, event: 'assignment.updated' }],
  ['a request takes over a rotation\'s row: updated', held({ rotation: true }), stated(), { action: 'restate', dtUntil: FEB, event: 'assignment.updated' }],
  ['a routed assignment restated by a request clears routed_by: updated', held({ routedBy: ROUTED }), stated(), { action: 'restate', dtUntil: FEB, event: 'assignment.updated' }],
  ['the same routing decision again: nothing to report', held({ routedBy: ROUTED }), stated({ routedBy: ROUTED }), { action: 'restate', dtUntil: FEB, event: null }],
  ['a rotation never shortens an assignment: kept', held(), stated({ dtUntil: JAN, rotation: true }), { action: 'keep', dtUntil: FEB, event: null }],
  ['a rotation\'s period ending on the same date: restated as the rotation\'s', held(), stated({ rotation: true }), { action: 'restate', dtUntil: FEB, event: 'assignment.updated' }],
  ['a rotation lengthens one: updated', held({ dtUntil: JAN }), stated({ rotation: true }), { action: 'restate', dtUntil: FEB, event: 'assignment.updated' }],
  ['a rotation\'s next period over its own: updated', held({ dtUntil: JAN, rotation: true }), stated({ rotation: true }), { action: 'restate', dtUntil: FEB, event: 'assignment.updated' }],
] as const)('%s', (_name, active, statement, step) => {
  expect(assignmentStep(active, statement)).toEqual(step);
});

test.each([
  ['no active row', null, undefined],
  ['held by the client\'s run', { workflowId: 'client/b/c/pk' }, undefined],
  ['held by an older per-pair run: taken over', { workflowId: 'assignment/b/c/a/pk' }, 'assignment/b/c/a/pk'],
])('replacedWorkflowId: %s', (_name, active, replaced) => {
  expect(replacedWorkflowId(active, 'client/b/c/pk')).toBe(replaced);
});

test.each([
  ['a request', {}, 'api'],
  ['a rotation', { rotation: true }, 'rule'],
  ['a rotation stating its reason', { rotation: true, reason: 'api' }, 'api'],
  ['lead routing', { reason: 'rule' }, 'rule'],
] as const)('the events\' reason for %s', (_name, options, reason) => {
  expect(assignmentReason(options)).toBe(reason);
});

test.each([
  ['every agent the owner\'s', ['a1', 'a2'], undefined],
  ['the first that is not', ['a1', 'x', 'y'], 'x'],
  ['none requested', [], undefined],
])('unauthorizedAgent: %s', (_name, requested, agentId) => {
  expect(unauthorizedAgent(requested.map((id) => ({ agentId: id })), new Set(['a1', 'a2']))).toBe(agentId);
});

const SCOPE = { business: 'b', ownerId: 'u1' };
test.each([
  ['a pending row states scope and notes', { state: 'pending', scope: SCOPE, notes: 'n' }, { kind: 'record', scope: SCOPE, notes: 'n' }],
  ['a settled row is replayed', { state: 'settled', outcome: { outcome: 'clientNotFound' } }, { kind: 'replay', outcome: { outcome: 'clientNotFound' } }],
  ['no row: the request expired', { state: 'missing' }, { kind: 'expired' }],
] as const)('requestStatement: %s', (_name, request, statement) => {
  expect(requestStatement(request)).toEqual(statement);
});

test.each([
  ['a recorded outcome marks each assignment', { outcome: 'recorded', assignments: [{ agentId: 'a1' }] }, { outcome: 'recorded', assignments: [{ agentId: 'a1', replayed: true }] }],
  ['a refusal is given back as it was', { outcome: 'agentNotAuthorized', agentId: 'x' }, { outcome: 'agentNotAuthorized', agentId: 'x' }],
])('replayed: %s', (_name, outcome, replay) => {
  expect(replayed(outcome)).toEqual(replay);
});
