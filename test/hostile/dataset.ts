// A realistic data set for hostile-input and overload runs: a few thousand objects of several kinds across
// several clusters, written straight into a SQLite file; plus a checksum of every table to prove nothing changed.
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import postgres from 'postgres';
import { silentLogger } from '../../src/lib/log.js';
import { CLUSTER_ANNOTATION } from '../../src/kube/types.js';
import { openStorage } from '../../src/storage/open.js';
import type { UpsertObject } from '../../src/storage/types.js';

export interface DatasetShape {
  clusters: number;
  /** Deployments per cluster; each owns a ReplicaSet and `podsPerDeployment` pods. */
  deploymentsPerCluster: number;
  podsPerDeployment: number;
}

/** 5 clusters × (80 deployments, 80 replicasets, 400 pods, 80 services, 80 configmaps, 8 namespaces, 3 nodes, 10 widgets) = 3,705 objects. */
export const DEFAULT_SHAPE: DatasetShape = { clusters: 5, deploymentsPerCluster: 80, podsPerDeployment: 5 };

export const clusterName = (i: number): string => `member-${i + 1}`;
export const NAMESPACES = ['default', 'kube-system', 'team-a', 'team-b', 'payments', 'search', 'monitoring', 'ingress'];
const PHASES = ['Running', 'Running', 'Running', 'Pending', 'Succeeded', 'Failed'];
const T0 = Date.parse('2024-01-01T00:00:00Z');

function uid(...parts: (string | number)[]): string {
  const h = createHash('sha1').update(parts.join('/')).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const ts = (n: number): string => new Date(T0 + n * 37_000).toISOString().replace('.000Z', 'Z');

function meta(cluster: string, name: string, namespace: string | undefined, n: number, extra: Record<string, unknown> = {}): UpsertObject['object']['metadata'] {
  return {
    name, ...(namespace ? { namespace } : {}), uid: uid(cluster, namespace ?? '', name), resourceVersion: String(1000 + n),
    creationTimestamp: ts(n), annotations: { [CLUSTER_ANNOTATION]: cluster }, ...extra,
  };
}

/** Every object of the data set, deterministic for a shape. */
export function datasetObjects(shape: DatasetShape = DEFAULT_SHAPE): UpsertObject[] {
  const out: UpsertObject[] = [];
  for (let c = 0; c < shape.clusters; c++) {
    const cluster = clusterName(c);
    let n = c * 100_000;
    for (const ns of NAMESPACES) {
      out.push({ cluster, group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', object: { apiVersion: 'v1', kind: 'Namespace', metadata: meta(cluster, ns, undefined, n++, { labels: { 'kubernetes.io/metadata.name': ns } }), status: { phase: 'Active' } } });
    }
    for (let i = 0; i < 3; i++) {
      const name = `node-${i}`;
      out.push({ cluster, group: '', version: 'v1', resource: 'nodes', kind: 'Node', object: { apiVersion: 'v1', kind: 'Node', metadata: meta(cluster, name, undefined, n++, { labels: { 'kubernetes.io/hostname': name, 'node-role.kubernetes.io/worker': '' } }), status: { conditions: [{ type: 'Ready', status: 'True' }], nodeInfo: { kubeletVersion: 'v1.32.0' } } } });
    }
    for (let d = 0; d < shape.deploymentsPerCluster; d++) {
      const ns = NAMESPACES[d % NAMESPACES.length] as string;
      const app = `app-${d}`;
      const labels = { app, tier: d % 3 === 0 ? 'frontend' : 'backend', team: `team-${d % 7}`, 'app.kubernetes.io/name': app };
      const dep = meta(cluster, app, ns, n++, { labels, generation: 3 });
      const replicas = shape.podsPerDeployment;
      const image = `registry.example.com/${app}:v${1 + (d % 5)}.${d % 10}`;
      const template = { metadata: { labels: { app } }, spec: { containers: [{ name: 'main', image, ports: [{ containerPort: 8080 }] }, { name: 'sidecar', image: 'envoyproxy/envoy:v1.30' }] } };
      out.push({ cluster, group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', object: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: dep, spec: { replicas, selector: { matchLabels: { app } }, template }, status: { replicas, readyReplicas: replicas - (d % 2), availableReplicas: replicas - (d % 2), updatedReplicas: replicas } } });
      const rsName = `${app}-7d9f8c${d.toString(16).padStart(4, '0')}`;
      const owner = (kind: string, name: string, id: string): Record<string, unknown> => ({ ownerReferences: [{ apiVersion: 'apps/v1', kind, name, uid: id, controller: true, blockOwnerDeletion: true }] });
      const rs = meta(cluster, rsName, ns, n++, { labels: { app }, ...owner('Deployment', app, dep.uid as string) });
      out.push({ cluster, group: 'apps', version: 'v1', resource: 'replicasets', kind: 'ReplicaSet', object: { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: rs, spec: { replicas, selector: { matchLabels: { app } }, template }, status: { replicas, readyReplicas: replicas } } });
      for (let p = 0; p < replicas; p++) {
        const name = `${rsName}-${(p * 7919 + d).toString(36).padStart(5, 'x')}`;
        const phase = PHASES[(d + p) % PHASES.length] as string;
        out.push({
          cluster, group: '', version: 'v1', resource: 'pods', kind: 'Pod',
          object: {
            apiVersion: 'v1', kind: 'Pod',
            metadata: meta(cluster, name, ns, n++, { labels: { ...labels, 'pod-template-hash': `7d9f8c${d}` }, ...owner('ReplicaSet', rsName, rs.uid as string) }),
            spec: { nodeName: `node-${(d + p) % 3}`, containers: template.spec.containers, restartPolicy: 'Always' },
            status: { phase, podIP: `10.${c}.${d}.${p + 2}`, containerStatuses: [{ name: 'main', ready: phase === 'Running', restartCount: (d * p) % 4, image }] },
          },
        });
      }
      out.push({ cluster, group: '', version: 'v1', resource: 'services', kind: 'Service', object: { apiVersion: 'v1', kind: 'Service', metadata: meta(cluster, app, ns, n++, { labels: { app } }), spec: { type: d % 4 === 0 ? 'LoadBalancer' : 'ClusterIP', clusterIP: `10.96.${c}.${d}`, ports: [{ port: 80, targetPort: 8080, protocol: 'TCP' }], selector: { app } } } });
      out.push({ cluster, group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta(cluster, `${app}-config`, ns, n++, { labels: { app } }), data: { 'config.yaml': `replicas: ${replicas}\nlog: info\n`, owner: `team-${d % 7}` } } });
    }
    for (let w = 0; w < 10; w++) {
      out.push({ cluster, group: 'example.io', version: 'v1alpha1', resource: 'widgets', kind: 'Widget', object: { apiVersion: 'example.io/v1alpha1', kind: 'Widget', metadata: meta(cluster, `widget-${w}`, NAMESPACES[w % 3], n++, { labels: { size: ['s', 'm', 'l'][w % 3] as string } }), spec: { size: w, colour: ['red', 'green', 'blue'][w % 3] } } });
    }
  }
  return out;
}

/** Creates (or refills) the SQLite file at `path` with the data set; returns the number of objects written. */
export async function fillSqlite(path: string, shape: DatasetShape = DEFAULT_SHAPE): Promise<number> {
  return fillStorage(`sqlite:${path}`, shape);
}

/** Migrates the storage at `url` (sqlite:… or postgres://…) and writes the data set; returns the number of objects. */
export async function fillStorage(url: string, shape: DatasetShape = DEFAULT_SHAPE): Promise<number> {
  const storage = await openStorage({ url }, { logger: silentLogger() });
  try {
    await storage.migrate();
    const objects = datasetObjects(shape);
    for (let i = 0; i < objects.length; i += 500) await storage.write({ upserts: objects.slice(i, i + 500), deletes: [] });
    for (let c = 0; c < shape.clusters; c++) {
      const cluster = clusterName(c);
      await storage.putClusterStatus(cluster, {
        spec: { apiserver: `https://${cluster}.example:6443` },
        status: { apiserver: `https://${cluster}.example:6443`, version: 'v1.32.0', conditions: [{ type: 'Ready', status: 'True', reason: 'Ready', message: '' }, { type: 'ClusterHealthy', status: 'True', reason: 'Healthy', message: '' }] },
        updatedAt: new Date(T0).toISOString(),
      });
    }
    return objects.length;
  } finally {
    await storage.close();
  }
}

export interface StorageFingerprint {
  /** Table name → row count. */
  counts: Record<string, number>;
  /** sha256 over every row of every table, in rowid order. */
  checksum: string;
}

/** Row counts and a checksum of every table in the SQLite file (read-only; safe while the server runs, WAL mode). */
export function fingerprintSqlite(path: string): StorageFingerprint {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    // sqlite_stat* are the planner's statistics (ANALYZE may refresh them), not data.
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_stat%' ORDER BY name").all() as { name: string }[]).map((t) => t.name);
    const hash = createHash('sha256');
    const counts: Record<string, number> = {};
    for (const t of tables) {
      const quoted = `"${t.replaceAll('"', '""')}"`;
      let n = 0;
      for (const row of db.prepare(`SELECT * FROM ${quoted}`).iterate()) {
        hash.update(JSON.stringify(row, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : Buffer.isBuffer(v) ? v.toString('base64') : v)));
        hash.update('\n');
        n++;
      }
      counts[t] = n;
      hash.update(`--${t}:${n}\n`);
    }
    return { counts, checksum: hash.digest('hex') };
  } finally {
    db.close();
  }
}

/** Row counts and a checksum of every table of the PostgreSQL database at `url` (schemas public and drizzle). */
export async function fingerprintPostgres(url: string): Promise<StorageFingerprint> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const tables = await sql<{ schema: string; name: string }[]>`
      SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
      WHERE table_schema IN ('public', 'drizzle') AND table_type = 'BASE TABLE' ORDER BY 1, 2`;
    const hash = createHash('sha256');
    const counts: Record<string, number> = {};
    for (const t of tables) {
      const ident = `"${t.schema.replaceAll('"', '""')}"."${t.name.replaceAll('"', '""')}"`;
      const [row] = await sql.unsafe<{ n: number; h: string }[]>(`SELECT count(*)::int AS n, md5(coalesce(string_agg(x::text, E'\\n' ORDER BY x::text), '')) AS h FROM ${ident} x`);
      counts[t.name] = row?.n ?? 0;
      hash.update(`${t.schema}.${t.name}:${row?.n}:${row?.h}\n`);
    }
    return { counts, checksum: hash.digest('hex') };
  } finally {
    await sql.end();
  }
}
