// The apiserver role's composition root: storage → catalog → change feed → handler → HTTP server, run together.
import type { AddressInfo } from 'node:net';
import { Registry, collectDefaultMetrics } from 'prom-client';
import type { TurnQueue } from '../../lib/turns.js';
import type { Logger } from '../../lib/log.js';
import { aborted, runAll, sleep, type Runnable } from '../../lib/lifecycle.js';
import { storageMetrics } from '../../storage/metrics.js';
import { openStorageWaiting, readySchema } from '../../storage/open.js';
import type { Storage } from '../../storage/types.js';
import { buildAccess } from './authn-setup.js';
import { switchesProtocols, type MemberConnections } from './member-forward.js';
import { fileClusters, hostClusters, ResolvedMemberConnections } from './member-connections.js';
import { newHostClient } from './host-client.js';
import { Catalog } from './catalog.js';
import { loadServingCert } from './certs.js';
import { ChangeFeed } from './change-feed.js';
import { MemberBudget } from './watch.js';
import { newHandler } from './handler.js';
import { apiserverMetrics } from './metrics.js';
import type { ApiserverOptions } from './options.js';
import { ApiHttpServer } from './server.js';

export interface ApiserverDeps {
  logger: Logger;
  signal: AbortSignal;
}

export interface ApiserverParts {
  storage: Storage;
  logger: Logger;
  registry: Registry;
  /** Told the bound addresses once listening (tests, `binding --demo` printing kubectl commands). */
  onListening?: (addrs: { secure?: AddressInfo; insecure?: AddressInfo }) => void;
  /** The process's turn queue when another role shares the event loop (binding). */
  turns?: TurnQueue;
  /** The synchro's connections to members (binding): needed to forward `options.forward.subresources`. */
  members?: MemberConnections;
}

/** Runs the read path until `signal` aborts. */
export async function runApiserver(options: ApiserverOptions, deps: ApiserverDeps): Promise<void> {
  const logger = deps.logger.child({ role: 'apiserver' });
  const registry = new Registry();
  // Its only writes are change-log compactions: a writer thread (a second V8 isolate) would cost more than it saves.
  const storage = await openStorageWaiting(
    options.storage,
    { logger, changeLogRevisions: options.changeLog.revisions, changeLogMaxAgeMs: options.changeLog.maxAgeMs, sqliteWrites: 'inline', ...storageMetrics(registry) },
    { timeoutMs: options.storage.initializationTimeoutMs ?? 0, signal: deps.signal },
    (s) => readySchema(s, options.migrate, logger),
  );
  if (!storage) return;
  try {
    collectDefaultMetrics({ register: registry });
    await runAll(await apiserverRunnables(options, { storage, logger, registry }), deps.signal);
  } finally {
    await storage.close();
  }
}

/** The apiserver's runnables over a storage someone else opened (binding composes them with the synchro's). */
export async function apiserverRunnables(options: ApiserverOptions, p: ApiserverParts): Promise<Runnable[]> {
  const logger = p.logger;
  const { forward } = options;
  const own = p.members || (forward.subresources.length === 0 && !forward.requests && !forward.proxyPath && !forward.metrics && !forward.openapi) ? undefined : await memberConnections(options, logger);
  const members = p.members ?? own;
  const cert = options.serving.securePort > 0 ? await loadServingCert(options.serving, logger) : undefined;
  const catalog = new Catalog(p.storage);
  const feed = new ChangeFeed(p.storage, { pollIntervalMs: options.watch.pollIntervalMs }, logger.child({ component: 'change-feed' }));
  const metrics = apiserverMetrics(p.registry);
  // Authentication and authorization (CA files, host client for reviews): a bad flag fails the start here.
  const access = await buildAccess(options, async () => (await catalog.get()).clusters.keys(), logger);
  let server: ApiHttpServer | undefined;
  const handler = newHandler({ storage: p.storage, catalog, feed, watchMembers: new MemberBudget(), options, metrics, registry: p.registry, gate: access.gate, draining: () => server?.isDraining ?? false, ...(members ? { members } : {}) });
  server = new ApiHttpServer({
    serving: options.serving,
    limits: options.limits,
    cert,
    ...(access.clientCaPem ? { clientCa: access.clientCaPem } : {}),
    handler,
    logger,
    shutdownGraceMs: options.shutdownGraceMs,
    onListening: p.onListening,
    inflightGauge: metrics.inflight,
    ...(p.turns ? { turns: p.turns } : {}),
    // Protocol switches are taken only where a session can be forwarded; otherwise Node serves upgrade requests as
    // plain ones (bodies included), as before.
    upgrades: forward.proxyPath || switchesProtocols(forward.subresources),
  });
  const hostClient: Runnable = { name: 'host-client', start: async (signal) => { await aborted(signal); await access.close(); await own?.close(); } };
  return [server, feed, compactor(p.storage, logger), hostClient];
}

/**
 * A standalone apiserver's way to the members it forwards to: --clusters files, else the host cluster's PediaClusters
 * (a missing or broken host config is a configuration error, as for reviews).
 */
async function memberConnections(options: ApiserverOptions, logger: Logger): Promise<ResolvedMemberConnections> {
  const ttlMs = 30_000;
  const { clustersPath } = options.forward;
  if (clustersPath !== undefined) return new ResolvedMemberConnections({ specs: fileClusters(clustersPath, logger.child({ component: 'member-connections' })), ttlMs });
  const { subresources, requests } = options.forward;
  const flag = subresources.length > 0 ? '--allowed-proxy-subresources' : requests ? '--allow-pediacluster-config-for-proxy-request' : '--enable-proxy-path-for-forward-request';
  const host = hostClusters(await newHostClient(options.kubeconfig, flag), options.forward.secretsNamespace);
  return new ResolvedMemberConnections({ ...host, ttlMs });
}

/** Trims the change log to its retention window, every half minute. */
function compactor(storage: Storage, logger: Logger): Runnable {
  return {
    name: 'change-log-compactor',
    async start(signal: AbortSignal): Promise<void> {
      while (!signal.aborted) {
        await sleep(30_000, signal);
        if (signal.aborted) break;
        try {
          await storage.compact();
        } catch (e: unknown) {
          logger.warn({ err: String(e) }, 'change-log compaction failed; will retry');
        }
      }
    },
  };
}
