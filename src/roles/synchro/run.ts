// The synchro role's composition root (STYLE §3): storage, write queue, cluster manager, sources, metrics — then runAll.
import { KubeConfig } from '@kubernetes/client-node';
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { Logger } from 'pino';
import { ConfigError, messageOf } from '../../lib/errors.js';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { runLeaderElection, type LeaseLock } from '../../lib/leader-election.js';
import { FencedHostLock, storageLeaseLock } from './leader-lock.js';
import { runAll, type Clock, type Runnable } from '../../lib/lifecycle.js';
import { KubeLeaseLock } from '../../kube/lease-lock.js';
import { KubeClient } from '../../kube/client.js';
import { kubeConfigFromFile } from '../../kube/kubeconfig.js';
import { storageMetrics } from '../../storage/metrics.js';
import { openStorageWaiting, readySchema } from '../../storage/open.js';
import type { Storage, StorageWriter } from '../../storage/types.js';
import type { TurnQueue } from '../../lib/turns.js';
import { ClusterManager } from './cluster-manager.js';
import { FileClusterSource } from './cluster-source-file.js';
import { HostClusterSource } from './cluster-source-host.js';
import { SynchroMetrics } from './metrics.js';
import { MetricsServer } from './metrics-server.js';
import type { SynchroOptions } from './options.js';
import { WriteQueue } from './write-queue.js';

export interface SynchroDeps {
  logger: Logger;
  signal: AbortSignal;
  /** A storage opened by the caller (the binding role shares one); opened and closed here when absent. */
  storage?: Storage;
  clock?: Clock;
}

/** What synchroRunnables builds: the runnables plus handles tests and binding may use. */
export interface SynchroParts {
  runnables: Runnable[];
  manager: ClusterManager;
  queue: WriteQueue;
  metrics: SynchroMetrics;
  /** Closes what the parts opened (the host cluster client); storage is the caller's. */
  close(): Promise<void>;
}

/**
 * Builds the synchro over an opened storage, without running it: the binding role composes these runnables with
 * the apiserver's. The metrics server is included only when `options.metricsPort` is not 0.
 */
export async function synchroRunnables(
  options: SynchroOptions,
  deps: {
    storage: Storage; logger: Logger; registry?: Registry; clock?: Clock; metricsListening?: (port: number) => void;
    /** The process's turn queue when another role shares the event loop (binding): each write batch waits its turn. */
    turns?: TurnQueue;
  },
): Promise<SynchroParts> {
  const logger = deps.logger.child({ role: 'synchro' });
  const registry = deps.registry ?? new Registry();
  const metrics = new SynchroMetrics(registry);
  const queue = new WriteQueue({
    writer: deps.turns ? takingTurns(deps.storage, deps.turns) : deps.storage,
    batchSize: options.queue.batchSize,
    flushDelayMs: options.queue.flushDelayMs,
    maxEntries: options.queue.maxEntries,
    maxBytes: options.queue.maxBytes,
    writeTimeoutMs: options.queue.writeTimeoutMs,
    advanceRevision: (to) => deps.storage.advanceRevision(to),
    logger,
    metrics,
    clock: deps.clock,
  });
  const manager = new ClusterManager({ storage: deps.storage, queue, options, logger, metrics, clock: deps.clock });
  const runnables: Runnable[] = [queue, manager];
  const closers: (() => Promise<void>)[] = [];
  let hostClient: KubeClient | undefined;

  if (options.clustersPath) {
    runnables.push(new FileClusterSource({
      path: options.clustersPath, manager, logger, shardingName: options.shardingName, rereadMs: options.clustersRereadMs, debounceMs: options.clustersDebounceMs, clock: deps.clock,
    }));
  }
  if (options.host) {
    let client: KubeClient;
    try {
      let kc: KubeConfig;
      if ('kubeconfig' in options.host) kc = kubeConfigFromFile(options.host.kubeconfig);
      else {
        kc = new KubeConfig();
        kc.loadFromCluster();
      }
      client = await KubeClient.create(kc, { userAgent: 'clusterpedia-synchro' });
    } catch (e: unknown) {
      // Only the first line: YAML parser messages quote the offending lines, and a kubeconfig holds credentials.
      const reason = messageOf(e).split('\n')[0] ?? '';
      logger.error({ err: reason }, 'cannot load the host cluster config');
      const where = 'kubeconfig' in options.host ? `--kubeconfig ${options.host.kubeconfig}` : 'the in-cluster config (no --kubeconfig given)';
      throw new ConfigError(`${where}: ${reason}`);
    }
    closers.push(() => client.close());
    hostClient = client;
    runnables.push(new HostClusterSource({
      client, manager, namespace: options.namespace, shardingName: options.shardingName, logger, watchTimeoutSeconds: options.watchTimeoutSeconds, resyncMs: 60_000, clock: deps.clock,
    }));
  }
  let all = runnables;
  if (options.leaderElection.enabled) {
    const identity = `${hostname()}_${process.pid}_${randomBytes(4).toString('hex')}`;
    const { name } = options.leaderElection;
    // Every write is fenced by the storage lease of the same name (leader-lock.ts): a leader that lost it with a
    // write in flight commits that write before its successor takes over, or not at all.
    deps.storage.fenceWrites({ lease: name, holder: identity });
    const lock = hostClient
      ? new FencedHostLock(new KubeLeaseLock(hostClient, options.namespace, name), deps.storage, name, {
        storageWithinMs: Math.max(1, Math.round(options.leaderElection.renewDeadlineMs / 4)), logger: logger.child({ component: 'leader-election' }), clock: deps.clock,
      })
      : storageLeaseLock(deps.storage, name);
    all = [leading(options, runnables, lock, identity, logger, deps.clock)];
  }
  if (options.metricsPort !== 0) {
    // Outside leader election: a follower is healthy and exposes its metrics too.
    all.push(new MetricsServer({
      host: options.metricsHost, port: options.metricsPort, registry, logger, listening: deps.metricsListening,
      notReady: () => (queue.storageAvailable ? undefined : 'storage unavailable'),
    }));
  }
  return { runnables: all, manager, queue, metrics, close: async () => { for (const c of closers) await c(); } };
}

/** The writing parts, run only while this process holds the lease; losing it fails the role (the process restarts). */
function leading(options: SynchroOptions, runnables: Runnable[], lock: LeaseLock, identity: string, logger: Logger, clock?: Clock): Runnable {
  const le = options.leaderElection;
  return {
    name: 'leader-election',
    start: (signal) => runLeaderElection({
      lock, identity,
      leaseDurationMs: le.leaseDurationMs, renewDeadlineMs: le.renewDeadlineMs, retryPeriodMs: le.retryPeriodMs,
      logger: logger.child({ component: 'leader-election' }), clock,
    }, signal, (leaderSignal) => runAll(runnables, leaderSignal)),
  };
}

/** A writer whose batches start in turn with the other work of the event loop (turns.ts). */
function takingTurns(storage: StorageWriter, turns: TurnQueue): Pick<StorageWriter, 'write'> {
  return {
    async write(batch) {
      await turns.wait();
      return storage.write(batch);
    },
  };
}

/** Opens the synchro's own storage, waiting for it to be reachable and its schema ready; undefined if stopped first. */
async function open(options: SynchroOptions, logger: Logger, signal: AbortSignal, registry: Registry): Promise<Storage | undefined> {
  const { url, configFile, migrate, initializationTimeoutMs } = options.storage;
  try {
    return await openStorageWaiting({ url, configFile }, { logger, ...storageMetrics(registry) }, { timeoutMs: initializationTimeoutMs, signal }, (s) => readySchema(s, migrate, logger));
  } catch (e: unknown) {
    logger.error({ err: messageOf(e) }, 'cannot open storage');
    throw e;
  }
}

/** Runs the synchro role until `deps.signal` aborts (or a part fails). */
export async function runSynchro(options: SynchroOptions, deps: SynchroDeps): Promise<void> {
  const logger = deps.logger.child({ role: 'synchro' });
  const owned = !deps.storage;
  // Alone, the synchro's /metrics also carries the process metrics (heap, RSS, event-loop lag) and, for the storage
  // it opens, storage's own; binding adds its own.
  const registry = new Registry();
  const storage = deps.storage ?? (await open(options, logger, deps.signal, registry));
  if (!storage) return;
  try {
    if (!owned && options.storage.migrate) await readySchema(storage, true, logger);
    collectDefaultMetrics({ register: registry });
    const parts = await synchroRunnables(options, { storage, logger: deps.logger, clock: deps.clock, registry });
    try {
      await runAll(parts.runnables, deps.signal);
    } finally {
      await parts.close();
    }
  } finally {
    if (owned) await storage.close();
  }
}
