import type { Dispatcher } from 'undici';
import { ResponseTooLarge } from './capped-body';

/*
 * An undici interceptor that reads an answer whole, to `maxBytes`, before its client sees any of it:
 * over the cap the request is aborted with ResponseTooLarge while the client still waits for its
 * headers, so its fetch rejects rather than a body stream failing midway. jsforce pipes the body it
 * gets into its own stream without an error handler, where a body cut off midway would crash the
 * process; a rejected fetch is an error jsforce reports. The answers it is for (a CRM's
 * JSON) are read whole by their clients anyway.
 */

type Controller = Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseData']>>[0];
type Headers = Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseStart']>>[2];

class WholeAnswerHandler implements Dispatcher.DispatchHandler {
  private start: { statusCode: number; headers: Headers; statusMessage?: string } | undefined;
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(
    private readonly handler: Dispatcher.DispatchHandler,
    private readonly maxBytes: number,
  ) {}

  onRequestStart(controller: Controller, context: unknown) {
    this.handler.onRequestStart?.(controller, context);
  }
  onRequestUpgrade(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onRequestUpgrade']>>) {
    this.handler.onRequestUpgrade?.(...args);
  }
  onRequestSent() {
    this.handler.onRequestSent?.();
  }
  onBodySent(chunk: Buffer) {
    this.handler.onBodySent?.(chunk);
  }
  onResponseStarted() {
    this.handler.onResponseStarted?.();
  }

  onResponseStart(controller: Controller, statusCode: number, headers: Headers, statusMessage?: string) {
    // An interim answer (100 Continue, 103 Early Hints) is the client's; the final one is held back.
    if (statusCode < 200) return this.handler.onResponseStart?.(controller, statusCode, headers, statusMessage);
    const declared = Number(headers['content-length']);
    if (Number.isFinite(declared) && declared > this.maxBytes) return controller.abort(new ResponseTooLarge(this.maxBytes));
    this.start = { statusCode, headers, statusMessage };
  }

  onResponseData(controller: Controller, chunk: Buffer) {
    this.size += chunk.length;
    if (this.size > this.maxBytes) {
      this.chunks = [];
      return controller.abort(new ResponseTooLarge(this.maxBytes));
    }
    this.chunks.push(chunk);
  }

  onResponseEnd(controller: Controller, trailers: Headers) {
    const start = this.start!;
    this.handler.onResponseStart?.(controller, start.statusCode, start.headers, start.statusMessage);
    if (this.size > 0) this.handler.onResponseData?.(controller, Buffer.concat(this.chunks));
    this.chunks = [];
    this.handler.onResponseEnd?.(controller, trailers);
  }

  onResponseError(controller: Controller, error: Error) {
    this.chunks = [];
    this.handler.onResponseError?.(controller, error);
  }
}

/** For `dispatcher.compose(...)`: each answer read whole to `maxBytes`, a larger one a failed request. */
export function wholeAnswerInterceptor(maxBytes: number): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) => (options, handler) => dispatch(options, new WholeAnswerHandler(handler, maxBytes));
}
