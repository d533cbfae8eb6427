/** The Postgres error codes the service maps to API errors — in one place. */
export const PG_UNIQUE_VIOLATION = '23505';
export const PG_FOREIGN_KEY_VIOLATION = '23503';

export function pgErrorCode(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string') {
    return error.code;
  }
  return undefined;
}

/**
 * Runs `work`; a foreign-key violation becomes `whenReferenced()` instead. Deletes check their
 * references first to say what still uses a row, but a referencing row inserted after the
 * check is only caught by the foreign key: this is the race-safe backstop, mapped here once.
 */
export async function onForeignKeyViolation<T>(work: () => Promise<T>, whenReferenced: () => Error): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (pgErrorCode(error) === PG_FOREIGN_KEY_VIOLATION) throw whenReferenced();
    throw error;
  }
}
