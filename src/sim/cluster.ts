// One simulated member (or host) cluster: store, HTTP(S) server, faults, churn, CRDs, request log; started and stopped as a unit.
import { randomBytes } from 'node:crypto';
import { silentLogger, type Logger } from '../lib/log.js';
import { adminHandler } from './admin.js';
import { Churn } from './churn.js';
import { ClusterStoreApi, type ResourceRef } from './cluster-api.js';
import { crdObject, type SimCrd } from './crds.js';
import { clone } from './deep-equal.js';
import { RequestFaults } from './faults.js';
import { RequestLog } from './request-log.js';
import { Reviews } from './reviews.js';
import { SimServer } from './server.js';
import { CRD_GR, SimStore } from './store.js';
import { generateCertificates, type SimCertificates } from './tls.js';
import { buildTopology } from './topology.js';
import type { SimObject } from './types.js';
import { WatchRegistry } from './watch.js';

export interface SimClusterOptions {
  /** Cluster name; part of every generated uid. Default "sim-1". */
  name?: string;
  /** Seed of everything generated. Default 1. */
  seed?: number;
  /** Pods the cluster starts with (plus their owners and the rest). Default 50. */
  pods?: number;
  /** Host-cluster mode: clusterpedia CRDs (pediaclusters, clustersyncresources) and the clusterpedia-system namespace. */
  host?: boolean;
  /** HTTPS with a CA made by the simulator (true), or with given certificates. Default plain HTTP. */
  tls?: boolean | SimCertificates;
  /** With TLS: also serve HTTP/2 (ALPN `h2`) as kube-apiserver does; HTTP/1.1 stays. Default false (HTTP/1.1 only). */
  http2?: boolean;
  /**
   * Answer /api and /apis in kube's aggregated discovery (apidiscovery.k8s.io v2 and v2beta1, with an ETag) to
   * clients that ask for it first, as kube-apiserver 1.27+ does. Default false: legacy JSON whatever the Accept header,
   * which every client must be able to fall back to.
   */
  aggregatedDiscovery?: boolean;
  /** Bearer token required on every request. undefined: a random one with TLS, none without; null: none. */
  token?: string | null;
  /** Also accept client certificates signed by the CA (TLS only); `clientCert` gives one. */
  clientCertAuth?: boolean;
  /** Listen port; 0 (default) picks a free one. Always 127.0.0.1. */
  port?: number;
  /** Change events retained for watch resume and consistent paging (etcd's compaction window). Default 10000. */
  windowSize?: number;
  /** BOOKMARK interval for watches that allow them, ms. Default 60000, as kube-apiserver's watch cache (once a minute). */
  bookmarkIntervalMs?: number;
  /**
   * Live changes a watch holds while its client is not reading (the socket backed up) before it is closed, as kube's
   * cacher closes an unresponsive watcher (its buffer holds about a second of changes, 10–1000). Default 100.
   */
  watchBufferEvents?: number;
  /** Requests kept in the request log. Default 10000. */
  requestLogSize?: number;
  /** "Now" of the generated timestamps, ms; fix it for byte-identical generation. Default: start time, to the minute. */
  epochMs?: number;
  logger?: Logger;
}

export interface SimFaults {
  /** Ends every open watch; cleanly by default (like kube-apiserver closing a watch), or by destroying sockets. Returns how many. */
  dropWatches(opts?: { abort?: boolean }): number;
  /** The next `count` requests (to `path` only, when given) fail with `code` (Retry-After when given). */
  failNext(count: number, code?: number, retryAfterSeconds?: number, path?: string): void;
  /** Delay every response by `ms`. */
  slow(ms: number): void;
  /**
   * From now on (until clear()) a request other than a watch ends its HTTP/2 connection with the chance given (0–1),
   * gracefully: GOAWAY, and the connection's open streams go on (kube-apiserver's --goaway-chance).
   */
  goAway(chance: number): void;
  /** Requests for `path` (a collection path, no query) with a field selector are answered 400 (until clear()). */
  refuseFieldSelectors(path: string): void;
  /**
   * The aggregated API server of `groupVersion` (`group/version`) is down until clear(): its discovery answers 503 and
   * aggregated discovery lists it Stale, with no resources, as kube-aggregator does.
   */
  unavailable(groupVersion: string): void;
  /** Close the listener and every socket: connections are refused until up(). */
  down(): Promise<void>;
  /** Listen again on the same port. */
  up(): Promise<void>;
  /** down(), then up() after `ms` (in the background). */
  downFor(ms: number): void;
  /** Forget the event history: resuming a watch or a continue token from before now gets 410 Expired. Returns the compacted revision. */
  compact(): number;
  /** Remove request faults (pending failures, delay, refused field selectors, unavailable group versions). */
  clear(): void;
}

export class SimCluster {
  readonly store: ClusterStoreApi;
  readonly faults: SimFaults;
  readonly requestLog: RequestLog;
  readonly churn: Churn;
  readonly reviews: Reviews;
  private stopped = false;
  private upTimer: NodeJS.Timeout | undefined;

  private constructor(
    readonly name: string,
    readonly url: string,
    readonly port: number,
    /** PEM of the CA that signed the server certificate (TLS only). */
    readonly caData: string | undefined,
    /** The bearer token every request needs, if any. */
    readonly token: string | undefined,
    /** A client certificate accepted by the server (TLS with clientCertAuth only). */
    readonly clientCert: { certData: string; keyData: string } | undefined,
    private readonly raw: SimStore,
    private readonly server: SimServer,
    private readonly watches: WatchRegistry,
    requestFaults: RequestFaults,
    requestLog: RequestLog,
    churn: Churn,
    reviews: Reviews,
  ) {
    this.store = new ClusterStoreApi(raw);
    this.requestLog = requestLog;
    this.churn = churn;
    this.reviews = reviews;
    this.faults = {
      dropWatches: (opts) => watches.dropAll(opts?.abort === true),
      failNext: (count, code = 500, retryAfterSeconds, path) => requestFaults.failNext(count, { code, ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}), ...(path !== undefined ? { path } : {}) }),
      slow: (ms) => { requestFaults.delayMs = ms; },
      goAway: (chance) => { requestFaults.goawayChance = chance; },
      refuseFieldSelectors: (path) => requestFaults.refuseFieldSelectors(path),
      unavailable: (gv) => requestFaults.unavailable(gv),
      down: () => this.server.close(),
      up: async () => {
        if (!this.stopped && !this.server.listening) await this.server.listen('127.0.0.1', this.port);
      },
      downFor: (ms) => {
        void this.server.close().then(() => {
          this.upTimer = setTimeout(() => void this.faults.up(), ms);
        });
      },
      compact: () => {
        raw.compact();
        return raw.window.compactedRev;
      },
      clear: () => requestFaults.clear(),
    };
  }

  static async start(opts: SimClusterOptions = {}): Promise<SimCluster> {
    const name = opts.name ?? 'sim-1';
    const seed = opts.seed ?? 1;
    const logger = (opts.logger ?? silentLogger()).child({ component: 'simulator', cluster: name });
    const topology = buildTopology({ seed, cluster: name, pods: opts.pods ?? 50, epochMs: opts.epochMs ?? Math.floor(Date.now() / 60_000) * 60_000, host: opts.host === true });
    const raw = new SimStore({ topology, host: opts.host === true, windowSize: opts.windowSize ?? 10_000 });
    const certs = opts.tls === true ? await generateCertificates() : opts.tls || undefined;
    const token = opts.token === null ? undefined : opts.token ?? (certs ? randomBytes(24).toString('hex') : undefined);
    const watches = new WatchRegistry();
    const faults = new RequestFaults();
    const log = new RequestLog(opts.requestLogSize ?? 10_000);
    const churn = new Churn(raw, seed, name);
    const reviews = new Reviews(() => token);
    raw.onDefsChange((removed) => {
      for (const gr of removed) watches.closeResource(gr);
    });
    let cluster: SimCluster | undefined;
    const server = new SimServer({
      ctx: { store: raw, watches, reviews, bookmarkIntervalMs: opts.bookmarkIntervalMs ?? 60_000, watchBufferEvents: opts.watchBufferEvents ?? 100, answerPodDeletion: (pod) => churn.answerDeletion(pod), answerOwnedDeletion: (gr, o) => churn.answerOwnedDeletion(gr, o), answerCreate: (gr, created) => churn.answerCreate(gr, created), answerUpdate: (gr, before, after) => churn.answerUpdate(gr, before, after) },
      faults, log, logger,
      token: () => token,
      aggregatedDiscovery: opts.aggregatedDiscovery === true,
      ...(certs ? { tls: { cert: certs.serverCert, key: certs.serverKey, ...(opts.clientCertAuth ? { clientCa: certs.caCert } : {}), http2: opts.http2 === true } } : {}),
      admin: adminHandler({
        dropWatches: (abort) => watches.dropAll(abort),
        failNext: (count, code, retryAfterSeconds) => cluster?.faults.failNext(count, code, retryAfterSeconds),
        slow: (ms) => cluster?.faults.slow(ms),
        clearFaults: () => faults.clear(),
        downFor: (ms) => cluster?.faults.downFor(ms),
        compact: () => cluster?.faults.compact() ?? 0,
        startChurn: (rate) => churn.start(rate),
        stopChurn: () => churn.stop(),
        state: () => ({ revision: raw.revision, compactedRevision: raw.window.compactedRev, retainedEvents: raw.window.size, watches: watches.size, churnOperations: churn.operations }),
        requestLog: log,
      }),
    });
    const port = await server.listen('127.0.0.1', opts.port ?? 0);
    const url = `${certs ? 'https' : 'http'}://127.0.0.1:${port}`;
    const clientCert = certs && opts.clientCertAuth ? { certData: certs.clientCert, keyData: certs.clientKey } : undefined;
    cluster = new SimCluster(name, url, port, certs?.caCert, token, clientCert, raw, server, watches, faults, log, churn, reviews);
    logger.debug({ url }, 'simulated cluster listening');
    return cluster;
  }

  /** The current revision (the resourceVersion a list returns now). */
  get revision(): number {
    return this.raw.revision;
  }

  /** Open watches. */
  get openWatches(): number {
    return this.watches.size;
  }

  /** Watches closed because their client stopped reading while changes kept coming (watchBufferEvents). */
  get unresponsiveWatchesClosed(): number {
    return this.watches.unresponsiveClosed;
  }

  /** Open TCP connections from clients (over HTTP/2 one carries many watches). */
  get openConnections(): number {
    return this.server.connections;
  }

  /** Of them, the HTTP/2 ones (with the `http2` option). */
  get openHttp2Connections(): number {
    return this.server.http2Sessions;
  }

  /** Serves a new CRD (discovery, list, watch) and records its object in customresourcedefinitions. */
  addCRD(crd: SimCrd): SimObject {
    return clone(this.raw.create(CRD_GR, crdObject(crd, new Date().toISOString().replace(/\.\d+Z$/, 'Z'))));
  }

  /** Removes a CRD by name ("crontabs.stable.example.com"): its objects are deleted, its watches end, discovery drops it. */
  removeCRD(name: string): void {
    this.raw.delete(CRD_GR, undefined, name);
  }

  /** Every current object of a resource, as stored (kind/apiVersion included): what a complete sync must end with. */
  snapshot(ref: ResourceRef, namespace?: string): SimObject[] {
    return this.store.list(ref, namespace);
  }

  /** Stops churn, ends watches and closes every socket. Idempotent. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.upTimer) clearTimeout(this.upTimer);
    this.churn.close();
    this.watches.dropAll(true);
    await this.server.close();
  }
}

/** Starts one simulated cluster on 127.0.0.1. */
export function startSimulatedCluster(opts: SimClusterOptions = {}): Promise<SimCluster> {
  return SimCluster.start(opts);
}
