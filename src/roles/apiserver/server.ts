// HTTP(S) serving: listeners, inflight limits (429), request deadlines, request logs, graceful drain on shutdown.
import { createServer as createHttpServer, ServerResponse, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Gauge } from 'prom-client';
import type { Logger } from '../../lib/log.js';
import type { Runnable } from '../../lib/lifecycle.js';
import { tooManyRequests, status as makeStatus, StatusError } from '../../kube/status.js';
import { sendError } from './respond.js';
import { responseGone, whenGone } from './stream-writer.js';
import { answerClientError } from './client-error.js';
import type { LimitOptions, ServingOptions } from './options.js';
import type { ServingCert } from './certs.js';
import type { RequestAccess } from './authz-gate.js';
import { TurnQueue } from '../../lib/turns.js';
import { ConfigError } from '../../lib/errors.js';
import { listen } from '../../lib/listen.js';
import { markPretty, wantsPretty } from './pretty.js';

export interface RequestContext {
  /** True on the HTTPS listener. */
  secure: boolean;
  socket: Socket | TLSSocket;
  /** The request target, parsed once (requestUrl). */
  url: URL;
  /** Aborts when the client goes away, the deadline passes or the server drains. */
  signal: AbortSignal;
  longRunning: boolean;
  log: Logger;
  /** Who is asking and which clusters they may read; set by the handler once the request is admitted. */
  access?: RequestAccess;
  /** An upgrade request (`kubectl exec`): its socket, for a handler that switches protocols (member-forward.ts). */
  upgrade?: UpgradeRequest;
}

/** The connection of an upgrade request; until taken, the response is written to it as any HTTP answer. */
export interface UpgradeRequest {
  /** Bytes the client sent after the request's head. */
  head: Buffer;
  /** Detaches the socket from the response, for the caller to speak the new protocol on. */
  take(): Socket;
}

/**
 * The request target as kube-apiserver reads it (Go's url.ParseRequestURI): a request carries no fragment, so a raw
 * `#` is data, not the end of the query. A WHATWG URL would drop everything after it: the parameters a client wrote
 * there (say `namespaces=…`) would silently not apply, and the request would answer more than was asked.
 */
export function requestUrl(target: string | undefined): URL {
  const raw = target ?? '/';
  const path = raw.split('?', 1)[0] ?? '';
  // Go reads the path as it was sent; a WHATWG URL would resolve `..` and `%2e%2e` segments and turn `\` into `/`, so
  // `/clusters/a/%2e%2e/b/…` would answer for cluster b what a path-based rule in front of us let through for a.
  // kube's names and namespaces are never `.` or `..` and hold no `\`: such a path is refused rather than resolved.
  if (DOT_SEGMENT.test(path) || path.includes('\\')) throw new StatusError(makeStatus(400, 'BadRequest', `malformed request URL: a path segment may not be '.' or '..' (nor written %2e), and the path may not contain '\\'`));
  return new URL(raw.replaceAll('#', '%23'), 'http://localhost');
}

/**
 * The request line and headers may take 64 KiB, not Node's 16 KiB: behind the aggregation layer a user's groups arrive
 * as one X-Remote-Group header each (hundreds for a directory user), an OIDC bearer token with group claims runs to
 * kilobytes, and a search can name thousands of objects. kube-apiserver allows 1 MiB (Go's MaxHeaderBytes 1 << 20),
 * but a header is held until it is complete: 300 connections sending ~1 MB headers slowly took this process from 100
 * to 406 MB of RSS at 1 MiB, to 166 MB at 64 KiB, and to 145 MB at 16 KiB (the rest is reading what a refused client
 * still sends, client-error.ts).
 */
const MAX_HEADER_BYTES = 64 * 1024;

const DOT_SEGMENT = /(?:^|\/)(?:\.|%2e){1,2}(?:\/|$)/i;

export type Handler = (req: IncomingMessage, res: ServerResponse, ctx: RequestContext) => Promise<void>;

export interface ServerDeps {
  serving: ServingOptions;
  limits: LimitOptions;
  cert?: ServingCert;
  /** CA bundle for optional client certificates (authentication happens in the handler). */
  clientCa?: string;
  handler: Handler;
  logger: Logger;
  shutdownGraceMs: number;
  /** Called once listening, with the bound addresses (ports resolved when 0 was asked). */
  onListening?: (addrs: { secure?: AddressInfo; insecure?: AddressInfo }) => void;
  /** Where requests wait for their turn; shared with the synchro's writes in the binding role. */
  turns?: TurnQueue;
  /** Counts the requests in flight that are not watches (kind "request"; the watch handler counts its own). */
  inflightGauge?: Gauge<'kind'>;
  /** Take upgrade requests (Connection: Upgrade) apart, for handlers that switch protocols (forwarded exec). */
  upgrades?: boolean;
}

/** True for requests that stay open (watch): they have their own limit and no deadline. */
export function isLongRunning(url: URL): boolean {
  const w = url.searchParams.get('watch');
  // kube-apiserver's long-running check also counts a pod's `log` (followed for as long as the client stays) and its
  // exec, attach and port-forward sessions, and the proxy subresources (a dashboard's event stream, a WebSocket).
  return w === 'true' || w === '1' || /\/watch\//.test(url.pathname) || /\/pods\/[^/]+\/(log|exec|attach|portforward)$/.test(url.pathname)
    || /\/(pods|services|nodes)\/[^/]+\/proxy(\/|$)/.test(url.pathname);
}

const QUIET = /^\/(healthz|readyz|livez|metrics)(\/|$)/;

export class ApiHttpServer implements Runnable {
  readonly name = 'apiserver-http';
  private inflight = 0;
  private watches = 0;
  private readonly open = new Set<AbortController>();
  private draining = false;
  private readonly turns: TurnQueue;
  /**
   * The request lines' logger: without the root logger's redaction, which cost ~12 µs a line (a 0.3 ms get's
   * tenth) and never applied, since a request line holds only logRequest's fields, none of which it names.
   */
  private readonly requestLog: Logger;

  constructor(private readonly d: ServerDeps) {
    this.turns = d.turns ?? new TurnQueue();
    this.requestLog = d.logger.child({}, { redact: { paths: [] } });
  }

  get isDraining(): boolean {
    return this.draining;
  }

  async start(signal: AbortSignal): Promise<void> {
    const servers: { server: Server; port: number; host: string; secure: boolean }[] = [];
    const { serving } = this.d;
    if (serving.securePort > 0) {
      if (!this.d.cert) throw new Error('HTTPS needs a serving certificate');
      const s = createHttpsServer({
        maxHeaderSize: MAX_HEADER_BYTES,
        cert: this.d.cert.cert,
        key: this.d.cert.key,
        // Ask for a client certificate but do not require one: token and anonymous-denied paths follow.
        requestCert: this.d.clientCa !== undefined,
        rejectUnauthorized: false,
        ...(this.d.clientCa ? { ca: this.d.clientCa } : {}),
      }, (req, res) => void this.dispatch(req, res, true));
      if (this.d.upgrades) s.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => this.dispatchUpgrade(req, socket, head, true));
      servers.push({ server: s, port: serving.securePort, host: serving.bindAddress, secure: true });
    }
    if (serving.insecurePort !== undefined) {
      const s = createHttpServer({ maxHeaderSize: MAX_HEADER_BYTES }, (req, res) => void this.dispatch(req, res, false));
      if (this.d.upgrades) s.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => this.dispatchUpgrade(req, socket, head, false));
      servers.push({ server: s, port: serving.insecurePort, host: '127.0.0.1', secure: false });
    }
    if (servers.length === 0) throw new ConfigError('nothing to serve: --secure-port is 0 and --insecure-port is not set');
    for (const s of servers) {
      // Generous header limits are kube's too; keep-alive beyond typical LB idle timeouts.
      s.server.keepAliveTimeout = 65_000;
      s.server.headersTimeout = 66_000;
      s.server.requestTimeout = 0;
      // Node keeps the first 2,000 headers and drops the rest unsaid: a directory user's X-Remote-Group headers past
      // that would be lost. The 64 KiB bound above is the limit instead.
      s.server.maxHeadersCount = 0;
      s.server.on('clientError', answerClientError);
    }
    const addrs: { secure?: AddressInfo; insecure?: AddressInfo } = {};
    // Both listeners or neither: one that got its port is closed again when the other cannot have its own.
    const bound = await Promise.allSettled(servers.map((s) => listen(s.server, s.secure
      ? { port: s.port, host: s.host, portFlag: '--secure-port', hostFlag: '--bind-address' }
      : { port: s.port, host: s.host, portFlag: '--insecure-port' })));
    const failed = bound.find((b): b is PromiseRejectedResult => b.status === 'rejected');
    if (failed) {
      await Promise.all(servers.map((s) => new Promise<void>((resolve) => (s.server.listening ? s.server.close(() => resolve()) : resolve()))));
      throw failed.reason;
    }
    for (const [i, s] of servers.entries()) {
      const a = (bound[i] as PromiseFulfilledResult<AddressInfo>).value;
      if (s.secure) addrs.secure = a;
      else addrs.insecure = a;
      this.d.logger.info({ address: a.address, port: a.port, secure: s.secure }, 'serving');
    }
    this.d.onListening?.(addrs);
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await this.drain(servers.map((s) => s.server));
  }

  /** Stop accepting, end watches, let in-flight lists finish within the grace period, then cut what remains. */
  private async drain(servers: Server[]): Promise<void> {
    this.draining = true;
    this.d.logger.info({ inflight: this.inflight, watches: this.watches }, 'draining');
    const closed = Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
    for (const s of servers) s.closeIdleConnections();
    for (const ac of this.open) if ((ac as AbortController & { longRunning?: boolean }).longRunning) ac.abort(new Error('server shutting down'));
    const deadline = Date.now() + this.d.shutdownGraceMs;
    while (this.inflight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    for (const ac of this.open) ac.abort(new Error('server shutting down'));
    for (const s of servers) s.closeAllConnections();
    await closed;
    this.d.logger.info('stopped serving');
  }

  /**
   * An upgrade request goes through the same dispatch as any other (limits, authentication, routing, the request log),
   * answered on its socket by an HTTP response unless a handler takes the socket to switch protocols. Its connection
   * is not kept alive after an answer. Node no longer parses what follows the head, so a body (an h2c upgrade of a
   * POST, say) cannot be read: such a request is refused at once rather than left waiting for it.
   */
  private dispatchUpgrade(req: IncomingMessage, socket: Socket, head: Buffer, secure: boolean): void {
    const res = new ServerResponse(req);
    res.assignSocket(socket);
    res.shouldKeepAlive = false;
    let taken = false;
    socket.on('error', () => undefined);
    res.on('finish', () => {
      if (!taken) socket.destroySoon();
    });
    if (req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0) {
      sendError(res, new StatusError(makeStatus(400, 'BadRequest', 'a request with a body cannot ask to switch protocols here: send it without Connection: Upgrade')), this.d.logger);
      return;
    }
    void this.dispatch(req, res, secure, {
      head,
      take: () => {
        taken = true;
        res.statusCode = 101;
        res.detachSocket(socket);
        return socket;
      },
    });
  }

  private async dispatch(req: IncomingMessage, res: ServerResponse, secure: boolean, upgrade?: UpgradeRequest): Promise<void> {
    const started = process.hrtime.bigint();
    let url: URL;
    try {
      url = requestUrl(req.url);
    } catch (e) {
      sendError(res, e instanceof StatusError ? e : new StatusError(makeStatus(400, 'BadRequest', 'malformed request URL')), this.d.logger);
      return;
    }
    const longRunning = isLongRunning(url);
    const log = this.d.logger;
    const { limits } = this.d;
    if (longRunning ? (limits.maxWatchesInflight > 0 && this.watches >= limits.maxWatchesInflight)
      : (limits.maxRequestsInflight > 0 && this.inflight >= limits.maxRequestsInflight && !QUIET.test(url.pathname))) {
      sendError(res, tooManyRequests('too many requests, please try again later', 1), log);
      this.logRequest(req, url, res.statusCode, started);
      return;
    }
    const ac = new AbortController() as AbortController & { longRunning?: boolean };
    ac.longRunning = longRunning;
    this.open.add(ac);
    if (longRunning) this.watches++;
    else {
      this.inflight++;
      this.d.inflightGauge?.inc({ kind: 'request' });
    }
    // The response's 'close', or the connection's: a pipelined request still queued behind another gets no 'close'
    // of its own when the client leaves (whenGone).
    const stopWatching = whenGone(res, () => ac.abort(new Error('client closed the connection')));
    const onDeadline = (): void => {
      const timeout = new StatusError(makeStatus(504, 'Timeout', `request did not complete within ${limits.requestTimeoutMs}ms`));
      ac.abort(timeout);
      // The handler may be parked where the abort cannot reach it (waiting for a storage connection, or for 'drain'
      // from a client that stopped reading): answer now, or cut a body already started (no Status can follow it).
      // Destroying also wakes a handler parked on 'drain', so it ends and gives back its slot and storage connection.
      if (res.headersSent) res.destroy();
      else if (!res.writableEnded && !responseGone(res)) sendError(res, timeout, log);
    };
    const timer = longRunning || limits.requestTimeoutMs <= 0 ? undefined : setTimeout(onDeadline, limits.requestTimeoutMs);
    const ctx: RequestContext = { secure, socket: req.socket, url, signal: ac.signal, longRunning, log, ...(upgrade ? { upgrade } : {}) };
    if (wantsPretty(req, url)) markPretty(res);
    try {
      // Health and metrics answer at once, as kube-apiserver exempts them: a probe must not queue behind lists.
      if (!QUIET.test(url.pathname)) await this.turns.wait();
      if (ac.signal.aborted) throw ac.signal.reason;
      await this.d.handler(req, res, ctx);
    } catch (e: unknown) {
      const reason: unknown = ac.signal.aborted ? ac.signal.reason : undefined;
      // A client that left (its response destroyed, or its connection closed while the response waited its turn
      // behind another) is told nothing: there is no one to tell.
      if (!res.writableEnded && !responseGone(res)) sendError(res, reason instanceof StatusError ? reason : e, log);
    } finally {
      if (timer) clearTimeout(timer);
      stopWatching();
      this.open.delete(ac);
      if (longRunning) this.watches--;
      else {
        this.inflight--;
        this.d.inflightGauge?.dec({ kind: 'request' });
      }
      this.logRequest(req, url, res.statusCode, started, ctx.access?.user.name, ctx.access?.user.impersonatedBy);
    }
  }

  private logRequest(req: IncomingMessage, url: URL, code: number, started: bigint, user?: string, impersonatedBy?: string): void {
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const fields = { method: req.method, path: url.pathname, query: url.search || undefined, code, ms: Math.round(ms * 10) / 10, ua: req.headers['user-agent'], user, impersonatedBy };
    if (QUIET.test(url.pathname)) this.requestLog.debug(fields, 'request');
    else this.requestLog.info(fields, 'request');
  }
}
