// Recognising Postgres errors from either driver: postgres.js puts the SQLSTATE on the error,
// PGlite on the error or on its cause (as Drizzle wraps it).
interface PgErrorLike {
  code?: string;
  constraint_name?: string;
  constraint?: string;
  cause?: unknown;
  message?: string;
}

function pgError(err: unknown): PgErrorLike | undefined {
  let current = err as PgErrorLike | undefined;
  for (let depth = 0; current && depth < 4; depth++) {
    if (typeof current.code === 'string' && /^[0-9A-Z]{5}$/.test(current.code)) return current;
    current = current.cause as PgErrorLike | undefined;
  }
  return undefined;
}

function matches(err: unknown, sqlState: string, constraint?: string): boolean {
  const e = pgError(err);
  if (!e || e.code !== sqlState) return false;
  if (!constraint) return true;
  const name = e.constraint_name ?? e.constraint;
  return name ? name === constraint : (e.message ?? '').includes(constraint);
}

export const isUniqueViolation = (err: unknown, constraint?: string) => matches(err, '23505', constraint);
export const isForeignKeyViolation = (err: unknown, constraint?: string) => matches(err, '23503', constraint);
/**
 * A delete refused by an ON DELETE RESTRICT reference. Postgres 17 (PGlite) reports it as
 * restrict_violation (23001); Postgres 15/16 as foreign_key_violation (23503): accept both.
 */
export const isRestrictedDelete = (err: unknown, constraint?: string) =>
  matches(err, '23001', constraint) || matches(err, '23503', constraint);
/** A `for update nowait` that met a row another transaction holds. */
export const isLockNotAvailable = (err: unknown) => matches(err, '55P03');
