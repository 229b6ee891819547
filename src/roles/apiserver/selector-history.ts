// Which objects a selector watch from an old resourceVersion matched at that revision: those matching now, corrected
// by the change log's history since of their labels and of the fields kube's field selectors read. With it the
// catch-up tells the client about an object that left the selector in between (DELETED), as kube-apiserver's watch
// cache does by comparing each event's object before and after.
import { dotted, readsOnlyFieldLabelPaths } from '../../kube/field-labels.js';
import { matchesFields, matchesLabels } from '../../kube/match.js';
import type { FieldRequirement } from '../../kube/requirement.js';
import { KeyHashSet } from '../../lib/key-hash-set.js';
import type { StorageReader, WatchFilter } from '../../storage/types.js';
import { keyFilterOf, MAX_WATCH_MEMBERS, rowKey } from './watch.js';

/** Entries per selectorHistory() call. */
const HISTORY_PAGE = 5_000;

/** Field paths no write changes: a requirement on them is judged the same at every revision. */
const IMMUTABLE_FIELDS = new Set(['metadata.name', 'metadata.namespace']);

const immutableField = (r: FieldRequirement): boolean => IMMUTABLE_FIELDS.has(dotted(r.path) ?? '');
/** On a path whose earlier values the change log keeps (prev_fields). */
const keptField = (r: FieldRequirement): boolean => readsOnlyFieldLabelPaths(r);

/**
 * Whether the change log tells what `filter` matched at an earlier revision: it keeps the labels and the field-label
 * values (status.phase, spec.nodeName, …) an entry replaced, not the earlier object, so a requirement on any other
 * path a write can change (a JSON path such as status.readyReplicas) cannot be judged then.
 */
export function historyTells(filter: WatchFilter): boolean {
  return (filter.fields ?? []).every((r) => immutableField(r) || keptField(r));
}

/**
 * The keys of the objects matching `filter` (one historyTells) at revision `from`, given those matching at
 * `now.revision` (≥ from). Each object with a change-log entry in between is judged again from its first entry that
 * tells: one that added it (not there at `from`), or one that changed its labels or fields or removed them (those it
 * had until then). An object whose labels and fields no entry changed matched at `from` as it does now.
 *
 * `now.keys` is consumed. Undefined when more objects are involved than a watch may remember, or the revision left
 * the change log (the catch-up then answers 410).
 */
export async function keysAt(
  storage: Pick<StorageReader, 'selectorHistory'>, filter: WatchFilter, from: string, now: { keys: KeyHashSet; revision: string },
): Promise<KeyHashSet | undefined> {
  const fields = filter.fields ?? [];
  const labels = filter.labels ?? [];
  const readsKept = fields.some(keptField);
  const scope = keyFilterOf(filter);
  const keys = now.keys;
  const judged = new KeyHashSet();
  let after = from;
  while (BigInt(after) < BigInt(now.revision)) {
    const r = await storage.selectorHistory(after, now.revision, scope, HISTORY_PAGE);
    if (r.expired) return undefined;
    for (const e of r.entries) {
      const key = rowKey(e);
      if (judged.has(key)) continue;
      if (e.type === 'ADDED') {
        keys.delete(key);
      } else if (e.prevLabels !== undefined) {
        // An entry of a row written before the change log kept fields: what they were then is not known.
        if (e.prevFields === undefined && readsKept) return undefined;
        const before = { ...(JSON.parse(e.prevFields ?? '{}') as Record<string, unknown>), metadata: e.namespace === '' ? { name: e.name } : { name: e.name, namespace: e.namespace } };
        const matched = matchesLabels(JSON.parse(e.prevLabels) as Record<string, string>, labels) && matchesFields(before, fields);
        if (matched) keys.add(key);
        else keys.delete(key);
      } else {
        continue; // left its labels and fields as they were: a later entry may tell
      }
      judged.add(key);
      if (judged.size + keys.size > 2 * MAX_WATCH_MEMBERS || keys.size > MAX_WATCH_MEMBERS) return undefined;
    }
    if (BigInt(r.revision) <= BigInt(after)) break;
    after = r.revision;
  }
  return keys;
}
