import type { SqlDriverAdapterFactory, Transaction } from '@prisma/driver-adapter-utils';

/*
 * Prisma's query plans run a transaction's independent steps side by side, but a transaction is one pg
 * connection, which takes one query at a time: pg queues the rest and warns that pg 9 will refuse them
 * (`DeprecationWarning: Calling client.query() when the client is already executing a query`). Queued
 * here instead, in the order Prisma asked, the transaction does what it did, without the warning.
 */
function queued(transaction: Transaction): Transaction {
  let tail: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(run: () => Promise<T>): Promise<T> => {
    const turn = tail.then(run);
    tail = turn.catch(() => undefined);
    return turn;
  };
  const queryRaw = transaction.queryRaw.bind(transaction);
  const executeRaw = transaction.executeRaw.bind(transaction);
  // On the instance, so the adapter's own savepoint statements (this.executeRaw) wait their turn too.
  return Object.assign(transaction, {
    queryRaw: (query: Parameters<Transaction['queryRaw']>[0]) => inTurn(() => queryRaw(query)),
    executeRaw: (query: Parameters<Transaction['executeRaw']>[0]) => inTurn(() => executeRaw(query)),
  });
}

/** The adapter factory whose transactions send one query at a time. */
export function serialTransactions<F extends SqlDriverAdapterFactory>(factory: F): F {
  const connect = factory.connect.bind(factory);
  return Object.assign(factory, {
    connect: async () => {
      const adapter = await connect();
      const startTransaction = adapter.startTransaction.bind(adapter);
      return Object.assign(adapter, { startTransaction: async (...args: Parameters<typeof startTransaction>) => queued(await startTransaction(...args)) });
    },
  });
}
