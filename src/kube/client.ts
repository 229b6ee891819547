// A Kubernetes API client: @kubernetes/client-node's KubeConfig for credentials (token, certs, exec, OIDC),
// undici for the transport (pooled keep-alive, streamed bodies). Raw JSON in and out: objects are stored as sent.
import type https from 'node:https';
import { createSecureContext, type SecureContext } from 'node:tls';
import type { Duplex } from 'node:stream';
import { LineTooLongError, nonBlankLines } from './lines.js';
import { Agent, ProxyAgent, request, Socks5ProxyAgent, type Dispatcher } from 'undici';
import { KubeConfig, type Cluster } from '@kubernetes/client-node';
import type { WatchEvent } from './types.js';
import { KubeApiError, networkError } from './client-errors.js';
import { envProxyFor } from './env-proxy.js';
import { parseExact } from './exact-json.js';
import { ExecCredentialSource, type ExecConfig, type ExecCredential } from './exec-credential.js';
import { execClusterConfigOf, impersonationOf } from './kubeconfig.js';
import { Http2Transport } from './http2-transport.js';

export { KubeApiError } from './client-errors.js';

/**
 * The longest watch event taken from a member, as client-go's streaming decoder allows (16 MiB): etcd keeps objects
 * under ~1.5 MB, so only a broken or hostile server sends more, and a line that never ends must not fill memory.
 */
export const MAX_WATCH_EVENT_CHARS = 16 * 1024 * 1024;

/**
 * The largest response body read whole (lists, discovery, a get): past it the read stops with a ResponseTooLarge
 * error instead of holding the rest. The list loop then asks for smaller pages (`src/kube/listwatch.ts`).
 */
export const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/** An error answer's body is read up to this much: enough for any Status, not for a page a proxy sends back. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** What a protocol upgrade got: the switched socket, or the refusal's status, headers and (capped) body. */
export type UpgradeAnswer =
  | { statusCode: number; headers: Record<string, string | string[] | undefined>; socket: Duplex }
  | { statusCode: number; headers: Record<string, string | string[] | undefined>; body: Buffer };

/** A watch event and the length of its line, for memory accounting. */
export interface SizedWatchEvent extends WatchEvent {
  bytes: number;
}

export interface KubeClientOptions {
  userAgent?: string;
  /** Timeout for non-watch requests, milliseconds (connect + headers + body). */
  requestTimeoutMs?: number;
  /**
   * Cap on connections to the server; none by default. Over HTTP/1.1 each watch holds a connection for as long as it
   * runs, so a cap below the number of watched resources left the rest unwatched and queued every other request
   * (the health probe included) behind them.
   */
  connections?: number;
  /** Clock of the credential cache (tests). */
  now?: () => number;
  /** Where HTTPS_PROXY, HTTP_PROXY and NO_PROXY are read (tests); the process's by default. */
  env?: NodeJS.ProcessEnv;
  /** How long a request waits for credentials (CREDENTIAL_TIMEOUT_MS by default; tests). */
  credentialTimeoutMs?: number;
  /**
   * HTTP/2 when the server's TLS handshake picks it (default true), as client-go: one connection carries many
   * requests, watches included. False keeps HTTP/1.1, where every watch holds a connection of its own. Protocol
   * upgrades (exec, port-forward) always go over HTTP/1.1.
   */
  http2?: boolean;
}

/**
 * How long a request (and create()) waits for the kubeconfig's credentials before it fails with a retryable
 * CredentialTimeout: a credential plugin that waits for input no one gives (an interactive login in a server process)
 * or hangs would otherwise hold the member's synchro, health probe included, for good. An exec plugin is killed then
 * (with what it started); an auth-provider's read goes on, and while it does no second one is started.
 */
export const CREDENTIAL_TIMEOUT_MS = 30_000;

/**
 * How long an auth-provider's headers (`auth-provider`: OIDC, the cloud providers of old kubeconfigs) are reused
 * before client-node is asked again, instead of for every request. Reused this long, a credential may outlive its
 * expiry by as much; the server's 401 then gets fresh headers and the request is sent once more. An exec plugin's
 * credential is kept until the expiry it states, or until a 401 when it states none, as client-go keeps it
 * (exec-credential.ts).
 */
export const PLUGIN_CREDENTIAL_TTL_MS = 10_000;

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';
  query?: Record<string, string | number | boolean | undefined>;
  /** The query as sent, `?` included (a relayed request's, kept as its client wrote it); instead of `query`. */
  search?: string;
  body?: unknown;
  /** Bytes sent as they are (a relayed request's body), with `headers`' content type; instead of `body`. */
  bodyBytes?: Buffer;
  /** More request headers (a relayed request's); ours (credentials, user agent) win. */
  headers?: Record<string, string | string[]>;
  contentType?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Bodies longer than this (bytes) are not read whole: the request fails with reason ResponseTooLarge. */
  maxBytes?: number;
  /** Accept header; application/json by default. */
  accept?: string;
}

/**
 * Reads a body as UTF-8 text, at most `maxBytes` of it. Past that the rest is discarded: cut short (an error answer,
 * where an excerpt is all that is shown) or refused with a ResponseTooLarge error (a body the caller would parse).
 */
async function readText(body: Dispatcher.ResponseData['body'], maxBytes: number, method: string, path: string, cut: boolean): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      if (size + chunk.length > maxBytes) {
        body.destroy();
        if (cut) {
          chunks.push(chunk.subarray(0, maxBytes - size));
          break;
        }
        throw new KubeApiError(`${method} ${path}: response larger than ${sizeText(maxBytes)}`, 200, 'ResponseTooLarge', true);
      }
      chunks.push(chunk);
      size += chunk.length;
    }
  } catch (e: unknown) {
    throw networkError(e, method, path);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function sizeText(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${+(bytes / 1024 / 1024).toFixed(1)} MiB` : `${+(bytes / 1024).toFixed(1)} KiB`;
}

/** Parsed TLS material from a kubeconfig, for the undici Agent. */
interface TlsMaterial {
  ca?: string | Buffer | (string | Buffer)[];
  cert?: string | Buffer | (string | Buffer)[];
  key?: string | Buffer | (string | Buffer)[];
  rejectUnauthorized?: boolean;
}

/** What each TLS connection to the member is made with: one SecureContext for all, and the per-socket settings. */
export interface ConnectTls {
  secureContext?: SecureContext;
  rejectUnauthorized?: boolean;
  servername?: string;
}

/**
 * The member's CA and client certificate as one SecureContext that every connection to it shares. Given as PEM, each
 * tls.connect builds a context of its own (the CA parsed again, ~30 KB held per connection): for a member served over
 * HTTP/1.1, one per watch and one per reconnect. Without any, Node's default context (its root CAs) as before.
 */
function sharedContext(t: TlsMaterial & { servername?: string }): ConnectTls {
  const out: ConnectTls = {};
  if (t.rejectUnauthorized !== undefined) out.rejectUnauthorized = t.rejectUnauthorized;
  if (t.servername !== undefined) out.servername = t.servername;
  if (t.ca !== undefined || t.cert !== undefined || t.key !== undefined) out.secureContext = createSecureContext({ ca: t.ca, cert: t.cert, key: t.key });
  return out;
}

export class KubeClient {
  /** A credential plugin's headers (see PLUGIN_CREDENTIAL_TTL_MS) and when they were read. */
  private credential: { headers: Record<string, string>; at: number } | undefined;
  /** Requests over HTTP/2 when the server offers it (http2-transport.ts); HTTPS without a proxy only. */
  private transport: Http2Transport | undefined;

  private constructor(
    private readonly kc: KubeConfig,
    /** Base URL without trailing slash; may carry a path prefix (e.g. a proxy's /k8s/clusters/x). */
    readonly server: string,
    /** The connection pool; replaced when an exec plugin hands out another client certificate. */
    private agent: Dispatcher,
    private readonly opts: Required<Pick<KubeClientOptions, 'userAgent' | 'requestTimeoutMs' | 'now' | 'credentialTimeoutMs'>>,
    private readonly auth: ClientAuth,
    first: Record<string, string>,
    /** The kubeconfig user's as-uid / as-groups / as-user-extra (kubeconfig.ts), sent with every request. */
    private readonly impersonation: Record<string, string | string[]>,
  ) {
    if (auth.kind === 'provider') this.credential = { headers: first, at: opts.now() };
  }

  /** Builds a client for the current context of `kc`. Throws on an unusable config (no cluster, bad server URL). */
  static async create(kc: KubeConfig, opts: KubeClientOptions = {}): Promise<KubeClient> {
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new Error('kubeconfig has no current cluster');
    let url: URL;
    try {
      url = new URL(cluster.server);
    } catch {
      throw new Error(`kubeconfig server is not a URL: ${JSON.stringify(cluster.server)}`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`unsupported server URL scheme ${url.protocol}`);
    // Before client-node reads the config: it builds a proxy agent of its own, and its error would carry the URL.
    // The kubeconfig's proxy-url wins over the environment's, as in client-go.
    const proxy = cluster.proxyUrl
      ? proxyUrlOf(cluster.proxyUrl, 'kubeconfig proxy-url')
      : proxyUrlOf(envProxyFor(url, opts.env), url.protocol === 'https:' ? 'HTTPS_PROXY' : 'HTTP_PROXY');
    const credentialTimeoutMs = opts.credentialTimeoutMs ?? CREDENTIAL_TIMEOUT_MS;
    const now = opts.now ?? Date.now;
    const user = kc.getCurrentUser();
    const exec = user?.exec && !user.authProvider ? execSourceFor(kc, user.exec as ExecConfig, cluster, credentialTimeoutMs, now) : undefined;
    // What client-node reads: an exec user's credential is ours to get (exec-credential.ts), so without its exec; a
    // plain http server (kubectl proxy) as insecure, or client-node refuses it for want of TLS verification.
    const plain = url.protocol === 'http:' && !cluster.skipTLSVerify;
    const view = exec || plain ? clientNodeView(kc, { withoutExec: Boolean(exec), plain }) : kc;
    // One read gives the TLS material and the first headers (an auth-provider's plugin runs once here, not twice).
    const applied = await readCredentials(view, credentialTimeoutMs);
    const material = { ...tlsMaterial(applied), ...(cluster.tlsServerName ? { servername: cluster.tlsServerName } : {}) };
    const tls = sharedContext(material);
    const headers = headersOf(applied);
    const connect = (cert?: ExecCredential): Dispatcher => dispatcherFor(proxy, cert?.cert ? sharedContext({ ...material, cert: cert.cert, key: cert.key }) : tls, opts.connections);
    let auth: ClientAuth = user?.exec ?? user?.authProvider ? { kind: 'provider' } : { kind: 'static' };
    let agent: Dispatcher;
    let execCert = false;
    if (exec) {
      const credential = await awaitCredential(exec.get(), execBackstopMs(credentialTimeoutMs));
      auth = { kind: 'exec', source: exec, headers, connect, used: credential };
      agent = connect(credential);
      execCert = Boolean(credential.cert);
    } else agent = connect();
    const client = new KubeClient(view, cluster.server.replace(/\/+$/, ''), agent, {
      userAgent: opts.userAgent ?? 'clusterpedia',
      requestTimeoutMs: opts.requestTimeoutMs ?? 30_000,
      now,
      credentialTimeoutMs,
    }, auth, headers, impersonationOf(kc));
    // An exec plugin's client certificate can change under the pool; such a client stays on HTTP/1.1 (authHeaders).
    if (url.protocol === 'https:' && !proxy && !execCert && opts.http2 !== false) client.transport = new Http2Transport(url, tls, () => client.agent);
    return client;
  }

  /**
   * The protocol requests use: 'h2' or 'http/1.1' once learnt; undefined while a client that asks for HTTP/2 has not
   * learnt yet. A client that never asks (plain HTTP, a proxy, an exec certificate, http2: false) uses HTTP/1.1.
   */
  get protocol(): 'h2' | 'http/1.1' | undefined {
    return this.transport ? this.transport.current : 'http/1.1';
  }

  /**
   * Current auth headers. An exec plugin's credential is kept by its source until its expiry or a 401 (`refused`);
   * when it brings another client certificate, new connections carry it (the old pool closes once its requests end,
   * as client-go rotates an exec certificate). Static credentials are read each time (cheap); an auth-provider's are
   * reused for PLUGIN_CREDENTIAL_TTL_MS, or read again now (`fresh`, after a 401). Reads are shared (readCredentials).
   */
  private async authHeaders(signal: AbortSignal | undefined, fresh = false): Promise<Record<string, string>> {
    const a = this.auth;
    if (a.kind === 'exec') {
      // A request already given up starts no plugin run.
      signal?.throwIfAborted();
      const c = await awaitCredential(a.source.get(fresh ? a.used : undefined), execBackstopMs(this.opts.credentialTimeoutMs), signal);
      if (c !== a.used) {
        if (c.cert !== a.used.cert || c.key !== a.used.key) {
          const old = this.agent;
          this.agent = a.connect(c);
          old.close().catch(() => undefined);
          // The HTTP/2 connections carry the old certificate: requests go over the new pool from here on.
          const transport = this.transport;
          this.transport = undefined;
          void transport?.close();
        }
        a.used = c;
      }
      return c.token ? { ...a.headers, Authorization: `Bearer ${c.token}` } : a.headers;
    }
    const c = this.credential;
    if (a.kind === 'provider' && !fresh && c && this.opts.now() - c.at < PLUGIN_CREDENTIAL_TTL_MS) return c.headers;
    // Asks client-node: its OIDC and cloud authenticators cache and refresh their tokens by their expiry.
    const headers = headersOf(await readCredentials(this.kc, this.opts.credentialTimeoutMs, signal));
    if (a.kind === 'provider') this.credential = { headers, at: this.opts.now() };
    return headers;
  }

  url(path: string, query?: RequestOptions['query']): string {
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) qs.set(k, String(v));
    const q = qs.toString();
    return `${this.server}${path}${q ? `?${q}` : ''}`;
  }

  /**
   * Sends a request; the caller consumes or discards the body. Network failures become KubeApiError (retryable).
   * A 401 to a credential plugin's credential is sent once more with a fresh one, if it differs (a token past its
   * expiry, another client certificate).
   */
  async raw(path: string, o: RequestOptions & { bodyTimeoutMs?: number } = {}): Promise<Dispatcher.ResponseData> {
    return this.sent(path, o, true);
  }

  /** raw(); `resend`: whether a GOAWAY before the answer sends it again here (not when the caller does, with the body). */
  private async sent(path: string, o: RequestOptions & { bodyTimeoutMs?: number }, resend: boolean): Promise<Dispatcher.ResponseData> {
    const auth = await this.authHeaders(o.signal);
    const agent = this.agent;
    const send = (): Promise<Dispatcher.ResponseData> => this.send(path, o, auth);
    const res = await (resend ? this.againAfterGoAway(o, send) : send());
    if (res.statusCode !== 401 || this.auth.kind === 'static') return res;
    const fresh = await this.authHeaders(o.signal, true);
    if (sameHeaders(fresh, auth) && this.agent === agent) return res;
    // Read off (a Status of a few hundred bytes), not destroyed: destroying errors the stream with nobody listening.
    await res.body.dump();
    return this.send(path, o, fresh);
  }

  private async send(path: string, o: RequestOptions & { bodyTimeoutMs?: number }, auth: Record<string, string>): Promise<Dispatcher.ResponseData> {
    const headers: Record<string, string | string[]> = { accept: o.accept ?? 'application/json', ...o.headers, ...this.identity(auth) };
    let body: string | Buffer | undefined = o.bodyBytes;
    if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['content-type'] = o.contentType ?? 'application/json';
    }
    const timeout = o.timeoutMs ?? this.opts.requestTimeoutMs;
    try {
      await this.transport?.ready();
      // Picked and dispatched with no await between (http2-transport.ts).
      const dispatcher = this.transport ? this.transport.pick() : this.agent;
      return await request(o.search !== undefined ? `${this.server}${path}${o.search}` : this.url(path, o.query), {
        method: o.method ?? 'GET',
        headers,
        body,
        dispatcher,
        signal: o.signal,
        headersTimeout: timeout,
        bodyTimeout: o.bodyTimeoutMs ?? timeout,
      });
    } catch (e: unknown) {
      throw networkError(e, o.method ?? 'GET', path);
    }
  }

  /** Who every request says it is: the kubeconfig user's impersonation, the credential's headers, our user agent. */
  private identity(auth: Record<string, string>): Record<string, string | string[]> {
    return { ...this.impersonation, ...auth, 'user-agent': this.opts.userAgent };
  }

  /**
   * A protocol upgrade (`kubectl exec` over WebSocket or SPDY): the request goes out with this client's credentials and
   * the caller's `headers` (the handshake's), and the answer is either the switched socket with the 101's headers, or a
   * refusal read whole (up to MAX_ERROR_BODY_BYTES: a Status). Network failures become KubeApiError (retryable).
   */
  async upgrade(path: string, o: { method?: 'GET' | 'POST'; query: URLSearchParams; headers: Record<string, string | string[]>; protocol: string; signal?: AbortSignal }): Promise<UpgradeAnswer> {
    const auth = await this.authHeaders(o.signal);
    const q = o.query.toString();
    const target = new URL(`${this.server}${path}${q ? `?${q}` : ''}`);
    const headers: Record<string, string | string[]> = { ...o.headers, ...this.identity(auth) };
    try {
      return await new Promise<UpgradeAnswer>((resolve, reject) => {
        let status = 0;
        let answerHeaders: Record<string, string | string[] | undefined> = {};
        const chunks: Buffer[] = [];
        let size = 0;
        this.agent.dispatch({
          origin: target.origin, path: `${target.pathname}${target.search}`, method: o.method ?? 'GET', headers, upgrade: o.protocol,
          headersTimeout: this.opts.requestTimeoutMs, bodyTimeout: this.opts.requestTimeoutMs, ...(o.signal ? { signal: o.signal } : {}),
        }, {
          onRequestStart() {},
          onRequestUpgrade(_c, statusCode, h, socket) {
            resolve({ statusCode, headers: h, socket });
          },
          onResponseStart(_c, statusCode, h) {
            status = statusCode;
            answerHeaders = h;
          },
          onResponseData(_c, chunk) {
            if (size < MAX_ERROR_BODY_BYTES) chunks.push(chunk);
            size += chunk.length;
          },
          onResponseEnd() {
            resolve({ statusCode: status, headers: answerHeaders, body: Buffer.concat(chunks).subarray(0, MAX_ERROR_BODY_BYTES) });
          },
          onResponseError(_c, err) {
            reject(err);
          },
        });
      });
    } catch (e: unknown) {
      throw networkError(e, o.method ?? 'GET', path);
    }
  }

  /** A JSON request; non-2xx answers throw KubeApiError carrying the Status. */
  async json<T>(path: string, o: RequestOptions = {}): Promise<T> {
    return (await this.jsonSized<T>(path, o)).value;
  }

  /** Like json(), also telling the body's size in characters (what the synchro's memory bound counts). */
  async jsonSized<T>(path: string, o: RequestOptions = {}): Promise<{ value: T; bytes: number }> {
    return this.againAfterGoAway(o, async () => this.parse<T>(await this.sent(path, o, false), path, o));
  }

  /**
   * `attempt`, and once more if a GET or HEAD failed because the server closed its HTTP/2 connection gracefully
   * (KubeApiError.goAway): the next one goes out on another connection. kube-apiserver's --goaway-chance does that
   * after some requests, and undici 7 then fails every request in flight on the connection, list pages and health
   * probes included (src/kube/client-errors.ts).
   */
  private async againAfterGoAway<T>(o: RequestOptions, attempt: () => Promise<T>): Promise<T> {
    try {
      return await attempt();
    } catch (e: unknown) {
      const idempotent = o.method === undefined || o.method === 'GET' || o.method === 'HEAD';
      if (!(e instanceof KubeApiError) || !e.goAway || !idempotent || o.signal?.aborted) throw e;
      return attempt();
    }
  }

  /**
   * A conditional JSON read: with `etag`, asked If-None-Match, and undefined when the server answers 304 Not Modified;
   * else the value and the answer's ETag (kube-apiserver tags its aggregated discovery so).
   */
  async jsonUnlessMatch<T>(path: string, etag: string | undefined, o: RequestOptions = {}): Promise<{ value: T; etag: string | undefined } | undefined> {
    return this.againAfterGoAway(o, async () => {
      const res = await this.sent(path, etag === undefined ? o : { ...o, headers: { ...o.headers, 'if-none-match': etag } }, false);
      if (res.statusCode === 304) {
        await res.body.dump();
        return undefined;
      }
      const tag = res.headers.etag;
      return { value: (await this.parse<T>(res, path, o)).value, etag: typeof tag === 'string' ? tag : undefined };
    });
  }

  /** An answer's JSON body; non-2xx answers throw KubeApiError carrying the Status. */
  private async parse<T>(res: Dispatcher.ResponseData, path: string, o: RequestOptions): Promise<{ value: T; bytes: number }> {
    const method = o.method ?? 'GET';
    const ok = res.statusCode >= 200 && res.statusCode < 300;
    const text = await readText(res.body, ok ? o.maxBytes ?? MAX_RESPONSE_BYTES : MAX_ERROR_BODY_BYTES, method, path, !ok);
    if (!ok) throw KubeApiError.fromResponse(res.statusCode, text, method, path, res.headers);
    try {
      return { value: parseExact(text) as T, bytes: text.length };
    } catch (e: unknown) {
      throw new KubeApiError(`invalid JSON from ${path}`, res.statusCode, 'InvalidResponse', false, { cause: e });
    }
  }

  /**
   * Opens a watch and yields its events. Ends when the server ends the stream (timeoutSeconds) or `signal` aborts.
   * `onOpen` is called once the server accepted the watch.
   * The consumer's pace is the stream's pace: events are pulled, never buffered without bound.
   */
  async *watch(
    path: string, query: RequestOptions['query'], signal?: AbortSignal, idleTimeoutMs = 120_000, onOpen?: () => void,
  ): AsyncGenerator<SizedWatchEvent> {
    const res = await this.raw(path, { query: { ...query, watch: 'true' }, signal, timeoutMs: this.opts.requestTimeoutMs, bodyTimeoutMs: idleTimeoutMs });
    if (res.statusCode !== 200) {
      const text = await readText(res.body, MAX_ERROR_BODY_BYTES, 'WATCH', path, true);
      throw KubeApiError.fromResponse(res.statusCode, text, 'WATCH', path, res.headers);
    }
    // The watch is established once the server answered 200, even if no event comes for minutes.
    onOpen?.();
    const parse = (line: string): SizedWatchEvent => {
      try {
        const ev = parseExact(line) as WatchEvent;
        return { type: ev.type, object: ev.object, bytes: line.length };
      } catch (e: unknown) {
        throw new KubeApiError(`invalid watch event from ${path}`, 200, 'InvalidResponse', true, { cause: e });
      }
    };
    try {
      for await (const line of nonBlankLines(res.body, MAX_WATCH_EVENT_CHARS)) yield parse(line);
    } catch (e: unknown) {
      if (signal?.aborted) return;
      if (e instanceof KubeApiError) throw e;
      if (e instanceof LineTooLongError) {
        throw new KubeApiError(`watch event from ${path} longer than ${MAX_WATCH_EVENT_CHARS / 1024 / 1024} Mi characters`, 200, 'InvalidResponse', true, { cause: e });
      }
      throw networkError(e, 'WATCH', path);
    } finally {
      res.body.destroy();
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.agent.close(), this.transport?.close()]);
  }
}

/** undici's SOCKS5 agent reads requestTls (the TLS of the tunnelled connection), which its typings leave out. */
interface Socks5Options extends Socks5ProxyAgent.Options {
  requestTls?: ConnectTls;
}

/**
 * The connection pool to the server: direct, or through a proxy as client-go goes — the kubeconfig cluster's
 * `proxy-url`, else HTTPS_PROXY / HTTP_PROXY unless NO_PROXY exempts the server (env-proxy.ts): http and https
 * proxies by CONNECT (credentials in the URL as Basic auth), socks5. The URL is never quoted in an error: it may carry
 * a password.
 */
function dispatcherFor(proxy: URL | undefined, tls: ConnectTls, connections: number | undefined): Dispatcher {
  const pool = { connections: connections ?? null, keepAliveTimeout: 30_000 };
  if (!proxy) return new Agent({ ...pool, connect: tls });
  if (proxy.protocol === 'socks5:') {
    const options: Socks5Options = { ...pool, requestTls: tls };
    return new Socks5ProxyAgent(proxy, options);
  }
  return new ProxyAgent({ ...pool, uri: proxy.href, requestTls: tls });
}

/** A proxy URL, checked: http, https or socks5. */
function proxyUrlOf(proxyUrl: string | undefined, source: string): URL | undefined {
  if (proxyUrl === undefined || proxyUrl === '') return undefined;
  let url: URL;
  try {
    url = new URL(proxyUrl);
  } catch {
    throw new Error(`${source} is not a URL`);
  }
  if (!['http:', 'https:', 'socks5:'].includes(url.protocol)) throw new Error(`${source} scheme ${url.protocol} is not supported (http, https, socks5)`);
  return url;
}

/** The read of each kubeconfig's credentials in progress: whoever asks meanwhile waits for the same one. */
const credentialReads = new WeakMap<KubeConfig, Promise<https.RequestOptions>>();

/**
 * The kubeconfig's TLS material and auth headers as client-node applies them (running an auth-provider if its
 * credential is due), waited for at most `timeoutMs` and not past `signal`.
 */
function readCredentials(kc: KubeConfig, timeoutMs: number, signal?: AbortSignal): Promise<https.RequestOptions> {
  let read = credentialReads.get(kc);
  if (!read) {
    const o: https.RequestOptions = {};
    read = kc.applyToHTTPSOptions(o).then(() => o).finally(() => credentialReads.delete(kc));
    credentialReads.set(kc, read);
  }
  return awaitCredential(read, timeoutMs, signal);
}

/** Waits for a credential read at most `timeoutMs` (then CredentialTimeout, retryable) and not past `signal`. */
function awaitCredential<T>(pending: Promise<T>, timeoutMs: number, signal?: AbortSignal): Promise<T> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const settle = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    const onAbort = (): void => {
      settle();
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      settle();
      reject(new KubeApiError(`no credentials within ${timeoutMs / 1000} s: the kubeconfig's credential plugin has not answered`, 0, 'CredentialTimeout', true));
    }, timeoutMs).unref();
    signal?.addEventListener('abort', onAbort, { once: true });
    pending.then((o) => {
      settle();
      resolve(o);
    }, (e: unknown) => {
      settle();
      reject(e);
    });
  });
}

/**
 * How a client authenticates: static material read from the kubeconfig each time; a client-node auth-provider
 * (OIDC, cloud) whose headers are cached here; or an exec plugin run by us, with the credential last used.
 */
type ClientAuth =
  | { kind: 'static' }
  | { kind: 'provider' }
  | { kind: 'exec'; source: ExecCredentialSource; headers: Record<string, string>; connect: (c: ExecCredential) => Dispatcher; used: ExecCredential };

/**
 * How long a request waits on an exec plugin's run: the run is stopped at the credential timeout and says so itself;
 * this only bounds a wait on a plugin that its kill did not end.
 */
function execBackstopMs(timeoutMs: number): number {
  return timeoutMs + 5_000;
}

/** Each kubeconfig's exec credential, shared by every client made from it (a synchro restarting keeps it). */
const execSources = new WeakMap<KubeConfig, ExecCredentialSource>();

function execSourceFor(kc: KubeConfig, exec: ExecConfig, cluster: Cluster, timeoutMs: number, now: () => number): ExecCredentialSource {
  let source = execSources.get(kc);
  if (!source) {
    source = new ExecCredentialSource(exec, cluster, timeoutMs, now, execClusterConfigOf(kc));
    execSources.set(kc, source);
  }
  return source;
}

/**
 * The same kubeconfig for client-node to read TLS material and headers from: without the current user's exec stanza
 * (`withoutExec`), and with the current cluster marked insecure (`plain`: an http server, where TLS does not apply).
 */
function clientNodeView(kc: KubeConfig, o: { withoutExec: boolean; plain: boolean }): KubeConfig {
  const copy = new KubeConfig();
  const user = kc.getCurrentUser()?.name;
  const cluster = kc.getCurrentCluster()?.name;
  copy.loadFromOptions({
    clusters: kc.getClusters().map((c) => (o.plain && c.name === cluster ? { ...c, skipTLSVerify: true } : c)),
    users: kc.getUsers().map((u) => (o.withoutExec && u.name === user ? { ...u, exec: undefined } : u)),
    contexts: kc.getContexts(),
    currentContext: kc.getCurrentContext(),
  });
  return copy;
}

function headersOf(o: https.RequestOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(o.headers ?? {})) if (typeof v === 'string') headers[k] = v;
  if (typeof o.auth === 'string' && o.auth !== '') headers.Authorization = `Basic ${Buffer.from(o.auth).toString('base64')}`;
  return headers;
}

function sameHeaders(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}

function tlsMaterial(o: https.RequestOptions): TlsMaterial {
  const tls: TlsMaterial = {};
  if (o.ca) tls.ca = o.ca;
  if (o.cert) tls.cert = o.cert;
  if (o.key) tls.key = o.key as TlsMaterial['key'];
  if (o.rejectUnauthorized !== undefined) tls.rejectUnauthorized = o.rejectUnauthorized;
  return tls;
}
