// Renders stored rows as the negotiated form: kube JSON lists, meta.k8s.io Tables, PartialObjectMetadata — for lists
// (streamed piece by piece) and for watch events. Stored JSON is passed through untouched wherever possible.
import { parseExact, restoreIntegers } from '../../kube/exact-json.js';
import type { IncludeObject, TablePrinter, TableRow } from '../../kube/printers/index.js';
import type { KubeObject, ListMeta } from '../../kube/types.js';
import type { ListPage, StoredRow } from '../../storage/types.js';
import type { MetaGroupVersion, Transform } from './negotiate.js';
import type { Piece } from './stream-writer.js';
import type { EventEncoder, EventType } from './watch.js';

/** A list body in three parts, so items can be streamed between them. */
export interface ListRenderer {
  head(): string;
  /** Written between two items. */
  separator: string;
  /** One item; a row read as bytes (StoredRow.bytes) is passed through as they are where the form allows. */
  item(row: StoredRow): Piece;
  /** Closes the body; list metadata comes last because the continue token is known only after the last row. */
  tail(meta: ListMeta): string;
}

export interface RenderContext {
  transform: Transform;
  /** e.g. "PodList" / "v1" for plain JSON lists. */
  listKind: string;
  apiVersion: string;
  /** Needed for Table. */
  printer?: TablePrinter;
  /** What each Table row's `object` carries (the request's includeObject; kube's default Metadata). */
  includeObject?: IncludeObject;
  /** The meta.k8s.io version of Tables and PartialObjectMetadata; v1 when absent. */
  meta?: MetaGroupVersion;
  now: () => Date;
}

const V1 = 'meta.k8s.io/v1';

/** Moves one object built as meta.k8s.io/v1 (a Table, a PartialObjectMetadata row object) to `meta`. */
function moveMeta(o: unknown, meta: MetaGroupVersion): void {
  if (typeof o === 'object' && o !== null && (o as { apiVersion?: unknown }).apiVersion === V1) (o as { apiVersion: string }).apiVersion = meta;
}

/**
 * A whole Table built as meta.k8s.io/v1, in the version the client asked for: the envelope and the rows'
 * PartialObjectMetadata, as kube-apiserver sets both from the request.
 */
export function inMeta<T extends { rows: { object: unknown }[] }>(table: T, meta: MetaGroupVersion | undefined): T {
  if (meta === undefined || meta === V1) return table;
  moveMeta(table, meta);
  for (const r of table.rows) rowIn(r, meta);
  return table;
}

/** A Table row, its PartialObjectMetadata in `meta`. */
function rowIn<R extends { object: unknown }>(row: R, meta: MetaGroupVersion | undefined): R {
  if (meta !== undefined && meta !== V1) moveMeta(row.object, meta);
  return row;
}

/**
 * The list metadata of a page whose rows have all been read. `withContinue` false drops its token (withContinue=false
 * on a page the client limited; a page the server cut keeps it).
 */
export function pageMeta(page: Pick<ListPage, 'revision' | 'continueToken' | 'remainingItemCount'>, withContinue: boolean): ListMeta {
  const m: ListMeta = { resourceVersion: page.revision };
  const token = withContinue ? page.continueToken() : undefined;
  if (token) m.continue = token;
  if (page.remainingItemCount !== undefined) m.remainingItemCount = page.remainingItemCount;
  return m;
}

function listMetaJson(meta: ListMeta): string {
  const m: ListMeta = { resourceVersion: meta.resourceVersion ?? '' };
  if (meta.continue) m.continue = meta.continue;
  if (meta.remainingItemCount !== undefined) m.remainingItemCount = meta.remainingItemCount;
  return JSON.stringify(m);
}

function metadataOnly(text: string, meta: MetaGroupVersion = V1): string {
  // metadata.generation is an int64.
  const o = parseExact(text) as KubeObject;
  return restoreIntegers(JSON.stringify({ kind: 'PartialObjectMetadata', apiVersion: meta, metadata: o.metadata ?? {} }));
}

/** The Table row of one stored object, read exact where the printer can print it so (a custom resource's columns). */
function rowOf(c: RenderContext, p: TablePrinter, text: string): TableRow {
  const o = (p.exactIntegers ? parseExact(text) : JSON.parse(text)) as KubeObject;
  return rowIn(p.row(o, c.now(), c.includeObject), c.meta);
}

/** JSON text holding rows of `p`, their kept integers written back as the literals they were. */
function exactFor(p: TablePrinter, json: string): string {
  return p.exactIntegers ? restoreIntegers(json) : json;
}

/** JSON of what holds rows of `p` (exactFor). */
function tableJson(p: TablePrinter, v: unknown): string {
  return exactFor(p, JSON.stringify(v));
}

export function listRenderer(c: RenderContext): ListRenderer {
  switch (c.transform) {
    case 'Table': {
      const p = c.printer;
      if (!p) throw new Error('Table rendering needs a printer');
      return {
        head: () => `{"kind":"Table","apiVersion":"${c.meta ?? V1}","columnDefinitions":${JSON.stringify(p.columns)},"rows":[`,
        separator: ',',
        item: (row) => tableJson(p, rowOf(c, p, row.object)),
        tail: (meta) => `],"metadata":${listMetaJson(meta)}}`,
      };
    }
    case 'PartialObjectMetadata':
    case 'PartialObjectMetadataList':
      return {
        head: () => `{"kind":"PartialObjectMetadataList","apiVersion":"${c.meta ?? V1}","items":[`,
        separator: ',',
        item: (row) => metadataOnly(row.object, c.meta),
        tail: (meta) => `],"metadata":${listMetaJson(meta)}}`,
      };
    case 'none':
      return {
        head: () => `{"kind":${JSON.stringify(c.listKind)},"apiVersion":${JSON.stringify(c.apiVersion)},"items":[`,
        separator: ',',
        item: (row) => row.bytes ?? row.object,
        tail: (meta) => `],"metadata":${listMetaJson(meta)}}`,
      };
  }
}

/** The JSON of a single GET in the negotiated form. */
export function renderOne(c: RenderContext, row: StoredRow): string {
  switch (c.transform) {
    case 'Table': {
      const p = c.printer;
      if (!p) throw new Error('Table rendering needs a printer');
      return tableJson(p, {
        kind: 'Table', apiVersion: c.meta ?? V1, metadata: { resourceVersion: row.revision },
        columnDefinitions: p.columns, rows: [rowOf(c, p, row.object)],
      });
    }
    case 'PartialObjectMetadata':
    case 'PartialObjectMetadataList':
      return metadataOnly(row.object, c.meta);
    case 'none':
      return row.object;
  }
}

/** A deleted object is reported at the revision of its deletion (informers advance their resourceVersion by it). */
function objectAt(row: StoredRow, type: EventType, revision: string): string {
  if (type !== 'DELETED' || row.revision === revision) return row.object;
  const o = parseExact(row.object) as KubeObject;
  o.metadata = { ...(o.metadata ?? {}), resourceVersion: revision };
  return restoreIntegers(JSON.stringify(o));
}

/**
 * The Tables of one watch's events: kube sends the column definitions with the first event only (kubectl prints the
 * header once). Rows are given in `meta` already.
 */
export function watchTables(meta: MetaGroupVersion | undefined): (resourceVersion: string, columns: unknown, rows: unknown[]) => string {
  let headersSent = false;
  return (resourceVersion, columns, rows) => {
    const columnDefinitions = headersSent ? null : columns;
    headersSent = true;
    return JSON.stringify({ kind: 'Table', apiVersion: meta ?? V1, metadata: { resourceVersion }, columnDefinitions, rows });
  };
}

export function eventEncoder(c: RenderContext): EventEncoder {
  const table = watchTables(c.meta);
  const bookmarkObject = (revision: string, annotations?: Record<string, string>): string => {
    const metadata: Record<string, unknown> = { resourceVersion: revision };
    if (annotations) metadata.annotations = annotations;
    if (c.transform === 'Table') {
      return JSON.stringify({ kind: 'Table', apiVersion: c.meta ?? V1, metadata, columnDefinitions: null, rows: [] });
    }
    if (c.transform === 'none') {
      return JSON.stringify({ kind: c.listKind.replace(/List$/, ''), apiVersion: c.apiVersion, metadata });
    }
    return JSON.stringify({ kind: 'PartialObjectMetadata', apiVersion: c.meta ?? V1, metadata });
  };
  return {
    event(type, row, revision) {
      const text = objectAt(row, type, revision);
      let object: string;
      switch (c.transform) {
        case 'Table': {
          const p = c.printer;
          if (!p) throw new Error('Table rendering needs a printer');
          object = exactFor(p, table(revision, p.columns, [rowOf(c, p, text)]));
          break;
        }
        case 'PartialObjectMetadata':
        case 'PartialObjectMetadataList':
          object = metadataOnly(text, c.meta);
          break;
        case 'none':
          object = text;
          break;
      }
      return `{"type":"${type}","object":${object}}`;
    },
    bookmark(revision, annotations) {
      return `{"type":"BOOKMARK","object":${bookmarkObject(revision, annotations)}}`;
    },
  };
}
