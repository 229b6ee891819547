// Tables as our apiserver sends them: kube's columns behind a leading Cluster column, the row object
// per includeObject, and the meta.k8s.io/v1 Table envelope — whole, or in pieces for streaming.

import { CLUSTER_ANNOTATION, type GroupResource, type KubeObject, type ListMeta } from '../types.js';
import { resourcePrinterFor } from './registry.js';
import type {
  IncludeObject, PrinterColumn, ResourcePrinter, Table, TableColumnDefinition, TablePrinter, TableRow,
} from './types.js';

/** Clusterpedia's first column: the member cluster an object came from (reference §6.2). */
export const CLUSTER_COLUMN: TableColumnDefinition = {
  name: 'Cluster',
  type: 'string',
  format: '',
  description: 'The Cluster of resource',
  priority: 0,
};

/** The row object for an includeObject policy, as kube-apiserver's transform sets it. */
export function rowObject(obj: KubeObject, includeObject: IncludeObject = 'Metadata'): unknown {
  switch (includeObject) {
    case 'None':
      return null;
    case 'Object':
      return obj;
    case 'Metadata':
      // meta.AsPartialObjectMetadata: the whole ObjectMeta under the PartialObjectMetadata kind.
      return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata ?? {} };
  }
}

/** Wraps a resource printer with the Cluster column (its cell: the cluster-name annotation, '' if absent). */
export function withClusterColumn(printer: ResourcePrinter): TablePrinter {
  return {
    columns: [CLUSTER_COLUMN, ...printer.columns],
    ...(printer.exactIntegers ? { exactIntegers: true } : {}),
    row(obj, now, includeObject = 'Metadata') {
      const cluster = obj.metadata?.annotations?.[CLUSTER_ANNOTATION] ?? '';
      const row: TableRow = { cells: [cluster, ...printer.cells(obj, now)], object: rowObject(obj, includeObject) };
      const conditions = printer.conditions?.(obj);
      if (conditions !== undefined) {
        // Key order as kube marshals a TableRow: cells, conditions, object.
        return { cells: row.cells, conditions, object: row.object };
      }
      return row;
    },
  };
}

/**
 * The table printer for a resource. Pass the CRD's `additionalPrinterColumns` for custom resources;
 * without them a custom resource shows Name and Age, and an unprinted built-in Name and Created At.
 */
export function tableFor(gr: GroupResource, crdColumns?: readonly PrinterColumn[]): TablePrinter {
  return withClusterColumn(resourcePrinterFor(gr, crdColumns));
}

/** Options of a Table response. */
export interface TableOptions {
  /** The time ages are measured from. */
  now: Date;
  /** Leave column definitions out (metav1.TableOptions noHeaders; watch events after the first). */
  noHeaders?: boolean;
  /** What each row's `object` carries; default Metadata. */
  includeObject?: IncludeObject;
}

/** ListMeta with kube's omitempty rules: only the fields that are set. */
export function tableMetadata(listMeta: ListMeta = {}): ListMeta {
  const out: ListMeta = {};
  if (listMeta.resourceVersion !== undefined && listMeta.resourceVersion !== '') out.resourceVersion = listMeta.resourceVersion;
  if (listMeta.continue !== undefined && listMeta.continue !== '') out.continue = listMeta.continue;
  if (listMeta.remainingItemCount !== undefined) out.remainingItemCount = listMeta.remainingItemCount;
  return out;
}

/**
 * A whole meta.k8s.io/v1 Table. For a single object (GET, watch event) pass its resourceVersion as
 * listMeta, which is what kube copies into the table.
 */
export function buildTable(
  printer: TablePrinter,
  objects: Iterable<KubeObject>,
  listMeta: ListMeta,
  opts: TableOptions,
): Table {
  const rows: TableRow[] = [];
  for (const obj of objects) rows.push(printer.row(obj, opts.now, opts.includeObject));
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: tableMetadata(listMeta),
    columnDefinitions: opts.noHeaders === true ? null : [...printer.columns],
    rows,
  };
}

/**
 * The JSON text of a Table up to and including `"rows":[`, for streaming a list: write this, then
 * each `JSON.stringify(printer.row(...))` separated by commas, then tableJsonEnd(). Give listMeta
 * here when it is known up front, or to tableJsonEnd when it is known only after the rows (not both).
 */
export function tableJsonStart(printer: TablePrinter, opts: { noHeaders?: boolean }, listMeta?: ListMeta): string {
  const head: Record<string, unknown> = { kind: 'Table', apiVersion: 'meta.k8s.io/v1' };
  if (listMeta !== undefined) head.metadata = tableMetadata(listMeta);
  head.columnDefinitions = opts.noHeaders === true ? null : printer.columns;
  return `${JSON.stringify(head).slice(0, -1)},"rows":[`;
}

/** The JSON text closing tableJsonStart's table; carries the metadata if the start did not. */
export function tableJsonEnd(listMeta?: ListMeta): string {
  return listMeta === undefined ? ']}' : `],"metadata":${JSON.stringify(tableMetadata(listMeta))}}`;
}
