// The storage benchmark's query set (bench/storage.ts `queries`), each as a storage call and as the HTTP request that
// asks the apiserver the same thing, drawn from one random sample so both sides read the same rows.
import type { ListQuery, StorageReader } from '../src/storage/types.js';
import type { Dataset } from './apiserver-data.js';
import type { Rng } from './env.js';
import { clusterName, namespaceName, NAMESPACES, pod, TEAMS } from './storage-data.js';

/** One drawn request: the storage call (resolving to the rows read) and the path below …/v1beta1/resources. */
export interface Sample {
  storage(s: StorageReader): Promise<number>;
  /** A list's storage call as the apiserver makes it for a JSON list: joined where the backend joins (listJoined). */
  served?(s: StorageReader): Promise<number>;
  path: string;
}

export interface BenchQuery {
  id: string;
  /** The storage benchmark's name for it. */
  name: string;
  /** Samples in the latency part (bench/storage.ts's counts). */
  samples: number;
  /** A filtered list with limit=500: the target "p99 ≤ 100 ms" applies. */
  limit500: boolean;
  sample(r: Rng, i: number): Sample;
}

const PODS = { kind: 'one', group: '', version: 'v1', resource: 'pods' } as const;

/**
 * Runs a list and reads every row of the page, as bench/storage.ts does; objects as bytes, as the apiserver asks for
 * them when it serves a JSON list (the same storage call on both sides).
 */
async function drain(s: StorageReader, q: ListQuery): Promise<number> {
  const page = await s.list({ ...q, objectBytes: true });
  let rows = 0;
  for await (const _ of page.rows) rows++;
  return rows;
}

/** The same page read as the apiserver reads it for a JSON list: joined where the backend can, else rows as drain(). */
async function drainServed(s: StorageReader, q: ListQuery): Promise<number> {
  const joined = await s.listJoined?.({ ...q, objectBytes: true });
  return joined ? joined.count : drain(s, q);
}

/** A list sample: the storage benchmark's read (`storage`) and the apiserver's own (`served`) of the same query. */
function listSample(q: ListQuery, path: string): Sample {
  return { storage: (s) => drain(s, q), served: (s) => drainServed(s, q), path };
}

/** The continue token of page `n` of the unfiltered pod list (walked once on storage; the same token serves HTTP). */
export async function tokenOfPage(s: StorageReader, n: number): Promise<string | undefined> {
  let token: string | undefined;
  for (let p = 1; p < n; p++) {
    const page = await s.list({ types: PODS, limit: 500, ...(token ? { continue: { token } } : {}) });
    for await (const _ of page.rows);
    token = page.continueToken();
    if (!token) return undefined;
  }
  return token;
}

const q = (params: Record<string, string>): string => `?${new URLSearchParams(params).toString()}`;

/** The seven queries of the storage benchmark, in its order; `page200` is the token of its 200th page when there is one. */
export function querySet(d: Dataset, page200: string | undefined): BenchQuery[] {
  const out: BenchQuery[] = [
    {
      id: 'get', name: 'get one object by name', samples: 300, limit500: false,
      sample: (r) => {
        const c = r(d.clusters);
        const m = pod(c, r(d.podsPerCluster), 0).object.metadata;
        const ns = m.namespace ?? '';
        return {
          storage: async (s) => ((await s.get({ cluster: clusterName(c), group: '', version: 'v1', resource: 'pods', namespace: ns, name: m.name })) ? 1 : 0),
          path: `/clusters/${clusterName(c)}/api/v1/namespaces/${ns}/pods/${m.name}`,
        };
      },
    },
    {
      id: 'namespace', name: 'one namespace, all clusters, limit 500', samples: 100, limit500: true,
      sample: (r) => {
        const ns = namespaceName(r(NAMESPACES));
        return listSample({ types: PODS, namespaces: { op: 'in', values: [ns] }, limit: 500 }, `/api/v1/namespaces/${ns}/pods${q({ limit: '500' })}`);
      },
    },
    {
      id: 'remaining', name: 'one namespace, limit 500, withRemainingCount', samples: 50, limit500: true,
      sample: (r) => {
        const ns = namespaceName(r(NAMESPACES));
        return listSample({ types: PODS, namespaces: { op: 'in', values: [ns] }, limit: 500, withRemainingCount: true }, `/api/v1/namespaces/${ns}/pods${q({ limit: '500', withRemainingCount: 'true' })}`);
      },
    },
    {
      id: 'team', name: 'label selector, ~0.1% match (team=…), limit 500', samples: 100, limit500: true,
      sample: (r) => {
        const team = `team-${r(TEAMS)}`;
        return listSample({ types: PODS, labels: [{ key: 'team', operator: '=', values: [team] }], limit: 500 }, `/api/v1/pods${q({ labelSelector: `team=${team}`, limit: '500' })}`);
      },
    },
    {
      id: 'tier', name: 'label selector, 50% match (tier=…), limit 500', samples: 100, limit500: true,
      sample: (_r, i) => {
        const tier = i % 2 ? 'frontend' : 'backend';
        return listSample({ types: PODS, labels: [{ key: 'tier', operator: '=', values: [tier] }], limit: 500 }, `/api/v1/pods${q({ labelSelector: `tier=${tier}`, limit: '500' })}`);
      },
    },
  ];
  if (page200) {
    const token = page200;
    out.push({
      id: 'page200', name: '200th page of a chunked list (limit 500)', samples: 50, limit500: true,
      sample: () => listSample({ types: PODS, limit: 500, continue: { token } }, `/api/v1/pods${q({ limit: '500', continue: token })}`),
    });
  }
  out.push({
    id: 'owner', name: 'owner search: pods of a Deployment (ownerName + ownerGR, seniority 1)', samples: 100, limit500: false,
    sample: (r) => {
      const c = clusterName(r(d.clusters));
      const app = `app-${r(d.deployments)}`;
      return listSample(
        { types: PODS, clusters: { op: 'in', values: [c] }, owner: { name: app, groupResource: { group: 'apps', resource: 'deployments' }, seniority: 1 } },
        `/clusters/${c}/api/v1/pods${q({ ownerName: app, ownerGR: 'deployments.apps', ownerSeniority: '1' })}`,
      );
    },
  });
  return out;
}

/** The clusters whose pods make up the "100,000-pod list" (the first ⌈100,000 / pods per cluster⌉ clusters). */
export function bigListClusters(d: Dataset, pods = 100_000): string[] {
  const n = Math.min(d.clusters, Math.ceil(pods / d.podsPerCluster));
  return Array.from({ length: n }, (_, i) => clusterName(i));
}

/** kube label-selector syntax for those clusters: Clusterpedia's search label, which kubectl can pass with -l. */
export function clustersSelector(clusters: string[]): string {
  return `search.clusterpedia.io/clusters in (${clusters.join(',')})`;
}
