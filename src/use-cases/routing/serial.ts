/**
 * Runs work of one key (a routing policy) one at a time in this process, in arrival order. The
 * database lock is what makes routes exclusive across processes; this keeps a burst from holding a
 * pooled connection per request while it waits for that lock (and timing out on it).
 */
export function createSerialRunner() {
  const tails = new Map<string, Promise<unknown>>();
  return function serially<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = tails.get(key) ?? Promise.resolve();
    const run = previous.then(work, work);
    const tail = run.catch(() => undefined);
    tails.set(key, tail);
    void tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key);
    });
    return run;
  };
}
