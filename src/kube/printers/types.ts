// The meta.k8s.io/v1 Table shapes we emit, and the contract every resource printer fulfils.

import type { KubeObject, ListMeta } from '../types.js';

/** metav1.TableColumnDefinition; fields in kube's JSON order, none omitted when empty. */
export interface TableColumnDefinition {
  name: string;
  /** OpenAPI type: string, integer, number, boolean, date. */
  type: string;
  /** `name` marks the column holding the object's name; otherwise ''. */
  format: string;
  description: string;
  /** 0 is always shown; higher only with `kubectl -o wide`. */
  priority: number;
}

/** metav1.TableRowCondition; only `Completed` is defined (finished pods). */
export interface TableRowCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

/** metav1.TableRow. `object` is null when the request asked for includeObject=None. */
export interface TableRow {
  cells: unknown[];
  conditions?: TableRowCondition[];
  object: unknown;
}

/** metav1.Table. `columnDefinitions` is null when headers were not asked for, as kube sends it. */
export interface Table {
  kind: 'Table';
  apiVersion: 'meta.k8s.io/v1';
  metadata: ListMeta;
  columnDefinitions: TableColumnDefinition[] | null;
  rows: TableRow[];
}

/** metav1.IncludeObjectPolicy: what each row's `object` carries. kube's default is Metadata. */
export type IncludeObject = 'None' | 'Object' | 'Metadata';

/** A CRD's `additionalPrinterColumns` entry (apiextensions/v1 CustomResourceColumnDefinition). */
export interface PrinterColumn {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

/** What a resource printer supplies: kube's own columns (Name first) and the cells for one object. */
export interface ResourcePrinter {
  readonly columns: readonly TableColumnDefinition[];
  /**
   * Its cells are right for an object read with parseExact (exact-json.ts), whose integers past 2^53 are marked
   * strings: a custom resource's columns, where kube prints such an int64 whole.
   */
  readonly exactIntegers?: boolean;
  cells(obj: KubeObject, now: Date): unknown[];
  /** Row conditions kube attaches (finished pods only). */
  conditions?(obj: KubeObject): TableRowCondition[] | undefined;
}

/** A printer for one resource with our leading Cluster column; see tableFor. */
export interface TablePrinter {
  /** Column definitions, Cluster first, every priority (the server always prints wide). */
  readonly columns: readonly TableColumnDefinition[];
  /** As ResourcePrinter.exactIntegers; the row then holds marked strings for restoreIntegers to write back. */
  readonly exactIntegers?: boolean;
  /** One row; `object` follows includeObject (default Metadata, kube's default). */
  row(obj: KubeObject, now: Date, includeObject?: IncludeObject): TableRow;
}
