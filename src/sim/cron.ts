// CronJob schedules as kube reads them (robfig/cron's standard parser): five fields — minute, hour, day of month,
// month, day of week — each `*` or `?`, a value, a range `a-b`, a step `*/n`, `a-b/n` or `a/n`, or a list of those;
// month and weekday names (JAN, MON); the descriptors @yearly, @annually, @monthly, @weekly, @daily, @midnight and
// @hourly. As in cron, when both day fields are restricted a day matching either runs. Minutes are counted in UTC
// unless the CronJob names a time zone (spec.timeZone).

/** The minutes a schedule names: given minutes since the epoch, whether it fires then. */
export type Schedule = (minute: number) => boolean;

const DESCRIPTORS: Record<string, string> = {
  '@yearly': '0 0 1 1 *', '@annually': '0 0 1 1 *', '@monthly': '0 0 1 * *', '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *', '@midnight': '0 0 * * *', '@hourly': '0 * * * *',
};

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

interface Field {
  min: number;
  max: number;
  names?: string[];
  /** The first name's value (months count from 1). */
  base?: number;
}

const FIELDS: Field[] = [
  { min: 0, max: 59 }, { min: 0, max: 23 }, { min: 1, max: 31 }, { min: 1, max: 12, names: MONTHS, base: 1 }, { min: 0, max: 6, names: DAYS, base: 0 },
];

/** A field's values as a set, and whether it was `*` (or `?`): an unrestricted day field. */
function parseField(text: string, f: Field): { values: Set<number>; star: boolean } {
  const values = new Set<number>();
  let star = false;
  const value = (s: string): number => {
    const named = f.names?.indexOf(s.toLowerCase()) ?? -1;
    const n = named >= 0 ? named + (f.base ?? 0) : /^\d+$/.test(s) ? Number(s) : NaN;
    if (!Number.isInteger(n) || n < f.min || n > f.max) throw new Error(`${s} is out of range [${f.min}, ${f.max}]`);
    return n;
  };
  for (const part of text.split(',')) {
    const [range = '', stepText] = part.split('/');
    const step = stepText === undefined ? 1 : Number(stepText);
    if (!Number.isInteger(step) || step < 1) throw new Error(`bad step in ${part}`);
    let lo: number;
    let hi: number;
    if (range === '*' || range === '?') {
      [lo, hi] = [f.min, f.max];
      if (stepText === undefined) star = true;
    } else if (range.includes('-')) {
      const [a = '', b = ''] = range.split('-');
      [lo, hi] = [value(a), value(b)];
      if (lo > hi) throw new Error(`bad range ${range}`);
    } else {
      lo = value(range);
      // `a/n`: from a to the field's end.
      hi = stepText === undefined ? lo : f.max;
    }
    for (let v = lo; v <= hi; v += step) values.add(v);
  }
  return { values, star };
}

/** Parses a schedule (throws on one kube would refuse); `timeZone`: the IANA zone its fields are read in. */
export function parseSchedule(schedule: string, timeZone?: string): Schedule {
  const text = DESCRIPTORS[schedule.trim().toLowerCase()] ?? schedule.trim();
  const parts = text.split(/\s+/);
  if (parts.length !== 5) throw new Error(`expected exactly 5 fields, found ${parts.length}: ${schedule}`);
  const [minute, hour, dom, month, dow] = parts.map((p, i) => parseField(p, FIELDS[i] as Field)) as [ReturnType<typeof parseField>, ReturnType<typeof parseField>, ReturnType<typeof parseField>, ReturnType<typeof parseField>, ReturnType<typeof parseField>];
  const clock = wallClock(timeZone);
  return (m: number): boolean => {
    const t = clock(m * 60_000);
    if (!minute.values.has(t.minute) || !hour.values.has(t.hour) || !month.values.has(t.month)) return false;
    const byDate = dom.values.has(t.day);
    const byWeekday = dow.values.has(t.weekday);
    return dom.star || dow.star ? byDate && byWeekday : byDate || byWeekday;
  };
}

/** Schedules parsed so far (a cluster's CronJobs share a few), by zone and text; undefined for one that does not parse. */
const parsed = new Map<string, Schedule | undefined>();

/** Whether `schedule` (in `timeZone`, else UTC) names the minute; false for a schedule that does not parse. */
export function scheduleNames(schedule: string, minute: number, timeZone?: string): boolean {
  const key = `${timeZone ?? ''}\u0001${schedule}`;
  let s = parsed.get(key);
  if (s === undefined && !parsed.has(key)) {
    if (parsed.size >= 1000) parsed.clear();
    try {
      s = parseSchedule(schedule, timeZone);
    } catch {
      s = undefined;
    }
    parsed.set(key, s);
  }
  return s !== undefined && s(minute);
}

interface WallTime {
  minute: number;
  hour: number;
  day: number;
  month: number;
  weekday: number;
}

/** Reads an instant as the wall clock of `timeZone` shows it (UTC when none). */
function wallClock(timeZone: string | undefined): (ms: number) => WallTime {
  if (timeZone === undefined || timeZone === '' || timeZone === 'UTC' || timeZone === 'Etc/UTC') {
    return (ms) => {
      const d = new Date(ms);
      return { minute: d.getUTCMinutes(), hour: d.getUTCHours(), day: d.getUTCDate(), month: d.getUTCMonth() + 1, weekday: d.getUTCDay() };
    };
  }
  const format = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', minute: 'numeric', hour: 'numeric', day: 'numeric', month: 'numeric', weekday: 'short' });
  return (ms) => {
    const parts = Object.fromEntries(format.formatToParts(new Date(ms)).map((p) => [p.type, p.value]));
    return { minute: Number(parts.minute), hour: Number(parts.hour), day: Number(parts.day), month: Number(parts.month), weekday: DAYS.indexOf(String(parts.weekday).toLowerCase()) };
  };
}
