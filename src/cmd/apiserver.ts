// `clusterpedia apiserver`: flags → ApiserverOptions → runApiserver (the read path).
import { Command, InvalidArgumentError } from 'commander';
import { defaultApiserverOptions, type ApiserverOptions } from '../roles/apiserver/options.js';
import { loggerFor, shutdownSignal } from './context.js';
import { setHeapGrowingPercent } from '../lib/v8-heap.js';
import { serviceAccountNamespace } from './synchro.js';
import { heapGrowingPercentOption, option, parseBool, parseDuration, parsePositiveDuration, parseNonNegativeInt, parsePort, storageOptions, storageWaitOption } from './flags.js';

function list(value: string): string[] {
  return value.split(',').map((s) => s.trim()).filter((s) => s !== '');
}

/** The apiserver's own flags (without storage, --migrate and --kubeconfig, so `binding` can add both roles' flags to one command). */
export function addApiserverFlags(cmd: Command): Command {
  const d = defaultApiserverOptions();
  return cmd
    .addOption(option('--bind-address <ip>', 'address of the HTTPS listener').default(d.serving.bindAddress))
    .addOption(option('--secure-port <port>', 'HTTPS port; 0 turns HTTPS off').argParser(parsePort).default(d.serving.securePort))
    .addOption(option('--tls-cert-file <file>', 'serving certificate (PEM); generated into --cert-dir when absent'))
    .addOption(option('--tls-private-key-file <file>', 'serving private key (PEM)'))
    .addOption(option('--cert-dir <dir>', 'where a generated self-signed certificate is kept').default(d.serving.certDir))
    .addOption(option('--insecure-port <port>', 'also serve plain HTTP on 127.0.0.1:<port> (anonymous; development and tests)').argParser(parsePort))
    .addOption(option('--client-ca-file <file>', 'accept client certificates signed by this CA (CN = user, O = groups)'))
    .addOption(option('--requestheader-client-ca-file <file>', 'trust X-Remote-User/X-Remote-Group only from clients with a certificate signed by this CA (the aggregation layer)'))
    .addOption(option('--requestheader-allowed-names <names>', 'allowed common names of front-proxy client certificates (comma-separated; empty = any)').argParser(list))
    .addOption(option('--requestheader-username-headers <headers>', 'headers carrying the user name').argParser(list).default(d.authentication.requestheaderUsernameHeaders))
    .addOption(option('--requestheader-group-headers <headers>', 'headers carrying the groups').argParser(list).default(d.authentication.requestheaderGroupHeaders))
    .addOption(option('--requestheader-extra-headers-prefix <prefixes>', 'header prefixes carrying extra user attributes').argParser(list).default(d.authentication.requestheaderExtraHeadersPrefix))
    .addOption(option('--authentication-token-webhook', 'review bearer tokens with the host cluster (TokenReview)'))
    .addOption(option('--authorization-mode <mode>', 'AlwaysAllow, or Delegated (SubjectAccessReview to the host cluster)').choices(['AlwaysAllow', 'Delegated']).default(d.authorization.mode))
    .addOption(option('--authorization-per-cluster', 'also authorize each member cluster separately (rows of clusters a user may not read are filtered out)'))
    .addOption(option('--authentication-cache-ttl <duration>', 'how long TokenReview and SubjectAccessReview answers are cached').argParser(parseDuration).default(d.authentication.cacheTtlMs, '10s'))
    .addOption(option('--max-requests-inflight <n>', 'concurrent non-watch requests before answering 429; 0 = unlimited').argParser(parseNonNegativeInt).default(d.limits.maxRequestsInflight))
    .addOption(option('--max-watches-inflight <n>', 'concurrent watches before answering 429; 0 = unlimited').argParser(parseNonNegativeInt).default(d.limits.maxWatchesInflight))
    .addOption(option('--request-timeout <duration>', 'deadline of non-watch requests').argParser(parseDuration).default(d.limits.requestTimeoutMs, '1m'))
    .addOption(option('--min-request-timeout <seconds>', 'watches without timeoutSeconds end after a random time between this and twice this').argParser(parseNonNegativeInt).default(d.watch.maxTimeoutSeconds / 2))
    .addOption(option('--watch-buffer-bytes <n>', 'a watch client that falls this far behind is disconnected').argParser(parseNonNegativeInt).default(d.limits.watchBufferBytes))
    .addOption(option('--max-page-size <n>', 'page size applied to lists that ask for no limit (they get a continue token); 0 = no cap').argParser(parseNonNegativeInt).default(d.limits.maxPageSize))
    .addOption(option('--watch-poll-interval <duration>', 'how often watches poll the change log when not notified').argParser(parsePositiveDuration).default(d.watch.pollIntervalMs, '250ms'))
    .addOption(option('--change-log-retention <revisions>', 'revisions kept in the change log for watch resume').argParser(parseNonNegativeInt).default(d.changeLog.revisions))
    .addOption(option('--change-log-max-age <duration>', 'age after which change-log entries are compacted').argParser(parseDuration).default(d.changeLog.maxAgeMs, '1h'))
    .addOption(option('--api-response-compression <bool>', 'gzip get and list answers over 128 KiB for clients that accept it, as kube-apiserver does (kubectl and client-go ask for it)').argParser(parseBool).default(d.apiResponseCompression))
    .addOption(option('--shutdown-grace-period <duration>', 'time in-flight lists get to finish on shutdown').argParser(parseDuration).default(d.shutdownGraceMs, '20s'))
    .addOption(option('--allow-parameterized-sql-query', 'honour whereSQLStatement with whereSQLParam/whereSQLJSONParams (Clusterpedia\'s AllowParameterizedSQLQuery): every reader can then query the whole database'))
    .addOption(option('--allow-pediacluster-config-for-proxy-request', 'answer get, list and watch asked with the search.clusterpedia.io/forward label or the x-clusterpedia-forward header from the member, with its PediaCluster\'s credentials'))
    .addOption(option('--allow-forward-unsync-resource-request', 'forwarded requests may name resources that are not synced'))
    .addOption(option('--enable-proxy-path-for-forward-request', 'serve …/resources/clusters/<c>/proxy/<path>: any request for the member\'s API, with its PediaCluster\'s credentials'))
    .addOption(option('--forward-metrics', 'serve metrics.k8s.io under each cluster\'s path from that member\'s metrics-server, so kubectl top works through it'))
    .addOption(option('--forward-openapi', 'serve the members\' OpenAPI schemas under the resources path, so kubectl explain works through it'))
    .addOption(option('--allowed-proxy-subresources <list>', 'subresources forwarded to the member cluster through its path (pods/log): binding uses the synchro\'s connections, apiserver the PediaClusters\' credentials').argParser(parseProxySubresources));
}

export interface ApiserverFlags {
  storage: string;
  storageConfig?: string;
  storageInitializationTimeout: number;
  migrate: boolean;
  kubeconfig?: string;
  bindAddress: string;
  securePort: number;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  certDir: string;
  insecurePort?: number;
  clientCaFile?: string;
  requestheaderClientCaFile?: string;
  requestheaderAllowedNames?: string[];
  requestheaderUsernameHeaders: string[];
  requestheaderGroupHeaders: string[];
  requestheaderExtraHeadersPrefix: string[];
  authenticationTokenWebhook?: boolean;
  authorizationMode: 'AlwaysAllow' | 'Delegated';
  authorizationPerCluster?: boolean;
  authenticationCacheTtl: number;
  maxRequestsInflight: number;
  maxWatchesInflight: number;
  requestTimeout: number;
  minRequestTimeout: number;
  watchBufferBytes: number;
  maxPageSize: number;
  watchPollInterval: number;
  changeLogRetention: number;
  changeLogMaxAge: number;
  shutdownGracePeriod: number;
  apiResponseCompression: boolean;
  allowParameterizedSqlQuery?: boolean;
  allowedProxySubresources?: string[];
  allowPediaclusterConfigForProxyRequest?: boolean;
  allowForwardUnsyncResourceRequest?: boolean;
  enableProxyPathForForwardRequest?: boolean;
  forwardMetrics?: boolean;
  forwardOpenapi?: boolean;
}

// Clusterpedia's proxy subresources (its options.go); this build forwards them all.
const CLUSTERPEDIA_PROXY = new Map([['log', ['pods']], ['exec', ['pods']], ['attach', ['pods']], ['portforward', ['pods']], ['proxy', ['pods', 'nodes', 'services']]]);

/**
 * --allowed-proxy-subresources as Clusterpedia reads it: `resource/subresource` or a bare subresource (every resource
 * offering it), `portfowrd` taken for `portforward`.
 */
export function parseProxySubresources(value: string): string[] {
  const out = new Set<string>();
  for (const raw of value.split(',').map((t) => t.trim()).filter((t) => t !== '')) {
    const parts = raw.replace('portfowrd', 'portforward').split('/');
    if (parts.length > 2) throw new InvalidArgumentError(`invalid format "${raw}"`);
    const sub = parts[parts.length - 1] ?? '';
    const resources = CLUSTERPEDIA_PROXY.get(sub)?.filter((r) => parts.length === 1 || r === parts[0]) ?? [];
    if (resources.length === 0) throw new InvalidArgumentError(`unsupported subresources or invalid format "${raw}"`);
    for (const r of resources) out.add(`${r}/${sub}`);
  }
  return [...out];
}

/** Maps parsed flags to the options tree. */
export function apiserverOptionsFrom(f: ApiserverFlags): ApiserverOptions {
  const d = defaultApiserverOptions();
  const o: ApiserverOptions = {
    ...d,
    storage: { ...(f.storageConfig ? { configFile: f.storageConfig } : { url: f.storage }), initializationTimeoutMs: f.storageInitializationTimeout },
    migrate: f.migrate,
    serving: { bindAddress: f.bindAddress, securePort: f.securePort, certDir: f.certDir },
    authentication: {
      requestheaderAllowedNames: f.requestheaderAllowedNames ?? [],
      requestheaderUsernameHeaders: f.requestheaderUsernameHeaders,
      requestheaderGroupHeaders: f.requestheaderGroupHeaders,
      requestheaderExtraHeadersPrefix: f.requestheaderExtraHeadersPrefix,
      tokenReview: f.authenticationTokenWebhook === true,
      cacheTtlMs: f.authenticationCacheTtl,
    },
    authorization: { mode: f.authorizationMode, perCluster: f.authorizationPerCluster === true, cacheTtlMs: f.authenticationCacheTtl },
    limits: {
      maxRequestsInflight: f.maxRequestsInflight,
      maxWatchesInflight: f.maxWatchesInflight,
      requestTimeoutMs: f.requestTimeout,
      watchBufferBytes: f.watchBufferBytes,
      maxPageSize: f.maxPageSize,
    },
    watch: { ...d.watch, pollIntervalMs: f.watchPollInterval, maxTimeoutSeconds: f.minRequestTimeout * 2 },
    changeLog: { revisions: f.changeLogRetention, maxAgeMs: f.changeLogMaxAge },
    shutdownGraceMs: f.shutdownGracePeriod,
    allowParameterizedSqlQuery: f.allowParameterizedSqlQuery === true,
    apiResponseCompression: f.apiResponseCompression,
    forward: { ...d.forward, subresources: f.allowedProxySubresources ?? [], requests: f.allowPediaclusterConfigForProxyRequest === true, unsynced: f.allowForwardUnsyncResourceRequest === true,
      proxyPath: f.enableProxyPathForForwardRequest === true, metrics: f.forwardMetrics === true, openapi: f.forwardOpenapi === true },
  };
  if (f.tlsCertFile) o.serving.tlsCertFile = f.tlsCertFile;
  if (f.tlsPrivateKeyFile) o.serving.tlsPrivateKeyFile = f.tlsPrivateKeyFile;
  if (f.insecurePort !== undefined) o.serving.insecurePort = f.insecurePort;
  if (f.clientCaFile) o.authentication.clientCaFile = f.clientCaFile;
  if (f.requestheaderClientCaFile) o.authentication.requestheaderClientCaFile = f.requestheaderClientCaFile;
  if (f.kubeconfig) o.kubeconfig = f.kubeconfig;
  return o;
}

export function newApiserverCommand(): Command {
  const cmd = new Command('apiserver').description('serve the clusterpedia.io/v1beta1 search API (the read path)');
  for (const o of storageOptions()) cmd.addOption(o);
  cmd.addOption(storageWaitOption());
  cmd.addOption(option('--migrate <bool>', 'create or upgrade the storage schema at start').argParser(parseBool).default(true));
  cmd.addOption(option('--kubeconfig <path>', 'host cluster kubeconfig (TokenReview, SubjectAccessReview, forwarded members\' PediaClusters); in-cluster config when present'));
  // Only where members are reached from here: binding forwards through the synchro, which has its own of both.
  cmd.addOption(option('--clusters <file|dir>', 'with --allowed-proxy-subresources: PediaCluster files to take members\' credentials from, instead of the host cluster'));
  cmd.addOption(option('--namespace <ns>', 'with --allowed-proxy-subresources: namespace of authenticationFrom Secrets in the host cluster (default: the service account namespace, else clusterpedia-system)'));
  // Not in addApiserverFlags: binding has it once, through addSynchroFlags (one process, one heap).
  cmd.addOption(heapGrowingPercentOption());
  addApiserverFlags(cmd);
  cmd.action(async (_flags: unknown, self: Command) => {
    const flags = self.opts<ApiserverFlags & { heapGrowingPercent: number; clusters?: string; namespace?: string }>();
    setHeapGrowingPercent(flags.heapGrowingPercent);
    const options = apiserverOptionsFrom(flags);
    if (flags.clusters !== undefined) options.forward.clustersPath = flags.clusters;
    options.forward.secretsNamespace = flags.namespace ?? process.env.CLUSTERPEDIA_NAMESPACE ?? serviceAccountNamespace() ?? options.forward.secretsNamespace;
    const { runApiserver } = await import('../roles/apiserver/run.js');
    await runApiserver(options, { logger: loggerFor(self), signal: shutdownSignal() });
  });
  return cmd;
}
