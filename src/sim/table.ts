// Server-side printing (meta.k8s.io/v1 Table) for kubectl get: pods, nodes, namespaces, deployments, CRD printer columns, Name/Age otherwise.
import { rec, recs, type PrinterColumn, type ResourceDef, type SimObject } from './types.js';
import { errors } from './status.js';

interface ColumnDef {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

const col = (name: string, type = 'string', priority = 0, format = ''): ColumnDef => ({ name, type, format, description: `${name} column`, priority });

/** kube's duration.HumanDuration, used for AGE cells. */
export function humanDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return s % 60 === 0 ? `${m}m` : `${m}m${s % 60}s`;
  if (m < 180) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 8) return m % 60 === 0 ? `${h}h` : `${h}h${m % 60}m`;
  if (h < 48) return `${h}h`;
  const d = Math.floor(h / 24);
  if (h < 24 * 8) return h % 24 === 0 ? `${d}d` : `${d}d${h % 24}h`;
  if (d < 365 * 2) return `${d}d`;
  return `${Math.floor(d / 365)}y`;
}

function age(o: SimObject, now: number): string {
  const t = Date.parse(o.metadata.creationTimestamp ?? '');
  return Number.isNaN(t) ? '<unknown>' : humanDuration(now - t);
}


function podCells(o: SimObject, now: number): unknown[] {
  const status = rec(o.status);
  const statuses = recs(status.containerStatuses);
  const containers = recs(rec(o.spec).containers);
  const ready = statuses.filter((s) => s.ready === true).length;
  let reason = String(status.phase ?? 'Unknown');
  for (const s of statuses) {
    const st = rec(s.state);
    const waiting = rec(st.waiting);
    const term = rec(st.terminated);
    if (typeof waiting.reason === 'string') reason = waiting.reason;
    else if (typeof term.reason === 'string') reason = term.reason;
  }
  if (o.metadata.deletionTimestamp) reason = 'Terminating';
  const restarts = statuses.reduce((n, s) => n + (typeof s.restartCount === 'number' ? s.restartCount : 0), 0);
  const spec = rec(o.spec);
  const gates = recs(spec.readinessGates);
  return [o.metadata.name, `${ready}/${containers.length}`, reason, String(restarts), age(o, now), status.podIP ?? '<none>', spec.nodeName ?? '<none>', status.nominatedNodeName ?? '<none>', gates.length ? `0/${gates.length}` : '<none>'];
}

/** Evaluates the small JSONPath subset CRD printer columns use: .a.b, .a[0], .a[?(@.k=="v")].f. */
export function jsonPath(o: unknown, path: string): unknown {
  const re = /\.([A-Za-z0-9_-]+)|\[(\d+)\]|\[\?\(@\.([A-Za-z0-9_-]+)\s*==\s*["']([^"']*)["']\)\]/gy;
  let cur: unknown = o;
  for (let m = re.exec(path); m; m = re.exec(path)) {
    if (m[1] !== undefined) cur = rec(cur)[m[1]];
    else if (m[2] !== undefined) cur = Array.isArray(cur) ? cur[Number(m[2])] : undefined;
    else cur = Array.isArray(cur) ? cur.find((e) => String(rec(e)[m?.[3] ?? '']) === m?.[4]) : undefined;
    if (cur === undefined) return undefined;
  }
  return cur;
}

function columnsFor(def: ResourceDef): { defs: ColumnDef[]; cells: (o: SimObject, now: number) => unknown[] } {
  if (def.group === '' && def.resource === 'pods') {
    return { defs: [col('Name', 'string', 0, 'name'), col('Ready'), col('Status'), col('Restarts', 'string'), col('Age'), col('IP', 'string', 1), col('Node', 'string', 1), col('Nominated Node', 'string', 1), col('Readiness Gates', 'string', 1)], cells: podCells };
  }
  if (def.group === '' && def.resource === 'namespaces') {
    return { defs: [col('Name', 'string', 0, 'name'), col('Status'), col('Age')], cells: (o, now) => [o.metadata.name, rec(o.status).phase ?? '', age(o, now)] };
  }
  if (def.group === 'apps' && def.resource === 'deployments') {
    return {
      defs: [col('Name', 'string', 0, 'name'), col('Ready'), col('Up-to-date', 'integer'), col('Available', 'integer'), col('Age')],
      cells: (o, now) => { const s = rec(o.status); return [o.metadata.name, `${Number(s.readyReplicas ?? 0)}/${Number(rec(o.spec).replicas ?? 0)}`, Number(s.updatedReplicas ?? 0), Number(s.availableReplicas ?? 0), age(o, now)]; },
    };
  }
  if (def.custom && def.printerColumns && def.printerColumns.length) {
    const pcs: PrinterColumn[] = def.printerColumns;
    return {
      defs: [col('Name', 'string', 0, 'name'), ...pcs.map((p) => col(p.name, p.type === 'date' ? 'string' : p.type, p.priority ?? 0, p.format ?? ''))],
      cells: (o, now) => [o.metadata.name, ...pcs.map((p) => {
        const v = jsonPath(o, p.jsonPath);
        if (p.type === 'date') return typeof v === 'string' && !Number.isNaN(Date.parse(v)) ? humanDuration(now - Date.parse(v)) : '<unknown>';
        return v === undefined ? null : typeof v === 'object' ? JSON.stringify(v) : v;
      })],
    };
  }
  return { defs: [col('Name', 'string', 0, 'name'), col('Age')], cells: (o, now) => [o.metadata.name, age(o, now)] };
}

/** What a Table's rows carry (`includeObject`): PartialObjectMetadata by default, the whole object, or nothing. */
export type IncludeObject = 'Metadata' | 'Object' | 'None';

/** `includeObject` of a request, as kube-apiserver validates TableOptions (400 for another value). */
export function includeObjectOf(query: URLSearchParams): IncludeObject {
  const v = query.get('includeObject') ?? '';
  if (v === '') return 'Metadata';
  if (v === 'Metadata' || v === 'Object' || v === 'None') return v;
  throw errors.badRequest(`includeObject: Unsupported value: "${v}": supported values: "Metadata", "None", "Object"`);
}

export interface TableOptions {
  /** Column definitions: a watch sends them with its first event only. */
  withColumns?: boolean;
  include?: IncludeObject;
  /** The object as the client would receive it outside a Table (its version's apiVersion), for `include: 'Object'`. */
  wire?: (o: SimObject) => unknown;
}

/** A Table of `objects`; rows carry PartialObjectMetadata by default, which kubectl reads for the NAMESPACE column. */
export function toTable(def: ResourceDef, objects: SimObject[], meta: Record<string, unknown>, now: number, o: TableOptions = {}): Record<string, unknown> {
  const { defs, cells } = columnsFor(def);
  const include = o.include ?? 'Metadata';
  const rowObject = (x: SimObject): unknown => include === 'None' ? null
    : include === 'Object' ? (o.wire ? o.wire(x) : x)
      : { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: x.metadata };
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: meta,
    columnDefinitions: o.withColumns === false ? [] : defs,
    rows: objects.map((x) => ({ cells: cells(x, now), object: rowObject(x) })),
  };
}
