// keysAt: the keys a selector matched at an earlier revision, from those matching now and the change log's label
// history in between — each object judged on its first entry that tells, entries read in pages.
import { describe, expect, it } from 'vitest';
import { parseLabelSelector } from '../../../src/kube/label-selector.js';
import { KeyHashSet } from '../../../src/lib/key-hash-set.js';
import { historyTells, keysAt } from '../../../src/roles/apiserver/selector-history.js';
import type { ChangeType, KeyFilter, LabelHistoryEntry, LabelHistoryResult, StorageReader } from '../../../src/storage/types.js';

const PODS = { kind: 'one', group: '', version: 'v1', resource: 'pods' } as const;
const key = (name: string): string => `c1//pods/ns/${name}`;

/** A change log of entries at revisions 1, 2, …, read `pageSize` at a time; records each call's range. */
function history(entries: [ChangeType, string, Record<string, string>?][], pageSize: number, expired = false) {
  const log: LabelHistoryEntry[] = entries.map(([type, name, prev], i) => ({
    revision: String(i + 1), type, cluster: 'c1', group: '', version: 'v1', resource: 'pods', namespace: 'ns', name,
    ...(prev ? { prevLabels: JSON.stringify(prev) } : {}),
  }));
  const calls: string[] = [];
  const storage: Pick<StorageReader, 'labelHistory'> = {
    labelHistory: async (after: string, upTo: string, filter: KeyFilter, limit: number): Promise<LabelHistoryResult> => {
      calls.push(`${after}..${upTo}`);
      expect(filter).toEqual({ types: PODS });
      if (expired) return { expired: true, oldestRevision: '5' };
      const page = log.filter((e) => Number(e.revision) > Number(after) && Number(e.revision) <= Number(upTo)).slice(0, Math.min(limit, pageSize));
      return { expired: false, entries: page, revision: page.length === pageSize ? page[page.length - 1]!.revision : upTo };
    },
  };
  return { storage, calls };
}

const setOf = (...names: string[]): KeyHashSet => {
  const s = new KeyHashSet();
  for (const n of names) s.add(key(n));
  return s;
};
const members = (s: KeyHashSet | undefined, names: string[]): string[] => names.filter((n) => s?.has(key(n)));

describe('keysAt', () => {
  const filter = { types: PODS, labels: parseLabelSelector('app=web') };

  it('each object on its first entry that tells: added since (absent), labels changed or removed (the labels before), else as now', async () => {
    const { storage, calls } = history([
      ['MODIFIED', 'left'], // status only: does not tell
      ['MODIFIED', 'left', { app: 'web' }], // the labels it had at the start
      ['MODIFIED', 'left', { app: 'other' }], // later entries do not count
      ['MODIFIED', 'entered', { app: 'other' }],
      ['ADDED', 'new'],
      ['DELETED', 'gone', { app: 'web' }],
      ['MODIFIED', 'steady'],
      ['DELETED', 'old-log'], // written before the column: tells nothing
    ], 3);
    const now = setOf('entered', 'new', 'steady', 'untouched');
    const at = await keysAt(storage, filter, '0', { keys: now, revision: '8' });
    expect(members(at, ['left', 'entered', 'new', 'gone', 'steady', 'old-log', 'untouched'])).toEqual(['left', 'gone', 'steady', 'untouched']);
    // Pages of three: each starts where the last ended.
    expect(calls).toEqual(['0..8', '3..8', '6..8']);
  });

  it('a range the change log no longer holds tells nothing', async () => {
    const { storage } = history([['MODIFIED', 'a', { app: 'web' }]], 10, true);
    expect(await keysAt(storage, filter, '0', { keys: setOf(), revision: '1' })).toBeUndefined();
  });

  it('a field selector on names or namespaces is judged at the revision too; one on a field a write changes is not', async () => {
    const named = { ...filter, fields: [{ path: [{ name: 'metadata' }, { name: 'name' }], operator: '=' as const, values: ['b'] }] };
    expect(historyTells(named)).toBe(true);
    const { storage } = history([['MODIFIED', 'a', { app: 'web' }], ['MODIFIED', 'b', { app: 'web' }]], 10);
    expect(members(await keysAt(storage, named, '0', { keys: setOf(), revision: '2' }), ['a', 'b'])).toEqual(['b']);
    expect(historyTells({ ...filter, fields: [{ path: [{ name: 'status' }, { name: 'phase' }], operator: '=', values: ['Running'], absentAs: '' }] })).toBe(false);
  });
});
