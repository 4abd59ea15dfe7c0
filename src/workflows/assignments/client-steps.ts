import { condition } from '@temporalio/workflow';

/**
 * One local activity at a time in a client's run. Local activities in flight together resolve in the
 * order they finish while the run executes, and in the order they were scheduled when it replays: a run
 * whose request was recorded while its loop read its clocks took another path on replay (a
 * nondeterminism error, the run stuck until a fix). A request's recording goes before the loop's steps
 * waiting beside it. Runs that began before this (no `CLIENT_RUN_ONE_STEP_PATCH` marker) keep running
 * their steps as they did.
 */
export class OneStepAtATime {
  private busy = false;
  private recordsWaiting = 0;

  constructor(private readonly serial: boolean) {}

  /** Records requests once no step is in flight, before the loop's next step. */
  async record<T>(run: () => Promise<T>): Promise<T> {
    if (!this.serial) return run();
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
    if (!this.serial) return run();
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
