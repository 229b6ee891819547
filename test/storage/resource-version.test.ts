// Member resourceVersion ordering: decimal RVs compare as integers of any length; others only as equal or different.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareMemberRv, deleteWins, upsertWins } from '../../src/storage/resource-version.js';

describe('compareMemberRv', () => {
  it('decimal RVs compare like BigInt, at any length', () => {
    const decimal = fc.bigInt({ min: 0n, max: 10n ** 40n }).map(String);
    fc.assert(
      fc.property(decimal, decimal, (a, b) => {
        const want = BigInt(a) === BigInt(b) ? 'same' : BigInt(a) > BigInt(b) ? 'newer' : 'older';
        expect(compareMemberRv(a, b)).toBe(want);
      }),
      { numRuns: 500 },
    );
  });

  it('non-decimal or leading-zero RVs are only equal or unordered', () => {
    expect(compareMemberRv('abc', 'abc')).toBe('same');
    expect(compareMemberRv('abc', 'abd')).toBe('unordered');
    expect(compareMemberRv('010', '9')).toBe('unordered');
    expect(compareMemberRv('', '1')).toBe('unordered');
  });

  it('upserts win when newer or unordered; deletes lose only to a known-newer row', () => {
    expect(upsertWins('11', '10')).toBe(true);
    expect(upsertWins('10', '10')).toBe(false);
    expect(upsertWins('9', '10')).toBe(false);
    expect(upsertWins('x', 'y')).toBe(true);
    expect(deleteWins(undefined, '10')).toBe(true);
    expect(deleteWins('10', '10')).toBe(true);
    expect(deleteWins('9', '10')).toBe(false);
    expect(deleteWins('x', 'y')).toBe(true);
  });
});
