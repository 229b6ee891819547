// since/before values (reference §2.5): every format, Clusterpedia's messages, and epoch round trips.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isSearchTimeError, parseSearchTime } from '../../src/kube/search-time.js';

const INVALID_DATETIME = (v: string): string =>
  `Invalid datetime: ${v}, a valid datetime format: RFC3339, Datetime(2006-01-02 15:04:05), Date(2006-01-02), Unix Timestamp`;
const INVALID_TIMESTAMP = 'Invalid timestamp: only timestamps with string lengths of 10(as s) and 13(as ms) are supported';

function errorOf(v: string): string {
  try {
    parseSearchTime(v);
  } catch (e: unknown) {
    expect(isSearchTimeError(e)).toBe(true);
    return (e as Error).message;
  }
  throw new Error(`expected ${JSON.stringify(v)} to be rejected`);
}

describe('parseSearchTime', () => {
  it.each([
    ['1646352000', '2022-03-04T00:00:00.000Z'],
    ['1646352000123', '2022-03-04T00:00:00.123Z'],
    ['+646352000', '1990-06-25T22:13:20.000Z'],
    ['2022-03-04', '2022-03-04T00:00:00.000Z'],
    ['2022-03-04 10:11:12', '2022-03-04T10:11:12.000Z'],
    ['2022-03-04T10:11:12Z', '2022-03-04T10:11:12.000Z'],
    ['2022-03-04T10:11:12+08:00', '2022-03-04T02:11:12.000Z'],
    ['2022-03-04T10:11:12-01:30', '2022-03-04T11:41:12.000Z'],
    ['2022-03-04T10:11:12.5Z', '2022-03-04T10:11:12.500Z'],
    ['2022-03-04T10:11:12.123456789Z', '2022-03-04T10:11:12.123Z'],
    ['  2022-03-04  ', '2022-03-04T00:00:00.000Z'],
    ['2024-02-29', '2024-02-29T00:00:00.000Z'],
    ['0001-01-01', '0001-01-01T00:00:00.000Z'],
  ])('%j → %s', (v, iso) => {
    expect(parseSearchTime(v)?.toISOString()).toBe(iso);
  });

  it('treats a blank value as absent', () => {
    expect(parseSearchTime('')).toBeUndefined();
    expect(parseSearchTime('   ')).toBeUndefined();
  });

  it.each(['16463520000', '164635200', '1', '12345678901234567'])('rejects the timestamp length of %j', (v) => {
    expect(errorOf(v)).toBe(INVALID_TIMESTAMP);
  });

  it.each([
    '2022-03-04T10:11:12', '2022-03-04T10:11:12 08:00', '2022-02-30', '2023-02-29', '2022-13-01', '2022-3-4', '22-03-04',
    '2022-03-04 24:00:00', '2022-03-04 10:60:00', '2022-03-04 10:00:60', '2022-03-04T10:11:12+24:00', 'abc', '99999999999999999999',
    '1646352000.5', '2022-03-04t10:11:12z', 'T',
  ])('rejects %j as a datetime', (v) => {
    expect(errorOf(v)).toBe(INVALID_DATETIME(v));
  });

  it('round-trips generated epoch seconds (10 digits) and milliseconds (13 digits)', () => {
    fc.assert(fc.property(fc.integer({ min: 1_000_000_000, max: 9_999_999_999 }), (s) => {
      expect(parseSearchTime(String(s))?.getTime()).toBe(s * 1000);
    }));
    fc.assert(fc.property(fc.integer({ min: 1_000_000_000_000, max: 9_999_999_999_999 }), (ms) => {
      expect(parseSearchTime(String(ms))?.getTime()).toBe(ms);
    }));
  });

  it('round-trips generated instants through every textual format', () => {
    const instant = fc.integer({ min: Date.UTC(1, 0, 1), max: Date.UTC(9999, 11, 31) }).map((ms) => new Date(Math.floor(ms / 1000) * 1000));
    fc.assert(fc.property(instant, (d) => {
      const iso = d.toISOString();
      // Years before 1000 need padding that toISOString already gives (4 digits up to 9999).
      expect(parseSearchTime(iso.replace('.000Z', 'Z'))?.getTime()).toBe(d.getTime());
      expect(parseSearchTime(`${iso.slice(0, 10)} ${iso.slice(11, 19)}`)?.getTime()).toBe(d.getTime());
      expect(parseSearchTime(iso.slice(0, 10))?.getTime()).toBe(Date.parse(`${iso.slice(0, 10)}T00:00:00Z`));
    }));
  });

  it('throws nothing but SearchTimeError for any string', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (v) => {
      try {
        parseSearchTime(v);
      } catch (e: unknown) {
        expect(isSearchTimeError(e)).toBe(true);
      }
    }));
  });
});
