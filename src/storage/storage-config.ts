// Where the storage is: a --storage URL or Clusterpedia's internalstorage YAML (+ DB_* env), parsed into a target.
import { readFileSync } from 'node:fs';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { ConfigError } from '../lib/errors.js';
import { readFlagFile } from '../lib/flag-file.js';
import { parseDuration } from './duration.js';

export type SslMode = false | 'allow' | 'prefer' | 'require' | 'verify-full' | { ca?: string; cert?: string; key?: string; rejectUnauthorized: boolean };

export interface PostgresConnection {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
  ssl: SslMode;
  /** Pool size (connPool.maxOpenConns). */
  max: number;
  /** Seconds; connPool.connMaxLifetime. */
  maxLifetime?: number;
  /** Seconds; connect_timeout. */
  connectTimeout?: number;
  applicationName?: string;
}

export type StorageTarget =
  | { dialect: 'sqlite'; /** ':memory:' or a file path. */ path: string }
  | { dialect: 'postgres'; connection: PostgresConnection };

/** Default PostgreSQL pool size: a few streaming lists plus the writer, well under max_connections of a shared server. */
export const DEFAULT_PG_POOL = 10;

/** A printable description of a target: never the password. */
export function describeTarget(t: StorageTarget): string {
  if (t.dialect === 'sqlite') return `sqlite:${t.path}`;
  const c = t.connection;
  return `postgres://${encodeURIComponent(c.user)}@${c.host.includes(':') ? `[${c.host}]` : c.host}:${c.port}/${encodeURIComponent(c.database)}`;
}

/**
 * The target of `url` (sqlite:<path>, sqlite::memory:, postgres[ql]://user:pass@host:port/db?sslmode=…), or of
 * `configFile` when given (it overrides the URL, as --storage-config does). `env` supplies the DB_* overrides of
 * the config file. Bad input → ConfigError naming what is wrong, never echoing a password.
 */
export function resolveStorageTarget(config: { url?: string; configFile?: string; env?: Record<string, string | undefined> }): StorageTarget {
  if (config.configFile !== undefined && config.configFile !== '') return fromConfigFile(config.configFile, config.env ?? {});
  return fromUrl(config.url ?? 'sqlite:./clusterpedia.db', '--storage');
}

function fromUrl(raw: string, what: string): StorageTarget {
  const v = raw.trim();
  if (v.startsWith('sqlite:')) {
    let path = v.slice('sqlite:'.length);
    if (path.startsWith('//')) path = path.slice(2); // sqlite:///abs/path
    if (path === '') throw new ConfigError(`${what}: sqlite: needs a path, e.g. sqlite:./clusterpedia.db or sqlite::memory:`);
    return { dialect: 'sqlite', path };
  }
  if (/^postgres(ql)?:\/\//i.test(v)) return { dialect: 'postgres', connection: fromPostgresUrl(v, what) };
  throw new ConfigError(`${what}: must start with sqlite: or postgres:// (got ${JSON.stringify(redactUrl(v))})`);
}

const URL_PARAMS = new Set(['sslmode', 'sslrootcert', 'sslcert', 'sslkey', 'connect_timeout', 'application_name']);

function fromPostgresUrl(v: string, what: string): PostgresConnection {
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw new ConfigError(`${what}: ${JSON.stringify(redactUrl(v))} is not a valid postgres:// URL`);
  }
  if (!u.hostname) throw new ConfigError(`${what}: the postgres URL has no host`);
  for (const k of u.searchParams.keys()) {
    if (!URL_PARAMS.has(k)) throw new ConfigError(`${what}: unsupported postgres URL parameter ${JSON.stringify(k)} (supported: ${[...URL_PARAMS].join(', ')})`);
  }
  const user = decodeURIComponent(u.username) || 'postgres';
  const q = (k: string): string | undefined => u.searchParams.get(k) ?? undefined;
  const timeout = q('connect_timeout');
  return {
    host: u.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: parsePort(u.port || '5432', `${what}: port`),
    user,
    password: decodeURIComponent(u.password),
    database: decodeURIComponent(u.pathname.replace(/^\//, '')) || user,
    ssl: sslMode(q('sslmode') ?? 'disable', { ca: q('sslrootcert'), cert: q('sslcert'), key: q('sslkey') }, `${what}: sslmode`),
    max: DEFAULT_PG_POOL,
    connectTimeout: timeout === undefined ? undefined : parseNumber(timeout, `${what}: connect_timeout`),
    applicationName: q('application_name'),
  };
}

/** libpq "key=value key2='quoted value'" DSN, as Clusterpedia's dsn: accepts. */
function fromKeyValueDsn(dsn: string): Record<string, string> {
  const out: Record<string, string> = {};
  const re = /\s*([a-zA-Z_]+)\s*=\s*(?:'((?:[^'\\]|\\.)*)'|(\S*))/gy;
  let m: RegExpExecArray | null;
  let end = 0;
  while ((m = re.exec(dsn)) !== null) {
    out[m[1] as string] = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : (m[3] ?? '');
    end = re.lastIndex;
  }
  if (dsn.slice(end).trim() !== '') throw new ConfigError('storage config: dsn is neither a postgres:// URL nor key=value pairs');
  return out;
}

function fromConfigFile(file: string, env: Record<string, string | undefined>): StorageTarget {
  const text = readFlagFile(file, '--storage-config');
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (e: unknown) {
    // The parser's message quotes the offending line, which may be the password line: report the position only.
    const pos = e instanceof YAMLParseError && e.linePos ? ` at line ${e.linePos[0].line}, column ${e.linePos[0].col}` : '';
    throw new ConfigError(`--storage-config ${file}: invalid YAML${pos}`);
  }
  if (doc === null || doc === undefined) doc = {};
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new ConfigError(`--storage-config ${file}: must be a YAML mapping`);
  return fromConfigObject(doc as Record<string, unknown>, env, `--storage-config ${file}`);
}

/** The config object (already parsed) with DB_* environment overrides applied. Exported for tests. */
export function fromConfigObject(c: Record<string, unknown>, env: Record<string, string | undefined>, what = 'storage config'): StorageTarget {
  const str = (key: string, envKey?: string): string | undefined => {
    const e = envKey ? env[envKey] : undefined;
    if (e !== undefined && e !== '') return e;
    const v = c[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return String(v);
    throw new ConfigError(`${what}: ${key} must be a string`);
  };
  const type = (str('type', 'DB_TYPE') ?? '').toLowerCase();
  const dsn = str('dsn', 'DB_DSN');
  if (type === 'mysql') throw new ConfigError(`${what}: type mysql is not supported by this clusterpedia (use postgres or sqlite)`);
  if (type === 'sqlite' || type === 'sqlite3') {
    if (!dsn) throw new ConfigError(`${what}: type ${type} needs dsn (the database file path, or :memory:)`);
    return fromUrl(dsn.startsWith('sqlite:') ? dsn : `sqlite:${dsn}`, `${what}: dsn`);
  }
  if (type !== 'postgres' && type !== 'postgresql') {
    throw new ConfigError(`${what}: type must be postgres or sqlite (got ${type === '' ? 'nothing' : JSON.stringify(type)})`);
  }
  const password = str('password', 'DB_PASSWORD');
  let conn: PostgresConnection;
  if (dsn) {
    if (/^postgres(ql)?:\/\//i.test(dsn)) {
      conn = fromPostgresUrl(dsn, `${what}: dsn`);
    } else {
      const kv = fromKeyValueDsn(dsn);
      const user = kv.user ?? 'postgres';
      conn = {
        host: kv.host ?? 'localhost',
        port: parsePort(kv.port ?? '5432', `${what}: dsn port`),
        user,
        password: kv.password ?? '',
        database: kv.dbname ?? user,
        ssl: sslMode(kv.sslmode ?? 'disable', { ca: kv.sslrootcert, cert: kv.sslcert, key: kv.sslkey }, `${what}: dsn sslmode`),
        max: DEFAULT_PG_POOL,
        connectTimeout: kv.connect_timeout === undefined ? undefined : parseNumber(kv.connect_timeout, `${what}: dsn connect_timeout`),
      };
    }
    // Clusterpedia injects the configured password into a DSN that lacks one.
    if (conn.password === '' && password) conn.password = password;
  } else {
    const database = str('database', 'DB_DATABASE');
    if (!database) throw new ConfigError(`${what}: database is required (or dsn)`);
    const user = str('user', 'DB_USER') ?? 'postgres';
    conn = {
      host: str('host', 'DB_HOST') ?? 'localhost',
      port: parsePort(str('port', 'DB_PORT') ?? '5432', `${what}: port`),
      user,
      password: password ?? '',
      database,
      ssl: sslMode(str('sslMode') ?? 'disable', { ca: str('sslRootCertFile'), cert: str('sslCertFile'), key: str('sslKeyFile') }, `${what}: sslMode`),
      max: DEFAULT_PG_POOL,
    };
  }
  const pool = c.connPool;
  if (pool !== undefined && pool !== null) {
    if (typeof pool !== 'object' || Array.isArray(pool)) throw new ConfigError(`${what}: connPool must be a mapping`);
    const p = pool as Record<string, unknown>;
    if (p.maxOpenConns !== undefined) {
      const n = Number(p.maxOpenConns);
      if (!Number.isInteger(n)) throw new ConfigError(`${what}: connPool.maxOpenConns must be an integer`);
      if (n > 0) conn.max = n; // <= 0 means "default", as in Clusterpedia
    }
    if (p.connMaxLifetime !== undefined) {
      const ms = typeof p.connMaxLifetime === 'number' ? p.connMaxLifetime * 1000 : parseDurationOr(String(p.connMaxLifetime), `${what}: connPool.connMaxLifetime`);
      if (ms > 0) conn.maxLifetime = Math.max(3600, Math.round(ms / 1000)); // Clusterpedia raises anything under 1h to 1h
    }
  }
  return { dialect: 'postgres', connection: conn };
}

function sslMode(mode: string, files: { ca?: string; cert?: string; key?: string }, what: string): SslMode {
  const read = (f: string | undefined): string | undefined => {
    if (f === undefined || f === '') return undefined;
    try {
      return readFileSync(f, 'utf8');
    } catch (e: unknown) {
      throw new ConfigError(`${what}: cannot read certificate file ${f}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`);
    }
  };
  const m = mode.trim().toLowerCase();
  if (m === '' || m === 'disable' || m === 'false') return false;
  if (m === 'allow' || m === 'prefer') return m;
  const ca = read(files.ca);
  const cert = read(files.cert);
  const key = read(files.key);
  if (m === 'require' || m === 'skip-verify' || m === 'true') return ca || cert ? { ca, cert, key, rejectUnauthorized: false } : 'require';
  if (m === 'verify-ca' || m === 'verify-full') return ca || cert || m === 'verify-ca' ? { ca, cert, key, rejectUnauthorized: true } : 'verify-full';
  throw new ConfigError(`${what}: unknown ssl mode ${JSON.stringify(mode)} (disable, allow, prefer, require, verify-ca, verify-full)`);
}

function parsePort(v: string, what: string): number {
  const n = Number(v);
  if (!/^\d+$/.test(v.trim()) || n < 1 || n > 65535) throw new ConfigError(`${what} must be a port number (got ${JSON.stringify(v)})`);
  return n;
}

function parseNumber(v: string, what: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new ConfigError(`${what} must be a non-negative number`);
  return n;
}

function parseDurationOr(v: string, what: string): number {
  const ms = parseDuration(v);
  if (ms === undefined) throw new ConfigError(`${what} must be a duration such as 30m or 1h`);
  return ms;
}

/** A URL with its password replaced, for messages. */
export function redactUrl(v: string): string {
  // Greedy up to the last '@' before the path: an unencoded '@' in a password must not leak its tail.
  return v.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*:)[^/]*@/i, '$1***@');
}
