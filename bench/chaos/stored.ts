// clusterpedia's side of the comparison, read two ways: its HTTP API (paged lists) and the storage module directly.
import { request } from 'undici';
import { silentLogger } from '../../src/lib/log.js';
import { openStorage } from '../../src/storage/open.js';
import { objectKey, type FleetState, type KeyMap, type SyncedType } from './state.js';

export const RESOURCES_PREFIX = '/apis/clusterpedia.io/v1beta1/resources';
export const CLUSTER_ANNOTATION = 'shadow.clusterpedia.io/cluster-name';
export const RV_ANNOTATION = 'shadow.clusterpedia.io/resource-version';

/** What one reading of clusterpedia found: keys per type, and keys seen more than once. */
export interface StoredState {
  state: FleetState;
  duplicates: Map<string, string[]>;
  rows: number;
}

interface Meta {
  name?: string;
  namespace?: string;
  annotations?: Record<string, string>;
}

/** The stored key and member RV of a served object's metadata. */
export function servedKey(m: Meta | undefined): { key: string; rv: string } | undefined {
  const cluster = m?.annotations?.[CLUSTER_ANNOTATION];
  if (!cluster || !m?.name) return undefined;
  return { key: objectKey(cluster, m.namespace, m.name), rv: m.annotations?.[RV_ANNOTATION] ?? '' };
}

function put(map: KeyMap, dups: string[], key: string, rv: string): void {
  if (map.has(key)) dups.push(key);
  map.set(key, rv);
}

/**
 * Every object of every type through the API, as a client would read it: metadata-only pages of `limit` followed by
 * their continue tokens (so paging itself is under test: a gap shows as missing, an overlap as a duplicate).
 */
export async function readHttp(base: string, types: readonly SyncedType[], signal: AbortSignal, limit = 1000): Promise<StoredState> {
  const state: FleetState = new Map();
  const duplicates = new Map<string, string[]>();
  let rows = 0;
  for (const t of types) {
    const map: KeyMap = new Map();
    const dups: string[] = [];
    let cont: string | undefined;
    for (let page = 0; page < 100_000; page++) {
      const q = new URLSearchParams({ limit: String(limit) });
      if (cont) q.set('continue', cont);
      const res = await request(`${base}${RESOURCES_PREFIX}${t.path}?${q}`, {
        headers: { accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json' },
        signal, headersTimeout: 30_000, bodyTimeout: 30_000,
      });
      if (res.statusCode !== 200) {
        const text = await res.body.text();
        throw new Error(`GET ${t.path} page ${page}: HTTP ${res.statusCode} ${text.slice(0, 200)}`);
      }
      const list = (await res.body.json()) as { items?: { metadata?: Meta }[]; metadata?: { continue?: string } };
      for (const item of list.items ?? []) {
        const k = servedKey(item.metadata);
        if (k) put(map, dups, k.key, k.rv);
        rows++;
      }
      cont = list.metadata?.continue;
      if (!cont) break;
    }
    state.set(t.ref, map);
    if (dups.length > 0) duplicates.set(t.ref, dups);
  }
  return { state, duplicates, rows };
}

/** What the storage module reads directly: every row of every type, plus its per-(cluster, type) row counts. */
export interface DirectState extends StoredState {
  /** Rows of types the clusters do not sync (counted as extra). */
  foreignRows: string[];
  /** Stored rows whose member-RV column and annotation disagree. */
  rvColumnMismatches: string[];
  /** (cluster, type) whose maintained count (show resources) differs from the rows present: "cluster type count≠rows". */
  countDrift: string[];
}

/**
 * Every row straight from storage, with the same module the bundle uses: one streamed list over all types (so rows
 * of a type nobody syncs show up too), keyed like the API; the writer's per-type counts are checked against the rows.
 */
export async function readStorage(url: string, types: readonly SyncedType[]): Promise<DirectState> {
  const storage = await openStorage({ url }, { logger: silentLogger() });
  try {
    const byGvr = new Map(types.map((t) => [`${t.group}/${t.version}/${t.resource}`, t]));
    const state: FleetState = new Map(types.map((t) => [t.ref, new Map()]));
    const dupsByType = new Map<string, string[]>();
    const foreignRows: string[] = [];
    const rvColumnMismatches: string[] = [];
    const perClusterType = new Map<string, number>();
    let rows = 0;
    const page = await storage.list({ types: { kind: 'all' }, onlyMetadata: true });
    for await (const row of page.rows) {
      rows++;
      const gvr = `${row.group}/${row.version}/${row.resource}`;
      const ct = `${row.cluster} ${gvr}`;
      perClusterType.set(ct, (perClusterType.get(ct) ?? 0) + 1);
      const key = objectKey(row.cluster, row.namespace, row.name);
      const t = byGvr.get(gvr);
      if (!t) {
        foreignRows.push(`${gvr} ${key}`);
        continue;
      }
      const annotated = servedKey((JSON.parse(row.object) as { metadata?: Meta }).metadata);
      if (annotated?.key !== key || annotated.rv !== row.resourceVersion) rvColumnMismatches.push(`${gvr} ${key} column ${row.resourceVersion} annotation ${annotated?.rv}`);
      const dups = dupsByType.get(t.ref) ?? [];
      put(state.get(t.ref)!, dups, key, row.resourceVersion);
      if (dups.length > 0) dupsByType.set(t.ref, dups);
    }
    const countDrift: string[] = [];
    for (const c of await storage.counts()) {
      const ct = `${c.cluster} ${c.group}/${c.version}/${c.resource}`;
      const actual = perClusterType.get(ct) ?? 0;
      perClusterType.delete(ct);
      if (c.count !== actual) countDrift.push(`${ct} count ${c.count} rows ${actual}`);
    }
    for (const [ct, actual] of perClusterType) countDrift.push(`${ct} count (none) rows ${actual}`);
    return { state, duplicates: dupsByType, rows, foreignRows, rvColumnMismatches, countDrift };
  } finally {
    await storage.close();
  }
}
