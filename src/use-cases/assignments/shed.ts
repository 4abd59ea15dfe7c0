import type { Client as TemporalClient } from '@temporalio/client';
import { withdrawAssignRequest } from '../../db/assign-requests';
import type { RecordOutcome } from '../../db/assignments';
import type { Prisma } from '../../db/prisma';
import type { AssignAgentsResult } from '../../domain';
import { runAnsweredWithin } from '../../starters/run-answers';
import { Unavailable } from '../errors';

/** A run answered within this long: a worker polls the assign queue, and a request it has not answered is behind it. */
export const WORKER_SEEN_WITHIN_MS = 60_000;
/** After the shedding point, how often a request that could not be withdrawn looks again. */
const LOOK_AGAIN_MS = 1000;
/** What the withdrawn request's 503 tells the caller to wait: the worker is behind, not gone. */
export const SHED_RETRY_AFTER_SECONDS = 5;

export interface Shedding {
  requestKey: string;
  /** From then on the request is withdrawn if it can be. */
  shedAt: number;
  deadline: number;
  /** Aborted once withdrawn: the request stops waiting for a place on its run, or for its answer. */
  gaveUp: AbortController;
  /** The answer of a request the run recorded meanwhile, read from its settled row. */
  fromRow: (outcome: RecordOutcome) => AssignAgentsResult;
}

/**
 * The run's answer, or, once the request has waited until `shedAt` while a worker is known to poll (a run
 * answered within the last minute), a 503: the worker is behind. Before answering 503 the request is
 * withdrawn in its `assign_requests` row, which the run's recording transaction locks and settles: if the
 * withdrawal commits first, the run, when it gets to the update, records nothing (nothing was applied); if
 * the recording committed first, the request is answered from the row as the run would have. A row the
 * recording holds right now, or a worker not seen lately (none may poll at all), keeps the request
 * waiting until the deadline (then a 504 that names where to look, as before).
 */
export async function answerOrShed(
  deps: { prisma: Prisma; temporal: TemporalClient },
  answer: Promise<AssignAgentsResult>,
  { requestKey, shedAt, deadline, gaveUp, fromRow }: Shedding,
): Promise<AssignAgentsResult> {
  let settled = false;
  const done = answer.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let at = shedAt; at < deadline; at = Math.max(Date.now(), at) + LOOK_AGAIN_MS) {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([done, new Promise((resolve) => (timer = setTimeout(resolve, at - Date.now())))]);
    clearTimeout(timer);
    if (settled) return answer;
    if (!runAnsweredWithin(deps.temporal, WORKER_SEEN_WITHIN_MS)) continue;
    const withdrawal = await withdrawAssignRequest(deps.prisma, requestKey);
    if (withdrawal.state === 'withdrawn') {
      gaveUp.abort(new Error('withdrawn'));
      // The call still sending ends with the abort; nobody waits for it.
      answer.catch(() => undefined);
      throw new Unavailable(
        `The assignment service is behind; nothing was assigned: try again in ${SHED_RETRY_AFTER_SECONDS} s`,
        SHED_RETRY_AFTER_SECONDS,
      );
    }
    if (withdrawal.state === 'settled') {
      answer.catch(() => undefined);
      return fromRow(withdrawal.outcome as RecordOutcome);
    }
  }
  return answer;
}
