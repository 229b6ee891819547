// The postgres.js pool for a PostgresConnection (options only; nothing here connects until the first query).
import postgres from 'postgres';
import type { PostgresConnection } from '../storage-config.js';

export type Pg = postgres.Sql;

/** Seconds to wait for a connection before failing with Unavailable. */
const CONNECT_TIMEOUT_S = 10;
/** Idle connections are closed after this many seconds, so a quiet apiserver holds few server slots. */
const IDLE_TIMEOUT_S = 60;
/**
 * TCP keepalive starts probing a connection that has been silent this many seconds (postgres.js: 60), and Node's
 * libuv then gives up after 10 probes a second apart. A connection whose server vanished without a word (a failover
 * that moved its address, a partition) is then found dead, and the query waiting on it fails, within ~25 s instead of
 * ~70 s; one that lost data in flight still waits on TCP's retransmissions, which is what the callers' deadlines are for.
 */
const KEEP_ALIVE_S = 15;

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
    keep_alive: KEEP_ALIVE_S,
    connect_timeout: c.connectTimeout ?? CONNECT_TIMEOUT_S,
    backoff: reconnectDelaySeconds,
    ...(c.maxLifetime !== undefined ? { max_lifetime: c.maxLifetime } : {}),
    connection: { application_name: c.applicationName ?? 'clusterpedia' },
    // NOTICEs (e.g. "schema already exists, skipping") are not errors; postgres.js would print them to the console.
    onnotice: () => {},
  });
}
