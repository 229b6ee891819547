// Resource requests: get, list, watch, create, update (status subresource), patch, delete, deletecollection, reviews,
// pod logs.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { clone } from './deep-equal.js';
import { unknownFields } from '../kube/protobuf.js';
import { applyDefaults, writeStringData } from './defaults.js';
import { createService } from './services.js';
import { managed } from './gen-meta.js';
import { parseListOptions } from './list-options.js';
import { listPage } from './list.js';
import { servePodLog } from './logs.js';
import { serveMetrics } from './metrics.js';
import { serveProxy } from './proxy.js';
import { jsonPatch, mergePatch, strategicMergePatch } from './patch.js';
import { SCALABLE, scaleOf, writeScale } from './scale.js';
import type { Route } from './request-path.js';
import type { Reviews, SubjectAccessReviewSpec } from './reviews.js';
import { errors } from './status.js';
import type { DeleteOptions, SimStore } from './store.js';
import { partialObjectMetadata, transformOf } from './as.js';
import { includeObjectOf, toTable } from './table.js';
import { apiVersionOf, grKey, type ResourceDef, type SimObject } from './types.js';
import { serveWatch, type WatchRegistry } from './watch.js';
import { listBody, wireObject } from './wire.js';

export interface HandlerContext {
  store: SimStore;
  watches: WatchRegistry;
  reviews: Reviews;
  bookmarkIntervalMs: number;
  /** Live changes a watch holds for a client that stops reading before it is closed. */
  watchBufferEvents: number;
  /** Answers a pod deleted over HTTP (given as it was) as its kubelet and controller do (Churn.answerDeletion). */
  answerPodDeletion(pod: SimObject): void;
  /** Answers an object other than a pod deleted over HTTP as the controller that owned it does (Churn.answerOwnedDeletion). */
  answerOwnedDeletion(gr: string, deleted: SimObject): void;
  /** Answers an object created over HTTP as the scheduler, its kubelet or its controller does (Churn.answerCreate). */
  answerCreate(gr: string, created: SimObject): void;
  /** Answers a change of an object over HTTP (not its status) as its controller does (Churn.answerUpdate). */
  answerUpdate(gr: string, before: SimObject, after: SimObject): void;
}

type ResourceRoute = Extract<Route, { kind: 'resource' }>;

export function sendJson(res: ServerResponse, code: number, body: unknown): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(code, { 'content-type': 'application/json', 'cache-control': 'no-cache, private', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** The resource a route names: its def and key, and `gr`, where its objects are stored (another's, for a storedAs). */
function resolve(store: SimStore, route: ResourceRoute): { def: ResourceDef; key: string; gr: string } {
  const key = grKey(route.group, route.resource);
  const def = store.def(key);
  if (!def || !def.versions.includes(route.version)) throw errors.noRoute();
  if (route.namespace !== undefined && !def.namespaced) throw errors.noRoute();
  if (route.subresource !== undefined && !(route.subresource === 'status' && def.statusSubresource)) throw errors.noRoute();
  return { def, key, gr: def.storedAs?.gr ?? key };
}

function asObject(body: unknown): SimObject {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw errors.badRequest('the body of the request must be a JSON object');
  const o = body as SimObject;
  if (typeof o.metadata !== 'object' || o.metadata === null) o.metadata = {};
  return o;
}

function managerOf(req: IncomingMessage, url: URL): string {
  return url.searchParams.get('fieldManager') ?? (req.headers['user-agent'] ?? 'unknown').split('/')[0] ?? 'unknown';
}

export async function handleResource(ctx: HandlerContext, route: ResourceRoute, req: IncomingMessage, res: ServerResponse, url: URL, readBody: () => Promise<unknown>): Promise<void> {
  const { store } = ctx;
  const method = req.method ?? 'GET';
  const dryRun = method === 'GET' ? false : dryRunOf(method, url);
  /** A write, or with dryRun its answer alone: nothing stored, no controller told. */
  const write = <T>(fn: () => T): T => (dryRun ? store.dryRun(fn) : fn());
  if (route.group === '' && route.resource === 'pods' && route.subresource === 'log' && route.name !== undefined && route.namespace !== undefined) {
    if (method !== 'GET') throw errors.methodNotAllowed();
    const pod = store.get('pods', route.namespace, route.name);
    if (!pod) throw errors.notFound('pods', route.name);
    servePodLog(pod, url.searchParams, res);
    return;
  }
  if (route.group === '' && route.resource === 'pods' && route.subresource === 'eviction' && route.name !== undefined && route.namespace !== undefined) {
    if (method !== 'POST') throw errors.methodNotAllowed();
    evict(ctx, route.namespace, route.name, await readBody(), dryRun);
    return sendJson(res, 201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
  }
  if (route.group === '' && route.subresource === 'proxy' && ['pods', 'services', 'nodes'].includes(route.resource) && route.name !== undefined) {
    return serveProxy(store, route.resource, route.namespace, route.name, route.proxyPath ?? '', req, res, url);
  }
  const scalable = grKey(route.group, route.resource);
  if (route.subresource === 'scale' && SCALABLE.has(scalable) && route.version === 'v1' && route.namespace !== undefined && route.name !== undefined) {
    const current = store.get(scalable, route.namespace, route.name);
    if (!current) throw errors.notFound(scalable, route.name);
    if (method === 'GET') return sendJson(res, 200, scaleOf(current));
    if (method !== 'PUT' && method !== 'PATCH') throw errors.methodNotAllowed();
    const body = await readBody();
    const next = write(() => writeScale(store, scalable, current, method === 'PUT' ? body : applyPatch(req, scaleOf(current), body)));
    if (dryRun) return sendJson(res, 200, scaleOf(next));
    if (next !== current) ctx.answerUpdate(scalable, current, next);
    return sendJson(res, 200, scaleOf(store.get(scalable, route.namespace, route.name) ?? next));
  }
  const { def, key, gr } = resolve(store, route);
  // What a client sends and is sent, as this resource has it (the stored form is another's, for a storedAs).
  const toStored = (o: SimObject): SimObject => (def.storedAs ? def.storedAs.write(o) : o);
  const fromStored = (o: SimObject): SimObject => (def.storedAs ? def.storedAs.read(o) : o);
  const show = (code: number, o: SimObject): void => {
    const as = transformOf(req.headers.accept, false);
    if (as === 'Table') sendJson(res, code, toTable(def, [o], { resourceVersion: o.metadata.resourceVersion }, Date.now(), { include: includeObjectOf(url.searchParams), wire: (x) => wireObject(x, def, route.version, false) }));
    else if (as === 'PartialObjectMetadata') sendJson(res, code, partialObjectMetadata(o.metadata));
    else sendJson(res, code, wireObject(o, def, route.version, false));
  };
  if (def.metrics) return serveMetrics(store, def, method, route.namespace, route.name, url, (code, body) => sendJson(res, code, body));
  if (def.review) {
    if (method !== 'POST' || route.name !== undefined) throw errors.methodNotAllowed();
    sendJson(res, 201, await review(ctx.reviews, def, asObject(await readBody())));
    return;
  }
  const ns = def.namespaced ? route.namespace : undefined;

  if (method === 'GET' && route.name !== undefined && !route.legacyWatch && url.searchParams.get('watch') !== 'true') {
    const o = store.get(gr, ns, route.name);
    if (!o) throw errors.notFound(key, route.name);
    show(200, o);
    return;
  }
  if (method === 'GET') {
    const query = new URLSearchParams(url.searchParams);
    if (route.name !== undefined) query.set('fieldSelector', [query.get('fieldSelector'), `metadata.name=${route.name}`].filter(Boolean).join(','));
    const opts = parseListOptions(query, route.legacyWatch);
    if (opts.watch) {
      const asTable = transformOf(req.headers.accept, true) === 'Table';
      serveWatch({ store, def, gr, version: route.version, namespace: ns, opts, asTable, include: asTable ? includeObjectOf(query) : 'Metadata', bookmarkIntervalMs: ctx.bookmarkIntervalMs, bufferEvents: ctx.watchBufferEvents, res, registry: ctx.watches });
      return;
    }
    const page = listPage(store, key, ns, opts);
    const meta = { resourceVersion: page.resourceVersion, ...(page.continue ? { continue: page.continue } : {}), ...(page.remainingItemCount !== undefined ? { remainingItemCount: page.remainingItemCount } : {}) };
    const as = transformOf(req.headers.accept, true);
    if (as === 'Table') sendJson(res, 200, toTable(def, page.items, meta, Date.now(), { include: includeObjectOf(query), wire: (x) => wireObject(x, def, route.version, false) }));
    else if (as === 'PartialObjectMetadataList') {
      sendJson(res, 200, { kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1', metadata: meta, items: page.items.map((o) => partialObjectMetadata(o.metadata)) });
    } else sendJson(res, 200, listBody(def, route.version, page.items, meta));
    return;
  }
  if (method === 'POST') {
    if (route.name !== undefined) throw errors.methodNotAllowed();
    const input = asObject(await readBody());
    validateFields(def, route.version, input, url, res);
    if (def.namespaced && ns === undefined) throw errors.noRoute();
    if (def.namespaced && input.metadata.namespace && input.metadata.namespace !== ns) throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
    if (!input.metadata.managedFields) {
      const { metadata, apiVersion: _a, kind: _k, status: _s, ...spec } = input;
      input.metadata.managedFields = [managed(managerOf(req, url), `${def.group ? `${def.group}/` : ''}${route.version}`, Date.now(), { metadata: { labels: metadata.labels, annotations: metadata.annotations }, ...spec })];
    }
    // kube's PrepareForCreate: a client cannot set status on create where status is a subresource.
    if (def.statusSubresource) {
      if (def.custom) delete input.status;
      else input.status = gr === 'pods' ? { phase: 'Pending' } : gr === 'namespaces' ? { phase: 'Active' } : {};
    }
    def.storedAs?.checkCreate?.(input);
    if (!def.custom) applyDefaults(gr, input);
    if (gr === 'services') createService(store, input);
    const created = write(() => store.create(gr, toStored(input), ns));
    if (!dryRun) ctx.answerCreate(gr, created);
    show(201, created);
    return;
  }
  if (route.name === undefined) {
    if (method !== 'DELETE') throw errors.methodNotAllowed();
    const opts = parseListOptions(url.searchParams, false);
    const body = await readBody().catch(() => undefined);
    const asked = url.searchParams.get('gracePeriodSeconds') ?? (typeof body === 'object' && body !== null ? (body as { gracePeriodSeconds?: unknown }).gracePeriodSeconds : undefined);
    const dry = dryRun || dryRunIn(body);
    const deleted: SimObject[] = [];
    for (const o of listPage(store, key, ns, { ...opts, limit: 0, continueToken: '' }).items) deleted.push(deleteOne(ctx, gr, o, asked, {}, dry));
    sendJson(res, 200, listBody(def, route.version, deleted, { resourceVersion: String(store.revision) }));
    return;
  }
  const name = route.name;
  const subresource = route.subresource === 'status' ? 'status' : undefined;
  /** Updates the object (or its status) and lets its controller answer a change of anything else. */
  const updated = (gr: string, input: SimObject): SimObject => {
    writeStringData(gr, input);
    if (dryRun) return store.dryRun(() => store.update(gr, input, { namespace: ns, name, ...(subresource ? { subresource } : {}) }));
    const before = subresource ? undefined : store.get(gr, ns, name);
    const after = store.update(gr, input, { namespace: ns, name, ...(subresource ? { subresource } : {}) });
    if (before) ctx.answerUpdate(gr, before, after);
    // The object as it is once its controller has answered (here at once, where kube's act a moment later): a client
    // writing again with the resourceVersion it was given is not refused for the controller's write.
    return store.get(gr, ns, name) ?? after;
  };
  if (method === 'PUT') {
    const input = asObject(await readBody());
    validateFields(def, route.version, input, url, res);
    if (input.metadata.name !== undefined && input.metadata.name !== name) throw errors.badRequest(`the name of the object (${input.metadata.name}) does not match the name on the URL (${name})`);
    show(200, updated(gr, toStored(input)));
    return;
  }
  if (method === 'PATCH') {
    const patch = await readBody();
    validateFields(def, route.version, patch, url, res);
    const stored = store.get(gr, ns, name);
    if (!stored) throw errors.notFound(key, name);
    const current = fromStored(stored);
    const obj = asObject(applyPatch(req, current, patch, def.custom === true));
    // A patch without a resourceVersion applies to whatever is current; with one, it is a precondition (kube's behaviour).
    const patchRv = (patch as { metadata?: { resourceVersion?: unknown } } | null)?.metadata?.resourceVersion;
    obj.metadata.resourceVersion = typeof patchRv === 'string' ? patchRv : current.metadata.resourceVersion;
    show(200, updated(gr, toStored(obj)));
    return;
  }
  if (method === 'DELETE') {
    const body = await readBody().catch(() => undefined);
    const opts = (typeof body === 'object' && body !== null ? body : {}) as { preconditions?: { resourceVersion?: string; uid?: string }; propagationPolicy?: string; gracePeriodSeconds?: unknown };
    const propagationPolicy = url.searchParams.get('propagationPolicy') ?? opts.propagationPolicy;
    const current = store.get(gr, ns, name);
    if (!current) throw errors.notFound(key, name);
    show(200, deleteOne(ctx, gr, current, url.searchParams.get('gracePeriodSeconds') ?? opts.gracePeriodSeconds, { ...(opts.preconditions ? { preconditions: opts.preconditions } : {}), ...(propagationPolicy ? { propagationPolicy } : {}) }, dryRun || dryRunIn(body)));
    return;
  }
  throw errors.methodNotAllowed();
}

/**
 * A PATCH body applied to `current` as its content type says: merge, strategic merge (built-in types only: kube
 * answers 415 for a custom resource) or JSON patch.
 */
function applyPatch(req: IncomingMessage, current: unknown, patch: unknown, custom = false): unknown {
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim() ?? '';
  if (type === 'application/merge-patch+json') return mergePatch(clone(current), patch);
  if (type === 'application/strategic-merge-patch+json' && !custom) return strategicMergePatch(current, patch);
  if (type === 'application/json-patch+json') return jsonPatch(current, patch);
  throw errors.unsupportedMediaType(type, custom);
}

/**
 * Deletes `current` (one object, or one of a collection) as asked over HTTP. A pod gets its grace period (`asked`, else
 * its own) and the cluster's answer: its kubelet and its controller act on the delete. With `dryRun`, only the answer.
 */
function deleteOne(ctx: HandlerContext, gr: string, current: SimObject, asked: unknown, opts: DeleteOptions, dryRun = false): SimObject {
  const gracePeriodSeconds = gr === 'pods' ? podGracePeriod(current, asked) : undefined;
  const del = (): SimObject => ctx.store.delete(gr, current.metadata.namespace, current.metadata.name ?? '', { ...opts, ...(gracePeriodSeconds ? { gracePeriodSeconds } : {}) });
  if (dryRun) return ctx.store.dryRun(del);
  const done = del();
  if (gr === 'pods') ctx.answerPodDeletion(current);
  else ctx.answerOwnedDeletion(gr, current);
  return done;
}

/** The options kind each write's query is validated as (kube's CreateOptions, …). */
const OPTIONS_KIND: Record<string, string> = { POST: 'CreateOptions', PUT: 'UpdateOptions', PATCH: 'PatchOptions', DELETE: 'DeleteOptions' };

/**
 * Whether a write asks for `dryRun=All` (kubectl --dry-run=server, kubectl diff): the only value kube takes; another
 * is refused as kube's options validation refuses it.
 */
function dryRunOf(method: string, url: URL): boolean {
  const asked = url.searchParams.getAll('dryRun');
  const wrong = asked.find((v) => v !== 'All');
  if (wrong !== undefined) throw errors.invalid(OPTIONS_KIND[method] ?? 'CreateOptions', '', 'dryRun', `Unsupported value: ${JSON.stringify(wrong)}: supported values: "All"`, 'meta.k8s.io');
  return asked.length > 0;
}

/** Whether a delete's DeleteOptions body (kubectl delete puts them there, drain an eviction's) asks for dryRun=All. */
function dryRunIn(options: unknown): boolean {
  const asked = typeof options === 'object' && options !== null ? (options as { dryRun?: unknown }).dryRun : undefined;
  if (asked === undefined || asked === null) return false;
  const values = Array.isArray(asked) ? asked : [asked];
  const wrong = values.find((v) => v !== 'All');
  if (wrong !== undefined) throw errors.invalid('DeleteOptions', '', 'dryRun', `Unsupported value: ${JSON.stringify(wrong)}: supported values: "All"`, 'meta.k8s.io');
  return values.length > 0;
}

/**
 * kube's field validation of a built-in kind's body (a merge patch's too): a field its type does not have is refused
 * under `fieldValidation=Strict` (what kubectl create, apply and replace send) as kube's strict decoding refuses it;
 * otherwise it is dropped, as decoding into the Go type drops it, with a warning per field under Warn (the default,
 * which kubectl patch and --validate=warn get) and silently under Ignore (--validate=false). Never stored with the
 * typo. Its status is the server's: not judged (the schemas here leave parts of it out).
 */
function validateFields(def: ResourceDef, version: string, body: unknown, url: URL, res: ServerResponse): void {
  if (def.custom || def.storedAs || typeof body !== 'object' || body === null || Array.isArray(body)) return;
  const mode = url.searchParams.get('fieldValidation') || 'Warn';
  const strict = mode === 'Strict';
  const unknown = unknownFields(apiVersionOf(def.group, version), def.kind, body as Record<string, unknown>, { skip: ['status'], drop: !strict }) ?? [];
  if (unknown.length === 0) return;
  if (strict) throw errors.badRequest(`${def.kind} in version "${version}" cannot be handled as a ${def.kind}: strict decoding error: ${unknown.map((f) => `unknown field "${f}"`).join(', ')}`);
  if (mode !== 'Ignore') res.setHeader('Warning', unknown.map((f) => `299 - ${JSON.stringify(`unknown field "${f}"`)}`));
}

/**
 * An Eviction of the pod `namespace`/`name` (`kubectl drain`): the pod deleted as its DeleteOptions say, and answered
 * by its controller and kubelet as any deletion is. No PodDisruptionBudget stands in the way (none is served here).
 */
function evict(ctx: HandlerContext, namespace: string, name: string, body: unknown, dryRun: boolean): void {
  const eviction = asObject(body);
  if (eviction.kind !== undefined && eviction.kind !== 'Eviction') throw errors.badRequest(`the body of an eviction is a ${String(eviction.kind)}, not an Eviction`);
  if (eviction.metadata.name !== undefined && eviction.metadata.name !== name) throw errors.badRequest('name in URL does not match name in Eviction object');
  const pod = ctx.store.get('pods', namespace, name);
  if (!pod) throw errors.notFound('pods', name);
  // One already on its way out is left to it.
  if (pod.metadata.deletionTimestamp) return;
  const options = (typeof eviction.deleteOptions === 'object' && eviction.deleteOptions !== null ? eviction.deleteOptions : {}) as { gracePeriodSeconds?: unknown; preconditions?: DeleteOptions['preconditions'] };
  deleteOne(ctx, 'pods', pod, options.gracePeriodSeconds, options.preconditions ? { preconditions: options.preconditions } : {}, dryRun || dryRunIn(options));
}

/**
 * The grace period of a pod's deletion, as kube takes it: the request's (query or DeleteOptions), else the pod's
 * spec.terminationGracePeriodSeconds, else 30. The store deletes at once with 0, or a pod no node runs.
 */
function podGracePeriod(pod: SimObject | undefined, asked: unknown): number {
  if (asked !== undefined && asked !== null && asked !== '') {
    const n = Number(asked);
    if (!Number.isInteger(n)) throw errors.badRequest(`gracePeriodSeconds: Invalid value: "${String(asked)}": must be an integer`);
    return Math.max(0, n);
  }
  const own = (pod?.spec as { terminationGracePeriodSeconds?: unknown } | undefined)?.terminationGracePeriodSeconds;
  return typeof own === 'number' ? own : 30;
}

async function review(reviews: Reviews, def: ResourceDef, input: SimObject): Promise<Record<string, unknown>> {
  const spec = (input.spec ?? {}) as Record<string, unknown>;
  const base = { kind: def.kind, apiVersion: `${def.group}/v1`, metadata: { creationTimestamp: null }, spec };
  if (def.resource === 'tokenreviews') {
    const audiences = Array.isArray(spec.audiences) ? (spec.audiences as string[]) : [];
    const answer = await reviews.tokenReview(typeof spec.token === 'string' ? spec.token : '', audiences);
    return { ...base, status: { authenticated: answer.authenticated, ...(answer.user ? { user: answer.user } : {}), ...(answer.audiences ? { audiences: answer.audiences } : {}), ...(answer.error ? { error: answer.error } : {}) } };
  }
  const answer = await reviews.subjectAccessReview(spec as SubjectAccessReviewSpec);
  return { ...base, status: answer };
}
