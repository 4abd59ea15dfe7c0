import { defaultPayloadConverter, workflowInfo, type ActivityInput, type LocalActivityInput, type WorkflowInterceptorsFactory } from '@temporalio/workflow';
import { REQUEST_ID_HEADER, REQUEST_ID_MEMO } from '../domain';

/** Hands the request id a run was started with (its memo) to each activity it schedules, as a header. */
function withRequestId<T extends ActivityInput | LocalActivityInput>(input: T): T {
  const requestId = workflowInfo().memo?.[REQUEST_ID_MEMO];
  if (typeof requestId !== 'string') return input;
  return { ...input, headers: { ...input.headers, [REQUEST_ID_HEADER]: defaultPayloadConverter.toPayload(requestId) } };
}

export const interceptors: WorkflowInterceptorsFactory = () => ({
  outbound: [
    {
      scheduleActivity: (input, next) => next(withRequestId(input)),
      scheduleLocalActivity: (input, next) => next(withRequestId(input)),
    },
  ],
});
