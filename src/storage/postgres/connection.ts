// The postgres.js pool for a PostgresConnection (options only; nothing here connects until the first query).
import postgres from 'postgres';
import type { PostgresConnection } from '../storage-config.js';

export type Pg = postgres.Sql;

/** Seconds to wait for a connection before failing with Unavailable. */
const CONNECT_TIMEOUT_S = 10;
/** Idle connections are closed after this many seconds, so a quiet apiserver holds few server slots. */
const IDLE_TIMEOUT_S = 60;

/**
 * Delay before a closed connection reconnects, seconds: 50 ms doubling to at most 1 s. postgres.js's own grows as
 * 3^n/100 up to 20 s over the failures of the whole pool, so after a PostgreSQL restart clusterpedia kept waiting
 * 5–20 s more for connections it could have had at once (measured by the chaos run).
 */
export function reconnectDelaySeconds(failures: number): number {
  return Math.min(0.05 * 2 ** failures, 1);
}

export function createPool(c: PostgresConnection): Pg {
  return postgres({
    host: c.host,
    port: c.port,
    user: c.user,
    password: c.password,
    database: c.database,
    ssl: c.ssl === false ? false : c.ssl,
    max: c.max,
    idle_timeout: IDLE_TIMEOUT_S,
    connect_timeout: c.connectTimeout ?? CONNECT_TIMEOUT_S,
    backoff: reconnectDelaySeconds,
    ...(c.maxLifetime !== undefined ? { max_lifetime: c.maxLifetime } : {}),
    connection: { application_name: c.applicationName ?? 'clusterpedia' },
    // NOTICEs (e.g. "schema already exists, skipping") are not errors; postgres.js would print them to the console.
    onnotice: () => {},
  });
}
