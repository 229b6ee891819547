// The request router: turns a parsed target into a response. Every error ends as a JSON Status (respond.ts).
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Registry } from 'prom-client';
import type { Subresources } from '../../kube/subresources.js';
import { badRequest, methodNotSupported, notFound, serviceUnavailable } from '../../kube/status.js';
import { kubeVersionInfo } from '../../lib/version.js';
import type { StorageReader } from '../../storage/types.js';
import { isStorageError } from '../../storage/errors.js';
import type { Catalog, TypeInfo } from './catalog.js';
import type { ChangeFeed } from './change-feed.js';
import { watchTimeoutSeconds, type MemberBudget } from './watch.js';
import { aggregatedDiscovery, aggregatedDiscoveryAsked, apiGroup, apiGroupList, apiResourceList, apiVersions, rootDiscovery } from './discovery.js';
import type { AccessGate } from './authz-gate.js';
import { methodVerb } from './authz-attributes.js';
import { isForwarded, proxyPath, type MemberConnections } from './member-forward.js';
import type { ApiserverMetrics } from './metrics.js';
import type { IncludeObject } from '../../kube/printers/index.js';
import { parseKubeListOptions } from './list-options-kube.js';
import { includeObjectPolicy, negotiate, type Negotiated } from './negotiate.js';
import type { ApiserverOptions } from './options.js';
import { pediaClusterFilter, pediaClusterGet, pediaClusterList, pediaClusterTable, type PediaClusterFilter } from './pediaclusters.js';
import { servePediaClusterWatch } from './pediaclusters-watch.js';
import { inMeta, watchTables } from './render.js';
import { parseRequestTarget, type DiscoveryRequest, type ResourceRequest } from './request-info.js';
import { sendBody, sendObject, sendText } from './respond.js';
import { allowCompression } from './compress.js';
import { serveCollection } from './collections.js';
import { knownCluster, serveResource } from './resources.js';
import { METRICS_GROUP, metricsSubject, servesMetrics, withMetrics } from './member-metrics.js';
import { serveOpenApi } from './member-openapi.js';
import { rootOpenApi } from './openapi.js';
import { answerSelfReview, REVIEW_RESOURCES } from './self-review.js';
import type { RequestContext } from './server.js';

export interface HandlerDeps {
  storage: StorageReader;
  catalog: Catalog;
  feed: ChangeFeed;
  /** What the server's watches remember together, to report objects leaving a selector (watch.ts, Membership). */
  watchMembers: MemberBudget;
  options: ApiserverOptions;
  metrics: ApiserverMetrics;
  registry: Registry;
  /** Authentication, authorization and per-cluster scoping (authz-gate.ts). */
  gate: AccessGate;
  /** True once the server started draining: /readyz fails so load balancers stop sending. */
  draining: () => boolean;
  /** The members' connections, to forward `options.forward.subresources` (member-forward.ts); there whenever those are. */
  members?: MemberConnections;
}

export function newHandler(d: HandlerDeps): (req: IncomingMessage, res: ServerResponse, ctx: RequestContext) => Promise<void> {
  return async (req, res, ctx) => {
    const url = ctx.url;
    const watch = ['true', '1'].includes(url.searchParams.get('watch') ?? '');
    const target = parseRequestTarget(url.pathname, watch);
    // Watches are never compressed: each event must reach the client as it happens.
    if (!watch && d.options.apiResponseCompression) allowCompression(req, res);
    // Before anything else, as kube-apiserver: an anonymous POST is 401, a denied one 403, only then 405.
    ctx.access = await d.gate.admit(req, ctx, url.pathname, target);
    if (target.kind === 'selfReview') {
      // Reviews are created, never read: kube answers 405 to any other verb.
      if (req.method !== 'POST') throw methodNotSupported(methodVerb(req.method ?? 'GET'), REVIEW_RESOURCES[target.review]);
      return sendObject(res, 201, await answerSelfReview(req, res, target, ctx.access!.user, ctx.secure, d.gate.authority, ctx.signal, d.options.forward.subresources));
    }
    // kubectl's SPDY exec (before 1.30) is a POST upgrade, and a proxy takes every method; they are forwarded as they
    // came (member-forward.ts).
    const forwarded = target.kind === 'resource' && isForwarded(target, d.options.forward.subresources);
    const forwardedMethod = (forwarded && (target.subresource === 'proxy' || (req.method === 'POST' && ctx.upgrade !== undefined)))
      || (target.kind === 'memberProxy' && d.options.forward.proxyPath);
    if (req.method !== 'GET' && req.method !== 'HEAD' && !forwardedMethod) {
      if (target.kind === 'health' || target.kind === 'version' || target.kind === 'metrics') throw methodNotSupported(req.method ?? '', 'health');
      // Routing comes before the verb, as in kube-apiserver: what is not served is 404 whatever the method.
      if (target.kind === 'notFound') throw notFound();
      if (target.kind === 'resource' && !(await served(target, d))) throw notFound();
      // Everything served here is read-only: kube answers 405 MethodNotSupported for verbs a resource lacks.
      throw methodNotSupported(methodVerb(req.method), target.kind === 'resource' ? target.resource : 'resources');
    }
    switch (target.kind) {
      case 'health':
        return health(res, target.check, d);
      case 'version':
        return sendObject(res, 200, kubeVersionInfo());
      case 'metrics': {
        const body = await d.registry.metrics();
        res.writeHead(200, { 'content-type': d.registry.contentType });
        res.end(body);
        return;
      }
      case 'rootDiscovery':
        return sendObject(res, 200, rootDiscovery(target.path));
      case 'rootOpenapi': {
        const { body, contentType } = rootOpenApi(target.path, String(req.headers.accept ?? ''));
        return sendBody(res, 200, { 'content-type': contentType }, [body], Buffer.byteLength(body));
      }
      case 'discovery':
        return discovery(req, res, target, d);
      case 'resource':
        return serveResource(req, res, ctx, url, target, d);
      case 'collection':
        return serveCollection(req, res, ctx, url, target, d);
      case 'pediacluster': {
        const neg = negotiate(req.headers.accept, ['none', 'Table']);
        // As for resources and collections: includeObject is a Table option, not read for JSON (kube ignores it there).
        const includeObject = neg.transform === 'Table' ? includeObjectPolicy(url) : 'Metadata';
        const filter = pediaClusterFilter(url.searchParams);
        if (target.verb === 'watch') return watchPediaClusters(res, ctx, url, target.name, neg, includeObject, filter, d);
        const statuses = await d.storage.clusterStatuses();
        const body = target.name === undefined ? pediaClusterList(statuses, filter) : pediaClusterGet(statuses, target.name);
        const table = neg.transform === 'Table' ? inMeta(pediaClusterTable(body, includeObject), neg.meta) : undefined;
        return sendObject(res, 200, table ?? body, neg.wire, neg.contentType);
      }
      case 'memberProxy': {
        // Clusterpedia's --enable-proxy-path-for-forward-request; without it the path is not served.
        const members = d.members;
        if (!d.options.forward.proxyPath || !members) throw notFound();
        await knownCluster(d, target.cluster);
        return proxyPath(req, res, ctx, url, target.cluster, target.path, members);
      }
      case 'openapi': {
        const members = d.members;
        if (!d.options.forward.openapi || !members) throw notFound();
        if (target.cluster !== undefined) await knownCluster(d, target.cluster);
        return serveOpenApi(req, res, ctx, url, target, d, members);
      }
      case 'notFound':
        throw notFound();
    }
  };
}

/** How often a watch of pediaclusters reads the stored statuses again (each cluster's is written at most once a second). */
const PEDIACLUSTER_POLL_MS = 1_000;

async function watchPediaClusters(res: ServerResponse, ctx: RequestContext, url: URL, name: string | undefined, neg: Negotiated,
  includeObject: IncludeObject, filter: PediaClusterFilter, d: HandlerDeps): Promise<void> {
  const kube = parseKubeListOptions(url.searchParams);
  const rv = kube.resourceVersion;
  const { maxTimeoutSeconds } = d.options.watch;
  const timeoutSeconds = watchTimeoutSeconds(kube.timeoutSeconds, maxTimeoutSeconds);
  const tables = watchTables(neg.meta);
  d.metrics.inflight.inc({ kind: 'watch' });
  try {
    await servePediaClusterWatch(res, ctx.signal, {
      statuses: () => d.storage.clusterStatuses(),
      filter,
      ...(name !== undefined ? { name } : {}),
      ...(rv !== undefined ? { resourceVersion: rv } : {}),
      timeoutMs: timeoutSeconds * 1000,
      pollMs: PEDIACLUSTER_POLL_MS,
      contentType: neg.contentType,
      encode: (type, object) => {
        if (neg.transform !== 'Table') return JSON.stringify({ type, object });
        const t = inMeta(pediaClusterTable(object as Record<string, unknown>, includeObject), neg.meta);
        return `{"type":"${type}","object":${tables(object.metadata?.resourceVersion ?? '', t.columnDefinitions, t.rows)}}`;
      },
    });
  } finally {
    d.metrics.inflight.dec({ kind: 'watch' });
  }
}

async function health(res: ServerResponse, check: 'healthz' | 'readyz' | 'livez', d: HandlerDeps): Promise<void> {
  if (check === 'readyz') {
    if (d.draining()) throw serviceUnavailable('shutting down');
    try {
      await d.storage.ping();
    } catch (e: unknown) {
      throw serviceUnavailable(isStorageError(e) && e.code === 'SchemaMismatch' ? 'storage schema is not migrated' : 'storage is unreachable');
    }
  }
  res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' });
  res.end('ok');
}

/** Whether a resource's type is served here (some verb of it), for the answer to a method none of them takes. */
async function served(t: ResourceRequest, d: HandlerDeps): Promise<boolean> {
  if (servesMetrics(d) && (t.group === METRICS_GROUP || metricsSubject(t, d))) return t.cluster === undefined || (await d.catalog.cluster(t.cluster)) !== undefined;
  return (await d.catalog.type(t.cluster, t.group, t.version, t.resource)) !== undefined;
}

async function discovery(req: IncomingMessage, res: ServerResponse, t: DiscoveryRequest, d: HandlerDeps): Promise<void> {
  // Legacy and aggregated answers differ by the Accept header: caches must keep them apart.
  res.setHeader('vary', 'Accept');
  const aggregated = t.level === 'api' || t.level === 'apis' ? aggregatedDiscoveryAsked(req.headers.accept) : undefined;
  if (t.level === 'api' && !aggregated) return sendObject(res, 200, apiVersions());
  if (t.cluster !== undefined && !(await d.catalog.cluster(t.cluster))) throw notFound();
  const types = withMetrics(await d.catalog.types(t.cluster), servesMetrics(d));
  if (aggregated) {
    const core = t.level === 'api';
    const subresources = new Map<TypeInfo, Subresources>();
    for (const x of types) if ((x.group === '') === core) subresources.set(x, await d.catalog.subresources(x.group, x.version, x.resource));
    const text = JSON.stringify(aggregatedDiscovery(types, core, aggregated, (x) => subresources.get(x)));
    // Tagged as kube tags it (the document's SHA-512): a client that kept it and asks If-None-Match (as the synchro
    // polls its members; kubectl 1.32 does not ask) gets a 304 without the fleet's whole document again. Private: what
    // a user is shown may depend on what they may see.
    const etag = `"${createHash('sha512').update(text).digest('hex').toUpperCase()}"`;
    res.setHeader('etag', etag);
    if (String(req.headers['if-none-match'] ?? '').split(',').some((t) => t.trim() === etag)) {
      res.writeHead(304, { 'cache-control': 'no-cache, private' });
      res.end();
      return;
    }
    return sendText(res, 200, text, 'json', `application/json;g=apidiscovery.k8s.io;v=${aggregated};as=APIGroupDiscoveryList`);
  }
  switch (t.level) {
    case 'apis':
      return sendObject(res, 200, apiGroupList(types));
    case 'group':
      return sendObject(res, 200, apiGroup(types, t.group ?? ''));
    case 'groupVersion': {
      const group = t.group ?? '';
      const version = t.version;
      if (!version) throw badRequest('missing version');
      const subresources = new Map<string, Subresources>();
      for (const x of types) if (x.group === group && x.version === version) subresources.set(x.resource, await d.catalog.subresources(group, version, x.resource));
      return sendObject(res, 200, apiResourceList(types, group, version, subresources));
    }
  }
}
