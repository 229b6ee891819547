// Hostile values: SQL injection in many dialect flavours, broken encodings, grammar fragments, realistic names.
import { clusterName, NAMESPACES } from '../dataset.js';

/** Strings that would change or widen a query if any reached SQL as text. None occurs in any stored name or value. */
export const INJECTIONS: readonly string[] = [
  "' OR '1'='1", "' OR 1=1--", "1' OR '1'='1' --", "'; DROP TABLE resources;--", '"; DELETE FROM resources; --',
  "') OR ('a'='a", "%' OR '%'='", "\\' OR 1=1 #", "' UNION SELECT * FROM resources--", "' UNION ALL SELECT name,name FROM sqlite_master--",
  "1; UPDATE resources SET name='x'", "'; SELECT pg_sleep(5);--", "1' AND (SELECT 1 FROM pg_sleep(5))--", '$$; DROP TABLE resources; $$',
  "' || (SELECT object FROM resources LIMIT 1) || '", '*/ OR /*', "' OR ''='", "admin'--", '1 OR 1=1', 'name; DROP TABLE resources',
  "json_extract(object,'$.metadata.name')", "'); ATTACH DATABASE '/tmp/pwn.db' AS pwn;--", "x' COLLATE NOCASE --", "\u0000' OR 1=1--",
  "'||'", '%', '_', '%%', '\\', "\\'", '"', '`', '`; DROP TABLE `resources`', "' AND 1=CAST((SELECT version()) AS int)--",
  "'; VACUUM; --", "'; PRAGMA writable_schema=1; --", "?", '$1', ':name', "' OR name LIKE '%", 'member-1\' OR cluster LIKE \'%',
];

/** Values shaped like the grammar the server parses: selector operators, paths, numbers at the edges. */
export const FRAGMENTS: readonly string[] = [
  '', ' ', ',', ',,', '=', '==', '!=', '!', '(', ')', 'in', 'notin', '>', '<', '[]', '[0]', '[-1]', '[99999999999]', "['a.b']", '.',
  '..', '...', 'metadata', 'metadata.name', '.metadata.labels', 'spec.containers[].image', "metadata.annotations['x']", 'status.phase',
  '0', '-0', '1', '-1', '+1', '007', '1e3', '0x10', '9223372036854775807', '9223372036854775808', '-9223372036854775809',
  '99999999999999999999999999', 'NaN', 'Infinity', 'null', 'true', 'false', 'TRUE', 'desc', ' desc', 'name desc', 'name  desc',
  '.status.phase desc', 'created_at_desc', '2024-01-01', '2024-01-01T00:00:00Z', '2024-01-01T00:00:00+25:00', '1704067200',
  '1704067200000', '0000-00-00', '9999-12-31T23:59:59.999999999Z', 'apps/v1', '/pods', 'apps/deployments', '*', '/', '//',
];

/** Non-ASCII, control and oddly-sized text. */
export const ODD: readonly string[] = [
  '\u00e9', '\u4e2d\u6587', '\ud83d\ude00', '\u202e', '\ufeff', '\u0000', '\t', '\n', '\r\n', '\u2028', '\u0085', '\u00a0', 'A'.repeat(64),
  'a'.repeat(254), 'x'.repeat(4096), '\ud800', '\udfff', 'ＡＢＣ', 'İ', 'ß', '\u0301e',
];

/** Broken percent-encodings and byte sequences, to be placed in a URL as-is (never re-encoded). */
export const RAW_URL_PIECES: readonly string[] = [
  '%', '%%', '%Z1', '%1', '%G0', '%C3%28', '%A0%A1', '%E2%82', '%E2%28%A1', '%F0%28%8C%BC', '%C0%AF', '%ED%A0%80', '%FF', '%FE%FF',
  '%00', '%0A', '%0D%0A', '%25', '%2525', '%2F', '%5C', '%2e%2e', '..', '%252e%252e', '+', '%20', ';', '&', '&&', '=', '==', '#',
  '\u00ff', '\u00c3', '\u0080',
];

export const CLUSTERS: readonly string[] = [clusterName(0), clusterName(1), clusterName(2), clusterName(3), clusterName(4), 'no-such-cluster', 'c1'];
export { NAMESPACES };

/** Group/version/resource triples: stored ones and some that are not. */
export const TYPES: readonly { group: string; version: string; resource: string; namespaced: boolean }[] = [
  { group: '', version: 'v1', resource: 'pods', namespaced: true },
  { group: '', version: 'v1', resource: 'services', namespaced: true },
  { group: '', version: 'v1', resource: 'configmaps', namespaced: true },
  { group: '', version: 'v1', resource: 'namespaces', namespaced: false },
  { group: '', version: 'v1', resource: 'nodes', namespaced: false },
  { group: 'apps', version: 'v1', resource: 'deployments', namespaced: true },
  { group: 'apps', version: 'v1', resource: 'replicasets', namespaced: true },
  { group: 'example.io', version: 'v1alpha1', resource: 'widgets', namespaced: true },
  { group: '', version: 'v1', resource: 'secrets', namespaced: true },
  { group: 'batch', version: 'v1', resource: 'jobs', namespaced: true },
  { group: 'apps', version: 'v2', resource: 'deployments', namespaced: true },
];

export const LABEL_KEYS: readonly string[] = ['app', 'tier', 'team', 'app.kubernetes.io/name', 'pod-template-hash', 'size', 'kubernetes.io/metadata.name', 'missing'];
export const LABEL_VALUES: readonly string[] = ['app-1', 'app-17', 'frontend', 'backend', 'team-3', 'l', 's', 'x', ''];
export const FIELD_PATHS: readonly string[] = [
  'metadata.name', 'metadata.namespace', 'status.phase', 'spec.nodeName', 'spec.containers[].image', 'spec.containers[0].name',
  '.metadata.labels.app', "metadata.annotations['shadow.clusterpedia.io/cluster-name']", 'spec.replicas', 'status.readyReplicas',
  'spec.type', 'data.owner', 'spec.size', 'status.containerStatuses[].restartCount', 'spec.template.spec.containers[].image',
];
export const FIELD_VALUES: readonly string[] = ['Running', 'Pending', 'node-1', 'default', 'team-a', 'envoyproxy/envoy:v1.30', '3', '5', 'ClusterIP', 'team-2'];

export const SEARCH_LABELS: readonly string[] = [
  'clusters', 'namespaces', 'names', 'orderby', 'owner-uid', 'owner-name', 'owner-gr', 'owner-seniority', 'since', 'before', 'limit',
  'offset', 'with-continue', 'with-remaining-count', 'inject-events', 'forward', 'unknown',
].map((k) => `search.clusterpedia.io/${k}`).concat(['internalstorage.clusterpedia.io/fuzzy-name', 'internalstorage.clusterpedia.io/other']);

export const ACCEPTS: readonly string[] = [
  'application/json', 'application/yaml', 'application/json;as=Table;v=v1;g=meta.k8s.io', 'application/json;as=Table;v=v1beta1;g=meta.k8s.io',
  'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json',
  'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io', 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io',
  'application/yaml;as=Table;v=v1;g=meta.k8s.io', 'application/vnd.kubernetes.protobuf', 'application/vnd.kubernetes.protobuf;stream=watch',
  'text/html', '*/*', '*', 'application/*', 'application/json;q=0', 'application/json;q=abc', 'application/json;as=Table', ';;;,,,',
  'application/json;as=Table;v=v9;g=meta.k8s.io', 'application/json;as=Nope;v=v1;g=meta.k8s.io', `application/json;${'x=y;'.repeat(500)}`,
  'application/json, text/plain;q=0.9, */*;q=0.1', 'text/yaml', 'application/x-yaml', '\u00ff\u00fe',
];

export const METHODS: readonly string[] = ['GET', 'GET', 'GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'PROPFIND', 'FOO', 'get'];
