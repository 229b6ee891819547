// since/before beyond test/kube/search-time.test.ts: RFC3339 with any offset and fraction, near-valid text that must be
// rejected only as SearchTimeError, and the URL / search-label forms through parseListOptions (ordering checked).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isStatusError } from '../../src/kube/status.js';
import { isSearchTimeError, parseSearchTime } from '../../src/kube/search-time.js';
import { parseListOptions } from '../../src/roles/apiserver/list-options.js';

const RUNS = { numRuns: 1000 };
/** Pieces of the time formats, in and out of range, glued in any order. */
const piece = fc.constantFrom('2024', '0000', '9999', '-', '--', ':', 'T', 't', ' ', 'Z', 'z', '+', '+00:00', '-23:59', '+24:00', '.', '.5', '01', '12', '13',
  '29', '30', '31', '32', '00', '23', '24', '59', '60', '1704067200', '1704067200000', '+1704067200', '99999999999999999999', '\u0660', '\u00a0', '\t', 'e3');
const nearTime = fc.array(piece, { maxLength: 10 }).map((p) => p.join(''));
const instant = fc.integer({ min: Date.UTC(1, 0, 2), max: Date.UTC(9999, 11, 30) });
const pad = (n: number, w: number): string => String(Math.abs(n)).padStart(w, '0');

/** `instant` printed in RFC3339 at a UTC offset of `offsetMin` minutes, with `digits` fractional digits. */
function rfc3339(ms: number, offsetMin: number, digits: number, fraction: string): string {
  const local = new Date(ms + offsetMin * 60_000);
  const base = `${pad(local.getUTCFullYear(), 4)}-${pad(local.getUTCMonth() + 1, 2)}-${pad(local.getUTCDate(), 2)}T${pad(local.getUTCHours(), 2)}:${pad(local.getUTCMinutes(), 2)}:${pad(local.getUTCSeconds(), 2)}`;
  const frac = digits === 0 ? '' : `.${(pad(local.getUTCMilliseconds(), 3) + fraction).slice(0, digits)}`;
  const zone = offsetMin === 0 && digits % 2 === 0 ? 'Z' : `${offsetMin < 0 ? '-' : '+'}${pad(Math.trunc(offsetMin / 60), 2)}:${pad(offsetMin % 60, 2)}`;
  return `${base}${frac}${zone}`;
}

describe('parseSearchTime', () => {
  it('RFC3339 at any offset and with 0–9 fractional digits parses to the instant (to the millisecond shown)', () => {
    fc.assert(fc.property(instant, fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 }), fc.integer({ min: 0, max: 9 }), fc.stringMatching(/^[0-9]{6}$/),
      (ms, offset, digits, fraction) => {
        const text = rfc3339(ms, offset, digits, fraction);
        const shownMs = digits === 0 ? 0 : Number(pad(new Date(ms + offset * 60_000).getUTCMilliseconds(), 3).slice(0, Math.min(digits, 3)).padEnd(3, '0'));
        expect(parseSearchTime(text)?.getTime(), text).toBe(Math.floor(ms / 1000) * 1000 + shownMs);
      }), RUNS);
  });

  it('near-valid text: a valid Date or a SearchTimeError, nothing else; what parses re-parses from its ISO form', () => {
    fc.assert(fc.property(fc.oneof(nearTime, fc.string()), (s) => {
      let d: Date | undefined;
      try {
        d = parseSearchTime(s);
      } catch (e: unknown) {
        expect(isSearchTimeError(e), String(e)).toBe(true);
        return;
      }
      if (d === undefined) {
        expect(s.trim()).toBe('');
        return;
      }
      expect(Number.isNaN(d.getTime())).toBe(false);
      const iso = d.toISOString();
      // Years beyond 9999 or before 0 print with a sign; the formats here stop at four digits.
      if (/^\d{4}-/.test(iso)) expect(parseSearchTime(iso)?.getTime()).toBe(d.getTime());
    }), RUNS);
  });
});

describe('since/before through parseListOptions', () => {
  const parse = (q: Record<string, string>): ReturnType<typeof parseListOptions> =>
    parseListOptions({ mode: 'resources', group: '', version: 'v1', resource: 'pods', query: new URLSearchParams(q) });
  const epoch = fc.integer({ min: 1_000_000_000, max: 9_999_999_999 });

  it('since ≤ before is a window; since > before is a 400; URL and search-label forms agree', () => {
    fc.assert(fc.property(epoch, epoch, fc.boolean(), (a, b, asLabels) => {
      const q: Record<string, string> = asLabels
        ? { labelSelector: `search.clusterpedia.io/since=${a},search.clusterpedia.io/before=${b}` }
        : { since: String(a), before: String(b) };
      if (a <= b) {
        const r = parse(q);
        expect(r.query.since?.getTime()).toBe(a * 1000);
        expect(r.query.before?.getTime()).toBe(b * 1000);
      } else {
        expect(() => parse(q)).toThrow(expect.objectContaining({ status: expect.objectContaining({ code: 400, message: 'Invalid Query, Since is after Before' }) }));
      }
    }), RUNS);
  });

  it('a value that does not parse is a 400 naming Since or Before, never another error', () => {
    fc.assert(fc.property(fc.oneof(nearTime, fc.string()), fc.constantFrom('since', 'before'), (v, key) => {
      try {
        parse({ [key]: v });
      } catch (e: unknown) {
        expect(isStatusError(e), String(e)).toBe(true);
        if (!isStatusError(e)) return;
        expect(e.status.code).toBe(400);
        expect(e.status.message).toMatch(key === 'since' ? /^Invalid Query Since\(/ : /^Invalid Query Before\(/);
      }
    }), RUNS);
  });
});
