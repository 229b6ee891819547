// Test helpers for the storage contract: the harness type, object builders and list shortcuts.
import { afterAll, beforeAll } from 'vitest';
import type { FieldPathSegment } from '../../src/kube/requirement.js';
import type { ListPage, ListQuery, Storage, StorageOptions, StoredRow, TypeFilter, UpsertObject } from '../../src/storage/types.js';

/** A storage on a fresh database plus what tests need to reach the same database another way. */
export interface Harness {
  /** Opened, not migrated. */
  storage: Storage;
  /** A second Storage on the same database (another process, as far as the storage can tell). */
  openAnother(opts?: StorageOptions): Promise<Storage>;
  /** Records a migration this binary does not know, as a newer clusterpedia would. */
  addNewerMigration(): Promise<void>;
  cleanup(): Promise<void>;
}

export type OpenHarness = (opts?: StorageOptions) => Promise<Harness>;

export const PODS: TypeFilter = { kind: 'one', group: '', version: 'v1', resource: 'pods' };
export const NODES: TypeFilter = { kind: 'one', group: '', version: 'v1', resource: 'nodes' };
export const DEPLOYMENTS: TypeFilter = { kind: 'one', group: 'apps', version: 'v1', resource: 'deployments' };
export const REPLICASETS: TypeFilter = { kind: 'one', group: 'apps', version: 'v1', resource: 'replicasets' };

export interface ObjectSpec {
  cluster: string;
  namespace?: string;
  name: string;
  rv?: string;
  uid?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  created?: string;
  owner?: string;
  /** Extra top-level fields (spec, status, field1 …). */
  fields?: Record<string, unknown>;
}

const TYPES: Record<string, { group: string; version: string; resource: string; kind: string }> = {
  pods: { group: '', version: 'v1', resource: 'pods', kind: 'Pod' },
  nodes: { group: '', version: 'v1', resource: 'nodes', kind: 'Node' },
  deployments: { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment' },
  replicasets: { group: 'apps', version: 'v1', resource: 'replicasets', kind: 'ReplicaSet' },
  statefulsets: { group: 'apps', version: 'v1', resource: 'statefulsets', kind: 'StatefulSet' },
  widgets: { group: 'example.io', version: 'v1', resource: 'widgets', kind: 'Widget' },
  events: { group: '', version: 'v1', resource: 'events', kind: 'Event' },
  eventsV1: { group: 'events.k8s.io', version: 'v1', resource: 'events', kind: 'Event' },
};

/** An upsert of a `type` object (pods, nodes, deployments, replicasets, statefulsets, widgets). */
export function obj(type: keyof typeof TYPES | string, s: ObjectSpec): UpsertObject {
  const t = TYPES[type];
  if (!t) throw new Error(`unknown fixture type ${type}`);
  return {
    cluster: s.cluster,
    group: t.group,
    version: t.version,
    resource: t.resource,
    kind: t.kind,
    object: {
      apiVersion: t.group === '' ? t.version : `${t.group}/${t.version}`,
      kind: t.kind,
      metadata: {
        name: s.name,
        ...(s.namespace !== undefined && s.namespace !== '' ? { namespace: s.namespace } : {}),
        uid: s.uid ?? `uid-${s.cluster}-${s.namespace ?? ''}-${s.name}`,
        resourceVersion: s.rv ?? '1',
        creationTimestamp: s.created ?? '2022-01-01T00:00:00Z',
        ...(s.labels ? { labels: s.labels } : {}),
        ...(s.annotations ? { annotations: s.annotations } : {}),
        ...(s.owner ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Owner', name: 'owner', uid: s.owner, controller: true }] } : {}),
      },
      ...(s.fields ?? {}),
    },
  };
}

export function pod(s: ObjectSpec): UpsertObject {
  return obj('pods', s);
}

/** Every row of a page (drains the stream). */
export async function drain(page: ListPage): Promise<StoredRow[]> {
  const out: StoredRow[] = [];
  for await (const r of page.rows) out.push(r);
  return out;
}

/** "cluster/namespace/name" of a row, the shape expectations are written in. */
export function id(r: StoredRow): string {
  return `${r.cluster}/${r.namespace}/${r.name}`;
}

/** The ids a query returns, in order. */
export async function ids(storage: Storage, q: Partial<ListQuery> & Pick<ListQuery, 'types'>): Promise<string[]> {
  return (await drain(await storage.list(q as ListQuery))).map(id);
}

/** Every row of a query, walking continue tokens with `limit`; fails on a loop. */
export async function walk(storage: Storage, q: ListQuery, limit: number): Promise<{ rows: StoredRow[]; pages: number }> {
  const rows: StoredRow[] = [];
  let token: string | undefined;
  let pages = 0;
  do {
    const page = await storage.list({ ...q, limit, ...(token ? { continue: { token } } : {}) });
    rows.push(...(await drain(page)));
    token = page.continueToken();
    if (++pages > 10_000) throw new Error('continue tokens never end');
  } while (token);
  return { rows, pages };
}

/**
 * The store's revision `n` writes after its origin: a new store's revisions start at its creation time
 * (src/storage/revision-origin.ts). Read once the store is migrated, before it is written.
 */
export async function revisionsOf(s: Storage): Promise<(n: number) => string> {
  const origin = BigInt(await s.currentRevision());
  return (n) => String(origin + BigInt(n));
}

export const path = (...names: string[]): FieldPathSegment[] => names.map((name) => ({ name }));

/**
 * A harness opened, migrated and seeded once for the enclosing describe (beforeAll), cleaned up after it; the getter
 * gives its storage to the tests.
 */
export function migratedStorage(open: () => Promise<Harness>, seed: (s: Storage) => Promise<void>): () => Storage {
  let h: Harness | undefined;
  beforeAll(async () => {
    h = await open();
    await h.storage.migrate();
    await seed(h.storage);
  });
  afterAll(async () => h?.cleanup());
  return () => {
    if (!h) throw new Error('the storage is opened in beforeAll');
    return h.storage;
  };
}
