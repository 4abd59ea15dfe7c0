/**
 * Runs work of one key (a routing policy) one batch at a time in this process, in arrival order: what
 * arrived while a batch ran is the next batch (at most `maxBatch` items), handed to `runBatch` as one —
 * for routing, one transaction under the policy's lock instead of one each, so a burst pays the lock,
 * the members' reads and the commit once per batch. The database lock is what makes routes exclusive
 * across processes; this also keeps a burst from holding a pooled connection per request while it
 * waits for that lock. A batch that fails is run again one item at a time, so each caller gets its own
 * answer or error.
 */
export function createBatchingRunner<I, O>(maxBatch: number) {
  interface Pending {
    input: I;
    runBatch: (inputs: I[]) => Promise<O[]>;
    resolve: (output: O) => void;
    reject: (error: unknown) => void;
  }
  const queues = new Map<string, Pending[]>();

  async function settle(items: Pending[]): Promise<void> {
    try {
      const outputs = await items[0].runBatch(items.map((item) => item.input));
      items.forEach((item, i) => item.resolve(outputs[i]));
    } catch (error) {
      if (items.length === 1) return items[0].reject(error);
      for (const item of items) await settle([item]);
    }
  }

  async function drain(key: string, queue: Pending[]): Promise<void> {
    while (queue.length > 0) await settle(queue.splice(0, maxBatch));
    queues.delete(key);
  }

  return function batched(key: string, input: I, runBatch: (inputs: I[]) => Promise<O[]>): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      const running = queues.get(key);
      if (running) return void running.push({ input, runBatch, resolve, reject });
      const queue: Pending[] = [{ input, runBatch, resolve, reject }];
      queues.set(key, queue);
      void drain(key, queue);
    });
  };
}
