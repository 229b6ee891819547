// Server-side printing (meta.k8s.io/v1 Table) for kubectl get: kube's printers for the common built-ins (printers.ts),
// CRD printer columns, Name/Age otherwise.
import { age, col, humanDuration, PRINTERS, type Printer } from './printers.js';
import { grKey, rec, type PrinterColumn, type ResourceDef, type SimObject } from './types.js';
import { errors } from './status.js';

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

function columnsFor(def: ResourceDef): Printer {
  const printer = def.custom ? undefined : PRINTERS[grKey(def.group, def.resource)];
  if (printer) return printer;
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
