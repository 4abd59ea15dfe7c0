import { condition } from '@temporalio/workflow';

/**
 * One local activity at a time in a client's run. Local activities in flight together resolve in the
 * order they finish while the run executes, and in the order they were scheduled when it replays: a run
 * whose request was recorded while its loop read its clocks took another path on replay (a
 * nondeterminism error, the run stuck until a fix). A request's recording goes before the loop's steps
 * waiting beside it.
 */
export class OneStepAtATime {
  private busy = false;
  private recordsWaiting = 0;

  /** Records requests once no step is in flight, before the loop's next step. */
  async record<T>(run: () => Promise<T>): Promise<T> {
    this.recordsWaiting++;
    try {
      await condition(() => this.take());
    } finally {
      this.recordsWaiting--;
    }
    return this.hold(run);
  }

  /** Runs a step of the loop once no step is in flight and no recording waits. */
  async step<T>(run: () => Promise<T>): Promise<T> {
    await condition(() => this.recordsWaiting === 0 && this.take());
    return this.hold(run);
  }

  // Taken inside the condition's test, so two waiters freed by one release never both go.
  private take(): boolean {
    if (this.busy) return false;
    this.busy = true;
    return true;
  }

  private async hold<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } finally {
      this.busy = false;
    }
  }
}
