// The postgres.js pool for a PostgresConnection (options only; nothing here connects until the first query).
import { connect, type Socket } from 'node:net';
import postgres from 'postgres';
import { deadline } from '../../lib/lifecycle.js';
import { silentLogger, type Logger } from '../../lib/log.js';
import type { PostgresConnection } from '../storage-config.js';
import type { ConnectionClosedReason } from '../types.js';
import { AnswerWatch, DEFAULT_ANSWER_WATCH, type AnswerWatchTimes, type ServerView } from './answer-watch.js';

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

export interface PoolOptions {
  /** Where a connection closed for want of an answer is reported. */
  logger?: Logger;
  /** The watch for connections that will not be answered (answer-watch.ts); false: none. */
  answerWatch?: AnswerWatchTimes | false;
  /** Told of each connection the watch closes. */
  onClosed?: (reason: ConnectionClosedReason) => void;
}

export function createPool(c: PostgresConnection, o: PoolOptions = {}): Pg {
  // A Unix-domain socket (the host a directory, as libpq and postgres.js take it) has no network to lose data in: left
  // to postgres.js, which connects to <host>/.s.PGSQL.<port>.
  const watched = o.answerWatch !== false && !c.host.includes('/');
  const watch = watched ? answerWatch(c, o.answerWatch || DEFAULT_ANSWER_WATCH, o.logger ?? silentLogger(), o.onClosed) : undefined;
  return postgres({
    ...connectionOptions(c),
    max: c.max,
    idle_timeout: IDLE_TIMEOUT_S,
    keep_alive: KEEP_ALIVE_S,
    backoff: reconnectDelaySeconds,
    ...(c.maxLifetime !== undefined ? { max_lifetime: c.maxLifetime } : {}),
    // postgres.js connects a socket it is given as it would its own (TLS included), with the watch looking on.
    ...(watch ? socketOption(() => watch.watch(tcpSocket(c))) : {}),
  });
}

/**
 * postgres.js's `socket` option (README, "Custom socket": a function returning the duplex to use, or a promise of it),
 * which its 3.4.9 type declarations leave out. The socket is made in a microtask: postgres.js attaches its 'error' and
 * 'close' listeners in the microtasks that follow its await of it, and a connect that fails at once (EMFILE: out of
 * file descriptors) reports so from process.nextTick callbacks, which run only once the microtask queue is empty —
 * made synchronously, the socket emitted that 'error' with no listener, and the process ended.
 */
function socketOption(make: () => Socket): object {
  return { socket: () => Promise.resolve().then(make) };
}

/** Where and as whom to connect, as every connection of ours does. */
function connectionOptions(c: PostgresConnection): postgres.Options<Record<string, postgres.PostgresType>> {
  return {
    host: c.host,
    port: c.port,
    user: c.user,
    password: c.password,
    database: c.database,
    ssl: c.ssl === false ? false : c.ssl,
    connect_timeout: c.connectTimeout ?? CONNECT_TIMEOUT_S,
    connection: { application_name: c.applicationName ?? 'clusterpedia' },
    // NOTICEs (e.g. "schema already exists, skipping") are not errors; postgres.js would print them to the console.
    onnotice: () => {},
  };
}

/**
 * A TCP connection to the server, not yet connected, as postgres.js makes its own: it writes to it at once (Node
 * queues the writes until it connects) and reports connect failures from its 'error' event. `host` and `port` are
 * what postgres.js reads back for its error messages and TLS server name.
 */
function tcpSocket(c: PostgresConnection): Socket {
  return Object.assign(connect({ host: c.host, port: c.port }), { host: c.host, port: c.port });
}

/** Seconds the probe connection may sit unused before it closes. */
const PROBE_IDLE_TIMEOUT_S = 60;
/** How long one question to the server may take. */
const PROBE_TIMEOUT_MS = 10_000;

/**
 * The server's sessions for these client ports, from the probe's client address, and how the server sees the probe
 * itself. `state_change` is timed by clock_timestamp(): now() is the probe's own transaction start. The ports travel as
 * text: without the types fetched (a probe needs none) postgres.js cannot send an array.
 */
const PROBE_SQL = `SELECT host(inet_client_addr()) AS self_address, inet_client_port() AS self_port, a.client_port AS port, a.state,
  (extract(epoch FROM clock_timestamp() - a.state_change) * 1000)::float8 AS ms
FROM (SELECT 1) AS one
LEFT JOIN pg_stat_activity a ON a.client_port = ANY(string_to_array($1, ',')::int[]) AND a.client_addr IS NOT DISTINCT FROM inet_client_addr()`;

interface ProbeRow { self_address: string | null; self_port: number | null; port: number | null; state: string | null; ms: number | null }

/** An AnswerWatch for the connections of one pool, asking the server on a probe connection of its own, opened when needed. */
function answerWatch(c: PostgresConnection, times: AnswerWatchTimes, logger: Logger, closed?: (reason: ConnectionClosedReason) => void): AnswerWatch {
  let probe: Pg | undefined;
  let probeSocket: Socket | undefined; // the probe's one connection, the latest it made
  const endProbe = (): void => {
    void probe?.end({ timeout: 1 });
    probe = undefined;
  };
  const ask = async (ports: number[]): Promise<ServerView> => {
    const sql = (probe ??= postgres({
      ...connectionOptions({ ...c, applicationName: `${c.applicationName ?? 'clusterpedia'} (connection check)` }),
      max: 1,
      idle_timeout: PROBE_IDLE_TIMEOUT_S,
      fetch_types: false,
      ...socketOption(() => (probeSocket = tcpSocket(c))),
    }));
    let rows: ProbeRow[];
    try {
      rows = (await deadline(sql.unsafe(PROBE_SQL, [ports.join(',')], { prepare: false }), PROBE_TIMEOUT_MS, () => new Error(`no answer within ${PROBE_TIMEOUT_MS} ms`))) as unknown as ProbeRow[];
    } catch (e: unknown) {
      if (probe === sql) endProbe();
      throw e;
    }
    const s = probeSocket;
    const first = rows[0];
    if (!s || !first || first.self_address === null || first.self_port === null) throw new Error('the server does not say where the probe connects from');
    const sessions: ServerView['sessions'] = new Map();
    for (const r of rows) if (r.port !== null) sessions.set(Number(r.port), { state: r.state, forMs: r.ms === null ? null : Number(r.ms) });
    return {
      client: { address: first.self_address, port: Number(first.self_port) },
      probe: { localAddress: s.localAddress ?? '', localPort: s.localPort ?? 0, remoteAddress: s.remoteAddress ?? '', remotePort: s.remotePort ?? 0 },
      sessions,
    };
  };
  return new AnswerWatch({ ...times, ask, idle: endProbe, logger, ...(closed ? { closed } : {}) });
}
