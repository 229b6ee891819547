// collectionresources (reference §1.6): `any`, `workloads`, `kuberesources` — several resource types in one list.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { builtinGroups } from '../../kube/builtin-resources.js';
import { COLLECTION_COLUMNS, collectionListTable, collectionTable, type IncludeObject } from '../../kube/printers/index.js';
import { matchesSet } from '../../kube/match.js';
import { notFound } from '../../kube/status.js';
import type { KubeObject, ListMeta } from '../../kube/types.js';
import type { StoredRow, TypeFilter } from '../../storage/types.js';
import { scopedClusters } from './authz-gate.js';
import type { HandlerDeps } from './handler.js';
import { parseListOptions } from './list-options.js';
import { checkBeforeRead, checkPage } from './read-revision.js';
import { includeObjectPolicy, negotiate, type Negotiated } from './negotiate.js';
import { whereSqlError } from './where-sql.js';
import { sendObject } from './respond.js';
import type { RequestContext } from './server.js';
import { inMeta, pageMeta, type ListRenderer } from './render.js';
import { yamlListRenderer } from './render-yaml.js';
import { primed, StreamWriter } from './stream-writer.js';
import { addWarnings, excludingWarnings, namedIn, notReadyWarnings } from './warnings.js';

const API_VERSION = 'clusterpedia.io/v1beta1';

/** Whether `types` takes any version of group/resource. */
function coversGroupResource(types: TypeFilter, group: string, resource: string): boolean {
  if (types.kind === 'all') return true;
  if (types.kind === 'one') return types.group === group && types.resource === resource;
  return types.entries.some((e) => e.group === group && (e.resource === undefined || e.resource === resource));
}

interface CollectionDef {
  name: string;
  /** Advertised types (resource '' = the whole group). */
  resourceTypes: { group: string; version?: string; resource?: string }[];
  types?: TypeFilter;
}

function collections(): CollectionDef[] {
  const workloads = [
    { group: 'apps', version: 'v1', resource: 'deployments' },
    { group: 'apps', version: 'v1', resource: 'daemonsets' },
    { group: 'apps', version: 'v1', resource: 'statefulsets' },
  ];
  const kube = builtinGroups().map((group) => ({ group }));
  return [
    { name: 'any', resourceTypes: [] },
    { name: 'workloads', resourceTypes: workloads, types: { kind: 'many', entries: workloads } },
    { name: 'kuberesources', resourceTypes: kube.map((g) => ({ ...g, resource: '' })), types: { kind: 'many', entries: kube } },
  ];
}

function collectionObject(c: CollectionDef): Record<string, unknown> {
  return { apiVersion: API_VERSION, kind: 'CollectionResource', metadata: { name: c.name }, resourceTypes: c.resourceTypes };
}

export async function serveCollection(req: IncomingMessage, res: ServerResponse, ctx: RequestContext, url: URL,
  t: { name?: string; verb: 'get' | 'list' }, d: HandlerDeps): Promise<void> {
  const neg = negotiate(req.headers.accept, ['none', 'Table']);
  // What a Table row's object carries: kubectl --sort-by and -o custom-columns ask for the whole object.
  const includeObject = neg.transform === 'Table' ? includeObjectPolicy(url) : 'Metadata';
  const defs = collections();
  if (t.name === undefined) {
    const items = defs.map(collectionObject);
    const body = neg.transform === 'Table'
      ? inMeta(collectionListTable(items as KubeObject[], { includeObject }), neg.meta)
      : { apiVersion: API_VERSION, kind: 'CollectionResourceList', metadata: {}, items };
    return sendObject(res, 200, body, neg.wire, neg.contentType);
  }
  const def = defs.find((c) => c.name === t.name);
  if (!def) throw notFound(`collectionresources.clusterpedia.io "${t.name}" not found`, { name: t.name, group: 'clusterpedia.io', kind: 'collectionresources' });
  // A Table's cells are all metadata: unless its rows carry whole objects, only metadata is read.
  const metadataOnly = neg.transform === 'Table' && includeObject !== 'Object';
  const input: Parameters<typeof parseListOptions>[0] = { mode: 'collection', query: url.searchParams, collection: def.name, metadataOnly, allowSql: d.options.allowParameterizedSqlQuery };
  if (def.types) input.types = def.types;
  const parsed = parseListOptions(input);
  // Per-cluster authorization: only rows of clusters the caller may read (authz-clusters.ts).
  const clusters = await scopedClusters(ctx.access, parsed.query.clusters);
  if (clusters) parsed.query.clusters = clusters;
  const inScope = (c: string): boolean => matchesSet(c, parsed.query.clusters);
  addWarnings(res, notReadyWarnings(await d.catalog.notReady(inScope)));
  const excluding = await d.catalog.excludingNamespaces(namedIn(parsed.query.namespaces), inScope, (group, resource) => coversGroupResource(parsed.query.types, group, resource));
  addWarnings(res, excludingWarnings(`collectionresources ${def.name}`, excluding));
  // --max-page-size applies to collections as to any list; a page the server cut always carries its token.
  const capped = (parsed.query.limit ?? 0) === 0 && d.options.limits.maxPageSize > 0;
  if (capped) parsed.query.limit = d.options.limits.maxPageSize;
  if (neg.transform === 'none') parsed.query.objectBytes = true; // copied to the socket as stored
  try {
    await sendCollection(res, def, parsed, neg, includeObject, capped, d, ctx.signal);
  } catch (e: unknown) {
    throw whereSqlError(e, parsed.query.where);
  }
}

async function sendCollection(res: ServerResponse, def: CollectionDef, parsed: ReturnType<typeof parseListOptions>, neg: Negotiated,
  includeObject: IncludeObject, capped: boolean, d: HandlerDeps, signal: AbortSignal): Promise<void> {
  await checkBeforeRead(parsed.revision, d.feed, d.storage);
  const page = await d.storage.list(parsed.query, signal);
  await checkPage(parsed.revision, page, parsed.query, d.storage);
  const meta = (): ListMeta => pageMeta(page, parsed.withContinue !== false || capped);

  // resourceTypes lists the distinct types of the returned items in first-seen order (reference §1.6).
  const seen = new Map<string, { group: string; version: string; kind: string; resource: string }>();
  const note = (r: StoredRow): void => {
    const k = `${r.group}/${r.version}/${r.resource}`;
    if (!seen.has(k)) seen.set(k, { group: r.group, version: r.version, kind: r.kind, resource: r.resource });
  };
  const now = new Date();
  const json: ListRenderer = neg.transform === 'Table'
    ? {
      head: () => `{"kind":"Table","apiVersion":"${neg.meta}","columnDefinitions":${JSON.stringify(COLLECTION_COLUMNS)},"rows":[`,
      separator: ',',
      item: (row) => {
        note(row);
        return JSON.stringify(inMeta(collectionTable([JSON.parse(row.object) as KubeObject], {}, { now, noHeaders: true, includeObject }), neg.meta).rows[0]);
      },
      tail: () => `],"metadata":${JSON.stringify(meta())}}`,
    }
    : {
      head: () => `{"apiVersion":"${API_VERSION}","kind":"CollectionResource","metadata":{"name":${JSON.stringify(def.name)}},"items":[`,
      separator: ',',
      item: (row) => {
        note(row);
        return row.bytes ?? row.object;
      },
      tail: () => {
        const m = meta();
        const trailer: Record<string, unknown> = { resourceTypes: [...seen.values()] };
        if (m.continue) trailer.continue = m.continue;
        if (m.remainingItemCount !== undefined) trailer.remainingItemCount = m.remainingItemCount;
        return `],${JSON.stringify(trailer).slice(1)}`;
      },
    };
  // YAML streams item by item like JSON (it used to be JSON under a YAML content type).
  const r = neg.wire === 'yaml' ? yamlListRenderer(json) : json;
  const rows = await primed(page.rows);
  const out = new StreamWriter(res, { head: { code: 200, headers: { 'content-type': neg.contentType, 'cache-control': 'no-cache, private' } } });
  await out.write(r.head());
  let first = true;
  for await (const row of rows) {
    if (!first) await out.write(r.separator);
    await out.write(r.item(row));
    first = false;
  }
  await out.end(r.tail(meta()));
}
