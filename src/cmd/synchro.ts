// `clusterpedia synchro`: the write path only. Flags → SynchroOptions → runSynchro (STYLE §2).
import { existsSync, readFileSync } from 'node:fs';
import { Command } from 'commander';
import { ConfigError } from '../lib/errors.js';
import { dns1123SubdomainProblems } from '../kube/label-selector.js';
import { defaultSynchroOptions, type SynchroOptions } from '../roles/synchro/options.js';
import { runSynchro } from '../roles/synchro/run.js';
import { setHeapGrowingPercent } from '../lib/v8-heap.js';
import { loggerFor, shutdownSignal } from './context.js';
import { heapGrowingPercentOption, option, parseBool, parseDuration, parsePositiveDuration, parsePort, parsePositiveInt, storageOptions, storageWaitOption } from './flags.js';

const SA_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** Raw values of the synchro flags as commander parses them. */
export interface SynchroFlagValues {
  storage?: string;
  storageConfig?: string;
  storageInitializationTimeout?: number;
  migrate: boolean;
  clusters?: string;
  kubeconfig?: string;
  namespace?: string;
  shardingName: string;
  pageSize: number;
  memberHttp2: boolean;
  listConcurrency: number;
  pruneManagedFields: boolean;
  pruneLastAppliedConfiguration: boolean;
  redactSecretData: boolean;
  healthInterval: number;
  healthTimeout: number;
  minWatchTimeout: number;
  discoveryInterval: number;
  statusInterval: number;
  writeBatchSize: number;
  writeFlushDelay: number;
  writeQueueMaxEntries: number;
  writeQueueMaxBytes: number;
  writeTimeout: number;
  /** Absent in binding, which has no metrics listener of the synchro's own. */
  metricsPort?: number;
  metricsHost?: string;
  heapGrowingPercent: number;
  leaderElect: boolean;
  leaderElectLeaseDuration: number;
  leaderElectRenewDeadline: number;
  leaderElectRetryPeriod: number;
  leaderElectResourceName: string;
}

/**
 * Adds the synchro's own flags (not --storage: the binding command has that once for both roles).
 * `leaderElect`: the default of --leader-elect (on for `synchro`, which may run as several replicas; off for
 * `binding`, a single process by design, as Clusterpedia's binding-apiserver). `metricsEndpoint`: its own /metrics
 * listener (binding has none: the apiserver's ports serve both roles' metrics and health).
 */
export function addSynchroFlags(cmd: Command, o: { leaderElect: boolean; metricsEndpoint: boolean } = { leaderElect: false, metricsEndpoint: true }): Command {
  const d = defaultSynchroOptions();
  const le = d.leaderElection;
  cmd
    .addOption(option('--leader-elect <bool>', 'run the write path only while holding a lease (a Lease in the host cluster, else a lease row in storage), so replicas never write at once').argParser(parseBool).default(o.leaderElect))
    .addOption(option('--leader-elect-lease-duration <duration>', 'how long a lease is valid without renewal').argParser(parsePositiveDuration).default(le.leaseDurationMs, '15s'))
    .addOption(option('--leader-elect-renew-deadline <duration>', 'a leader that cannot renew for this long stops (shorter than the lease duration)').argParser(parsePositiveDuration).default(le.renewDeadlineMs, '10s'))
    .addOption(option('--leader-elect-retry-period <duration>', 'period of acquisition attempts and renewals').argParser(parsePositiveDuration).default(le.retryPeriodMs, '2s'))
    .addOption(option('--leader-elect-resource-name <name>', 'name of the lease (a Lease in --namespace in host mode)').default(le.name))
    .addOption(option('--clusters <path>', 'YAML file or directory of PediaCluster and ClusterSyncResources objects; re-read on change'))
    .addOption(option('--kubeconfig <path>', 'host cluster whose PediaClusters are watched and whose status is written back (default: in-cluster config when present and --clusters is not given)'))
    .addOption(option('--namespace <ns>', 'namespace of authenticationFrom Secrets in the host cluster (default: the service account namespace, else clusterpedia-system)'))
    .addOption(option('--sharding-name <name>', 'serve only the clusters whose spec.shardingName is this name (absent counts as ""); each shard has its own lease').default(d.shardingName))
    .addOption(option('--page-size <n>', 'page size of member lists').argParser(parsePositiveInt).default(d.pageSize))
    .addOption(option('--member-http2 <bool>', 'talk HTTP/2 to members that offer it (TLS, no proxy), so their watches share a few connections; false: HTTP/1.1, a connection per watch').argParser(parseBool).default(d.memberHttp2))
    .addOption(option('--list-concurrency <n>', 'member lists running at once across all clusters (each holds one page in memory)').argParser(parsePositiveInt).default(d.listConcurrency))
    .addOption(option('--prune-managed-fields <bool>', 'remove metadata.managedFields before storage').argParser(parseBool).default(d.prune.managedFields))
    .addOption(option('--prune-last-applied-configuration <bool>', 'remove the kubectl last-applied-configuration annotation before storage').argParser(parseBool).default(d.prune.lastAppliedConfiguration))
    .addOption(option('--redact-secret-data <bool>', 'store Secrets without their values: data keys kept with empty values, stringData and the last-applied annotation removed; a change rewrites the stored Secrets').argParser(parseBool).default(d.prune.secretData))
    .addOption(option('--health-interval <duration>', 'member health probe period (plus up to 50% jitter)').argParser(parsePositiveDuration).default(d.health.intervalMs, '5s'))
    .addOption(option('--health-timeout <duration>', 'member health probe timeout').argParser(parsePositiveDuration).default(d.health.timeoutMs, '5s'))
    .addOption(option('--min-watch-timeout <duration>', 'member watches time out at random between this and twice this').argParser(parsePositiveDuration).default(d.watchTimeoutSeconds[0] * 1000, '5m'))
    .addOption(option('--discovery-interval <duration>', 'member discovery (CRD changes) poll period').argParser(parsePositiveDuration).default(d.discoveryIntervalMs, '30s'))
    .addOption(option('--status-interval <duration>', 'at most one status write per cluster per this period').argParser(parsePositiveDuration).default(d.statusIntervalMs, '1s'))
    .addOption(option('--write-batch-size <n>', 'objects per storage transaction').argParser(parsePositiveInt).default(d.queue.batchSize))
    .addOption(option('--write-flush-delay <duration>', 'how long a partial batch waits for more events').argParser(parseDuration).default(d.queue.flushDelayMs, '5ms'))
    .addOption(option('--write-queue-max-entries <n>', 'back-pressure: objects waiting to be written at most').argParser(parsePositiveInt).default(d.queue.maxEntries))
    .addOption(option('--write-queue-max-bytes <n>', 'back-pressure: bytes of objects waiting to be written at most').argParser(parsePositiveInt).default(d.queue.maxBytes))
    .addOption(option('--write-timeout <duration>', 'a storage write, or a read the synchro waits on, not done after this long is retried').argParser(parsePositiveDuration).default(d.queue.writeTimeoutMs, '30s'))
    .addOption(heapGrowingPercentOption())
    .addOption(option('--migrate <bool>', 'create or upgrade the storage schema at start').argParser(parseBool).default(d.storage.migrate));
  if (!o.metricsEndpoint) return cmd;
  return cmd
    .addOption(option('--metrics-port <port>', '/metrics, /healthz, /readyz and /livez; 0 turns it off').argParser(parsePort).default(d.metricsPort))
    .addOption(option('--metrics-host <address>', 'address of the metrics endpoint').default(d.metricsHost));
}

/**
 * Maps parsed flags (and, for the in-cluster default and the namespace, the process environment) to SynchroOptions.
 * `requireSource`: at least one of --clusters, --kubeconfig, in-cluster must be there (ConfigError otherwise).
 */
export function synchroOptionsFrom(v: SynchroFlagValues, o: { requireSource: boolean; env?: NodeJS.ProcessEnv } = { requireSource: true }): SynchroOptions {
  const env = o.env ?? process.env;
  const d = defaultSynchroOptions();
  const inCluster = !!env.KUBERNETES_SERVICE_HOST && existsSync(`${SA_DIR}/token`);
  const host: SynchroOptions['host'] = v.kubeconfig ? { kubeconfig: v.kubeconfig } : !v.clusters && inCluster ? { inCluster: true } : undefined;
  if (o.requireSource && !v.clusters && !host) {
    throw new ConfigError('no cluster source: give --clusters <file|dir>, --kubeconfig <host kubeconfig>, or run in a cluster');
  }
  if (v.writeFlushDelay > 10_000) throw new ConfigError('--write-flush-delay: must be at most 10s');
  if (v.leaderElect && v.leaderElectRenewDeadline >= v.leaderElectLeaseDuration) {
    throw new ConfigError('--leader-elect-renew-deadline: must be shorter than --leader-elect-lease-duration');
  }
  if (v.leaderElect && v.leaderElectRetryPeriod >= v.leaderElectRenewDeadline) {
    throw new ConfigError('--leader-elect-retry-period: must be shorter than --leader-elect-renew-deadline');
  }
  const namespace = v.namespace ?? env.CLUSTERPEDIA_NAMESPACE ?? serviceAccountNamespace() ?? d.namespace;
  if (v.shardingName !== '' && !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(v.shardingName)) {
    throw new ConfigError(`--sharding-name: "${v.shardingName}" must be lowercase letters, digits and '-', starting and ending with a letter or digit`);
  }
  // Each shard elects its own leader (Clusterpedia suffixes the lease name the same way).
  const suffixed = v.shardingName !== '' && v.leaderElectResourceName === d.leaderElection.name;
  const leaseName = suffixed ? `${d.leaderElection.name}-${v.shardingName}` : v.leaderElectResourceName;
  // The lease is a Lease object in host mode (its name a DNS-1123 subdomain, as every object's) and a row in storage
  // otherwise; a name the host would refuse is refused here, at start, rather than by every election attempt.
  const leaseProblems = dns1123SubdomainProblems(leaseName);
  if (leaseProblems.length > 0) {
    throw new ConfigError(suffixed
      ? `--sharding-name: the lease name "${leaseName}" it makes (${d.leaderElection.name}-<sharding name>) ${leaseProblems.join('; ')}`
      : `--leader-elect-resource-name: "${leaseName}" ${leaseProblems.join('; ')}`);
  }
  const minWatch = Math.max(1, Math.round(v.minWatchTimeout / 1000));
  return {
    ...d,
    storage: { url: v.storage ?? d.storage.url, configFile: v.storageConfig, migrate: v.migrate, initializationTimeoutMs: v.storageInitializationTimeout ?? d.storage.initializationTimeoutMs },
    clustersPath: v.clusters,
    host,
    namespace,
    shardingName: v.shardingName,
    pageSize: v.pageSize,
    memberHttp2: v.memberHttp2,
    listConcurrency: v.listConcurrency,
    prune: { managedFields: v.pruneManagedFields, lastAppliedConfiguration: v.pruneLastAppliedConfiguration, secretData: v.redactSecretData },
    health: { intervalMs: v.healthInterval, timeoutMs: v.healthTimeout },
    watchTimeoutSeconds: [minWatch, minWatch * 2],
    discoveryIntervalMs: v.discoveryInterval,
    statusIntervalMs: v.statusInterval,
    queue: { batchSize: v.writeBatchSize, flushDelayMs: v.writeFlushDelay, maxEntries: v.writeQueueMaxEntries, maxBytes: v.writeQueueMaxBytes, writeTimeoutMs: v.writeTimeout },
    metricsPort: v.metricsPort ?? 0,
    metricsHost: v.metricsHost ?? d.metricsHost,
    leaderElection: {
      enabled: v.leaderElect,
      name: leaseName,
      leaseDurationMs: v.leaderElectLeaseDuration,
      renewDeadlineMs: v.leaderElectRenewDeadline,
      retryPeriodMs: v.leaderElectRetryPeriod,
    },
  };
}

/** The namespace of the in-cluster service account, if running in a Pod. */
export function serviceAccountNamespace(): string | undefined {
  try {
    return readFileSync(`${SA_DIR}/namespace`, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * A --clusters path that does not exist is a mistake to report at start (a typo would otherwise run a synchro with no
 * clusters, saying so once in a warning). Once running, a file that goes away is re-read until it is back.
 */
export function requireClustersPath(o: SynchroOptions): void {
  if (o.clustersPath !== undefined && !existsSync(o.clustersPath)) {
    throw new ConfigError(`--clusters: ${o.clustersPath} does not exist (give a YAML file or a directory of them)`);
  }
}

export function newSynchroCommand(): Command {
  const cmd = new Command('synchro').description('run the write path only: list and watch member clusters into storage (one active writer per storage)');
  for (const o of storageOptions()) cmd.addOption(o);
  cmd.addOption(storageWaitOption());
  addSynchroFlags(cmd, { leaderElect: true, metricsEndpoint: true });
  cmd.action(async (_opts: unknown, command: Command) => {
    const flags = command.opts<SynchroFlagValues>();
    const options = synchroOptionsFrom(flags);
    requireClustersPath(options);
    setHeapGrowingPercent(flags.heapGrowingPercent);
    await runSynchro(options, { logger: loggerFor(command), signal: shutdownSignal() });
  });
  return cmd;
}
