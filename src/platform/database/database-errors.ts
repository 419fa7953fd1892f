// What a database's refusals mean, by code, for either engine: apart from database.ts, so that the command
// line's failure reports need no driver loaded.

/** A database that is busy or timed out (a 503 the client may retry), not a fault in the request. */
export function isTransientDatabaseError(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (code === '57014' || code === '55P03' || code === '40001' || code === '40P01' || code === 'SQLITE_BUSY')
    return true;
  return error instanceof Error && /timeout exceeded when trying to connect/i.test(error.message);
}

/** A unique constraint refused an insert (a concurrent writer got there first). */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** Another process holds the SQLite data folder (one server per folder: data-dir-lock.ts). */
export class DataDirLockedError extends Error {
  override readonly name = 'DataDirLockedError';
}
