// The apiserver role's options: one typed tree, defaults in one place (STYLE §17).

export interface StorageConfig {
  url?: string;
  configFile?: string;
  /** How long the start waits for an unreachable database, milliseconds (storage/open.ts openStorageWaiting). */
  initializationTimeoutMs?: number;
}

export interface ServingOptions {
  bindAddress: string;
  /** HTTPS port; 0 turns HTTPS off. */
  securePort: number;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  /** Where a generated self-signed certificate is kept (apiserver.crt / apiserver.key). */
  certDir: string;
  /** Plain HTTP on 127.0.0.1; undefined = off. Anonymous access is allowed only here. */
  insecurePort?: number;
}

export interface AuthenticationOptions {
  /** CA bundle that signs client certificates accepted as users (CN = user, O = groups). */
  clientCaFile?: string;
  /** Front-proxy (aggregation layer) CA: X-Remote-User headers are trusted only from certs it signed. */
  requestheaderClientCaFile?: string;
  /** Allowed CNs of front-proxy client certificates; empty = any CN signed by the CA. */
  requestheaderAllowedNames: string[];
  requestheaderUsernameHeaders: string[];
  requestheaderGroupHeaders: string[];
  requestheaderExtraHeadersPrefix: string[];
  /** Review bearer tokens with the host cluster's TokenReview API. */
  tokenReview: boolean;
  /** How long a TokenReview answer is cached, milliseconds. */
  cacheTtlMs: number;
}

export interface AuthorizationOptions {
  /** AlwaysAllow (development) or Delegated (SubjectAccessReview to the host cluster). */
  mode: 'AlwaysAllow' | 'Delegated';
  /** Also check access per member cluster: resource `clusters` of clusterpedia.io named after it (authz-clusters.ts). */
  perCluster: boolean;
  cacheTtlMs: number;
}

export interface LimitOptions {
  /** Concurrent non-watch requests; 0 = unlimited. Excess gets 429 with Retry-After. */
  maxRequestsInflight: number;
  /** Concurrent watches; 0 = unlimited. */
  maxWatchesInflight: number;
  /** Deadline of a non-watch request, milliseconds. */
  requestTimeoutMs: number;
  /** A client that stops reading a watch is dropped once this many bytes wait for it. */
  watchBufferBytes: number;
  /** Page size applied when a list asks for no limit; 0 = no cap (kube semantics). */
  maxPageSize: number;
}

export interface WatchOptions {
  /** How often watchers poll the change log when no notification arrives, milliseconds. */
  pollIntervalMs: number;
  /** Interval of BOOKMARK events when the client allows them, milliseconds. */
  bookmarkIntervalMs: number;
  /**
   * Watches without timeoutSeconds end after a random time in [max/2, max] (kube-apiserver's --min-request-timeout
   * doubled); one that asks for a length gets it, as from kube-apiserver.
   */
  maxTimeoutSeconds: number;
}

export interface ApiserverOptions {
  storage: StorageConfig;
  /** Apply migrations at start (default true; turn off where only `clusterpedia migrate` may change the schema). */
  migrate: boolean;
  serving: ServingOptions;
  authentication: AuthenticationOptions;
  authorization: AuthorizationOptions;
  /** Host cluster kubeconfig (TokenReview, SubjectAccessReview, PediaClusters); undefined = in-cluster if present. */
  kubeconfig?: string;
  limits: LimitOptions;
  watch: WatchOptions;
  /** Change-log retention for watch: revisions and age. */
  changeLog: { revisions: number; maxAgeMs: number };
  /** Time allowed for in-flight lists to finish on shutdown, milliseconds. */
  shutdownGraceMs: number;
  /** Honour whereSQLStatement (Clusterpedia's AllowParameterizedSQLQuery gate): any reader may then run SQL. */
  allowParameterizedSqlQuery: boolean;
  /** Gzip get and list answers over 128 KiB for clients that accept it (kube-apiserver's APIResponseCompression; compress.ts). */
  apiResponseCompression: boolean;
  forward: ForwardOptions;
}

/** Subresources forwarded to member clusters (member-forward.ts). */
export interface ForwardOptions {
  /** `pods/log`: Clusterpedia's --allowed-proxy-subresources. Empty: every subresource but status and scale is a 404. */
  subresources: string[];
  /**
   * Clusterpedia's --allow-pediacluster-config-for-proxy-request: a get, list or watch asked with the
   * `search.clusterpedia.io/forward` label or the `x-clusterpedia-forward: true` header is answered by the member
   * (with the PediaCluster's credentials) instead of storage. Off: such requests are a 400.
   */
  requests: boolean;
  /** Clusterpedia's --allow-forward-unsync-resource-request: forwarded requests may name resources not synced. */
  unsynced: boolean;
  /**
   * Clusterpedia's --enable-proxy-path-for-forward-request: `…/resources/clusters/<c>/proxy/<path>` is any request
   * for the member's API, sent with the PediaCluster's credentials.
   */
  proxyPath: boolean;
  /**
   * metrics.k8s.io under a cluster's path, answered by that member's metrics-server (member-metrics.ts): `kubectl top`
   * through …/resources/clusters/<c>.
   */
  metrics: boolean;
  /** The members' OpenAPI v3 under the resources path (member-openapi.ts): `kubectl explain` through clusterpedia. */
  openapi: boolean;
  /**
   * Where a standalone apiserver finds the members' credentials: PediaCluster files (--clusters), else the host
   * cluster's PediaClusters and their Secrets in `secretsNamespace`. Binding uses the synchro's connections instead.
   */
  clustersPath?: string;
  secretsNamespace: string;
}

export function defaultApiserverOptions(): ApiserverOptions {
  return {
    storage: { url: 'sqlite:./clusterpedia.db', initializationTimeoutMs: 60_000 },
    migrate: true,
    serving: { bindAddress: '0.0.0.0', securePort: 8443, certDir: './apiserver.local.config/certificates' },
    authentication: {
      requestheaderAllowedNames: [],
      requestheaderUsernameHeaders: ['X-Remote-User'],
      requestheaderGroupHeaders: ['X-Remote-Group'],
      requestheaderExtraHeadersPrefix: ['X-Remote-Extra-'],
      tokenReview: false,
      cacheTtlMs: 10_000,
    },
    authorization: { mode: 'AlwaysAllow', perCluster: false, cacheTtlMs: 10_000 },
    limits: { maxRequestsInflight: 400, maxWatchesInflight: 2000, requestTimeoutMs: 60_000, watchBufferBytes: 8 * 1024 * 1024, maxPageSize: 0 },
    watch: { pollIntervalMs: 250, bookmarkIntervalMs: 60_000, maxTimeoutSeconds: 1800 },
    changeLog: { revisions: 200_000, maxAgeMs: 3_600_000 },
    shutdownGraceMs: 20_000,
    allowParameterizedSqlQuery: false,
    apiResponseCompression: true,
    forward: { subresources: [], requests: false, unsynced: false, proxyPath: false, metrics: false, openapi: false, secretsNamespace: 'clusterpedia-system' },
  };
}
