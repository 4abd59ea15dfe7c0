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
