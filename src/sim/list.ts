// LIST: selectors, limit/continue pages read at one revision (a consistent snapshot, like etcd), 410 once history is compacted.
import { checkFieldSelector, matchFields } from './field-selector.js';
import { matchLabels } from './label-selector.js';
import { decodeContinue, encodeContinue, type ListOptions } from './list-options.js';
import { errors } from './status.js';
import type { SimStore } from './store.js';
import type { ResourceDef, SimObject } from './types.js';

export interface ListPage {
  items: SimObject[];
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

const CONTINUE_EXPIRED = 'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

export function matches(def: ResourceDef, opts: Pick<ListOptions, 'labelSelector' | 'fieldSelector'>, o: SimObject): boolean {
  return matchLabels(opts.labelSelector, o.metadata.labels) && matchFields(def, opts.fieldSelector, o);
}

/** One page of a list of `gr` (in `namespace`, or all namespaces when undefined). */
export function listPage(store: SimStore, gr: string, namespace: string | undefined, opts: ListOptions): ListPage {
  const def = store.def(gr);
  // A resource served from another's objects (events.k8s.io's Events) reads that one's table and history.
  const stored = def?.storedAs?.gr ?? gr;
  const table = store.table(stored);
  if (!def || !table) throw errors.noRoute();
  try {
    checkFieldSelector(def, opts.fieldSelector);
  } catch (e: unknown) {
    // kube wraps the field error with the request's selectors in the list path.
    const gvr = `${def.group}/${def.versions[0] ?? ''}, Resource=${def.resource}`;
    throw errors.badRequest(`Unable to find "${gvr}" that match label selector "${opts.labelSelectorText}", field selector "${opts.fieldSelectorText}": ${e instanceof Error ? e.message : String(e)}`);
  }
  const prefix = def.namespaced && namespace ? `${namespace}/` : '';
  const current = store.revision;

  let readRev = current;
  let from = prefix;
  let limit = opts.limit;
  if (opts.continueToken) {
    const token = decodeContinue(opts.continueToken);
    from = prefix + token.start;
    // rv -1 is kube's "inconsistent continuation": read the current state from the key on.
    if (token.rv !== -1) {
      if (token.rv < store.window.compactedRev) {
        throw errors.expired(CONTINUE_EXPIRED, encodeContinue(-1, token.start));
      }
      readRev = token.rv;
    }
  } else if (opts.resourceVersion !== '') {
    const rv = Number(opts.resourceVersion);
    if (rv > current) throw errors.tooLargeResourceVersion(rv, current);
    if (opts.resourceVersionMatch === 'Exact') {
      if (rv < store.window.compactedRev) throw errors.expired('The resourceVersion for the provided list is too old.');
      readRev = rv;
    } else if (rv === 0) {
      // resourceVersion=0 is served from the watch cache, which (like kube's) ignores limit.
      limit = 0;
    }
  }

  const history = readRev < current ? store.window.stateAt(stored, readRev, prefix) : new Map<string, SimObject | null>();
  const historyKeys = [...history.keys()].filter((k) => k >= from).sort();
  const items: SimObject[] = [];
  let lastKey: string | undefined;
  let more = false;
  const cur = table.entries(from, prefix);
  let c = cur.next();
  let h = 0;
  for (;;) {
    const ck = c.done ? undefined : c.value[0];
    const hk = historyKeys[h];
    if (ck === undefined && hk === undefined) break;
    let key: string;
    let obj: SimObject | null | undefined;
    if (hk !== undefined && (ck === undefined || hk <= ck)) {
      key = hk;
      obj = history.get(hk);
      h++;
      if (ck === hk) c = cur.next();
    } else {
      key = ck as string;
      obj = history.has(key) ? history.get(key) : (c.value as [string, SimObject])[1];
      c = cur.next();
    }
    if (!obj) continue;
    if (limit > 0 && items.length >= limit) {
      more = true;
      break;
    }
    if (!matches(def, opts, obj)) continue;
    items.push(obj);
    lastKey = key;
  }

  const page: ListPage = { items, resourceVersion: String(readRev) };
  if (more && lastKey !== undefined) {
    const relative = lastKey.slice(prefix.length);
    page.continue = encodeContinue(readRev, `${relative}\u0000`);
    // kube reports remainingItemCount only when it can know it: no selector.
    if (opts.labelSelector.length === 0 && opts.fieldSelector.length === 0) page.remainingItemCount = remaining(store, stored, prefix, `${lastKey}\u0000`, history);
  }
  return page;
}

function remaining(store: SimStore, gr: string, prefix: string, after: string, history: Map<string, SimObject | null>): number {
  const table = store.table(gr);
  let n = table?.countFrom(after, prefix) ?? 0;
  for (const [key, then] of history) {
    if (key < after) continue;
    n += (then ? 1 : 0) - (table?.get(key) ? 1 : 0);
  }
  return n;
}
