/** Prisma's P2002: a unique constraint refused the write. */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: string }).code === 'P2002';
}

/** Runs an insert; a unique-constraint refusal becomes `onDuplicate()`'s error. */
export async function insertUnique<T>(insert: () => Promise<T>, onDuplicate: () => Error): Promise<T> {
  try {
    return await insert();
  } catch (error) {
    throw isUniqueViolation(error) ? onDuplicate() : error;
  }
}

/** The SQLSTATE PostgreSQL answered with, as the driver adapter hands it through Prisma. */
export function sqlState(error: unknown): string | undefined {
  if (error instanceof RefusedDataError) return error.sqlState;
  const e = error as { code?: unknown; meta?: { driverAdapterError?: { cause?: { originalCode?: unknown } } }; cause?: { originalCode?: unknown } };
  const code = e?.meta?.driverAdapterError?.cause?.originalCode ?? e?.cause?.originalCode;
  return typeof code === 'string' ? code : undefined;
}

const prismaCode = (error: unknown) => {
  const code = (error as { code?: unknown })?.code;
  return typeof code === 'string' ? code : undefined;
};

const FIRST_STORABLE_MS = Date.parse('0001-01-01T00:00:00.000Z');
const LAST_STORABLE_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/*
 * PostgreSQL's text cannot hold a NUL character, and UTF-8 cannot encode half a surrogate pair: such a
 * string fails inside the database, after a workflow has started, so none is let that far.
 */
// eslint-disable-next-line no-control-regex
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function hasUnstorableCharacters(value: string): boolean {
  return UNSTORABLE.test(value);
}

/**
 * A date the service can store and read back: UTC years 0001 to 9999. PostgreSQL takes later years,
 * but they come back through Prisma as an invalid date, so they are refused before they are written.
 */
export function isStorableDate(date: Date): boolean {
  const ms = date.getTime();
  return !Number.isNaN(ms) && ms >= FIRST_STORABLE_MS && ms <= LAST_STORABLE_MS;
}

/** A value the service refuses to write, as the database would refuse it, with the SQLSTATE it stands for: never worth a retry. */
export class RefusedDataError extends Error {
  override name = 'RefusedDataError';
  constructor(
    message: string,
    readonly sqlState: string,
  ) {
    super(message);
  }
}

/** Prisma's codes for a value the database cannot take: too long, of the wrong type, missing, out of range. */
const REFUSED_DATA_CODES = new Set(['P2000', 'P2005', 'P2006', 'P2007', 'P2009', 'P2011', 'P2012', 'P2019', 'P2020', 'P2023']);

/**
 * The database refused the data itself (SQLSTATE class 22 "data exception", a NOT NULL or CHECK rule):
 * the same statement fails the same way however often it runs. A unique or foreign key refusal is not
 * among them: a concurrent writer caused it, and the retried transaction reads the new state.
 */
export function isRefusedData(error: unknown): boolean {
  if (error instanceof RefusedDataError || (error as Error)?.name === 'PrismaClientValidationError') return true;
  const state = sqlState(error);
  if (state) return state.startsWith('22') || state === '23502' || state === '23514';
  const code = prismaCode(error);
  return code !== undefined && REFUSED_DATA_CODES.has(code);
}

/**
 * Prisma's codes for a database it cannot reach, that timed out, or that has no connection to spare;
 * P2028, a transaction that could not start or finish within its time on a busy machine, was rolled back.
 */
const UNAVAILABLE_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1011', 'P1017', 'P2024', 'P2028', 'P2037']);

/**
 * The database cannot answer now but will: not reachable, starting up or shutting down (57P03 while
 * PostgreSQL starts, which reaches Prisma as P2039), out of connections or resources.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const state = sqlState(error);
  if (state && (state.startsWith('08') || state.startsWith('53') || state.startsWith('57P'))) return true;
  const code = prismaCode(error);
  return code !== undefined && UNAVAILABLE_CODES.has(code);
}
