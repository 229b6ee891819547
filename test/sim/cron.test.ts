// CronJob schedules as kube reads them: every field form, names, descriptors, both day fields, time zones.
import { describe, expect, it } from 'vitest';
import { parseSchedule, scheduleNames } from '../../src/sim/cron.js';

const minuteOf = (iso: string): number => Date.parse(iso) / 60_000;
/** The minutes from `from` (inclusive, ISO) for `count` minutes at which `schedule` fires, as ISO strings (UTC). */
function firings(schedule: string, from: string, count: number, timeZone?: string): string[] {
  const s = parseSchedule(schedule, timeZone);
  const start = minuteOf(from);
  const out: string[] = [];
  for (let m = start; m < start + count; m++) if (s(m)) out.push(new Date(m * 60_000).toISOString().slice(0, 16));
  return out;
}
const DAY = 24 * 60;

describe('cron schedules', () => {
  it('minute and hour fields: values, lists, ranges, steps from *, from a value and within a range', () => {
    expect(firings('*/15 * * * *', '2026-01-05T10:00Z', 60)).toEqual(['2026-01-05T10:00', '2026-01-05T10:15', '2026-01-05T10:30', '2026-01-05T10:45']);
    expect(firings('5/20 * * * *', '2026-01-05T10:00Z', 60)).toEqual(['2026-01-05T10:05', '2026-01-05T10:25', '2026-01-05T10:45']);
    expect(firings('0-30/10 3 * * *', '2026-01-05T00:00Z', DAY)).toEqual(['2026-01-05T03:00', '2026-01-05T03:10', '2026-01-05T03:20', '2026-01-05T03:30']);
    expect(firings('0 2,14 * * *', '2026-01-05T00:00Z', DAY)).toEqual(['2026-01-05T02:00', '2026-01-05T14:00']);
    expect(firings('? * * * *', '2026-01-05T00:00Z', 3)).toHaveLength(3);
  });

  it('day fields: weekday names and ranges, and either day field matching when both are restricted', () => {
    // 2026-01-05 is a Monday.
    expect(firings('0 9 * * mon-fri', '2026-01-05T00:00Z', 7 * DAY).map((t) => t.slice(0, 10))).toEqual(['2026-01-05', '2026-01-06', '2026-01-07', '2026-01-08', '2026-01-09']);
    expect(firings('0 0 * * 0', '2026-01-05T00:00Z', 14 * DAY)).toEqual(['2026-01-11T00:00', '2026-01-18T00:00']);
    expect(firings('@weekly', '2026-01-05T00:00Z', 14 * DAY)).toEqual(firings('0 0 * * 0', '2026-01-05T00:00Z', 14 * DAY));
    // The 1st and the 15th, and every Friday.
    expect(firings('0 0 1,15 * FRI', '2026-01-01T00:00Z', 31 * DAY).map((t) => t.slice(0, 10))).toEqual(['2026-01-01', '2026-01-02', '2026-01-09', '2026-01-15', '2026-01-16', '2026-01-23', '2026-01-30']);
    // With the weekday field `*`, the date alone decides.
    expect(firings('0 0 13 * *', '2026-01-01T00:00Z', 60 * DAY).map((t) => t.slice(0, 10))).toEqual(['2026-01-13', '2026-02-13']);
  });

  it('months by number and name, and the descriptors', () => {
    const year = 365 * DAY;
    expect(firings('30 4 1 jan *', '2026-01-01T00:00Z', year)).toEqual(['2026-01-01T04:30']);
    expect(firings('@yearly', '2026-01-01T00:00Z', year)).toEqual(['2026-01-01T00:00']);
    expect(firings('@monthly', '2026-01-01T00:00Z', year)).toHaveLength(12);
    expect(firings('0 0 1 6-8 *', '2026-01-01T00:00Z', year).map((t) => t.slice(0, 10))).toEqual(['2026-06-01', '2026-07-01', '2026-08-01']);
    expect(firings('@daily', '2026-01-05T00:00Z', 3 * DAY)).toEqual(firings('@midnight', '2026-01-05T00:00Z', 3 * DAY));
    expect(firings('@hourly', '2026-01-05T00:00Z', DAY)).toHaveLength(24);
  });

  it('a time zone reads the fields on its wall clock, daylight saving time included', () => {
    // 9:00 in New York: 14:00 UTC in winter (EST), 13:00 UTC in summer (EDT).
    expect(firings('0 9 * * *', '2026-01-05T00:00Z', DAY, 'America/New_York')).toEqual(['2026-01-05T14:00']);
    expect(firings('0 9 * * *', '2026-07-06T00:00Z', DAY, 'America/New_York')).toEqual(['2026-07-06T13:00']);
    // Monday 00:30 in Tokyo is Sunday 15:30 UTC.
    expect(firings('30 0 * * mon', '2026-01-04T00:00Z', 2 * DAY, 'Asia/Tokyo')).toEqual(['2026-01-04T15:30']);
    expect(scheduleNames('0 9 * * *', minuteOf('2026-01-05T14:00Z'), 'America/New_York')).toBe(true);
    expect(scheduleNames('0 9 * * *', minuteOf('2026-01-05T09:00Z'), 'America/New_York')).toBe(false);
  });

  it('a schedule kube would refuse never fires', () => {
    for (const bad of ['61 * * * *', '* 24 * * *', '* * 0 * *', '* * * 13 *', '0 0 * * 8', '* * *', '* * * * * *', 'every minute', '*/0 * * * *', '5-1 * * * *', 'x-y * * * *']) {
      expect(() => parseSchedule(bad), bad).toThrow();
      expect(scheduleNames(bad, minuteOf('2026-01-05T00:00Z')), bad).toBe(false);
    }
    expect(scheduleNames('* * * * *', minuteOf('2026-01-05T00:00Z'), 'Not/AZone')).toBe(false);
  });
});
