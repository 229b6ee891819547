// What the members hold and what clusterpedia holds, as key → member resourceVersion maps per synced type, and their diff.
import { builtinResources } from '../../src/sim/catalog.js';
import { defaultSyncResources, type SimCluster, type SimObject } from '../../src/sim/index.js';

/** One synced resource type: its simulator name, its storage identity, and its path under the resources API. */
export interface SyncedType {
  /** "pods", "deployments.apps": the simulator's resource name. */
  ref: string;
  group: string;
  version: string;
  resource: string;
  /** Collection path under /apis/clusterpedia.io/v1beta1/resources. */
  path: string;
}

/** The types the PediaCluster files of the run ask for (the simulator's default sync resources), as the members serve them. */
export function syncedTypes(): SyncedType[] {
  const wanted = defaultSyncResources();
  const out: SyncedType[] = [];
  for (const def of builtinResources()) {
    const g = wanted.find((w) => w.group === def.group);
    if (!g || !(g.resources.includes('*') || g.resources.includes(def.resource))) continue;
    const version = def.versions[0]!;
    out.push({
      ref: def.group ? `${def.resource}.${def.group}` : def.resource,
      group: def.group, version, resource: def.resource,
      path: def.group ? `/apis/${def.group}/${version}/${def.resource}` : `/api/${version}/${def.resource}`,
    });
  }
  return out;
}

/**
 * What a watcher follows: every object of a synced type, or those a selector picks (`pods?labelSelector=k=v`,
 * `pods?fieldSelector=status.phase=Running`). The selector is one `key=value` requirement, judged here on the member's
 * object by a plain lookup (not clusterpedia's matcher, whose bugs the run is meant to catch).
 */
export interface WatchedView {
  /** As given, the key of its expected state in a FleetState. */
  ref: string;
  type: SyncedType;
  /** The list and watch query parameters of the selector. */
  query: Record<string, string>;
  matches: (o: SimObject) => boolean;
}

/** Parses a watcher's view ("pods", "pods?labelSelector=app=x", "pods?fieldSelector=status.phase=Running"). */
export function watchedView(ref: string, types: readonly SyncedType[]): WatchedView {
  const at = ref.indexOf('?');
  const typeRef = at < 0 ? ref : ref.slice(0, at);
  const type = types.find((x) => x.ref === typeRef);
  if (!type) throw new Error(`watcher resource ${typeRef} is not synced (synced: ${types.map((x) => x.ref).join(', ')})`);
  if (at < 0) return { ref, type, query: {}, matches: () => true };
  const m = /^(labelSelector|fieldSelector)=([^=]+)=(.*)$/.exec(ref.slice(at + 1));
  if (!m) throw new Error(`watcher ${ref}: the selector must be labelSelector=KEY=VALUE or fieldSelector=PATH=VALUE`);
  const [, param, key, value] = m as unknown as [string, 'labelSelector' | 'fieldSelector', string, string];
  const path = key.split('.');
  const matches = param === 'labelSelector'
    ? (o: SimObject): boolean => o.metadata.labels?.[key] === value
    : (o: SimObject): boolean => path.reduce<unknown>((v, n) => (v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[n] : undefined), o) === value;
  return { ref, type, query: { [param]: `${key}=${value}` }, matches };
}

/** "cluster/namespace/name" → member resourceVersion, for one type. */
export type KeyMap = Map<string, string>;
/** By SyncedType.ref. */
export type FleetState = Map<string, KeyMap>;

export const objectKey = (cluster: string, namespace: string | undefined, name: string): string => `${cluster}/${namespace ?? ''}/${name}`;

/**
 * Every member object of every synced type (what a complete sync must end with), but those in `excluded` namespaces.
 * Costs ~1 s per 6,000 objects of the driver's time, so it yields between (member, type) pairs: the members, served
 * from this process, keep answering.
 */
export async function memberState(clusters: readonly SimCluster[], types: readonly SyncedType[], views: readonly WatchedView[] = [], excluded: ReadonlySet<string> = new Set()): Promise<FleetState> {
  const state: FleetState = new Map();
  const selective = views.filter((v) => v.ref !== v.type.ref);
  for (const t of types) {
    const m: KeyMap = new Map();
    const picked = selective.filter((v) => v.type === t).map((v) => ({ v, m: new Map<string, string>() }));
    for (const c of clusters) {
      for (const o of c.store.list(t.ref)) {
        if (o.metadata.namespace && excluded.has(o.metadata.namespace)) continue;
        const key = objectKey(c.name, o.metadata.namespace, o.metadata.name ?? '');
        const rv = o.metadata.resourceVersion ?? '';
        m.set(key, rv);
        for (const p of picked) if (p.v.matches(o)) p.m.set(key, rv);
      }
      await new Promise((r) => setImmediate(r));
    }
    state.set(t.ref, m);
    for (const p of picked) state.set(p.v.ref, p.m);
  }
  return state;
}

/** A fingerprint of the members' contents: their revisions (any change moves one). */
export const memberRevisions = (clusters: readonly SimCluster[]): string => clusters.map((c) => c.revision).join(',');

export interface Diff {
  /** In a member, not in clusterpedia. */
  missing: number;
  /** In clusterpedia, not in any member. */
  extra: number;
  /** In both, but the stored member resourceVersion is not the member's. */
  stale: number;
  /** The same key more than once in clusterpedia. */
  duplicates: number;
  /** A few examples of each, for the log. */
  samples: string[];
}

export const emptyDiff = (): Diff => ({ missing: 0, extra: 0, stale: 0, duplicates: 0, samples: [] });

export const diffTotal = (d: Diff): number => d.missing + d.extra + d.stale + d.duplicates;

export function addDiff(into: Diff, d: Diff): Diff {
  into.missing += d.missing;
  into.extra += d.extra;
  into.stale += d.stale;
  into.duplicates += d.duplicates;
  for (const s of d.samples) if (into.samples.length < 20) into.samples.push(s);
  return into;
}

/** Compares one type: `expected` from the members, `actual` from clusterpedia (`dups`: keys clusterpedia returned twice). */
export function diffKeys(label: string, expected: KeyMap, actual: KeyMap, dups: readonly string[] = []): Diff {
  const d = emptyDiff();
  const sample = (s: string): void => {
    if (d.samples.length < 8) d.samples.push(`${label} ${s}`);
  };
  for (const [k, rv] of expected) {
    const got = actual.get(k);
    if (got === undefined) {
      d.missing++;
      sample(`missing ${k} (member rv ${rv})`);
    } else if (got !== rv) {
      d.stale++;
      sample(`stale ${k} (member rv ${rv}, stored ${got})`);
    }
  }
  for (const [k, rv] of actual) {
    if (!expected.has(k)) {
      d.extra++;
      sample(`extra ${k} (stored rv ${rv})`);
    }
  }
  d.duplicates = dups.length;
  for (const k of dups.slice(0, 3)) sample(`duplicate ${k}`);
  return d;
}
