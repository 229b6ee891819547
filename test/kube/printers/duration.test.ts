// Ages: kube's own duration_test.go cases for HumanDuration and ShortHumanDuration, plus timestamps.

import { describe, expect, it } from 'vitest';
import { humanDuration, shortHumanDuration, translateTimestampSince } from '../../../src/kube/printers/duration.js';
import { DAY, HOUR, MINUTE, NOW, SECOND, ago } from './clock.js';

const YEAR = 365 * DAY;
const MS = 1;
/** Go's 1ns, the smallest step in kube's boundary tables. */
const NS = 1e-6;

describe('humanDuration (TestHumanDuration)', () => {
  it.each([
    [SECOND, '1s'],
    [70 * SECOND, '70s'],
    [190 * SECOND, '3m10s'],
    [70 * MINUTE, '70m'],
    [47 * HOUR, '47h'],
    [49 * HOUR, '2d1h'],
    [(8 * 24 + 2) * HOUR, '8d'],
    [367 * 24 * HOUR, '367d'],
    [(365 * 2 * 24 + 25) * HOUR, '2y1d'],
    [(365 * 8 * 24 + 2) * HOUR, '8y'],
  ])('%d ms → %s', (ms, want) => {
    expect(humanDuration(ms)).toBe(want);
  });
});

describe('humanDuration (TestHumanDurationBoundaries)', () => {
  it.each([
    [-2 * SECOND, '<invalid>'],
    [-2 * SECOND + NS, '0s'],
    [0, '0s'],
    [SECOND - MS, '0s'],
    [2 * MINUTE - MS, '119s'],
    [2 * MINUTE, '2m'],
    [2 * MINUTE + SECOND, '2m1s'],
    [10 * MINUTE - MS, '9m59s'],
    [10 * MINUTE, '10m'],
    [10 * MINUTE + SECOND, '10m'],
    [3 * HOUR - MS, '179m'],
    [3 * HOUR, '3h'],
    [3 * HOUR + MINUTE, '3h1m'],
    [8 * HOUR - MS, '7h59m'],
    [8 * HOUR, '8h'],
    [8 * HOUR + 59 * MINUTE, '8h'],
    [2 * DAY - MS, '47h'],
    [2 * DAY, '2d'],
    [2 * DAY + HOUR, '2d1h'],
    [8 * DAY - MS, '7d23h'],
    [8 * DAY, '8d'],
    [8 * DAY + 23 * HOUR, '8d'],
    [2 * YEAR - MS, '729d'],
    [2 * YEAR, '2y'],
    [2 * YEAR + 23 * HOUR, '2y'],
    [2 * YEAR + 23 * HOUR + 59 * MINUTE, '2y'],
    [2 * YEAR + DAY - MS, '2y'],
    [2 * YEAR + DAY, '2y1d'],
    [3 * YEAR, '3y'],
    [4 * YEAR, '4y'],
    [5 * YEAR, '5y'],
    [6 * YEAR, '6y'],
    [7 * YEAR, '7y'],
    [8 * YEAR - MS, '7y364d'],
    [8 * YEAR, '8y'],
    [8 * YEAR + 364 * DAY, '8y'],
    [9 * YEAR, '9y'],
  ])('%d ms → %s', (ms, want) => {
    expect(humanDuration(ms)).toBe(want);
  });
});

describe('shortHumanDuration (TestShortHumanDurationBoundaries)', () => {
  it.each([
    [-2 * SECOND, '<invalid>'],
    [-2 * SECOND + NS, '0s'],
    [0, '0s'],
    [SECOND - MS, '0s'],
    [SECOND, '1s'],
    [2 * SECOND - MS, '1s'],
    [MINUTE - MS, '59s'],
    [MINUTE, '1m'],
    [2 * MINUTE - MS, '1m'],
    [HOUR - MS, '59m'],
    [HOUR, '1h'],
    [2 * HOUR - MS, '1h'],
    [DAY - MS, '23h'],
    [DAY, '1d'],
    [2 * DAY - MS, '1d'],
    [YEAR - MS, '364d'],
    [YEAR, '1y'],
    [2 * YEAR - MS, '1y'],
    [2 * YEAR, '2y'],
  ])('%d ms → %s', (ms, want) => {
    expect(shortHumanDuration(ms)).toBe(want);
  });
});

describe('translateTimestampSince', () => {
  it('prints <unknown> for a missing, null, zero or unparsable timestamp', () => {
    for (const ts of [undefined, null, '', '0001-01-01T00:00:00Z', 'yesterday', 42]) {
      expect(translateTimestampSince(ts, NOW)).toBe('<unknown>');
    }
  });

  it('measures from now, tolerating up to 2s of clock skew into the future', () => {
    expect(translateTimestampSince(ago(5 * SECOND), NOW)).toBe('5s');
    expect(translateTimestampSince(ago(-1.9 * SECOND), NOW)).toBe('0s');
    expect(translateTimestampSince(ago(-3 * SECOND), NOW)).toBe('<invalid>');
    expect(translateTimestampSince(ago(3 * HOUR + 12 * MINUTE), NOW)).toBe('3h12m');
  });

  it('reads offsets and fractional seconds (MicroTime) as Go does', () => {
    expect(translateTimestampSince('2024-06-01T13:59:00+02:00', NOW)).toBe('60s');
    expect(translateTimestampSince('2024-06-01T11:59:59.500000Z', NOW)).toBe('0s');
    expect(translateTimestampSince('2024-06-01T11:59:58.999999Z', NOW)).toBe('1s');
    // Go's RFC3339 parser wants an upper-case T and valid field ranges.
    expect(translateTimestampSince('2024-06-01t11:00:00Z', NOW)).toBe('<unknown>');
    expect(translateTimestampSince('2024-02-30T11:00:00Z', NOW)).toBe('<unknown>');
  });
});
