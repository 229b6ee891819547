// Clusterpedia's since/before values (reference §2.5): RFC3339, "2006-01-02 15:04:05", "2006-01-02" or unix s/ms.

/** A time value that does not parse. Identified by `code === 'SearchTimeError'`. */
export class SearchTimeError extends Error {
  readonly code = 'SearchTimeError';
  constructor(message: string) {
    super(message);
    this.name = 'SearchTimeError';
  }
}

export function isSearchTimeError(e: unknown): e is SearchTimeError {
  return typeof e === 'object' && e !== null && (e as { code?: unknown }).code === 'SearchTimeError';
}

const RFC3339_RE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;
const DATETIME_RE = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const MS_PER_MINUTE = 60_000;

/**
 * Milliseconds since the epoch for a UTC calendar time, or undefined when a field is out of range
 * (month 13, February 30, hour 24, second 60 — Go's time.Parse rejects all of them).
 */
function utcMillis(y: number, mo: number, d: number, h = 0, mi = 0, s = 0, ms = 0): number | undefined {
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return undefined;
  const date = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not map years 0–99 to 1900–1999.
  date.setUTCFullYear(y, mo - 1, d);
  if (date.getUTCMonth() !== mo - 1) return undefined;
  date.setUTCHours(h, mi, s, ms);
  return date.getTime();
}

function parseRfc3339(s: string): number | undefined {
  const m = RFC3339_RE.exec(s);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, sec, frac, zone] = m as unknown as string[];
  // Sub-millisecond digits are dropped: Date has millisecond precision, stored timestamps have seconds.
  const ms = frac ? Number(frac.padEnd(3, '0').slice(0, 3)) : 0;
  const local = utcMillis(Number(y), Number(mo), Number(d), Number(h), Number(mi), Number(sec), ms);
  if (local === undefined) return undefined;
  if (zone === 'Z') return local;
  const zh = Number((zone as string).slice(1, 3));
  const zm = Number((zone as string).slice(4, 6));
  if (zh > 23 || zm > 59) return undefined;
  const offset = (zh * 60 + zm) * MS_PER_MINUTE;
  return (zone as string).startsWith('-') ? local + offset : local - offset;
}

function parseMatch(re: RegExp, s: string): number | undefined {
  const m = re.exec(s);
  if (!m) return undefined;
  const n = m.slice(1).map(Number);
  return utcMillis(n[0] as number, n[1] as number, n[2] as number, n[3], n[4], n[5]);
}

/**
 * Parses a since/before value the way Clusterpedia picks the format: contains `T` → RFC3339 (a `+` must be
 * URL-encoded, or it arrives as a space); contains a space → `2006-01-02 15:04:05` UTC; contains `-` →
 * `2006-01-02` UTC midnight; otherwise a unix timestamp of 10 digits (seconds) or 13 (milliseconds).
 * Returns undefined for an empty (or all-blank) value. Throws SearchTimeError with Clusterpedia's messages.
 * Unlike Clusterpedia, surrounding blanks never break parsing (it trimmed only to pick the format).
 */
export function parseSearchTime(value: string): Date | undefined {
  const s = value.trim();
  if (s === '') return undefined;
  let ms: number | undefined;
  if (s.includes('T')) ms = parseRfc3339(s);
  else if (s.includes(' ')) ms = parseMatch(DATETIME_RE, s);
  else if (s.includes('-')) ms = parseMatch(DATE_RE, s);
  else if (/^\+?\d{1,19}$/.test(s) && BigInt(s) < 2n ** 63n) {
    // Go's ParseInt accepts a leading '+', and Clusterpedia measures the length with it.
    if (s.length === 10) ms = Number(s) * 1000;
    else if (s.length === 13) ms = Number(s);
    else throw new SearchTimeError('Invalid timestamp: only timestamps with string lengths of 10(as s) and 13(as ms) are supported');
  }
  if (ms === undefined || Number.isNaN(new Date(ms).getTime())) {
    throw new SearchTimeError(`Invalid datetime: ${value}, a valid datetime format: RFC3339, Datetime(2006-01-02 15:04:05), Date(2006-01-02), Unix Timestamp`);
  }
  return new Date(ms);
}
