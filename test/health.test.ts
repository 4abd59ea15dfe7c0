import { startTestStack, type TestStack } from './support/stack';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

test('healthz answers without a token', async () => {
  const res = await stack.api('GET', '//healthz');
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ status: 'ok' });
});

test('readyz reports the database and Temporal reachable', async () => {
  const res = await stack.api('GET', '//readyz');
  expect(res.body).toEqual({ status: 'ready', database: 'ok', temporal: 'ok' });
  expect(res.status).toBe(200);
});
