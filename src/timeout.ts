/** Rejects with `onTimeout()` when `promise` has not settled within `ms`; the promise itself runs on. */
export function withTimeout<T>(promise: Promise<T>, ms: number, onTimeout = () => new Error(`no answer within ${ms} ms`)): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
