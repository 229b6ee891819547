// HTTP/2 to a member where its TLS handshake picks h2, as client-go does: up to STREAMS_PER_CONNECTION requests share
// a connection, which matters for watches (one per synced type, each for as long as it runs); otherwise the client's
// HTTP/1.1 pool, a connection per request in flight.
//
// undici 7 multiplexes HTTP/2 only with `pipelining` > 1, and the same setting on a connection that ends up HTTP/1.1
// pipelines a new request behind a watch that never ends (it hangs, no timeout fires; BENCHMARKS.md "Watches per
// member"). So the protocol is learnt first, by a TLS handshake of our own, and the HTTP/2 connections take only
// sockets that negotiated h2: any other is refused, and the member's requests go over HTTP/1.1 from then on.
import { connect as tlsConnect, type ConnectionOptions, type TLSSocket } from 'node:tls';
import { isIP } from 'node:net';
import { buildConnector, Client, type Dispatcher } from 'undici';

/** Requests (watches) per HTTP/2 connection (kube-apiserver allows more; Go's default is 250, undici's 100). */
export const STREAMS_PER_CONNECTION = 100;

/** How long the handshake that learns the protocol may take. */
const PROBE_TIMEOUT_MS = 10_000;

/**
 * How a connection is known to be alive: a PING every `pingIntervalMs`, and one that has answered none for
 * `deadAfterMs` is closed, its requests failing so that they are made again on a new connection. As client-go's
 * HTTP/2 health check (ReadIdleTimeout 30 s, PingTimeout 15 s): without it a connection whose peer is gone while
 * the session never learns so (a network partition; on Node 20, also a member restarting while lists stream) holds
 * every watch and probe on it silent for good.
 */
export interface Liveness {
  pingIntervalMs: number;
  deadAfterMs: number;
}

const LIVENESS: Liveness = { pingIntervalMs: 10_000, deadAfterMs: 30_000 };

/** TLS material for connections to the member, as the client's pool uses it. */
export type TransportTls = Pick<ConnectionOptions, 'ca' | 'cert' | 'key' | 'secureContext' | 'rejectUnauthorized' | 'servername'>;

/** The protocol a TLS server picks between h2 and http/1.1; undefined when the handshake failed. */
export function negotiatedProtocol(url: URL, tls: TransportTls, timeoutMs = PROBE_TIMEOUT_MS): Promise<string | undefined> {
  return new Promise((resolve) => {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const socket: TLSSocket = tlsConnect({
      ...tls,
      host,
      port: Number(url.port || 443),
      ALPNProtocols: ['h2', 'http/1.1'],
      ...(tls.servername === undefined && !isIP(host) ? { servername: host } : {}),
    });
    const done = (protocol: string | undefined): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(protocol);
    };
    const timer = setTimeout(() => done(undefined), timeoutMs);
    socket.once('secureConnect', () => done(socket.alpnProtocol || 'http/1.1'));
    socket.once('error', () => done(undefined));
  });
}

export class Http2Transport {
  /** 'h2' once the member picked it; 'http/1.1' once it did not (then for good); undefined until known. */
  private protocol: 'h2' | 'http/1.1' | undefined;
  private probe: Promise<string | undefined> | undefined;
  /**
   * One undici Client per HTTP/2 connection, each taking up to STREAMS_PER_CONNECTION requests. Not an undici Pool:
   * a Pool counts a Client as busy while its connection is being made, so watches started together opened a
   * connection each.
   */
  private connections: Client[] = [];
  /** When each connection last showed it was alive: connected, or answered a PING. */
  private readonly alive = new WeakMap<Client, number>();
  private watchdog: NodeJS.Timeout | undefined;

  constructor(
    private readonly url: URL,
    private readonly tls: TransportTls,
    /** The client's HTTP/1.1 pool, as it is now. */
    private readonly http1: () => Dispatcher,
    private readonly probeTimeoutMs = PROBE_TIMEOUT_MS,
    private readonly liveness: Liveness = LIVENESS,
  ) {}

  /** The protocol requests use, once known. */
  get current(): 'h2' | 'http/1.1' | undefined {
    return this.protocol;
  }

  /**
   * Learns the protocol, once. A handshake that fails or times out (the member down, or this process too busy to
   * finish it) leaves the question open: the request then goes to an HTTP/2 connection, whose own handshake decides
   * (a socket that did not negotiate h2 is refused there, and the member's requests move to HTTP/1.1).
   */
  async ready(): Promise<void> {
    if (this.protocol !== undefined) return;
    this.probe ??= negotiatedProtocol(this.url, this.tls, this.probeTimeoutMs).finally(() => { this.probe = undefined; });
    const p = await this.probe;
    if (p !== undefined && this.protocol === undefined) this.protocol = p === 'h2' ? 'h2' : 'http/1.1';
  }

  /**
   * The dispatcher for the next request, after ready(). The caller must dispatch on it at once, with no await between:
   * a connection is picked by the count of streams it carries, which the dispatch itself raises.
   */
  pick(): Dispatcher {
    if (this.protocol === 'http/1.1') return this.http1();
    this.connections = this.connections.filter((c) => !c.closed && !c.destroyed);
    const free = this.connections.find((c) => c.stats.size < STREAMS_PER_CONNECTION);
    if (free) return free;
    const c = this.http2Connection();
    this.connections.push(c);
    this.watchdog ??= setInterval(() => this.closeSilent(), this.liveness.pingIntervalMs).unref();
    return c;
  }

  /** Closes the connections that answered no PING for too long (Liveness); stops looking once none is left. */
  private closeSilent(): void {
    const now = Date.now();
    this.connections = this.connections.filter((c) => !c.closed && !c.destroyed);
    for (const c of this.connections) {
      // A connection not connected now is made again by its next request ('connect' then counts as alive).
      if (!c.stats.connected) continue;
      const since = now - (this.alive.get(c) ?? now);
      if (since <= this.liveness.deadAfterMs) continue;
      this.connections = this.connections.filter((other) => other !== c);
      const seconds = Math.round(since / 1000);
      void c.destroy(new Error(`the HTTP/2 connection to ${this.url.host} answered no PING for ${seconds}s; closed, its requests are made again on a new one`)).catch(() => undefined);
    }
    if (this.connections.length === 0) this.stopWatchdog();
  }

  private stopWatchdog(): void {
    if (this.watchdog) clearInterval(this.watchdog);
    this.watchdog = undefined;
  }

  /** Closes the HTTP/2 connections (their watches end); the next request learns the protocol again. */
  async close(): Promise<void> {
    const connections = this.connections;
    this.connections = [];
    this.protocol = undefined;
    this.stopWatchdog();
    await Promise.all(connections.map((c) => c.close().catch(() => undefined)));
  }

  private http2Connection(): Client {
    const base = buildConnector({ ...this.tls, allowH2: true });
    const connect: buildConnector.connector = (options, callback) => {
      base(options, (...args) => {
        const [err, socket] = args;
        if (err) return callback(err, null);
        if ((socket as TLSSocket).alpnProtocol !== 'h2') {
          // The member stopped offering HTTP/2 (another server, a proxy in front): this Client would pipeline requests
          // on an HTTP/1.1 connection, behind watches. Refused; its requests fail once and are retried over HTTP/1.1.
          socket.destroy();
          this.protocol = 'http/1.1';
          return callback(new Error(`${this.url.host} did not negotiate HTTP/2; requests go over HTTP/1.1 from now on`), null);
        }
        callback(null, socket);
      });
    };
    const client = new Client(this.url.origin, {
      allowH2: true, pipelining: STREAMS_PER_CONNECTION, maxConcurrentStreams: STREAMS_PER_CONNECTION, keepAliveTimeout: 30_000, connect,
      pingInterval: this.liveness.pingIntervalMs,
    });
    const seen = (): void => { this.alive.set(client, Date.now()); };
    seen();
    client.on('connect', seen);
    // undici documents the 'ping' event (Client.md, pingInterval) but its Client type lists no such event.
    (client as unknown as NodeJS.EventEmitter).on('ping', seen);
    return client;
  }
}
