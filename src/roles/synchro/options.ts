// The synchro role's one typed options tree (STYLE §17): every knob and its default in one place.

/** Options of the write path. Built by src/cmd/synchro.ts from flags; `binding` builds the same tree. */
export interface SynchroOptions {
  storage: {
    /** `sqlite:<path>`, `sqlite::memory:` or `postgres://…`. */
    url: string;
    /** Clusterpedia's internalstorage YAML; overrides `url` when set. */
    configFile?: string;
    /** Apply pending migrations before starting. */
    migrate: boolean;
    /** How long the start waits for an unreachable database, milliseconds (storage/open.ts openStorageWaiting). */
    initializationTimeoutMs: number;
  };
  /** A YAML file or directory of PediaCluster / ClusterSyncResources documents. */
  clustersPath?: string;
  /** Re-read of the clusters path as a safety net beside fs.watch, milliseconds. */
  clustersRereadMs: number;
  /** Debounce of fs.watch notifications, milliseconds (editors write files in several steps). */
  clustersDebounceMs: number;
  /** Host cluster whose PediaClusters are watched: a kubeconfig path, or 'in-cluster'. */
  host?: { kubeconfig: string } | { inCluster: true };
  /** Namespace of `authenticationFrom` Secrets in the host cluster. */
  namespace: string;
  /**
   * The shard this synchro serves (Clusterpedia's --sharding-name): it takes the clusters whose `spec.shardingName`
   * is this name (absent counts as ""), marks them with `status.shardingName`, and lets go of one whose spec moves to
   * another shard (rows kept for the new owner). "" is the default shard.
   */
  shardingName: string;
  /** Page size of member lists (limit). */
  pageSize: number;
  /**
   * Requests to a member over HTTP/2 when it offers it (TLS, no proxy): its watches then share a few connections
   * instead of holding one each. Off: HTTP/1.1 always, as Go clients with GODEBUG=http2client=0.
   */
  memberHttp2: boolean;
  /** The largest member list page read (bytes): past it the list asks for smaller pages (large Secrets, ConfigMaps). */
  maxListPageBytes: number;
  /** Lists running at once across all clusters and resources (each holds a parsed page; watches are not limited). */
  listConcurrency: number;
  prune: {
    /** Remove metadata.managedFields before storage. */
    managedFields: boolean;
    /** Remove annotation kubectl.kubernetes.io/last-applied-configuration before storage. */
    lastAppliedConfiguration: boolean;
    /** Store core/v1 Secrets with their data values emptied (keys kept) and no stringData (prune.ts redactSecret). */
    secretData: boolean;
  };
  health: {
    /** Probe period, milliseconds; each period gets up to +50 % jitter. */
    intervalMs: number;
    /** Probe timeout, milliseconds. */
    timeoutMs: number;
  };
  /** Member watch timeoutSeconds drawn uniformly from [min, max] seconds. */
  watchTimeoutSeconds: readonly [number, number];
  /** Member discovery (and CRD list) re-read period, milliseconds. */
  discoveryIntervalMs: number;
  /** Per-cluster status write period (coalescing window), milliseconds. */
  statusIntervalMs: number;
  queue: {
    /** Objects per write transaction. */
    batchSize: number;
    /** How long a partial batch waits for more events, milliseconds. */
    flushDelayMs: number;
    /** Back-pressure: pending distinct keys at most. */
    maxEntries: number;
    /** Back-pressure: pending object bytes (JSON size as received; the parsed objects take ~1.7× that) at most. */
    maxBytes: number;
    /** A storage write not settled after this long is retried, milliseconds. */
    writeTimeoutMs: number;
  };
  /** /metrics, /healthz, /readyz, /livez; 0 = off. */
  metricsPort: number;
  metricsHost: string;
  /**
   * One active writer per storage: candidates take a lease (a Lease in the host cluster in host mode, else a lease
   * row in storage) and only the holder runs the sources, the clusters and the write queue.
   */
  leaderElection: {
    enabled: boolean;
    /** Lease name (and Lease namespace in host mode: `namespace`). */
    name: string;
    leaseDurationMs: number;
    renewDeadlineMs: number;
    retryPeriodMs: number;
  };
}

/** Defaults of every field, the one place they live. */
export function defaultSynchroOptions(): SynchroOptions {
  return {
    storage: { url: 'sqlite:./clusterpedia.db', migrate: true, initializationTimeoutMs: 60_000 },
    clustersRereadMs: 30_000,
    clustersDebounceMs: 200,
    namespace: 'clusterpedia-system',
    shardingName: '',
    // Each running list holds its parsed page until its objects are queued: at 1.01 M objects into PostgreSQL,
    // 250 instead of 500 took the peak RSS from 301 to 284 MB at no loss of sync rate (BENCHMARKS.md).
    pageSize: 250,
    memberHttp2: true,
    // 250 pods are ~1 MB; 250 Helm release Secrets can be 250 MB. Four lists at once each holding at most this much
    // (and its parsed objects) keep the memory bound whatever the objects' size.
    maxListPageBytes: 8 * 1024 * 1024,
    // Storage is the bottleneck of an initial sync, not the number of lists: a few streams keep it busy.
    listConcurrency: 4,
    prune: { managedFields: true, lastAppliedConfiguration: true, secretData: false },
    // Reference §5.5: 5 s with jitter factor 0.5, 5 s timeout.
    health: { intervalMs: 5_000, timeoutMs: 5_000 },
    // Shorter than Clusterpedia's [900, 1800]: a restarted watch is cheap here (resume from RV, no relist).
    watchTimeoutSeconds: [300, 600],
    discoveryIntervalMs: 30_000,
    statusIntervalMs: 1_000,
    // 1000 rows per transaction is the sweet spot for both SQLite and PostgreSQL (toolchain.md §2).
    // 4 MiB of JSON ≈ 7 MB of parsed objects, ~1,000 pods: since SQLite writes on its own thread the event loop no
    // longer stops while a batch is written and fills the queue meanwhile, so the bound is what the queue holds. At
    // 1 M objects 4 MiB (with smaller SQLite page caches) took the sync's peak RSS from 339-344 to 314 MB and the
    // churn's from 396-410 to 383 MB at the same delay; PostgreSQL batches stay ~900 rows (BENCHMARKS.md, Synchro).
    queue: { batchSize: 1000, flushDelayMs: 5, maxEntries: 5_000, maxBytes: 4 * 1024 * 1024, writeTimeoutMs: 30_000 },
    metricsPort: 8081,
    metricsHost: '0.0.0.0',
    // kube-controller-manager's timings (reference §5.7).
    leaderElection: { enabled: false, name: 'clusterpedia-synchro', leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 },
  };
}
