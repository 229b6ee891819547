// What `show` reports, computed from storage: cluster status records (written by the synchro) and row counts.
import type { ClusterStatusRecord, StorageReader } from '../storage/types.js';
import { isObject, stringMap } from '../kube/printers/fields.js';

export interface SyncCondition {
  version?: string;
  status?: string;
  reason?: string;
  message?: string;
  initialListPhase?: boolean;
  count?: number;
  lastEventTime?: string;
  lastError?: string;
  lastErrorTime?: string;
}

export interface ResourceReport {
  cluster: string;
  group: string;
  version: string;
  resource: string;
  kind: string;
  status: string;
  reason: string;
  message: string;
  initialListPhase: boolean;
  /** Rows in storage. */
  count: number;
  bytes: number;
  lastEventTime?: string;
  /** The last error the synchro met on this resource (`<reason>: <message>`), kept after it recovered, and when. */
  lastError?: string;
  lastErrorTime?: string;
}

export interface ClusterReport {
  name: string;
  apiserver: string;
  version: string;
  /** The HTTP version the synchro's requests to the member use ('' until known). */
  protocol: string;
  conditions: { type: string; status: string; reason: string; message: string }[];
  resources: ResourceReport[];
  objects: number;
  bytes: number;
  lastEventTime?: string;
  updatedAt?: string;
  /** The PediaCluster's metadata.labels. */
  labels?: Record<string, string>;
  /** The redacted spec summary (never credentials). */
  spec: Record<string, unknown>;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The stored summary keeps the PediaCluster's labels beside its spec (cluster-manager.ts specSummary); shown apart. */
function splitLabels(summary: Record<string, unknown>): { labels?: Record<string, string>; spec: Record<string, unknown> } {
  const { labels, ...spec } = summary;
  return isObject(labels) ? { labels: stringMap(labels), spec } : { spec };
}

function conditions(status: Record<string, unknown>): ClusterReport['conditions'] {
  const c = status.conditions;
  if (!Array.isArray(c)) return [];
  return c.filter((x): x is Record<string, unknown> => typeof x === 'object' && x !== null)
    .map((x) => ({ type: str(x.type), status: str(x.status), reason: str(x.reason), message: str(x.message) }));
}

function syncResources(status: Record<string, unknown>): { group: string; name: string; kind: string; conds: SyncCondition[] }[] {
  const out: { group: string; name: string; kind: string; conds: SyncCondition[] }[] = [];
  const groups = status.syncResources;
  if (!Array.isArray(groups)) return out;
  for (const g of groups as Record<string, unknown>[]) {
    for (const r of (Array.isArray(g?.resources) ? g.resources : []) as Record<string, unknown>[]) {
      out.push({ group: str(g.group), name: str(r?.name), kind: str(r?.kind), conds: (Array.isArray(r?.syncConditions) ? r.syncConditions : []) as SyncCondition[] });
    }
  }
  return out;
}

/** Reports for every cluster storage knows, from its status record (if any) and its rows. */
export async function loadReports(storage: StorageReader): Promise<ClusterReport[]> {
  const [statuses, counts] = await Promise.all([storage.clusterStatuses(), storage.counts()]);
  const names = new Set<string>([...statuses.keys(), ...counts.map((c) => c.cluster)]);
  const reports: ClusterReport[] = [];
  for (const name of [...names].sort()) {
    const rec: ClusterStatusRecord | undefined = statuses.get(name);
    const status = rec?.status ?? {};
    const byType = new Map<string, ResourceReport>();
    for (const r of syncResources(status)) {
      for (const c of r.conds) {
        const version = c.version ?? '';
        byType.set(`${r.group}/${version}/${r.name}`, {
          cluster: name, group: r.group, version, resource: r.name, kind: r.kind, status: c.status ?? '', reason: c.reason ?? '',
          message: c.message ?? '', initialListPhase: c.initialListPhase === true, count: 0, bytes: 0, lastEventTime: c.lastEventTime,
          ...(typeof c.lastError === 'string' && c.lastError ? { lastError: c.lastError, lastErrorTime: c.lastErrorTime } : {}),
        });
      }
    }
    for (const c of counts.filter((x) => x.cluster === name)) {
      const k = `${c.group}/${c.version}/${c.resource}`;
      const r = byType.get(k) ?? { cluster: name, group: c.group, version: c.version, resource: c.resource, kind: '', status: 'Stored', reason: '', message: '', initialListPhase: false, count: 0, bytes: 0 };
      r.count = c.count;
      r.bytes = c.bytes;
      byType.set(k, r);
    }
    const resources = [...byType.values()].sort((a, b) => `${a.group}/${a.resource}`.localeCompare(`${b.group}/${b.resource}`));
    const last = resources.map((r) => r.lastEventTime).filter((t): t is string => !!t).sort().at(-1);
    reports.push({
      name,
      apiserver: str(status.apiserver) || str(rec?.spec.apiserver),
      version: str(status.version),
      protocol: str(status.protocol),
      conditions: conditions(status),
      resources,
      objects: resources.reduce((n, r) => n + r.count, 0),
      bytes: resources.reduce((n, r) => n + r.bytes, 0),
      ...(last ? { lastEventTime: last } : {}),
      ...(rec ? { updatedAt: rec.updatedAt } : {}),
      ...splitLabels(rec?.spec ?? {}),
    });
  }
  return reports;
}
