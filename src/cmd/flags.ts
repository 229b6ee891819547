// Flag parsers and option builders shared by the commands. Every flag reads CLUSTERPEDIA_<FLAG> as a fallback.
import { InvalidArgumentError, Option } from 'commander';
import { ConfigError } from '../lib/errors.js';
import { LOG_LEVELS } from '../lib/log.js';
import { DEFAULT_HEAP_GROWING_PERCENT } from '../lib/v8-heap.js';
import { redactUrl } from '../storage/storage-config.js';

/** `--secure-port` → `CLUSTERPEDIA_SECURE_PORT`. */
export function envName(longFlag: string, prefix = 'CLUSTERPEDIA_'): string {
  return `${prefix}${longFlag.replace(/^--/, '').replace(/-/g, '_').toUpperCase()}`;
}

/**
 * An Option whose value also comes from its environment variable, CLUSTERPEDIA_<FLAG> (`prefix` for a command whose
 * flags must not read the roles' variables: simulate's --clusters is a number, the roles' a path).
 */
export function option(flags: string, description: string, prefix?: string): Option {
  const long = flags.split(/[ ,|]+/).find((f) => f.startsWith('--'));
  const opt = new Option(flags, description);
  if (long) opt.env(envName(long.replace(/^--no-/, '--'), prefix));
  return opt;
}

/**
 * --heap-growing-percent, a setting of the whole process (one V8 heap): each command applies it with
 * setHeapGrowingPercent before its role starts; binding has it once, for both roles.
 */
export function heapGrowingPercentOption(): Option {
  return option('--heap-growing-percent <n>', "V8 heap growth over the live set before a full GC, percent (0: V8's default)")
    .argParser(parseNonNegativeInt)
    .default(DEFAULT_HEAP_GROWING_PERCENT);
}

export function parsePort(value: string): number {
  const n = parseStrictInt(value);
  if (n === undefined || n < 0 || n > 65535) throw new InvalidArgumentError('must be a port number between 0 and 65535.');
  return n;
}

export function parseNonNegativeInt(value: string): number {
  const n = parseStrictInt(value);
  if (n === undefined || n < 0) throw new InvalidArgumentError('must be a non-negative integer.');
  return n;
}

export function parsePositiveInt(value: string): number {
  const n = parseStrictInt(value);
  if (n === undefined || n < 1) throw new InvalidArgumentError('must be a positive integer.');
  return n;
}

function parseStrictInt(value: string): number | undefined {
  if (!/^\s*-?\d+\s*$/.test(value)) return undefined;
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : undefined;
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Parses Go-style durations ("500ms", "5s", "1m30s", "2h") into milliseconds. A bare number is seconds. */
export function parseDuration(value: string): number {
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy;
  let total = 0;
  let matched = 0;
  for (let m = re.exec(v); m; m = re.exec(v)) {
    total += Number(m[1]) * (DURATION_UNITS[m[2] ?? 's'] ?? 0);
    matched = re.lastIndex;
  }
  if (v === '' || matched !== v.length) throw new InvalidArgumentError('must be a duration such as 500ms, 5s, 1m30s or 2h.');
  return Math.round(total);
}

/** parseDuration for periods and time-outs, where 0 would spin a loop or fail every attempt at once. */
export function parsePositiveDuration(value: string): number {
  const ms = parseDuration(value);
  if (ms < 1) throw new InvalidArgumentError('must be a duration above zero, such as 500ms, 5s, 1m30s or 2h.');
  return ms;
}

export function parseBool(value: string): boolean {
  const v = value.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(v)) return true;
  if (['false', '0', 'no', 'off'].includes(v)) return false;
  throw new InvalidArgumentError('must be true or false.');
}

/** Validates a --storage URL's shape; the storage layer parses it fully. */
export function parseStorageUrl(value: string): string {
  const v = value.trim();
  if (v.startsWith('sqlite:')) {
    if (v === 'sqlite:') throw new InvalidArgumentError('sqlite: needs a path, e.g. sqlite:./clusterpedia.db or sqlite::memory:.');
    return v;
  }
  // Not InvalidArgumentError below: commander would echo the raw value, password included (API.md §4 Security).
  if (/^postgres(ql)?:\/\//.test(v)) {
    try {
      const u = new URL(v);
      if (!u.hostname) throw new Error('no host');
    } catch {
      throw new ConfigError(`--storage: ${JSON.stringify(redactUrl(v))} is not a valid postgres:// URL`);
    }
    return v;
  }
  throw new ConfigError(`--storage: ${JSON.stringify(redactUrl(v))} must start with sqlite: or postgres://`);
}

export function logLevelOption(): Option {
  return option('--log-level <level>', 'log level').choices([...LOG_LEVELS]).default('info');
}

export function logFormatOption(): Option {
  return option('--log-format <format>', 'log format (default: pretty on a terminal, json otherwise)').choices(['json', 'pretty']);
}

/** Long-running roles and `migrate` wait this long for a database they cannot reach yet (storage/open.ts). */
export function storageWaitOption(): Option {
  return option('--storage-initialization-timeout <duration>', 'how long to keep trying at start while the database cannot be reached (0: try once)')
    .argParser(parseDuration).default(60_000, '1m');
}

export function storageOptions(): Option[] {
  return [
    option('--storage <url>', 'storage: sqlite:<path>, sqlite::memory:, or postgres://user:pass@host:port/db').argParser(parseStorageUrl).default('sqlite:./clusterpedia.db'),
    option('--storage-config <file>', "Clusterpedia's internalstorage YAML (type, host, port, user, password, database, sslMode, dsn); overrides --storage"),
  ];
}
