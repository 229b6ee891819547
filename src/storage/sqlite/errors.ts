// better-sqlite3 errors interpreted once, at the dialect edge (STYLE §8), into StorageError.
import { fencedError, isStorageError, StorageError } from '../errors.js';

/** The `code` of the error a fenced write fails with on the writer connection (write.ts assertFence), its message the lease. */
export const FENCED_CODE = 'CLUSTERPEDIA_FENCED';

/** Maps anything thrown by better-sqlite3 (SqliteError has `code` like SQLITE_BUSY_SNAPSHOT) to a StorageError. */
export function mapSqliteError(e: unknown, what: string): StorageError {
  if (isStorageError(e)) return e;
  const code = sqliteErrorCode(e);
  const message = e instanceof Error ? e.message : String(e);
  if (code === FENCED_CODE) return fencedError(what, message);
  // Extended codes (SQLITE_BUSY_SNAPSHOT, SQLITE_IOERR_WRITE, …) share their primary code's meaning.
  const primary = code.replace(/^(SQLITE_[A-Z]+?)(_[A-Z_]+)?$/, '$1');
  switch (primary) {
    case 'SQLITE_BUSY':
    case 'SQLITE_LOCKED':
      return new StorageError('Unavailable', `${what}: database is locked by another writer (${code})`, true, { cause: e });
    case 'SQLITE_FULL':
    case 'SQLITE_IOERR':
    case 'SQLITE_NOMEM':
    case 'SQLITE_INTERRUPT':
      return new StorageError('Unavailable', `${what}: ${message} (${code})`, true, { cause: e });
    case 'SQLITE_CANTOPEN':
    case 'SQLITE_READONLY':
    case 'SQLITE_PERM':
    case 'SQLITE_AUTH':
      return new StorageError('Unavailable', `${what}: ${message} (${code})`, false, { cause: e });
    case 'SQLITE_CONSTRAINT':
      return new StorageError('Conflict', `${what}: ${message} (${code})`, false, { cause: e });
    case 'SQLITE_CORRUPT':
    case 'SQLITE_NOTADB':
      return new StorageError('Internal', `${what}: database file is corrupt or not a database (${code})`, false, { cause: e });
    case 'SQLITE_TOOBIG':
      return new StorageError('Invalid', `${what}: a value is too large for storage (${code})`, false, { cause: e });
    default:
      // Limits of SQLite's parser hit by a query built from many filter values: the request is too big, not a fault.
      if (/expression tree is too large|too many SQL variables|too many terms|parser stack overflow|too many arguments|recursion limit/i.test(message)) {
        return new StorageError('Invalid', `${what}: the query has too many filter values or requirements for storage (${message})`, false, { cause: e });
      }
      if (/no such table/i.test(message)) {
        return new StorageError('SchemaMismatch', `${what}: the database is not migrated (run clusterpedia migrate): ${message}`, false, { cause: e });
      }
      return new StorageError('Internal', `${what}: ${message}${code ? ` (${code})` : ''}`, false, { cause: e });
  }
}

/** better-sqlite3's `code` of a thrown value (SQLITE_BUSY_SNAPSHOT, …), '' when it has none. */
export function sqliteErrorCode(e: unknown): string {
  return typeof e === 'object' && e !== null && typeof (e as { code?: unknown }).code === 'string' ? (e as { code: string }).code : '';
}
