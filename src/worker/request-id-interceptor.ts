import { defaultPayloadConverter } from '@temporalio/common';
import type { ActivityInterceptors } from '@temporalio/worker';
import { requestContext } from '../request-context';
import { REQUEST_ID_HEADER } from '../domain';
import { tagRequestId } from '../telemetry/span-context';

/** Runs an activity inside the context of the request that caused it, when its workflow was started by one. */
export const requestIdInterceptor = (): ActivityInterceptors => ({
  inbound: {
    execute(input, next) {
      const header = input.headers[REQUEST_ID_HEADER];
      const requestId = header ? defaultPayloadConverter.fromPayload<string>(header) : undefined;
      if (typeof requestId !== 'string') return next(input);
      tagRequestId(requestId);
      return requestContext.run({ requestId }, () => next(input));
    },
  },
});
