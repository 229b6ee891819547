import { describe, expect, it } from 'vitest';
import { hash52, KeyHashSet } from '../../src/lib/key-hash-set.js';

describe('KeyHashSet', () => {
  it('agrees with a Set<string> over a long random mix of adds and deletes, through growth and tombstones', () => {
    const ref = new Set<string>();
    const set = new KeyHashSet();
    let seed = 12345;
    const next = (n: number): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    const disagreements: string[] = [];
    for (let i = 0; i < 200_000; i++) {
      const key = `cluster-${next(50)}/apps/pods/ns-${next(20)}/p-${next(2000)}`;
      const del = next(3) === 0;
      const [got, want] = del ? [set.delete(key), ref.delete(key)] : [set.add(key), !ref.has(key) && ref.add(key) !== undefined];
      if (got !== want || set.size !== ref.size) disagreements.push(`${i}: ${del ? 'delete' : 'add'} ${key}`);
    }
    expect(disagreements).toEqual([]);
    expect(ref.size).toBeGreaterThan(1000);
    for (let c = 0; c < 50; c++) {
      for (let p = 0; p < 2000; p += 7) {
        const key = `cluster-${c}/apps/pods/ns-3/p-${p}`;
        expect(set.has(key)).toBe(ref.has(key));
      }
    }
  });

  it('shrinks back when its keys are deleted, and takes new ones after', () => {
    const set = new KeyHashSet();
    for (let i = 0; i < 10_000; i++) set.add(`k${i}`);
    for (let i = 0; i < 10_000; i++) expect(set.delete(`k${i}`)).toBe(true);
    expect(set.size).toBe(0);
    expect(set.has('k1')).toBe(false);
    for (let i = 0; i < 100; i++) set.add(`n${i}`);
    expect(set.size).toBe(100);
    expect(set.has('n99')).toBe(true);
    expect(set.has('k99')).toBe(false);
  });

  it('hashes to distinct non-zero values over a million near-identical keys', () => {
    const seen = new Set<number>();
    let outOfRange = 0;
    for (let i = 0; i < 1_000_000; i++) {
      const h = hash52(`c${i % 100}//pods/ns-${i % 20}/app-${i}`);
      if (!(h >= 1 && h <= 2 ** 52 && Number.isInteger(h))) outOfRange++;
      seen.add(h);
    }
    expect(outOfRange).toBe(0);
    expect(seen.size).toBe(1_000_000);
    // Strings that differ only in a character beyond the BMP, or in order, hash apart.
    expect(hash52('a/😀')).not.toBe(hash52('a/😁'));
    expect(hash52('ab')).not.toBe(hash52('ba'));
  });
});
