// The HTTP(S) listener of one simulated cluster: authentication, injected faults, request log, routing, Status errors.
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createSecureServer, type Http2SecureServer, type Http2ServerRequest } from 'node:http2';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Logger } from '../lib/log.js';
import { aggregatedContentType, aggregatedDiscovery, apiGroup, apiGroupList, apiResourceList, apiVersions, discoveryETag, negotiateAggregated, type AggregatedVersion } from './discovery.js';
import { serveOpenApiV2, serveOpenApiV3 } from './openapi.js';
import type { RequestFaults } from './faults.js';
import { handleResource, sendJson, type HandlerContext } from './handlers.js';
import { serveExec } from './exec.js';
import { servePortForward } from './portforward.js';
import { failOnSocket } from './websocket.js';
import { SelectorError } from './label-selector.js';
import type { RequestLog, RequestRecord } from './request-log.js';
import { decodeKubeProtobuf, PROTOBUF, ProtobufError } from '../kube/protobuf.js';
import { parseRoute } from './request-path.js';
import { errors, isStatusError, statusBody } from './status.js';

export interface ServerTls {
  cert: string;
  key: string;
  /** When set, client certificates signed by this CA authenticate too. */
  clientCa?: string;
  /**
   * Also serve HTTP/2, chosen by ALPN (`h2`), as kube-apiserver does over TLS: many requests (watches) share one
   * connection. HTTP/1.1 stays for clients that ask for it and for upgrades (exec, port-forward).
   */
  http2?: boolean;
}

export type AdminHandler = (parts: string[], req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void>;

export interface ServerDeps {
  ctx: HandlerContext;
  faults: RequestFaults;
  log: RequestLog;
  /** Bearer token required on every request (admin endpoints too); undefined disables token authentication. */
  token: () => string | undefined;
  admin: AdminHandler;
  logger: Logger;
  tls?: ServerTls;
  /** Serve aggregated discovery to clients that ask for it (SimClusterOptions.aggregatedDiscovery). */
  aggregatedDiscovery?: boolean;
}

/** kube-apiserver's /version; minor "32" makes the kubectl dispatcher pick kubectl 1.32 (toolchain §3). */
export const VERSION_INFO = {
  major: '1', minor: '32', gitVersion: 'v1.32.0-sim', gitCommit: '0000000000000000000000000000000000000000', gitTreeState: 'clean',
  buildDate: '2024-12-11T18:04:20Z', goVersion: 'go1.23.3', compiler: 'gc', platform: 'linux/amd64',
};

const MAX_BODY = 16 * 1024 * 1024;

/** A request as the request log keeps it, before its answer. */
function recordOf(req: IncomingMessage, url: URL): RequestRecord {
  return {
    method: req.method ?? 'GET', path: url.pathname, query: url.search.replace(/^\?/, ''), params: Object.fromEntries(url.searchParams),
    userAgent: req.headers['user-agent'] ?? '', accept: req.headers.accept ?? '', contentType: req.headers['content-type'] ?? '', auditId: String(req.headers['audit-id'] ?? ''), status: 0, startedAt: Date.now(),
    watch: url.searchParams.get('watch') === 'true' || url.searchParams.get('watch') === '1' || url.pathname.includes('/watch/'),
  };
}

/**
 * Idle keep-alive connections close after 90 s, kube-apiserver's IdleTimeout (Node's default of 5 s had a client that
 * probes every few seconds open a new TLS connection for each probe); Node says so in `Keep-Alive: timeout=90`. No
 * request timeout: Node's 5-minute requestTimeout check resets long-lived keep-alive connections under load;
 * kube-apiserver never does.
 */
const HTTP1_SETTINGS = { keepAliveTimeout: 90_000, requestTimeout: 0 };

export class SimServer {
  private readonly server: Server | Http2SecureServer;
  private readonly sockets = new Set<Socket>();
  private openSessions = 0;

  constructor(private readonly deps: ServerDeps) {
    const handler = (req: IncomingMessage, res: ServerResponse): void => {
      this.handle(req, res).catch((e: unknown) => deps.logger.error({ err: e }, 'simulator request failed'));
    };
    const tls = deps.tls && { cert: deps.tls.cert, key: deps.tls.key, ...(deps.tls.clientCa ? { ca: deps.tls.clientCa, requestCert: true, rejectUnauthorized: false } : {}) };
    if (tls && deps.tls?.http2) {
      // Node's compatibility request and response stand in for HTTP/1's here (the handlers use only what both have:
      // method, url, headers, socket, writeHead, write, end, destroy, 'close').
      // Node refuses new streams (ENHANCE_YOUR_CALM) once a session holds more than maxSessionMemory (10 MB by default)
      // of unsent data: a few big lists in flight on one connection do. kube-apiserver (Go) has no such limit; its
      // streams wait for flow control.
      const h2 = createSecureServer({ ...tls, allowHTTP1: true, settings: { maxConcurrentStreams: 250 }, maxSessionMemory: 1024 });
      // Its HTTP/1.1 connections (clients that do not offer h2) are Node's HTTP/1 server's, with that server's
      // settings read from this object: the same as the HTTP/1.1-only simulator's below.
      Object.assign(h2, HTTP1_SETTINGS);
      h2.on('request', (req, res) => handler(req as unknown as IncomingMessage, res as unknown as ServerResponse));
      h2.on('session', (session) => {
        this.openSessions++;
        session.once('close', () => this.openSessions--);
      });
      this.server = h2;
    } else {
      const h1 = tls ? createHttpsServer(tls, handler) : createHttpServer(handler);
      Object.assign(h1, HTTP1_SETTINGS);
      this.server = h1;
    }
    this.server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => this.upgrade(req, socket, head));
    this.server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
  }

  /** Listens on host:port (0 picks a free port) and resolves with the port. */
  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      const onError = (e: Error): void => reject(e);
      this.server.once('error', onError);
      this.server.listen(port, host, () => {
        this.server.off('error', onError);
        const addr = this.server.address();
        resolve(typeof addr === 'object' && addr ? addr.port : port);
      });
    });
  }

  /** Stops listening and destroys every socket at once (watches included), so clients see the server go away. */
  close(): Promise<void> {
    return new Promise((resolve) => {
      if (!this.server.listening) {
        resolve();
        return;
      }
      this.server.close(() => resolve());
      for (const s of this.sockets) s.destroy();
      this.sockets.clear();
    });
  }

  get listening(): boolean {
    return this.server.listening;
  }

  /** TCP connections open now (HTTP/2 carries many requests on one). */
  get connections(): number {
    return this.sockets.size;
  }

  /** Of them, the HTTP/2 ones (sessions). */
  get http2Sessions(): number {
    return this.openSessions;
  }

  private authenticated(req: IncomingMessage): boolean {
    const token = this.deps.token();
    const certOk = this.deps.tls?.clientCa !== undefined && (req.socket as TLSSocket).authorized === true;
    if (token === undefined && this.deps.tls?.clientCa === undefined) return true;
    if (certOk) return true;
    return token !== undefined && req.headers.authorization === `Bearer ${token}`;
  }

  /**
   * Upgrade requests: a pod's exec or attach (exec.ts) and port-forward (portforward.ts), over WebSocket or SPDY;
   * anything else is refused as kube refuses it.
   */
  private upgrade(req: IncomingMessage, socket: Socket, head: Buffer): void {
    const url = new URL(req.url ?? '/', 'http://sim.local');
    const route = parseRoute(url.pathname);
    this.deps.log.add({ ...recordOf(req, url), status: 101, watch: false });
    try {
      if (!this.authenticated(req)) throw errors.unauthorized();
      const sub = route.kind === 'resource' ? route.subresource : undefined;
      if (route.kind !== 'resource' || route.group !== '' || route.resource !== 'pods' || (sub !== 'exec' && sub !== 'attach' && sub !== 'portforward') || route.name === undefined || route.namespace === undefined) {
        throw errors.badRequest('Upgrade request required');
      }
      const pod = this.deps.ctx.store.get('pods', route.namespace, route.name);
      if (!pod) throw errors.notFound('pods', route.name);
      if (sub === 'portforward') servePortForward(pod, req, socket, head);
      else serveExec(pod, url.searchParams, req, socket, head, sub);
    } catch (e: unknown) {
      failOnSocket(socket, e);
    }
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://sim.local');
    const route = parseRoute(url.pathname);
    const record = recordOf(req, url);
    if (route.kind !== 'admin') this.deps.log.add(record);
    res.on('close', () => {
      record.status = res.statusCode;
      record.durationMs = Date.now() - record.startedAt;
    });
    try {
      if (route.kind !== 'admin') {
        const { faults } = this.deps;
        if (faults.delayMs > 0) await new Promise((r) => setTimeout(r, faults.delayMs));
        const failure = faults.take(url.pathname);
        if (failure) {
          if (failure.retryAfterSeconds !== undefined) res.setHeader('retry-after', String(failure.retryAfterSeconds));
          throw errors.injected(failure.code, failure.retryAfterSeconds);
        }
        const selector = url.searchParams.get('fieldSelector');
        if (faults.refusesFieldSelector(url.pathname, selector)) throw errors.badRequest(`field selector "${selector}" is not supported: this server lists and watches every object of ${url.pathname}`);
      }
      if (!this.authenticated(req)) throw errors.unauthorized();
      if (route.kind !== 'admin' && !record.watch && this.deps.faults.goawayChance > 0 && Math.random() < this.deps.faults.goawayChance) goAwayAfter(req, res);
      await this.route(route, req, res, url);
      if (res.headersSent) record.status = res.statusCode;
    } catch (e: unknown) {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (isStatusError(e)) sendJson(res, e.status.code, e.status);
      else if (e instanceof SelectorError) sendJson(res, 400, statusBody(400, 'BadRequest', e.message));
      else {
        this.deps.logger.error({ err: e }, 'simulator internal error');
        sendJson(res, 500, statusBody(500, 'InternalError', `Internal error occurred: ${e instanceof Error ? e.message : String(e)}`));
      }
      record.status = res.statusCode;
    }
  }

  /**
   * An aggregated discovery document as kube-apiserver sends it: its ETag, and 304 Not Modified without a body when
   * the client's If-None-Match names it (the document did not change since that client read it).
   */
  private sendAggregated(req: IncomingMessage, res: ServerResponse, doc: Record<string, unknown>, v: AggregatedVersion): void {
    const text = JSON.stringify(doc);
    const etag = discoveryETag(text);
    const headers = { 'content-type': aggregatedContentType(v), 'cache-control': 'public', etag, vary: 'Accept' };
    // Any of the tags the client names (several If-None-Match headers, or one listing several).
    if (String(req.headers['if-none-match'] ?? '').split(',').some((t) => t.trim() === etag)) {
      res.writeHead(304, headers);
      res.end();
      return;
    }
    res.writeHead(200, { ...headers, 'content-length': Buffer.byteLength(text) });
    res.end(text);
  }

  private async route(route: ReturnType<typeof parseRoute>, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const defs = this.deps.ctx.store.allDefs();
    const get = (): void => {
      if (req.method !== 'GET' && req.method !== 'HEAD') throw errors.methodNotAllowed();
    };
    switch (route.kind) {
      case 'version': get(); sendJson(res, 200, VERSION_INFO); return;
      case 'health': get(); res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' }); res.end('ok'); return;
      case 'api':
      case 'apis': {
        get();
        // Unless the cluster is set to serve aggregated discovery, its Accept headers are ignored: legacy JSON is
        // always valid, and clients fall back to it.
        const aggregated = this.deps.aggregatedDiscovery ? negotiateAggregated(req.headers.accept) : undefined;
        if (aggregated) return this.sendAggregated(req, res, aggregatedDiscovery(defs, route.kind === 'api', aggregated, (gv) => this.deps.faults.isUnavailable(gv)), aggregated);
        res.setHeader('vary', 'Accept');
        if (route.kind === 'api') sendJson(res, 200, apiVersions(`${req.socket.localAddress ?? '127.0.0.1'}:${req.socket.localPort ?? 0}`));
        else sendJson(res, 200, apiGroupList(defs));
        return;
      }
      case 'group': {
        get();
        const doc = apiGroup(defs, route.group);
        if (!doc) throw errors.noRoute();
        sendJson(res, 200, doc);
        return;
      }
      case 'groupVersion': {
        get();
        if (this.deps.faults.isUnavailable(`${route.group}/${route.version}`)) throw errors.injected(503);
        const doc = apiResourceList(defs, route.group, route.version);
        if (!doc) throw errors.noRoute();
        sendJson(res, 200, doc);
        return;
      }
      case 'resource': await handleResource(this.deps.ctx, route, req, res, url, () => readBody(req)); return;
      case 'admin': await this.deps.admin(route.parts, req, res, url); return;
      case 'openapiV3': get(); serveOpenApiV3(this.deps.ctx.store, route.rest, (code, body) => sendJson(res, code, body)); return;
      case 'openapiV2':
        get();
        serveOpenApiV2(this.deps.ctx.store, String(req.headers.accept ?? ''), (body, type) => {
          res.writeHead(200, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
          res.end(body);
        });
        return;
      case 'unknown': throw errors.noRoute();
    }
  }
}

/**
 * Once `res` is sent, its HTTP/2 connection is closed gracefully: GOAWAY naming the last stream it took, no new
 * stream after it, the open ones (watches) left to end on their own, as Go's server does for kube's --goaway-chance.
 * An HTTP/1.1 request is left alone.
 */
function goAwayAfter(req: IncomingMessage, res: ServerResponse): void {
  const session = (req as unknown as Partial<Http2ServerRequest>).stream?.session;
  if (session) res.once('finish', () => session.close());
}

/** Reads and decodes a body, JSON or (a built-in kind) kube's protobuf; an empty body is undefined. */
export async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw errors.badRequest('request body too large');
    chunks.push(chunk as Buffer);
  }
  const body = Buffer.concat(chunks);
  // kubectl create (deployment, secret, service, …) sends protobuf.
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim() ?? '';
  if (type === PROTOBUF && body.length > 0) {
    try {
      return decodeKubeProtobuf(body).object;
    } catch (e: unknown) {
      if (!(e instanceof ProtobufError)) throw e;
      if (e.reason === 'malformed') throw errors.badRequest(`the body of the request is not a Kubernetes protobuf object: ${e.message}`);
      throw errors.unsupportedBody(`${type}: ${e.message}`);
    }
  }
  const text = body.toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch (e: unknown) {
    throw errors.badRequest(`the body of the request could not be decoded as JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
}
