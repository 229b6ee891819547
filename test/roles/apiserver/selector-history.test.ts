// keysAt: the keys a selector matched at an earlier revision, from those matching now and the change log's history of
// labels and field-label values in between — each object judged on its first entry that tells, entries read in pages.
import { describe, expect, it } from 'vitest';
import { withFieldLabels } from '../../../src/kube/field-labels.js';
import { parseFieldSelector } from '../../../src/kube/field-selector.js';
import { parseLabelSelector } from '../../../src/kube/label-selector.js';
import { KeyHashSet } from '../../../src/lib/key-hash-set.js';
import { historyTells, keysAt } from '../../../src/roles/apiserver/selector-history.js';
import type { ChangeType, KeyFilter, SelectorHistoryEntry, SelectorHistoryResult, StorageReader } from '../../../src/storage/types.js';

const PODS = { kind: 'one', group: '', version: 'v1', resource: 'pods' } as const;
const key = (name: string): string => `c1//pods/ns/${name}`;

/** A change log of entries at revisions 1, 2, …, read `pageSize` at a time; records each call's range. */
function history(entries: [ChangeType, string, Record<string, string>?, Record<string, unknown>?][], pageSize: number, expired = false) {
  const log: SelectorHistoryEntry[] = entries.map(([type, name, prev, prevFields], i) => ({
    revision: String(i + 1), type, cluster: 'c1', group: '', version: 'v1', resource: 'pods', namespace: 'ns', name,
    ...(prev ? { prevLabels: JSON.stringify(prev) } : {}),
    ...(prevFields ? { prevFields: JSON.stringify(prevFields) } : {}),
  }));
  const calls: string[] = [];
  const storage: Pick<StorageReader, 'selectorHistory'> = {
    selectorHistory: async (after: string, upTo: string, filter: KeyFilter, limit: number): Promise<SelectorHistoryResult> => {
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

  it('a field selector on names or namespaces is judged at the revision too', async () => {
    const named = { ...filter, fields: [{ path: [{ name: 'metadata' }, { name: 'name' }], operator: '=' as const, values: ['b'] }] };
    expect(historyTells(named)).toBe(true);
    const { storage } = history([['MODIFIED', 'a', { app: 'web' }, {}], ['MODIFIED', 'b', { app: 'web' }, {}]], 10);
    expect(members(await keysAt(storage, named, '0', { keys: setOf(), revision: '2' }), ['a', 'b'])).toEqual(['b']);
  });

  const phase = (op: '=' | '!=', value: string) => ({ path: [{ name: 'status' }, { name: 'phase' }], operator: op, values: [value], absentAs: '' });

  it("one on a kube field label (status.phase) on the values the change log kept; one on another path a write changes is not judged", async () => {
    const running = { types: PODS, fields: [phase('=', 'Running')] };
    expect(historyTells(running)).toBe(true);
    expect(historyTells({ types: PODS, fields: [{ path: [{ name: 'status' }, { name: 'readyReplicas' }], operator: '=', values: ['1'] }] })).toBe(false);
    // A label that may read another path is judged only if the change log keeps both (core/v1's source does;
    // events.k8s.io's labels are read from the object, whose earlier state the log does not keep).
    const events = (group: string) => ({ types: { kind: 'one' as const, group, version: 'v1', resource: 'events' }, fields: withFieldLabels(group, 'events', parseFieldSelector('source=default-scheduler')) });
    expect(historyTells(events(''))).toBe(true);
    expect(historyTells(events('events.k8s.io'))).toBe(false);
    const { storage } = history([
      ['MODIFIED', 'finished', {}, { status: { phase: 'Running' }, spec: { nodeName: 'n1' } }], // Running until then
      ['MODIFIED', 'started', {}, { status: { phase: 'Pending' } }],
      ['MODIFIED', 'relabeled', { app: 'x' }, { status: { phase: 'Running' } }], // a label change keeps the fields too
      ['DELETED', 'gone', {}, { status: { phase: 'Running' } }],
      ['DELETED', 'never', {}, {}], // no phase: absent is ""
      ['MODIFIED', 'steady'], // neither changed: as now
    ], 10);
    const now = setOf('started', 'steady');
    expect(members(await keysAt(storage, running, '0', { keys: now, revision: '6' }), ['finished', 'started', 'relabeled', 'gone', 'never', 'steady']))
      .toEqual(['finished', 'relabeled', 'gone', 'steady']);
    // Absent reads as "" for a kube field label: a pod with no phase yet is not Running, so != Running matched it.
    const { storage: s2 } = history([['DELETED', 'never', {}, {}]], 10);
    expect(members(await keysAt(s2, { types: PODS, fields: [phase('!=', 'Running')] }, '0', { keys: setOf(), revision: '1' }), ['never'])).toEqual(['never']);
  });

  it('an entry with labels but no fields (its row written before they were kept) tells a label selector, not a field selector', async () => {
    const { storage } = history([['MODIFIED', 'a', { app: 'web' }]], 10);
    expect(await keysAt(storage, { types: PODS, fields: [phase('=', 'Running')] }, '0', { keys: setOf(), revision: '1' })).toBeUndefined();
    const { storage: s2 } = history([['MODIFIED', 'a', { app: 'web' }]], 10);
    expect(members(await keysAt(s2, filter, '0', { keys: setOf(), revision: '1' }), ['a'])).toEqual(['a']);
  });
});
