// get/list/watch of one resource type through the resources API (reference §1.3, API.md §4).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isBuiltinGroup } from '../../kube/builtin-resources.js';
import { parseWithBigInts } from '../../kube/exact-json.js';
import { scalePrinter, tableFor, withClusterColumn, type TablePrinter } from '../../kube/printers/index.js';
import { badRequest, methodNotSupported, notFound } from '../../kube/status.js';
import { scaleOf, type ScaleSource } from '../../kube/subresources.js';
import { groupResourceString, groupVersionString, type KubeObject } from '../../kube/types.js';
import { matchesQuery, matchesSet } from '../../kube/match.js';
import type { JoinedPage, ListPage, ListQuery, WatchFilter } from '../../storage/types.js';
import { methodVerb } from './authz-attributes.js';
import { scopedClusters } from './authz-gate.js';
import type { HandlerDeps } from './handler.js';
import { parseListOptions } from './list-options.js';
import { firstParam } from './list-options-kube.js';
import { checkAfterRead, checkBeforeRead, checkPage, getRevisionWanted } from './read-revision.js';
import { includeObjectPolicy, negotiate, type Negotiated } from './negotiate.js';
import { eventEncoder, listRenderer, pageMeta, renderOne, type RenderContext } from './render.js';
import { yamlListRenderer } from './render-yaml.js';
import type { ResourceRequest } from './request-info.js';
import { answeredCode, sendBody, sendObject, sendText } from './respond.js';
import type { RequestContext } from './server.js';
import { primed, StreamWriter } from './stream-writer.js';
import { withInvolvedEvents } from './inject-events.js';
import { KeyHashSet } from '../../lib/key-hash-set.js';
import { MAX_WATCH_MEMBERS, rowKey, serveWatch, watchTimeoutSeconds } from './watch.js';
import { whereSqlError } from './where-sql.js';
import { historyTells, keysAt } from './selector-history.js';
import { forwardedQuery, forwardRead, forwardToMember, isForwarded } from './member-forward.js';
import { METRICS_GROUP, metricsSubject, serveMetrics, servesMetrics, unsyncedSubjectText } from './member-metrics.js';
import type { ClusterInfo, TypeInfo } from './catalog.js';
import { addWarnings, coverageWarnings, named, namedIn, notReadyText } from './warnings.js';

const TRANSFORMS = ['none', 'Table', 'PartialObjectMetadata', 'PartialObjectMetadataList'] as const;

/** A member cluster clusterpedia knows (reference §1.3 step 4), else Clusterpedia's 400. */
export async function knownCluster(d: HandlerDeps, name: string): Promise<ClusterInfo> {
  const c = await d.catalog.cluster(name);
  if (!c) throw badRequest('the server could not find the requested cluster');
  return c;
}

export async function serveResource(req: IncomingMessage, res: ServerResponse, ctx: RequestContext, url: URL, t: ResourceRequest, d: HandlerDeps): Promise<void> {
  // Clusterpedia's forward (reference §1.3 steps 1, 2 and 6): answered by the member, not storage.
  const forwardSearch = forwardedQuery(req, url, t);
  const members = d.members;
  let forward: (() => Promise<void>) | undefined;
  if (forwardSearch !== undefined) {
    const cluster = t.cluster;
    if (cluster === undefined) throw badRequest('please specify the cluster name when using proxy model.');
    if (!members || !d.options.forward.requests) throw badRequest('forwarding to member clusters is not enabled here (--allow-pediacluster-config-for-proxy-request)');
    forward = () => counted(res, d, { verb: t.verb, resource: t.resource }, () => forwardRead(req, res, ctx, t, cluster, forwardSearch, members));
  }
  if (t.group === METRICS_GROUP && !forward && members && servesMetrics(d)) {
    if (t.cluster !== undefined) await knownCluster(d, t.cluster);
    return counted(res, d, { verb: t.verb, resource: `${t.resource}.${METRICS_GROUP}` }, () => serveMetrics(req, res, ctx, url, t, d, members));
  }
  if (t.cluster !== undefined) {
    const c = await knownCluster(d, t.cluster);
    // Reference §1.3 step 9: stale data is still served, with a warning kubectl prints.
    if (c.healthy?.status !== 'True' && !forward) addWarnings(res, [notReadyText(t.cluster, c.healthy?.reason ?? '')]);
  }
  if (forward && d.options.forward.unsynced) return forward();
  const synced = await d.catalog.type(t.cluster, t.group, t.version, t.resource);
  const type = synced ?? metricsSubject(t, d);
  if (!type) throw await typeNotFound(t, d);
  if (!synced && t.verb !== 'get') addWarnings(res, [unsyncedSubjectText(t.resource, t.cluster)]);
  if (t.namespace !== undefined && !type.namespaced) throw notFound();
  if (forward) return forward();
  if (members && isForwarded(t, d.options.forward.subresources)) {
    const proxy = t.subresource === 'proxy';
    if (t.verb !== 'get' && !proxy) throw methodNotSupported(t.verb, `${groupResourceString(t)}/${t.subresource ?? ''}`);
    const verb = proxy && req.method !== 'HEAD' ? methodVerb(req.method) : t.verb;
    return counted(res, d, { verb, resource: `${t.resource}/${t.subresource ?? ''}` }, () => forwardToMember(req, res, ctx, url, t, members));
  }
  const scale = t.subresource === undefined ? undefined : await storedSubresource(t, d);
  const neg = negotiate(req.headers.accept, TRANSFORMS);
  const rc: RenderContext = {
    transform: neg.transform,
    listKind: `${type.kind}List`,
    apiVersion: groupVersionString(type.group, type.version),
    meta: neg.meta,
    now: () => new Date(),
  };
  if (neg.transform === 'Table') {
    rc.printer = scale ? withClusterColumn(scalePrinter) : await printerFor(type, d);
    rc.includeObject = includeObjectPolicy(url);
  }
  const metric = { verb: t.verb, resource: t.resource };
  const end = d.metrics.duration.startTimer(metric);
  try {
    return await counted(res, d, metric, async () => {
      switch (t.verb) {
        case 'get':
          await checkBeforeRead(getRevisionWanted(firstParam(url.searchParams, 'resourceVersion')), d.feed, d.storage);
          return get(res, ctx, t, type, neg, rc, d, scale);
        case 'list':
          return list(res, ctx, url, t, neg, rc, d);
        case 'watch':
          return watch(res, ctx, url, t, neg, rc, d);
      }
    });
  } finally {
    if (t.verb !== 'watch') end();
  }
}

/** Runs a request, counting it by the code its client got (a thrown Status's, not the 200 the response still holds). */
async function counted(res: ServerResponse, d: HandlerDeps, metric: { verb: string; resource: string }, run: () => Promise<void>): Promise<void> {
  try {
    await run();
    d.metrics.requests.inc({ ...metric, code: String(answeredCode(res)) });
  } catch (e: unknown) {
    d.metrics.requests.inc({ ...metric, code: String(answeredCode(res, e)) });
    throw e;
  }
}

/**
 * A subresource answered from the stored object: `status` (the object itself, as kube's status REST gets it) and
 * `scale` (an autoscaling/v1 Scale made from it), on a GET of a resource that has them. The source of the Scale is
 * returned for `scale`. Any other needs the member: a pod's log when forwarding is on (member-forward.ts), else 404.
 */
async function storedSubresource(t: ResourceRequest, d: HandlerDeps): Promise<ScaleSource | undefined> {
  const sub = await d.catalog.subresources(t.group, t.version, t.resource);
  const gr = `${groupResourceString(t)}/${t.subresource ?? ''}`;
  const served = t.subresource === 'status' ? sub.status : t.subresource === 'scale' ? sub.scale !== undefined : false;
  if (!served) {
    const hint = gr === 'pods/log' ? '; or start clusterpedia with --allowed-proxy-subresources pods/log' : '';
    throw notFound(`the server could not find the requested resource: ${gr} is not served here (clusterpedia serves the objects it stores `
      + `and their status and scale, not other subresources: ask the member cluster${hint})`);
  }
  if (t.verb !== 'get') throw methodNotSupported(t.verb, gr);
  return t.subresource === 'scale' ? sub.scale : undefined;
}

/**
 * 404 for a type the cluster (or no cluster) has; when the one cluster addressed keeps the resource at another version,
 * the message says which, as kubectl pointed at one member asks for the version the fleet's discovery prefers.
 */
async function typeNotFound(t: ResourceRequest, d: HandlerDeps): Promise<Error> {
  if (t.cluster === undefined) return notFound();
  const [other] = (await d.catalog.coverage(t.group, t.version, t.resource, (c) => c === t.cluster)).elsewhere;
  if (!other) return notFound();
  return notFound(`the server could not find the requested resource: cluster ${t.cluster} keeps ${groupResourceString(t)} as ${other.versions.map((v) => groupVersionString(t.group, v)).join(', ')}`);
}

/**
 * Warnings for a list or watch (warnings.ts): over the clusters it reads, or the one of its path, and the namespaces
 * it names (its path's, or a `namespaces` search).
 */
async function warnCoverage(res: ServerResponse, t: ResourceRequest, q: Pick<ListQuery, 'clusters' | 'namespaces'>, d: HandlerDeps): Promise<void> {
  const one = t.cluster;
  const { clusters } = q;
  const c = await d.catalog.coverage(t.group, t.version, t.resource, one !== undefined ? (x) => x === one : (x) => matchesSet(x, clusters), namedIn(q.namespaces));
  // One cluster's path has said already whether that cluster is ready (reference §1.3 step 9).
  addWarnings(res, coverageWarnings(t, one !== undefined ? { ...c, notReady: [] } : c));
}

async function printerFor(type: TypeInfo, d: HandlerDeps): Promise<TablePrinter> {
  const crd = isBuiltinGroup(type.group) ? undefined : await d.catalog.crdColumns(type.group, type.version, type.resource);
  return tableFor({ group: type.group, resource: type.resource }, crd);
}

async function get(res: ServerResponse, ctx: RequestContext, t: ResourceRequest, type: TypeInfo, neg: Negotiated, rc: RenderContext, d: HandlerDeps,
  scale?: ScaleSource): Promise<void> {
  const name = t.name ?? '';
  const gr = groupResourceString(t);
  if (t.cluster === undefined) throw badRequest(`please specify the cluster name when using the resource name to get a specific resource.${await holders(ctx, t, gr, name, d)}`);
  const missing = (): Error => notFound(`${gr} "${name}" not found`, { name, group: t.group, kind: t.resource });
  // A namespaced object addressed without its namespace does not exist (kube answers 404 too).
  if (type.namespaced && t.namespace === undefined) throw missing();
  const stored = await d.storage.get({ cluster: t.cluster, group: t.group, version: t.version, resource: t.resource, namespace: t.namespace ?? '', name });
  if (!stored) throw missing();
  const row = scale ? { ...stored, object: JSON.stringify(scaleOf(JSON.parse(stored.object) as KubeObject, scale)) } : stored;
  // A JSON object as stored goes out as it is: parsing and serialising it again cost ~50 µs of a ~0.5 ms get.
  const json = renderOne(rc, row);
  if (neg.wire === 'json') return sendText(res, 200, json, neg.wire, neg.contentType);
  // As YAML, integers past 2^53 are printed from BigInts, as stored.
  return sendObject(res, 200, parseWithBigInts(json), neg.wire, neg.contentType);
}

/**
 * For a get through the fleet's path (which needs a cluster, reference §1.3): the clusters that hold the object, among
 * those the caller may read, so the answer says where to ask. Empty when none does.
 */
async function holders(ctx: RequestContext, t: ResourceRequest, gr: string, name: string, d: HandlerDeps): Promise<string> {
  const query: ListQuery = { types: { kind: 'one', group: t.group, version: t.version, resource: t.resource }, names: { op: 'in', values: [name] }, keysOnly: true, limit: 1000 };
  if (t.namespace !== undefined) query.namespaces = { op: 'in', values: [t.namespace] };
  const clusters = await scopedClusters(ctx.access, undefined);
  if (clusters) query.clusters = clusters;
  const found = new Set<string>();
  for await (const row of (await d.storage.list(query, ctx.signal)).rows) found.add(row.cluster);
  if (found.size === 0) return '';
  return ` ${gr} "${name}" is in cluster${found.size === 1 ? '' : 's'} ${named([...found].sort())}: ask through /apis/clusterpedia.io/v1beta1/resources/clusters/<name> (kubectl --cluster <name>).`;
}

function parse(url: URL, t: ResourceRequest, neg: Negotiated, d: HandlerDeps): ReturnType<typeof parseListOptions> {
  const input: Parameters<typeof parseListOptions>[0] = {
    mode: 'resources', query: url.searchParams, group: t.group, version: t.version, resource: t.resource,
    metadataOnly: neg.transform === 'PartialObjectMetadata' || neg.transform === 'PartialObjectMetadataList',
    allowSql: d.options.allowParameterizedSqlQuery,
  };
  if (t.cluster !== undefined) input.pathCluster = t.cluster;
  if (t.namespace !== undefined) input.pathNamespace = t.namespace;
  return parseListOptions(input);
}

async function list(res: ServerResponse, ctx: RequestContext, url: URL, t: ResourceRequest, neg: Negotiated, rc: RenderContext, d: HandlerDeps): Promise<void> {
  const parsed = parse(url, t, neg, d);
  const query: ListQuery = { ...parsed.query };
  // Reference §2.11: built-in kinds only. Unlike Clusterpedia, metadata-only lists keep them (they are metadata).
  const injectEvents = parsed.injectEvents && isBuiltinGroup(t.group) && neg.transform !== 'Table';
  // Objects served as stored go from the database to the socket as bytes (a 500-pod page is ~2 MB of JSON).
  if (neg.transform === 'none' && neg.wire === 'json' && !injectEvents) query.objectBytes = true;
  // Per-cluster authorization: only rows of clusters the caller may read (authz-clusters.ts).
  const clusters = await scopedClusters(ctx.access, query.clusters);
  if (clusters) query.clusters = clusters;
  await warnCoverage(res, t, query, d);
  // A list without a limit may be capped (kube semantics stay: the client gets a continue token to follow).
  const capped = (query.limit ?? 0) === 0 && d.options.limits.maxPageSize > 0;
  if (capped) query.limit = d.options.limits.maxPageSize;
  const withContinue = parsed.withContinue !== false || capped;
  await checkBeforeRead(parsed.revision, d.feed, d.storage);
  try {
    if (query.objectBytes && d.storage.listJoined) {
      // A page read at once comes as a few buffers of joined objects: no row objects, no copies on the way out.
      const joined = await d.storage.listJoined(query, ctx.signal);
      if (joined) {
        await checkAfterRead(parsed.revision, joined.revision, query, d.storage);
        return await sendJoined(res, joined, neg, rc, withContinue, t.resource, d);
      }
    }
    const listed = await d.storage.list(query, ctx.signal);
    await checkPage(parsed.revision, listed, query, d.storage);
    const page = injectEvents ? { ...listed, rows: withInvolvedEvents(listed.rows, d.storage) } : listed;
    // withContinue=false drops the token of a page the client limited; a page the server cut keeps it, or the client
    // would take the first page for the whole list.
    await streamList(res, ctx, page, neg, rc, withContinue, t.resource, d);
  } catch (e: unknown) {
    throw whereSqlError(e, query.where);
  }
}

/** A JSON list of objects as stored, from a joined page: the envelope around the buffers storage gave. */
async function sendJoined(res: ServerResponse, page: JoinedPage, neg: Negotiated, rc: RenderContext, withContinue: boolean, resource: string,
  d: HandlerDeps): Promise<void> {
  const r = listRenderer(rc);
  const sep = Buffer.from(r.separator);
  // The page is in memory already: its length is known, and its buffers go out by reference (sendBody).
  const pieces: Buffer[] = [Buffer.from(r.head())];
  for (const [i, objects] of page.objects.entries()) {
    if (i > 0) pieces.push(sep);
    pieces.push(objects);
  }
  pieces.push(Buffer.from(r.tail(pageMeta(page, withContinue))));
  let length = 0;
  for (const p of pieces) length += p.length;
  await sendBody(res, 200, { 'content-type': neg.contentType, 'cache-control': 'no-cache, private' }, pieces, length);
  d.metrics.listedRows.inc({ resource }, page.count);
}

/** Streams a page: rows go to the socket as the cursor yields them; the body is never held whole. */
export async function streamList(res: ServerResponse, ctx: RequestContext, page: ListPage, neg: Negotiated, rc: RenderContext,
  withContinue: boolean, resource: string, d: HandlerDeps): Promise<void> {
  const rows = await primed(page.rows);
  const out = new StreamWriter(res, { head: { code: 200, headers: { 'content-type': neg.contentType, 'cache-control': 'no-cache, private' } } });
  // YAML streams too, item by item: materialised, 8 concurrent 40 MB YAML lists took the process to 1.8 GB.
  const r = neg.wire === 'yaml' ? yamlListRenderer(listRenderer(rc)) : listRenderer(rc);
  await out.write(r.head());
  let n = 0;
  for await (const row of rows) {
    if (ctx.signal.aborted) throw ctx.signal.reason;
    if (n > 0) await out.write(r.separator);
    await out.write(r.item(row));
    n++;
  }
  await out.end(r.tail(pageMeta(page, withContinue)));
  d.metrics.listedRows.inc({ resource }, n);
}

/**
 * The keys of what matches a watch's filter, for Membership: as at `from` where the change log tells
 * (selector-history.ts), else as at the revision read; undefined past MAX_WATCH_MEMBERS.
 */
async function matchingKeys(d: HandlerDeps, filter: WatchFilter, from: string, signal: AbortSignal): Promise<{ keys: KeyHashSet; revision: string } | undefined> {
  const page = await d.storage.list({ ...filter, keysOnly: true }, signal);
  const keys = new KeyHashSet();
  for await (const row of page.rows) {
    if (keys.size >= MAX_WATCH_MEMBERS) return undefined;
    keys.add(rowKey(row));
  }
  if (BigInt(from) > BigInt(page.revision) || !historyTells(filter)) return { keys, revision: page.revision };
  const then = await keysAt(d.storage, filter, from, { keys, revision: page.revision });
  return then && { keys: then, revision: from };
}

async function watch(res: ServerResponse, ctx: RequestContext, url: URL, t: ResourceRequest, neg: Negotiated, rc: RenderContext, d: HandlerDeps): Promise<void> {
  const parsed = parse(url, t, neg, d);
  const w = parsed.watch;
  if (!w) throw badRequest('watch: missing watch options');
  const filter = { ...w.filter };
  if (t.name !== undefined) filter.names = { op: 'in', values: [t.name] };
  // Narrowed once per watch: the initial list, the catch-up from the change log and live events all use `filter`.
  const clusters = await scopedClusters(ctx.access, filter.clusters);
  if (clusters) filter.clusters = clusters;
  await warnCoverage(res, t, filter, d);
  const timeoutSeconds = watchTimeoutSeconds(w.timeoutSeconds, d.options.watch.maxTimeoutSeconds);
  const initialQuery: ListQuery = { ...parsed.query, ...filter, limit: 0 };
  delete initialQuery.continue;
  d.metrics.inflight.inc({ kind: 'watch' });
  try {
    await serveWatch(res, ctx.signal, {
      storage: d.storage,
      feed: d.feed,
      filter,
      matches: (row) => matchesQuery(row, filter),
      resourceVersion: w.resourceVersion,
      sendInitialEvents: w.sendInitialEvents === true,
      allowBookmarks: w.allowWatchBookmarks,
      timeoutMs: timeoutSeconds * 1000,
      initialTimeoutMs: d.options.limits.requestTimeoutMs,
      bookmarkIntervalMs: d.options.watch.bookmarkIntervalMs,
      bufferBytes: d.options.limits.watchBufferBytes,
      initial: () => d.storage.list(initialQuery, ctx.signal),
      ...(filter.labels?.length || filter.fields?.length ? { matchingKeys: (from) => matchingKeys(d, filter, from, ctx.signal) } : {}),
      members: d.watchMembers,
      encoder: eventEncoder(rc),
      contentType: neg.contentType,
    });
  } finally {
    d.metrics.inflight.dec({ kind: 'watch' });
  }
}
