export const ROTATION_STATUSES = ['active', 'stopped'] as const;
export type RotationStatus = (typeof ROTATION_STATUSES)[number];

/** A place in the agent list, 1-based ("agent 2 of 3"), and the agent's id. */
export interface RotationPosition {
  /** The agent's id, as the assignments' workflow ids and AgentId search attribute name it. */
  agent?: string;
  position: number;
  of: number;
}

/** What a step reports to the workflow: versions, positions and dates. */
export interface RotationStep {
  /** `ended`: the rotation is stopped (or gone) and nothing more is due. */
  state: 'active' | 'ended';
  /** The row's version this step has applied. */
  version: number;
  /** When the next period starts; the workflow sleeps until then. Null once ended. */
  nextChangeAt: string | null;
  /** The period in progress and who has it, when someone has. */
  current: (RotationPosition & { until: string }) | null;
  /** Whose the next period is by the schedule. */
  next: RotationPosition | null;
}

const named = (p: RotationPosition) => `${p.agent ? `${p.agent} (agent ${p.position} of ${p.of})` : `agent ${p.position} of ${p.of}`}`;

/** "a2 (agent 2 of 3) until …; next change at … to a3 (agent 3 of 3)": the run's current details. */
export function describeRotationStep(step: RotationStep): string {
  if (step.state === 'ended') return `Rotation stopped (version ${step.version})`;
  const current = step.current ? `${named(step.current)} until ${step.current.until}` : 'nobody assigned now';
  const next = step.next ? ` to ${named(step.next)}` : '';
  return `Rotation: ${current}; next change at ${step.nextChangeAt}${next}`;
}
