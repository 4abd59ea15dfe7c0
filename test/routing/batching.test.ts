import { createBatchingRunner } from '../../src/use-cases/routing/serial';

/* The per-policy runner behind POST /clients/{_id}/route: a burst shares transactions, each caller gets its own answer. */

test('what arrives while a batch runs is the next batch, at most maxBatch items, in arrival order', async () => {
  const batched = createBatchingRunner<number, string>(3);
  const batches: number[][] = [];
  const run = async (inputs: number[]) => {
    batches.push(inputs);
    await new Promise((resolve) => setTimeout(resolve, 20));
    return inputs.map((i) => `out-${i}`);
  };
  const answers = await Promise.all([1, 2, 3, 4, 5, 6].map((i) => batched('policy', i, run)));
  expect(answers).toEqual(['out-1', 'out-2', 'out-3', 'out-4', 'out-5', 'out-6']);
  expect(batches).toEqual([[1], [2, 3, 4], [5, 6]]);
  // Another key is not held up by this one's batches.
  expect(await batched('other', 7, run)).toBe('out-7');
});

test('a batch that fails runs again one item at a time: only the failing caller gets the error', async () => {
  const batched = createBatchingRunner<number, number>(10);
  const run = async (inputs: number[]) => {
    await new Promise((resolve) => setTimeout(resolve, 5));
    if (inputs.includes(3)) throw new Error('client 3 refused');
    return inputs.map((i) => i * 10);
  };
  const answers = await Promise.allSettled([1, 2, 3, 4].map((i) => batched('policy', i, run)));
  expect(answers.map((a) => (a.status === 'fulfilled' ? a.value : (a.reason as Error).message))).toEqual([10, 20, 'client 3 refused', 40]);
});
