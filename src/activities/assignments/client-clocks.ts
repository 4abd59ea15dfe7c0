import type { AssignmentClock, ClientClocksRead, ClockKind, FirstResponseClocks, RotationClock, ConversationClock } from '../../domain';

/** The per-kind steps of the client's run that one read of several kinds runs in turn. */
export interface ClientClockSteps {
  advanceClientRotations(input: { clientPk: string; asOf: string }): Promise<RotationClock[]>;
  stepFirstResponses(input: { clientPk: string }): Promise<FirstResponseClocks>;
  loadClientClocks(input: { clientPk: string }): Promise<AssignmentClock[]>;
  stepConversations(input: { clientPk: string }): Promise<ConversationClock[]>;
}

export function createClientClockActivities(steps: ClientClockSteps) {
  return {
    /**
     * The client's run, when several kinds of its rows are stale (every kind when it starts): one local
     * activity instead of one per kind. The rotations step first (as close to the run's clock as they
     * can), then the first-response clocks, then the conversations' clocks; the assignments are read last, so a period handed out or a
     * client reassigned by those steps is among them.
     */
    async readClientClocks(input: { clientPk: string; asOf: string; kinds: ClockKind[] }): Promise<ClientClocksRead> {
      const rotations = input.kinds.includes('rotations') ? await steps.advanceClientRotations({ clientPk: input.clientPk, asOf: input.asOf }) : undefined;
      const firstResponses = input.kinds.includes('firstResponses') ? await steps.stepFirstResponses({ clientPk: input.clientPk }) : undefined;
      const conversations = input.kinds.includes('conversations') ? await steps.stepConversations({ clientPk: input.clientPk }) : undefined;
      return { rotations, firstResponses, conversations, assignments: await steps.loadClientClocks({ clientPk: input.clientPk }) };
    },
  };
}
