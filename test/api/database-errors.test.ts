import { PrismaClientKnownRequestError } from '@prisma/client/runtime/client';
import express from 'express';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure, RetryState } from '@temporalio/common';
import { errorMiddleware } from '../../src/api/http/errors';
import { listen } from '../../src/api/http/server';
import { isDatabaseUnavailable, isRefusedData, RefusedDataError, sqlState } from '../../src/db/errors';

/*
 * How the API and the activities read a database error: data PostgreSQL refuses is final (400, or a
 * non-retryable failure), a database that cannot answer now is a 503 to retry. Errors are built as the
 * pg driver adapter hands them through Prisma 7.
 */
function postgresError(prismaCode: string, sqlState: string) {
  return new PrismaClientKnownRequestError(`Database error. Code: \`${sqlState}\``, {
    code: prismaCode,
    clientVersion: '7',
    meta: { driverAdapterError: { cause: { originalCode: sqlState, kind: 'postgres' } } },
  });
}

const REFUSED = 'refused data, never retried';
const UNAVAILABLE = 'an unavailable database, answered 503';

test.each([
  ['a NUL character (22021)', 'P2039', '22021', REFUSED],
  ['a value too long for its column (22001)', 'P2000', '22001', REFUSED],
  ['a number out of range (22003)', 'P2020', '22003', REFUSED],
  ['a NOT NULL column left empty (23502)', 'P2011', '23502', REFUSED],
  ['PostgreSQL starting up (57P03)', 'P2039', '57P03', UNAVAILABLE],
  ['an administrator shutdown (57P01)', 'P2039', '57P01', UNAVAILABLE],
  ['a broken connection (08006)', 'P2039', '08006', UNAVAILABLE],
  ['too many connections (53300)', 'P2037', '53300', UNAVAILABLE],
])('%s is %s', (_name, code, state, kind) => {
  expect(isRefusedData(postgresError(code, state))).toBe(kind === REFUSED);
  expect(isDatabaseUnavailable(postgresError(code, state))).toBe(kind === UNAVAILABLE);
});

test('a unique or foreign key refusal is neither: a retry reads what the concurrent writer left', () => {
  expect(isRefusedData(postgresError('P2002', '23505'))).toBe(false);
  expect(isRefusedData(postgresError('P2003', '23503'))).toBe(false);
  expect(isDatabaseUnavailable(postgresError('P2002', '23505'))).toBe(false);
});

test('an unreachable server without a SQLSTATE is unavailable by its Prisma code', () => {
  expect(isDatabaseUnavailable(new PrismaClientKnownRequestError("Can't reach database server", { code: 'P1001', clientVersion: '7' }))).toBe(true);
});

test('a transaction that could not start or finish in its time (a busy machine) is unavailable: it was rolled back, a retry may pass', () => {
  const timedOut = new PrismaClientKnownRequestError('Transaction API error: Unable to start a transaction in the given time.', { code: 'P2028', clientVersion: '7' });
  expect(isDatabaseUnavailable(timedOut)).toBe(true);
});

test('a request workflow whose local recording step ran out of retries is a 503 to retry, not a 500', async () => {
  const app = express();
  app.get('/assign', () => {
    // How a local activity's last failure ends the run: unwrapped, still retryable.
    throw new WorkflowFailedError('Workflow execution failed', ApplicationFailure.create({ message: 'connection reset' }), RetryState.RETRY_POLICY_NOT_SET);
  });
  app.use(errorMiddleware(() => undefined));
  const server = await listen(app, 0, '127.0.0.1');
  try {
    const res = await fetch(`http://127.0.0.1:${server.port}/assign`);
    expect(res.status).toBe(503);
    expect(((await res.json()) as { detail: string }).detail).toBe('A backing service is unavailable; try again shortly');
  } finally {
    await server.stop();
  }
});

test('a date the database cannot read back is refused data with the SQLSTATE PostgreSQL gives an out-of-range date', () => {
  const error = new RefusedDataError('A dt_until is outside the years 0001-9999', '22008');
  expect(isRefusedData(error)).toBe(true);
  expect(sqlState(error)).toBe('22008');
});
