// Membership's budget: a watch that would remember more than its server's budget, or gives up on the way, judges
// changes on their own state; what it held goes back when it ends.
import { describe, expect, it } from 'vitest';
import { KeyHashSet } from '../../../src/lib/key-hash-set.js';
import { MemberBudget, Membership } from '../../../src/roles/apiserver/watch.js';
import type { Change, StoredRow } from '../../../src/storage/types.js';

const row = (name: string): StoredRow => ({
  cluster: 'c1', group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespace: 'ns', name,
  uid: `uid-${name}`, resourceVersion: '1', revision: '10', createdAt: '', object: '{}',
});
let rev = 100;
const change = (type: Change['type'], name: string): Change => ({ type, revision: String(++rev), row: row(name) });
const keysOf = (...names: string[]): KeyHashSet => {
  const k = new KeyHashSet();
  for (const n of names) k.add(`c1//pods/ns/${n}`);
  return k;
};

describe('Membership', () => {
  it('reports objects entering and leaving, and counts what it holds against the budget', () => {
    const budget = new MemberBudget(10);
    const m = Membership.take(keysOf('a', 'b'), 50n, budget);
    expect(m?.active).toBe(true);
    expect(budget.held).toBe(2);
    expect(m?.event(change('MODIFIED', 'a'), false)).toBe('DELETED');
    expect(m?.event(change('MODIFIED', 'a'), false)).toBeUndefined();
    expect(m?.event(change('MODIFIED', 'c'), true)).toBe('ADDED');
    expect(m?.event(change('MODIFIED', 'c'), true)).toBe('MODIFIED');
    expect(budget.held).toBe(2);
    m?.release();
    expect(budget.held).toBe(0);
  });

  it('is not taken when the budget cannot hold its keys', () => {
    const budget = new MemberBudget(3);
    const first = Membership.take(keysOf('a', 'b'), 50n, budget);
    expect(first).toBeDefined();
    expect(Membership.take(keysOf('c', 'd'), 50n, budget)).toBeUndefined();
    expect(budget.held).toBe(2);
    first?.release();
    expect(Membership.take(keysOf('c', 'd'), 50n, budget)).toBeDefined();
  });

  it('gives up past the budget while running and from then on judges each change on its own state', () => {
    const budget = new MemberBudget(3);
    const m = Membership.take(keysOf('a', 'b'), 50n, budget);
    expect(m?.event(change('ADDED', 'c'), true)).toBe('ADDED');
    expect(budget.held).toBe(3);
    expect(m?.event(change('ADDED', 'd'), true)).toBe('ADDED');
    expect(m?.active).toBe(false);
    expect(budget.held).toBe(0);
    // Without the set: a change leaving the selector is not seen, one inside keeps its own type.
    expect(m?.event(change('MODIFIED', 'a'), false)).toBeUndefined();
    expect(m?.event(change('MODIFIED', 'e'), true)).toBe('MODIFIED');
    expect(m?.event(change('DELETED', 'e'), true)).toBe('DELETED');
    m?.release();
    expect(budget.held).toBe(0);
  });
});
