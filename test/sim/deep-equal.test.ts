import { describe, expect, it } from 'vitest';
import { clone, deepEqual } from '../../src/sim/deep-equal.js';

describe('sim deep-equal', () => {
  it('clone copies every level, so changing the copy leaves the original as it was', () => {
    const original = { a: 1, s: 'x', n: null, t: true, list: [{ b: [1, 2, { c: 'd' }] }, 'e'], nested: { deeper: { f: 1.5 } } };
    const before = JSON.stringify(original);
    const copy = clone(original);
    expect(copy).toEqual(original);
    expect(JSON.stringify(copy)).toBe(before); // key order kept
    const first = copy.list[0] as { b: unknown[] };
    first.b.push(3);
    (first.b[2] as { c: string }).c = 'changed';
    copy.nested.deeper.f = 2;
    expect(JSON.stringify(original)).toBe(before);
    expect(copy.list).not.toBe(original.list);
    expect(Array.isArray(copy.list)).toBe(true);
  });

  it('deepEqual ignores key order and undefined members, not values', () => {
    expect(deepEqual({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).toBe(true);
    expect(deepEqual({ a: 1, u: undefined }, { a: 1 })).toBe(true);
    expect(deepEqual({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
    expect(deepEqual({ a: null }, { a: {} })).toBe(false);
  });
});
