// postgres.js errors interpreted once, at the dialect edge (STYLE §8), into StorageError.
import { isStorageError, StorageError } from '../errors.js';

/** Network-level failures (Node errno codes and postgres.js's own connection codes): the server may come back. */
export const CONNECTION_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED',
  'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT',
]);

/**
 * SQLSTATEs of a server that ended the session: 57P01-03 shutdown, crash, starting up; 57P05 and 25P03 an idle session
 * (idle past its own timeout, or idle in a transaction past its timeout).
 */
export const SESSION_ENDED_CODES: ReadonlySet<string> = new Set(['57P01', '57P02', '57P03', '57P05', '25P03']);

/** Node errno codes of a connection this process could not make for want of its own resources. */
const LOCAL_RESOURCE_CODES: ReadonlySet<string> = new Set(['EMFILE', 'ENFILE', 'ENOMEM', 'ENOBUFS', 'EADDRNOTAVAIL']);

/**
 * Maps anything thrown by postgres.js to a StorageError. SQLSTATE classes: 08 connection, 53 insufficient
 * resources, 57P01-03 shutdown/crash/starting up, 57P05 and 25P03 an idle session ended, 57014 canceled →
 * Unavailable (retryable); 40001 serialization and 40P01 deadlock → Conflict (retryable); 23505 unique → Conflict;
 * 42P01 undefined table → not migrated; 22021 (a text parameter PostgreSQL cannot hold, such as U+0000 from
 * `?names=%00`) and 54 program limits → Invalid, the client's 400.
 */
export function mapPostgresError(e: unknown, what: string): StorageError {
  if (isStorageError(e)) return e;
  const err = (typeof e === 'object' && e !== null ? e : {}) as { code?: unknown; errno?: unknown; message?: unknown };
  const code = typeof err.code === 'string' ? err.code : typeof err.errno === 'string' ? err.errno : '';
  // postgres.js messages never carry the password; keep them, they name host and port.
  const message = typeof err.message === 'string' ? err.message : String(e);
  const fail = (c: StorageError['code'], retryable: boolean, text = message): StorageError =>
    new StorageError(c, `${what}: ${text}${code ? ` (${code})` : ''}`, retryable, { cause: e });
  if (CONNECTION_CODES.has(code)) return fail('Unavailable', true, `database unreachable: ${message}`);
  // This process out of file descriptors or memory for a new connection: it passes when requests end (503, retried).
  if (LOCAL_RESOURCE_CODES.has(code)) return fail('Unavailable', true, `no new database connection: ${message}`);
  if (/^08/.test(code) || /^53/.test(code) || SESSION_ENDED_CODES.has(code) || code === '57014') return fail('Unavailable', true);
  if (code === '40001' || code === '40P01') return fail('Conflict', true);
  if (code === '23505') return fail('Conflict', false);
  if (code === '28P01' || code === '28000') return fail('Unavailable', false, `authentication failed: ${message}`);
  if (code === '3D000') return fail('Unavailable', false);
  // PostgreSQL text cannot contain NUL: such a filter value could match nothing, and it is the client's input.
  if (code === '22021') return fail('Invalid', false);
  // 54xxx program limits (stack depth, too many columns or arguments) and postgres.js's parameter limit: a query built
  // from too many filter values, the client's request is too big.
  if (/^54/.test(code) || code === 'MAX_PARAMETERS_EXCEEDED') return fail('Invalid', false, `the query has too many filter values or requirements for storage: ${message}`);
  if (code === '42P01') return fail('SchemaMismatch', false, `the database is not migrated (run clusterpedia migrate): ${message}`);
  return fail('Internal', false);
}
