// Subresources forwarded to the member cluster (Clusterpedia's proxy subresources, reference §1.5): `kubectl logs`,
// `exec`, `attach`, `port-forward` and the pods, services and nodes proxies, through one cluster's path. The request
// goes out with clusterpedia's credentials for the member (the synchro's connection in binding, the PediaCluster's
// credentials in a standalone apiserver), or with the caller's own when it gives them (Clusterpedia's
// X-Clusterpedia-Proxy-* headers), never with the credential it authenticated to clusterpedia with.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { KubeClient, type UpgradeAnswer } from '../../kube/client.js';
import { resolveCredentials } from '../../kube/credentials.js';
import { badRequest, methodNotSupported, serviceUnavailable } from '../../kube/status.js';
import { messageOf } from '../../lib/errors.js';
import { isInteractiveSubresource } from './authz-attributes.js';
import { formatRequirement, parseLabelSelector } from '../../kube/label-selector.js';
import { FORWARD_LABEL } from './list-options-search-labels.js';
import { isRootPath, prefixHtmlBody } from './html-links.js';
import { readBody } from './request-body.js';
import { RESOURCES_PREFIX, type ResourceRequest } from './request-info.js';
import type { RequestContext, UpgradeRequest } from './server.js';

/**
 * The members' connections: the synchro's while it runs (binding), or made from the PediaCluster's credentials
 * (member-connections.ts). A cluster that has none is a StatusError (503) saying why, without Retry-After: client-go
 * would retry ten times on it, and kubectl logs would hang for most of a minute before showing the message.
 */
export interface MemberConnections {
  client(cluster: string): Promise<KubeClient>;
  /**
   * The member's address, for a request that carries the caller's own credentials (withMemberClient): known without a
   * usable credential of clusterpedia's where the PediaCluster names it. Absent: the connection's.
   */
  address?(cluster: string): Promise<string>;
}

// What the member reads of each forwarded subresource's query (PodLogOptions, PodExecOptions); the rest stays here.
const PARAMS: Record<string, readonly string[]> = {
  log: ['container', 'follow', 'previous', 'sinceSeconds', 'sinceTime', 'timestamps', 'tailLines', 'limitBytes', 'insecureSkipTLSVerifyBackend', 'stream'],
  exec: ['command', 'container', 'stdin', 'stdout', 'stderr', 'tty'],
  attach: ['container', 'stdin', 'stdout', 'stderr', 'tty'],
  portforward: ['ports'],
};

// The handshake headers of an upgrade that the member must see (WebSocket's, and SPDY's stream protocol versions), and
// the request's Audit-ID (set by the kube-apiserver in front of clusterpedia), so the member's audit log can be joined
// to the host's, as Clusterpedia passes it on.
const HANDSHAKE = ['sec-websocket-key', 'sec-websocket-version', 'sec-websocket-protocol', 'x-stream-protocol-version', 'audit-id'];
// The 101's headers the client must see.
const SWITCHED = ['upgrade', 'connection', 'sec-websocket-accept', 'sec-websocket-protocol', 'x-stream-protocol-version'];

/**
 * True when some of `allowed` (`pods/exec`, …) may switch protocols (a session, or a proxy to a destination that speaks
 * WebSocket): upgrade requests must be taken.
 */
export function switchesProtocols(allowed: readonly string[]): boolean {
  return allowed.some((s) => {
    const sub = s.slice(s.indexOf('/') + 1);
    return isInteractiveSubresource(sub) || sub === 'proxy';
  });
}

/** True when `t` names a subresource forwarded under `allowed` (`pods/log`, `pods/exec`, `services/proxy`, …). */
export function isForwarded(t: ResourceRequest, allowed: readonly string[]): boolean {
  return t.group === '' && t.subresource !== undefined && allowed.includes(`${t.resource}/${t.subresource}`);
}

/**
 * Sends the request to the member and streams its answer back as it comes: the body (a log, followed for as long as
 * the client stays), the switched connection of an exec, attach or port-forward session, or the member's own Status.
 * Long-running, as kube-apiserver treats `log`, `exec`, `attach` and `portforward` (server.ts).
 */
export async function forwardToMember(req: IncomingMessage, res: ServerResponse, ctx: RequestContext, url: URL, t: ResourceRequest, members: MemberConnections): Promise<void> {
  // Clusterpedia's words for a proxied request without a cluster.
  if (t.cluster === undefined) throw badRequest('please specify the cluster name when using proxy model.');
  // kube-apiserver's answer to an exec that is not an upgrade.
  const session = isInteractiveSubresource(t.subresource);
  if (session && !ctx.upgrade) throw badRequest('Upgrade request required');
  const cluster = t.cluster;
  return withMemberClient(req, members, cluster, (client) => forwardWith(req, res, ctx, url, t, cluster, session, client));
}

/** A log, exec, attach, port-forward or proxy subresource, sent with `client`. */
async function forwardWith(req: IncomingMessage, res: ServerResponse, ctx: RequestContext, url: URL, t: ResourceRequest, cluster: string,
  session: boolean, client: KubeClient): Promise<void> {
  if (t.subresource === 'proxy') return proxy(req, res, ctx, url, t, client, cluster);
  const path = memberPath(t);
  const query = new URLSearchParams();
  for (const k of PARAMS[t.subresource ?? ''] ?? []) for (const v of url.searchParams.getAll(k)) query.append(k, v);
  // A log asked with an upgrade (nothing switches for it) is answered as a log.
  if (ctx.upgrade && session) return switchProtocols(req, res, ctx, ctx.upgrade, client, path, query, cluster);
  const audit = req.headersDistinct['audit-id'];
  // No body timeout: a followed log is quiet for as long as the container is.
  return streamBack(res, ctx, cluster, () => client.raw(path, { query: Object.fromEntries(query), accept: '*/*', signal: ctx.signal, bodyTimeoutMs: 0, ...(audit ? { headers: { 'audit-id': audit } } : {}) }),
    (answer) => {
      const type = answer.headers['content-type'];
      return { 'content-type': typeof type === 'string' ? type : 'text/plain', 'cache-control': 'no-cache, private' };
    });
}

type MemberAnswer = Awaited<ReturnType<KubeClient['raw']>>;

/** A proxied page longer than this streams back as it is, links and all. */
const MAX_REWRITTEN_PAGE = 10 * 1024 * 1024;

/**
 * A proxied HTML page (plain or gzip, at most MAX_REWRITTEN_PAGE) read whole, with the member's root paths in its links
 * under `base`. Undefined for anything else, which then streams back untouched; the chunks read so far for a page that
 * turned out longer, which go first and the rest after them, untouched too.
 */
async function rewrittenPage(answer: MemberAnswer, base: string): Promise<Buffer | Buffer[] | undefined> {
  const type = String(answer.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'text/html' || Number(answer.headers['content-length'] ?? 0) > MAX_REWRITTEN_PAGE) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  // (Leaving the loop early must not destroy the body: the rest of a long page still goes out.)
  for await (const chunk of answer.body.iterator({ destroyOnReturn: false })) {
    chunks.push(chunk as Buffer);
    size += (chunk as Buffer).length;
    if (size > MAX_REWRITTEN_PAGE) return chunks;
  }
  const body = Buffer.concat(chunks);
  return (await prefixHtmlBody(body, String(answer.headers['content-encoding'] ?? ''), base)) ?? body;
}

/**
 * Sends a request to the member (`send`, with no body timeout) and streams its answer back as it comes, with its
 * status and the headers `headersOf` picks, for as long as it lasts (a watch, a followed log). The member not answering
 * is a 503; the client or the member going away mid-body ends the response with what was sent.
 */
async function streamBack(res: ServerResponse, ctx: RequestContext, cluster: string, send: () => Promise<MemberAnswer>,
  headersOf: (answer: MemberAnswer) => Record<string, string | string[]>, whole?: (answer: MemberAnswer) => Promise<Buffer | Buffer[] | undefined>): Promise<void> {
  let answer: MemberAnswer;
  try {
    answer = await send();
  } catch (e: unknown) {
    if (ctx.signal.aborted) return;
    throw unreachable(cluster, e);
  }
  const headers = headersOf(answer);
  // A body sent whole, rewritten (a proxied page's links); or, when it was too long for that, what was read of it first.
  const replaced = whole ? await whole(answer).catch(() => undefined) : undefined;
  if (Buffer.isBuffer(replaced)) {
    delete headers['transfer-encoding'];
    res.writeHead(answer.statusCode, { ...headers, 'content-length': String(replaced.length) });
    res.end(replaced);
    return;
  }
  res.writeHead(answer.statusCode, headers);
  res.flushHeaders();
  for (const chunk of replaced ?? []) res.write(chunk);
  try {
    await pipeline(answer.body, res);
  } catch {
    if (!res.destroyed) res.destroy();
  }
}

/**
 * The member's path for a request addressed through clusterpedia: `/api/v1` or `/apis/<g>/<v>`, the namespace, the
 * resource, name and subresource, each segment escaped but `:` (a proxy's `name:port`, RBAC's `system:` names).
 */
export function memberPath(t: ResourceRequest): string {
  const seg = (s: string): string => encodeURIComponent(s).replace(/%3A/gi, ':');
  return `${t.group === '' ? '/api/v1' : `/apis/${seg(t.group)}/${seg(t.version)}`}${t.namespace === undefined ? '' : `/namespaces/${seg(t.namespace)}`}` +
    `/${seg(t.resource)}${t.name === undefined ? '' : `/${seg(t.name)}`}${t.subresource === undefined ? '' : `/${seg(t.subresource)}`}`;
}

/** The methods kube-apiserver proxies (its ProxyREST); others are 405. */
const PROXY_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;

/** A proxied request's body is read whole (a credential refresh may send it twice); past this it is refused (413). */
const MAX_PROXY_BODY = 10 * 1024 * 1024;

// Request headers that stay here: hop-by-hop ones, and whatever said who the caller is (as kube-apiserver drops the
// credential it authenticated before proxying) or holds its credentials for the member. The connection's identity
// goes to the member instead.
const STAYS = /^(host|connection|keep-alive|proxy-.*|te|trailer|transfer-encoding|upgrade|content-length|authorization|impersonate-.*|x-remote-.*|x-clusterpedia-proxy-.*)$/;
// Response headers the client must not get from the member: hop-by-hop ones.
const HOP_BY_HOP = /^(connection|keep-alive|proxy-.*|te|trailer|transfer-encoding|upgrade)$/;

/**
 * `pods|services|nodes/<name[:port]>/proxy/<path>`: the member's proxy to its pod, service or node, any method, the
 * query and body as sent. The answer (status, headers, body) streams back as the member gives it; an upgrade (a
 * WebSocket to the destination) is joined like an exec session.
 */
async function proxy(req: IncomingMessage, res: ServerResponse, ctx: RequestContext, url: URL, t: ResourceRequest, client: KubeClient, cluster: string): Promise<void> {
  const path = `${memberPath(t)}${t.proxyPath ?? ''}`;
  // The member's own paths in redirects and pages (where its proxy put them) are under the cluster's path here.
  return relayAsSent(req, res, ctx, url, client, cluster, path, `${t.resource}/proxy`, `${RESOURCES_PREFIX}/clusters/${cluster}`);
}

/** A request any method may make, relayed with its query and body, or joined to the member's if it switches protocols. */
async function relayAsSent(req: IncomingMessage, res: ServerResponse, ctx: RequestContext, url: URL, client: KubeClient, cluster: string, path: string, what: string,
  linkBase?: string): Promise<void> {
  if (ctx.upgrade) return switchProtocols(req, res, ctx, ctx.upgrade, client, path, url.searchParams, cluster);
  const method = PROXY_METHODS.find((m) => m === req.method);
  if (method === undefined) throw methodNotSupported(req.method ?? '', what);
  const body = method === 'GET' || method === 'HEAD' ? undefined : await readBody(req, res, ctx.signal, MAX_PROXY_BODY);
  return relay(req, res, ctx, client, cluster, path, url.search, method, body, linkBase);
}

/**
 * Sends the request on to the member as the client made it (method, query, headers but the caller's identity, body)
 * and streams the member's answer back: its status, headers (but hop-by-hop ones) and body, for as long as it lasts
 * (a watch, a followed log).
 */
async function relay(req: IncomingMessage, res: ServerResponse, ctx: RequestContext, client: KubeClient, cluster: string, path: string, search: string,
  method: (typeof PROXY_METHODS)[number], body?: Buffer, linkBase?: string): Promise<void> {
  const headers: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(req.headersDistinct)) if (v !== undefined && !STAYS.test(k)) headers[k] = v;
  return streamBack(res, ctx, cluster, () => client.raw(path, { method, search, headers, ...(body && body.length > 0 ? { bodyBytes: body } : {}), signal: ctx.signal, bodyTimeoutMs: 0 }),
    (answer) => {
      const out: Record<string, string | string[]> = {};
      for (const [k, v] of Object.entries(answer.headers)) if (v !== undefined && !HOP_BY_HOP.test(k)) out[k] = v;
      // The member's proxy sends its destination's redirects into its own proxy path ("/api/v1/…/proxy/login"):
      // here that member path is under the cluster's.
      const location = out.location;
      if (linkBase !== undefined && typeof location === 'string' && isRootPath(location)) out.location = `${linkBase}${location}`;
      return out;
    },
    linkBase === undefined || method === 'HEAD' ? undefined : (answer) => rewrittenPage(answer, linkBase));
}

/**
 * Clusterpedia's proxy path, `…/resources/clusters/<c>/proxy/<path>`: any request for the member's API (kubectl
 * pointed at it works as against the member itself, writes and exec included), relayed like a proxy subresource.
 */
export async function proxyPath(req: IncomingMessage, res: ServerResponse, ctx: RequestContext, url: URL, cluster: string, path: string, members: MemberConnections): Promise<void> {
  return withMemberClient(req, members, cluster, (client) => relayAsSent(req, res, ctx, url, client, cluster, path, 'proxy', `${RESOURCES_PREFIX}/clusters/${cluster}/proxy`));
}

/** The header by which a request asks to be answered by the member (Clusterpedia's). */
const FORWARD_HEADER = 'x-clusterpedia-forward';

/**
 * Whether a resource request asks to be answered by its member instead of storage (Clusterpedia's forward): the
 * `x-clusterpedia-forward: true` header, or for a list or watch a `search.clusterpedia.io/forward` requirement (any
 * operator) in its labelSelector, of objects or their status or scale. Undefined when it does not; else the query to send, that requirement taken out.
 */
export function forwardedQuery(req: IncomingMessage, url: URL, t: ResourceRequest): string | undefined {
  // Objects (and their status and scale) only: the other subresources reach members as --allowed-proxy-subresources
  // says, or not at all.
  if (t.subresource !== undefined && t.subresource !== 'status' && t.subresource !== 'scale') return undefined;
  const header = String(req.headers[FORWARD_HEADER] ?? '').toLowerCase() === 'true';
  const raw = url.searchParams.get('labelSelector');
  let kept: string | undefined;
  // Parsed only when the key is there at all: every list and watch comes through here.
  if (raw !== null && t.verb !== 'get' && raw.includes(FORWARD_LABEL)) {
    try {
      const reqs = parseLabelSelector(raw, { sourceOrder: true });
      if (reqs.some((r) => r.key === FORWARD_LABEL)) kept = reqs.filter((r) => r.key !== FORWARD_LABEL).map((r) => formatRequirement(r.key, r.operator, r.values)).join(',');
    } catch {
      // Not a selector: the request goes on to list-options, which says what is wrong with it.
    }
  }
  if (!header && kept === undefined) return undefined;
  const q = new URLSearchParams(url.search);
  if (kept === '') q.delete('labelSelector');
  else if (kept !== undefined) q.set('labelSelector', kept);
  const s = q.toString();
  return s === '' ? '' : `?${s}`;
}

/**
 * A get, list or watch answered by the member (Clusterpedia's forward), with the member's own body: its list, object,
 * Table (without a CLUSTER column) or watch stream, as it sends them.
 */
export async function forwardRead(req: IncomingMessage, res: ServerResponse, ctx: RequestContext, t: ResourceRequest, cluster: string, search: string, members: MemberConnections): Promise<void> {
  return forwardGet(req, res, ctx, cluster, memberPath(t), search, members);
}

/** A GET (or HEAD) of `path` in the member, its answer streamed back as it gives it. */
export async function forwardGet(req: IncomingMessage, res: ServerResponse, ctx: RequestContext, cluster: string, path: string, search: string, members: MemberConnections): Promise<void> {
  return withMemberClient(req, members, cluster, (client) => relay(req, res, ctx, client, cluster, path, search, req.method === 'HEAD' ? 'HEAD' : 'GET'));
}

/** Clusterpedia's headers by which a caller gives its own credentials for the member (base64 but the token). */
const CALLER_CREDENTIALS = 'x-clusterpedia-proxy-';

/**
 * Runs `run` with the member connection a forwarded request goes out on: the caller's own credentials when it gave
 * them in Clusterpedia's `X-Clusterpedia-Proxy-Ca`, `-Token`, `-Client-Cert`, `-Client-Key` headers (the member then
 * sees and authorizes the caller; without a CA its certificate is not verified, as for a PediaCluster without
 * caData), to the member's address (members.address), else clusterpedia's. A connection made for one request is
 * closed after it.
 */
export async function withMemberClient(req: IncomingMessage, members: MemberConnections, cluster: string, run: (client: KubeClient) => Promise<void>): Promise<void> {
  const h = (name: string): string | undefined => {
    const v = req.headers[`${CALLER_CREDENTIALS}${name}`];
    return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
  };
  const [ca, token, cert, key] = [h('ca'), h('token'), h('client-cert'), h('client-key')];
  if (ca === undefined && token === undefined && cert === undefined && key === undefined) return run(await members.client(cluster));
  const server = members.address ? await members.address(cluster) : (await members.client(cluster)).server;
  let own: KubeClient;
  try {
    const conn = await resolveCredentials({
      apiserver: server,
      ...(ca !== undefined ? { caData: ca } : {}),
      ...(token !== undefined ? { tokenData: Buffer.from(token).toString('base64') } : {}),
      ...(cert !== undefined ? { certData: cert } : {}),
      ...(key !== undefined ? { keyData: key } : {}),
    }, undefined);
    own = await KubeClient.create(conn.kubeConfig, { userAgent: 'clusterpedia-apiserver' });
  } catch (e: unknown) {
    // Clusterpedia's 400 for a connection that cannot be built; the messages never quote a credential.
    throw badRequest(`the X-Clusterpedia-Proxy-* credentials for cluster ${cluster} are not usable: ${messageOf(e)}`);
  }
  try {
    await run(own);
  } finally {
    own.close().catch(() => undefined);
  }
}

export const unreachable = (cluster: string, e: unknown): Error => serviceUnavailable(`cluster ${cluster} could not be reached: ${messageOf(e)}`);

/**
 * An upgrade (kubectl exec over WebSocket, or SPDY from older kubectl; port-forward as SPDY, tunnelled in WebSocket
 * since 1.31): the member is asked with the client's handshake headers and clusterpedia's credentials; on its 101 the
 * two connections are joined byte for byte until either side ends (or the server drains), otherwise its refusal is the
 * answer.
 */
async function switchProtocols(req: IncomingMessage, res: ServerResponse, ctx: RequestContext, upgrade: UpgradeRequest, client: KubeClient,
  path: string, query: URLSearchParams, cluster: string): Promise<void> {
  // Each value as its own header line: kube reads X-Stream-Protocol-Version line by line, and a comma-joined value
  // would be one protocol it does not know.
  const headers: Record<string, string[]> = {};
  for (const h of HANDSHAKE) {
    const v = req.headersDistinct[h];
    if (v !== undefined) headers[h] = v;
  }
  let answer: UpgradeAnswer;
  try {
    answer = await client.upgrade(path, { method: req.method === 'POST' ? 'POST' : 'GET', query, headers, protocol: String(req.headers.upgrade ?? 'websocket'), signal: ctx.signal });
  } catch (e: unknown) {
    if (ctx.signal.aborted) return;
    throw unreachable(cluster, e);
  }
  if (!('socket' in answer)) {
    const type = answer.headers['content-type'];
    res.writeHead(answer.statusCode, { 'content-type': typeof type === 'string' ? type : 'text/plain' });
    res.end(answer.body);
    return;
  }
  const member = answer.socket;
  const down = upgrade.take();
  const lines = ['HTTP/1.1 101 Switching Protocols'];
  for (const h of SWITCHED) {
    const v = answer.headers[h];
    if (v !== undefined) for (const one of Array.isArray(v) ? v : [v]) lines.push(`${h}: ${one}`);
  }
  down.write(`${lines.join('\r\n')}\r\n\r\n`);
  if (upgrade.head.length > 0) member.write(upgrade.head);
  await new Promise<void>((resolve) => {
    const end = (): void => {
      member.destroy();
      down.destroy();
      resolve();
    };
    // The member going away is passed on once what it sent is written (pipe ends the client's side), and the client
    // gets a few seconds to close. The client ending ends the session at once: the server's sockets allow half-open
    // connections, and a client that half-closes would otherwise leave both connections (and this request) open.
    member.on('error', end).on('close', () => {
      if (!down.writableEnded) down.end();
      setTimeout(end, 5000).unref();
    });
    down.on('error', end).on('end', end).on('close', end);
    ctx.signal.addEventListener('abort', end, { once: true });
    member.pipe(down);
    down.pipe(member);
  });
}
