// The request generator: one seeded stream of hostile HTTP requests (paths, parameters, selectors, tokens, methods,
// headers, bodies) and raw-socket abuse (malformed framing, slowloris, stalled readers).
import type { Rng } from './prng.js';
import {
  ACCEPTS, CLUSTERS, FIELD_PATHS, FIELD_VALUES, FRAGMENTS, INJECTIONS, LABEL_KEYS, LABEL_VALUES, METHODS, NAMESPACES, ODD,
  RAW_URL_PIECES, SEARCH_LABELS, TYPES,
} from './corpus.js';

export const P = '/apis/clusterpedia.io/v1beta1/resources';
export const C = '/apis/clusterpedia.io/v1beta1/collectionresources';

/** A request sent with undici over a pooled keep-alive connection. */
export interface HttpCase {
  kind: 'http';
  /** What generated it (for the report's breakdown). */
  label: string;
  method: string;
  /** Raw path and query, already encoded (possibly badly, on purpose). */
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** For watches: the client hangs up after this many milliseconds. */
  watchMs?: number;
  /** Set when every positive filter value is an injection string: a 200 list must be empty. */
  expectEmpty?: string;
  /** A list that may return a continue token worth keeping for later requests (its path without `continue`). */
  harvest?: boolean;
}

/** Bytes written on a fresh connection, possibly slowly, possibly never finished. */
export interface RawCase {
  kind: 'raw';
  label: string;
  chunks: Buffer[];
  /** Pause between chunks, milliseconds (slowloris when > 0 and chunks are tiny). */
  delayMs: number;
  /** Hang up after the last chunk instead of waiting for an answer. */
  abandon: boolean;
  /** The server may close without answering (CONNECT: Node closes tunnels nobody listens for). */
  mayDrop?: boolean;
}

/** A large list read slowly or not at all, then abandoned. */
export interface SlowReadCase {
  kind: 'slow-read';
  label: string;
  path: string;
  /** 'stalled': never reads; 'trickle': reads a little every 100 ms. */
  mode: 'stalled' | 'trickle';
  holdMs: number;
}

export type FuzzCase = HttpCase | RawCase | SlowReadCase;

/** Continue tokens seen in earlier answers, with the list path (without `continue`) they belong to. */
export class TokenPool {
  private readonly items: { path: string; token: string }[] = [];
  add(path: string, token: string): void {
    if (this.items.length < 256) this.items.push({ path, token });
    else this.items[Math.floor(Math.random() * 256)] = { path, token };
  }
  pick(rng: Rng): { path: string; token: string } | undefined {
    return this.items.length === 0 ? undefined : rng.pick(this.items);
  }
}

/** Encodes like encodeURIComponent, but sometimes breaks it on purpose (raw bytes, invalid %-sequences, '+'). */
function enc(rng: Rng, s: string): string {
  let e: string;
  try {
    e = encodeURIComponent(s);
  } catch {
    // Lone surrogates: send their replacement-free UTF-16 units as broken %-escapes.
    e = [...s].map((ch) => (ch.length === 1 && ch.charCodeAt(0) >= 0xd800 && ch.charCodeAt(0) <= 0xdfff ? '%ED%A0%80' : encodeURIComponent(ch))).join('');
  }
  if (rng.chance(0.1)) {
    const at = rng.range(0, e.length);
    e = `${e.slice(0, at)}${rng.pick(RAW_URL_PIECES)}${e.slice(at)}`;
  }
  if (rng.chance(0.03)) e = e.replaceAll('%20', '+');
  return e;
}

/** Makes a path acceptable to undici (bytes 0x21–0xFF only) without undoing deliberate breakage. */
export function sendable(path: string): string {
  return path.replace(/[^\u0021-\u00ff]/gu, (ch) => encodeURIComponent(ch).replace(/%EF%BF%BD/g, '%FF'));
}

function hugeValue(rng: Rng): string {
  return rng.pick(['a', '%41', ',', 'a,', 'x=y,', '(', '\u00e9']).repeat(rng.pick([1000, 3000, 6000, 12_000, 40_000]));
}

function scalarValue(rng: Rng): string {
  return rng.weighted<() => string>([
    [4, () => rng.pick(FRAGMENTS)],
    [3, () => rng.pick(INJECTIONS)],
    [2, () => rng.pick(ODD)],
    [1, () => hugeValue(rng)],
    [2, () => String(rng.range(-5, 3000))],
  ])();
}

export function labelSelector(rng: Rng): { text: string; injected: boolean } {
  const reqs: string[] = [];
  let injected = false;
  const n = rng.range(1, 4);
  for (let i = 0; i < n; i++) {
    const key = rng.chance(0.25) ? rng.pick(SEARCH_LABELS) : rng.chance(0.85) ? rng.pick(LABEL_KEYS) : scalarValue(rng);
    let value: string;
    if (rng.chance(0.15)) {
      value = rng.pick(INJECTIONS);
      injected = true;
    } else if (key.startsWith('search.clusterpedia.io/clusters')) value = rng.pick(CLUSTERS);
    else if (key.startsWith('search.clusterpedia.io/namespaces')) value = rng.pick(NAMESPACES);
    else if (key.startsWith('search.clusterpedia.io/orderby')) value = rng.pick(['name', 'name_desc', 'created_at', 'cluster_desc', 'nope', 'resource_version']);
    else value = rng.chance(0.8) ? rng.pick(LABEL_VALUES) : scalarValue(rng);
    reqs.push(rng.weighted<string>([
      [4, `${key}=${value}`], [1, `${key}==${value}`], [2, `${key}!=${value}`], [2, `${key} in (${value},${rng.pick(LABEL_VALUES)})`],
      [1, `${key} notin (${value})`], [1, key], [1, `!${key}`], [1, `${key}>${rng.range(-3, 50)}`], [1, `${key}<${value}`],
      [1, `${key} in ${value}`], [1, `${key}${rng.pick(FRAGMENTS)}${value}`],
    ]));
  }
  return { text: reqs.join(rng.pick([',', ',', ' , ', ',,', ';'])), injected };
}

export function fieldSelector(rng: Rng): { text: string; injectedEq?: string } {
  const reqs: string[] = [];
  let injectedEq: string | undefined;
  const n = rng.range(1, 3);
  for (let i = 0; i < n; i++) {
    const path = rng.chance(0.8) ? rng.pick(FIELD_PATHS) : rng.weighted<string>([
      [2, `metadata.annotations['${rng.pick(INJECTIONS)}']`], [2, rng.pick(FRAGMENTS)], [1, `${rng.pick(FIELD_PATHS)}${rng.pick(FRAGMENTS)}`],
      [1, `spec${'.x'.repeat(rng.range(10, 200))}`], [1, `spec.containers[${rng.range(0, 5)}]${'[]'.repeat(rng.range(1, 3))}.image`],
    ]);
    let value = rng.chance(0.7) ? rng.pick(FIELD_VALUES) : rng.pick(INJECTIONS);
    if (INJECTIONS.includes(value)) {
      // Field values may not hold the selector's own punctuation; what survives is what could reach SQL.
      value = value.replace(/[\s,()=!<>]/g, '');
      if (value !== '' && n === 1 && rng.chance(0.6)) {
        reqs.push(`metadata.name=${value}`);
        injectedEq = value;
        continue;
      }
    }
    reqs.push(rng.weighted<string>([
      [4, `${path}=${value}`], [1, `${path}==${value}`], [2, `${path}!=${value}`], [2, `${path} in (${value},${rng.pick(FIELD_VALUES)})`],
      [1, `${path} notin (${value})`], [1, path], [1, `!${path}`], [1, `${path}>${rng.range(-3, 9)}`], [1, `${path}<${rng.pick(FRAGMENTS)}`],
    ]));
  }
  return injectedEq === undefined ? { text: reqs.join(',') } : { text: reqs.join(','), injectedEq };
}

function csv(rng: Rng, known: readonly string[]): { text: string; allInjected: boolean } {
  const n = rng.range(1, 3);
  const values: string[] = [];
  let injected = 0;
  for (let i = 0; i < n; i++) {
    if (rng.chance(0.3)) {
      values.push(rng.pick(INJECTIONS).replaceAll(',', ''));
      injected++;
    } else values.push(rng.chance(0.85) ? rng.pick(known) : scalarValue(rng));
  }
  return { text: values.join(rng.pick([',', ', ', ',,'])), allInjected: injected === n && values.every((v) => v.trim() !== '') };
}

function tamper(rng: Rng, token: string): string {
  return rng.weighted<() => string>([
    [3, () => token.slice(0, rng.range(0, Math.max(0, token.length - 1)))],
    [3, () => {
      const i = rng.range(0, token.length - 1);
      const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
      return `${token.slice(0, i)}${rng.pick([...alphabet])}${token.slice(i + 1)}`;
    }],
    [1, () => `${token}${token}`],
    [1, () => token.split('').reverse().join('')],
    [2, () => {
      // Same fingerprint, forged keys: injection text, wrong types, wrong counts, huge numbers.
      let fp = 'x';
      try {
        fp = String((JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { f?: unknown }).f);
      } catch {
        // not one of ours
      }
      const k = rng.pick<unknown[]>([[rng.pick(INJECTIONS), rng.pick(INJECTIONS), rng.pick(INJECTIONS)], [1e308, -1e308, 0], [null, null, null],
        [{}, [], true], Array.from({ length: 200 }, () => 'a'), [rng.pick(INJECTIONS)], ['member-1', 'default', rng.pick(INJECTIONS), '', 'v1', 'pods']]);
      return Buffer.from(JSON.stringify({ v: rng.pick([1, 1, 2, '1', null]), f: fp, k })).toString('base64url');
    }],
  ])();
}

function continueValue(rng: Rng, pool: TokenPool): string {
  const t = pool.pick(rng);
  return rng.weighted<() => string>([
    [3, () => (t ? tamper(rng, t.token) : 'eyJ2IjoxfQ')],
    [1, () => rng.pick(['0', '1', '10', '3704', '99999999999999999999', '-1', '1.5', ' 1', '0x1'])],
    [2, () => scalarValue(rng)],
    [1, () => Buffer.from(rng.pick(INJECTIONS)).toString('base64url')],
  ])();
}

interface Param {
  key: string;
  value: string;
  /** Every value of this filter is an injection string: the list must come back empty if this occurrence counts. */
  emptyIf?: string;
}

/** The query of a list, get or watch on the resources API; tracks which filters are injection-only. */
function resourceQuery(rng: Rng, pool: TokenPool, pathCluster: boolean, pathNamespace: boolean): { params: Param[]; expectEmpty?: string; watch: boolean } {
  const params: Param[] = [];
  let expectEmpty: string | undefined;
  let watch = false;
  const n = rng.range(0, 6);
  for (let i = 0; i < n; i++) {
    const which = rng.weighted<string>([
      [6, 'limit'], [3, 'continue'], [8, 'labelSelector'], [7, 'fieldSelector'], [3, 'clusters'], [3, 'namespaces'], [3, 'names'],
      [3, 'orderby'], [2, 'owner'], [2, 'time'], [2, 'flags'], [2, 'resourceVersion'], [3, 'watch'], [2, 'random'], [1, 'duplicate'],
    ]);
    switch (which) {
      case 'limit':
        params.push({ key: 'limit', value: rng.chance(0.7) ? rng.pick(['1', '2', '5', '10', '50', '100', '500']) : scalarValue(rng) });
        break;
      case 'continue':
        params.push({ key: 'continue', value: continueValue(rng, pool) });
        break;
      case 'labelSelector': {
        const s = labelSelector(rng);
        params.push({ key: 'labelSelector', value: s.text });
        break;
      }
      case 'fieldSelector': {
        const s = fieldSelector(rng);
        params.push({ key: 'fieldSelector', value: s.text, ...(s.injectedEq === undefined ? {} : { emptyIf: `fieldSelector metadata.name=${s.injectedEq}` }) });
        break;
      }
      case 'clusters':
      case 'namespaces':
      case 'names': {
        const known = which === 'clusters' ? CLUSTERS : which === 'namespaces' ? NAMESPACES : ['app-1', 'app-2-config', 'node-0', 'widget-3'];
        const v = csv(rng, known);
        // A cluster or namespace in the path replaces the parameter: then it filters nothing.
        const overridden = (which === 'clusters' && pathCluster) || (which === 'namespaces' && pathNamespace);
        params.push({ key: which, value: v.text, ...(v.allInjected && !overridden ? { emptyIf: `${which}=${v.text}` } : {}) });
        break;
      }
      case 'orderby':
        params.push({ key: 'orderby', value: rng.weighted<string>([
          [3, rng.pick(['name', 'name desc', 'cluster,namespace desc', 'created_at desc', '.status.phase', '.spec.replicas desc', 'kind'])],
          [3, rng.pick(INJECTIONS)], [2, scalarValue(rng)], [1, `.${rng.pick(FIELD_PATHS)}`],
          [1, `.metadata.annotations['${rng.pick(INJECTIONS)}'] desc`],
        ]) });
        break;
      case 'owner': {
        const key = rng.pick(['ownerUID', 'ownerName', 'ownerGR', 'ownerSeniority']);
        const v = rng.chance(0.5) ? rng.pick(INJECTIONS) : scalarValue(rng);
        params.push({ key, value: v });
        if (rng.chance(0.6)) params.push({ key: 'clusters', value: rng.pick(CLUSTERS) });
        break;
      }
      case 'time':
        params.push({ key: rng.pick(['since', 'before']), value: rng.chance(0.5) ? rng.pick(FRAGMENTS) : scalarValue(rng) });
        break;
      case 'flags':
        params.push({ key: rng.pick(['withContinue', 'withRemainingCount', 'onlyMetadata', 'injectEvents', 'allowWatchBookmarks', 'sendInitialEvents', 'pretty']), value: rng.pick(['true', 'false', '1', '0', '', 'yes', scalarValue(rng)]) });
        break;
      case 'resourceVersion':
        params.push({ key: rng.pick(['resourceVersion', 'resourceVersionMatch']), value: rng.pick(['0', '1', '', 'Exact', 'NotOlderThan', '99999999999999999999', '-5', scalarValue(rng)]) });
        break;
      case 'watch':
        watch = true;
        params.push({ key: 'watch', value: rng.pick(['true', '1', 'True']) });
        if (rng.chance(0.6)) params.push({ key: 'resourceVersion', value: rng.pick(['0', '1', '100', '3000', '3705', '99999999999', '', 'abc', '-1']) });
        if (rng.chance(0.5)) params.push({ key: 'timeoutSeconds', value: rng.pick(['1', '0', '-1', '5', '99999999999', 'x', '1.5']) });
        if (rng.chance(0.4)) params.push({ key: 'allowWatchBookmarks', value: 'true' });
        if (rng.chance(0.2)) params.push({ key: 'sendInitialEvents', value: rng.pick(['true', 'false']) });
        if (rng.chance(0.2)) params.push({ key: 'resourceVersionMatch', value: rng.pick(['NotOlderThan', 'Exact', 'x']) });
        break;
      case 'random':
        params.push({ key: rng.chance(0.5) ? scalarValue(rng) : rng.pick(FRAGMENTS), value: scalarValue(rng) });
        break;
      case 'duplicate': {
        const prev = params[rng.range(0, Math.max(0, params.length - 1))];
        if (prev) params.push({ key: prev.key, value: scalarValue(rng) });
        break;
      }
    }
  }
  // A watch or `?watch=` hidden in a duplicate must be known to the sender so it hangs up.
  if (params.some((p) => p.key === 'watch')) watch = true;
  // Only the first occurrence of a key counts (kube and Clusterpedia read the first): an injection-only filter
  // promises an empty list only when it is that occurrence.
  for (const p of params) if (p.emptyIf && params.find((q) => q.key === p.key) === p) expectEmpty = p.emptyIf;
  return expectEmpty === undefined ? { params, watch } : { params, expectEmpty, watch };
}

function queryString(rng: Rng, params: Param[]): string {
  if (params.length === 0) return rng.chance(0.05) ? '?' : '';
  // Filters that promise an empty answer are encoded exactly: a deliberately broken key would be another key.
  const one = (p: Param): string => (p.emptyIf ? `${encodeURIComponent(p.key)}=${encodeURIComponent(p.value)}`
    : rng.chance(0.02) ? enc(rng, p.key) : `${enc(rng, p.key)}=${enc(rng, p.value)}`);
  return `?${params.map(one).join(rng.chance(0.03) ? '&&' : '&')}`;
}

function segment(rng: Rng, good: string): string {
  return rng.weighted<() => string>([
    [20, () => encodeURIComponent(good)],
    [2, () => enc(rng, rng.pick(INJECTIONS))],
    [1, () => enc(rng, scalarValue(rng))],
    [1, () => rng.pick(RAW_URL_PIECES)],
  ])();
}

function resourcePath(rng: Rng): { path: string; cluster: boolean; namespace: boolean; name: boolean; injectedName: boolean; namespacedOk: boolean; clusterName?: string } {
  const t = rng.pick(TYPES);
  let path = P;
  const cluster = rng.chance(0.35);
  let clusterName: string | undefined;
  if (cluster) {
    clusterName = rng.pick(CLUSTERS);
    path += `/clusters/${segment(rng, clusterName)}`;
  }
  path += t.group === '' ? '/api/v1' : `/apis/${t.group}/${t.version}`;
  const namespace = rng.chance(t.namespaced ? 0.3 : 0.05);
  if (namespace) path += `/namespaces/${segment(rng, rng.pick(NAMESPACES))}`;
  if (rng.chance(0.03)) path += '/watch';
  path += `/${t.resource}`;
  const name = rng.chance(0.15);
  let injectedName = false;
  if (name) {
    injectedName = rng.chance(0.3);
    path += `/${injectedName ? encodeURIComponent(rng.pick(INJECTIONS)) : segment(rng, rng.pick(['app-1', 'app-1-config', 'node-0', 'widget-2', 'default', 'nope']))}`;
    if (rng.chance(0.1)) path += `/${rng.pick(['status', 'log', 'exec', 'scale', encodeURIComponent(rng.pick(INJECTIONS))])}`;
  }
  if (rng.chance(0.03)) path += '/';
  return { path, cluster, namespace, name, injectedName, namespacedOk: t.namespaced, ...(clusterName ? { clusterName } : {}) };
}

function randomPath(rng: Rng): string {
  return rng.weighted<() => string>([
    [3, () => rng.pick(['/', '/version', '/healthz', '/readyz', '/livez', '/metrics', '/healthz/ping', '/readyz/x', '/apis', '/api',
      '/apis/clusterpedia.io', '/apis/clusterpedia.io/v1beta1', '/apis/cluster.clusterpedia.io/v1alpha2/pediaclusters',
      '/apis/cluster.clusterpedia.io/v1alpha2/pediaclusters/member-1', '/openapi/v2', '/openapi/v3', '/favicon.ico', `${P}`, `${P}/api`, `${P}/apis`,
      `${P}/api/v1`, `${P}/apis/apps`, `${P}/apis/apps/v1`, `${P}/clusters/member-1/api/v1`, `${P}/clusters/member-1/apis`, `${P}/version`,
      `${P}/clusters/member-2/version`, `${P}/clusters`, `${P}/clusters/`, `${P}/clusters/member-1`, `${C}`, `${C}/any`, `${C}/workloads`])],
    [2, () => `/${Array.from({ length: rng.range(1, 12) }, () => enc(rng, rng.chance(0.5) ? rng.pick(FRAGMENTS) : scalarValue(rng))).join('/')}`],
    [1, () => `${P}/${Array.from({ length: rng.range(1, 9) }, () => rng.pick(['api', 'apis', 'v1', 'clusters', 'namespaces', 'watch', 'pods', '..', '.', '', '%2F', 'x'])).join('/')}`],
    [1, () => `/${'a/'.repeat(rng.range(100, 3000))}`],
    [1, () => `${P}/api/v1/pods${rng.pick(['/../../../../etc/passwd', '/..%2f..%2f', '%00', ';x=y', '/%2e%2e/%2e%2e', '\\..\\..'])}`],
    [1, () => `//${rng.pick(['', 'evil.example'])}${P}/api/v1/pods`],
  ])();
}

function headers(rng: Rng): Record<string, string> {
  const h: Record<string, string> = {};
  // Mostly what kubectl and client-go send, so that most requests get past negotiation to the storage.
  if (rng.chance(0.5)) h.accept = rng.chance(0.7) ? rng.pick(ACCEPTS.slice(0, 8)) : rng.pick(ACCEPTS);
  if (rng.chance(0.1)) h['user-agent'] = rng.pick(['kubectl/v1.32.0', 'curl/8.5.0', 'Mozilla/5.0', scalarValue(rng).replace(/[^\x20-\x7e]/g, ''), 'x'.repeat(rng.range(1, 8000))]);
  if (rng.chance(0.05)) h.authorization = rng.pick(['Bearer x', `Bearer ${rng.pick(INJECTIONS).replace(/[^\x20-\x7e]/g, '')}`, 'Basic YWRtaW46YWRtaW4=', 'Bearer', '']);
  if (rng.chance(0.04)) h['impersonate-user'] = rng.pick(['system:admin', 'system:serviceaccount:kube-system:x', 'system:serviceaccount:', '', rng.pick(INJECTIONS).replace(/[^\x20-\x7e]/g, '')]);
  // kubectl --as-group, --as-uid, --as-user-extra: with or without a user, keys badly percent-encoded.
  if (rng.chance(0.02)) h['impersonate-group'] = rng.pick(['system:masters', 'dev', '']);
  if (rng.chance(0.01)) h['impersonate-uid'] = 'u-1';
  if (rng.chance(0.01)) h[rng.pick(['impersonate-extra-scopes', 'impersonate-extra-%zz', 'impersonate-extra-a%2Fb'])] = 'x';
  if (rng.chance(0.04)) {
    h['x-remote-user'] = 'system:admin';
    h['x-remote-group'] = 'system:masters';
  }
  if (rng.chance(0.03)) h['content-type'] = rng.pick(['application/json', 'application/merge-patch+json', 'text/plain', 'multipart/form-data; boundary=x']);
  if (rng.chance(0.02)) h['accept-encoding'] = rng.pick(['gzip', 'br', 'deflate, gzip;q=0', '*']);
  if (rng.chance(0.02)) {
    // Oversized headers: past Node's 16 KiB header limit (431) or just under it.
    h['x-pad'] = 'p'.repeat(rng.pick([8000, 15_000, 17_000, 64_000]));
  }
  if (rng.chance(0.01)) for (let i = 0; i < rng.range(50, 3000); i++) h[`x-many-${i}`] = String(i);
  return h;
}

function body(rng: Rng): Buffer | undefined {
  return rng.weighted<() => Buffer | undefined>([
    [6, () => undefined],
    [2, () => Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: rng.pick(INJECTIONS) } }))],
    [1, () => Buffer.alloc(rng.pick([1024, 65_536, 1_048_576, 8_388_608]), 0x61)],
    [1, () => Buffer.from(Array.from({ length: rng.range(1, 4096) }, () => rng.range(0, 255)))],
  ])();
}

/** A SelfSubjectAccessReview as kubectl 1.33 posts it (protobuf, captured): mutated below. */
const SSAR_PROTOBUF = Buffer.from('6b3873000a320a17617574686f72697a6174696f6e2e6b38732e696f2f7631121753656c665375626a656374416363657373526576696577124b0a100a0012001a0022002a00320038004200122d0a2b0a046d796e7312046c6973741a0022002a09706f64732e6170707332067374617475733a067374617475731a08080012001a0020001a002200', 'hex');

/**
 * `kubectl auth can-i` / `whoami` reviews posted at the root, the fleet and a cluster's path: JSON with hostile
 * attribute values or shapes, kubectl's protobuf cut or with bytes flipped, odd content types.
 */
function reviewCase(rng: Rng): HttpCase {
  const prefix = rng.pick(['', P, `${P}/clusters/${rng.pick(['member-1', 'nope', rng.pick(INJECTIONS)])}`]);
  const access = rng.chance(0.8);
  const rules = access && rng.chance(0.2);
  const path = `${prefix}${rules ? '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews' : access ? '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews' : `/apis/authentication.k8s.io/${rng.pick(['v1', 'v1beta1', 'v1alpha1', 'v2'])}/selfsubjectreviews`}`;
  const value = (): unknown => rng.pick<unknown>([rng.pick(INJECTIONS), scalarValue(rng), 'list', 'get', '*', '', 7, null, ['x'], { a: 1 }]);
  const protobuf = (): Buffer => {
    const b = Buffer.from(SSAR_PROTOBUF);
    if (rng.chance(0.5)) return b.subarray(0, rng.range(0, b.length));
    for (let i = rng.range(1, 6); i > 0; i--) b[rng.range(0, b.length - 1)] = rng.range(0, 255);
    return b;
  };
  const [contentType, payload] = rng.weighted<() => [string, Buffer]>([
    [4, () => ['application/json', Buffer.from(JSON.stringify({ kind: rng.pick(['SelfSubjectAccessReview', 'SelfSubjectRulesReview', 'SelfSubjectReview', 'Pod', '']), apiVersion: rng.pick(['authorization.k8s.io/v1', 'authentication.k8s.io/v1', 'v1', '']),
      spec: rng.chance(0.8) ? { resourceAttributes: { verb: value(), resource: value(), group: value(), namespace: value(), name: value(), subresource: rng.chance(0.2) ? value() : '' } } : { nonResourceAttributes: { path: value(), verb: value() } } }))]],
    [3, () => ['application/vnd.kubernetes.protobuf', protobuf()]],
    [1, () => [rng.pick(['application/yaml', 'text/plain', '', 'application/json; charset=utf-8', '*/*']), body(rng) ?? Buffer.from('{}')]],
  ])();
  return { kind: 'http', label: `review:${rules ? 'rules' : access ? 'access' : 'subject'}`, method: 'POST', path: sendable(path), headers: { ...(contentType ? { 'content-type': contentType } : {}) }, body: payload };
}

/** Malformed, smuggling-shaped or slow requests written on a raw socket. */
function rawCase(rng: Rng): RawCase {
  const ok = `GET ${P}/api/v1/namespaces?limit=1 HTTP/1.1\r\nHost: x\r\n`;
  const variant = rng.weighted<string>([
    [3, 'malformed'], [2, 'smuggle'], [2, 'slowloris'], [1, 'pipeline'], [2, 'garbage'], [1, 'half'], [1, 'huge-line'], [1, 'chunked'],
  ]);
  const b = (s: string | Buffer): Buffer => (typeof s === 'string' ? Buffer.from(s, 'latin1') : s);
  switch (variant) {
    case 'malformed': {
      const text = rng.pick([
        `GET ${P}/api/v1/pods HTTP/1.1\r\n\r\n`, `GET ${P}/api/v1/pods\r\n\r\n`, `GET ${P}/api/v1/pods HTTP/9.9\r\nHost: x\r\n\r\n`,
        `GET  ${P}/api/v1/pods  HTTP/1.1\r\nHost: x\r\n\r\n`, `GET ${P}/api/v1/pods HTTP/1.1\nHost: x\n\n`, `GET ${P}/api/v1/pods HTTP/1.1\r\nHost x\r\n\r\n`,
        `GET ${P}/api/v1/pods HTTP/1.1\r\nHost: x\r\nX: a\u0000b\r\n\r\n`, `GET ${P}/api/v1/pods HTTP/1.1\r\nHost: x\r\n Folded: y\r\n\r\n`,
        `GET http://x${P}/api/v1/pods HTTP/1.1\r\nHost: x\r\n\r\n`, `GET * HTTP/1.1\r\nHost: x\r\n\r\n`, `CONNECT x:443 HTTP/1.1\r\nHost: x\r\n\r\n`,
        `GET ${P}/api/v1/pods?a=\u00ff\u00fe HTTP/1.1\r\nHost: x\r\n\r\n`, `GET /\u0000 HTTP/1.1\r\nHost: x\r\n\r\n`, 'HTTP/1.1 200 OK\r\n\r\n',
        `GET ${P}/api/v1/pods HTTP/1.0\r\n\r\n`, `get ${P}/api/v1/pods HTTP/1.1\r\nHost: x\r\n\r\n`, `GET ${P}/api/v1/pods HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n`,
        `GET ${P}/api/v1/pods HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n`, `GET ${P}/api/v1/pods HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n`,
        `GET ${P}/api/v1/pods HTTP/1.1\r\nHost: x\r\nAccept: \u00ff\u00fe\r\n\r\n`, `GET ${P}/api/v1/pods?labelSelector=%ZZ%C3%28 HTTP/1.1\r\nHost: x\r\n\r\n`,
        `GET ${P}/api/v1/pods?${'a=b&'.repeat(5000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      ]);
      return { kind: 'raw', label: 'raw:malformed', delayMs: 0, abandon: false, chunks: [b(text)], ...(text.startsWith('CONNECT') ? { mayDrop: true } : {}) };
    }
    case 'smuggle':
      return { kind: 'raw', label: 'raw:smuggle', delayMs: 0, abandon: false, chunks: [b(rng.pick([
        `POST ${P}/api/v1/pods HTTP/1.1\r\nHost: x\r\nContent-Length: 6\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nG`,
        `POST ${P}/api/v1/pods HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: x\r\n\r\n0\r\n\r\n`,
        `POST ${P}/api/v1/pods HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!`,
        `POST ${P}/api/v1/pods HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n`,
        `POST ${P}/api/v1/pods HTTP/1.1\r\nHost: x\r\nTransfer-Encoding:\u000bchunked\r\n\r\n0\r\n\r\n`,
        `GET ${P}/api/v1/pods HTTP/1.1\r\nHost: x\r\nContent-Length: 44\r\n\r\nGET ${P}/api/v1/secrets HTTP/1.1\r\nHost: x\r\n\r\n`,
      ]))] };
    case 'slowloris': {
      // Headers dribbled a few bytes at a time; sometimes finished (an answer is due), sometimes abandoned.
      const full = `${ok}User-Agent: slowloris\r\n${'X-A: b\r\n'.repeat(rng.range(0, 20))}\r\n`;
      const finish = rng.chance(0.5);
      const text = finish ? full : full.slice(0, rng.range(5, full.length - 3));
      // At most 40 pieces: a slowloris case lasts under 2.5 s, so the run stays bounded.
      const size = Math.max(rng.range(1, 8), Math.ceil(text.length / 40));
      const chunks: Buffer[] = [];
      for (let i = 0; i < text.length; i += size) chunks.push(b(text.slice(i, i + size)));
      return { kind: 'raw', label: 'raw:slowloris', delayMs: rng.range(10, 60), abandon: !finish, chunks };
    }
    case 'pipeline':
      return { kind: 'raw', label: 'raw:pipeline', delayMs: 0, abandon: false, chunks: [b(`${ok}\r\n`.repeat(rng.range(2, 50)).replace(/\r\n\r\n$/, '\r\nConnection: close\r\n\r\n'))] };
    case 'garbage':
      return { kind: 'raw', label: 'raw:garbage', delayMs: 0, abandon: rng.chance(0.3), chunks: [Buffer.from(Array.from({ length: rng.range(1, 20_000) }, () => rng.range(0, 255)))] };
    case 'half':
      return { kind: 'raw', label: 'raw:half', delayMs: 0, abandon: true, chunks: [b(ok.slice(0, rng.range(1, ok.length)))] };
    case 'huge-line':
      return { kind: 'raw', label: 'raw:huge-line', delayMs: 0, abandon: false, chunks: [b(`GET ${P}/api/v1/pods?x=${'a'.repeat(rng.pick([20_000, 100_000, 1_000_000]))} HTTP/1.1\r\nHost: x\r\n\r\n`)] };
    default:
      return { kind: 'raw', label: 'raw:chunked', delayMs: 0, abandon: false, chunks: [b(`POST ${P}/api/v1/pods HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n`),
        b(rng.pick(['ffffffffffffffff\r\n', '-1\r\n', '5\r\nabc\r\n0\r\n\r\n', `${'f'.repeat(100)}\r\n`, '3;ext="x"\r\nabc\r\n0\r\nTrailer: x\r\n\r\n']))] };
  }
}

/** The next request of the stream. */
export function generate(rng: Rng, pool: TokenPool): FuzzCase {
  const kind = rng.weighted<string>([[62, 'resource'], [7, 'collection'], [3, 'pediaclusters'], [9, 'path'], [6, 'method'], [3, 'headers'], [5, 'raw'], [2, 'slow'], [6, 'token'], [3, 'review']]);
  switch (kind) {
    case 'review':
      return reviewCase(rng);
    case 'resource': {
      const r = resourcePath(rng);
      const q = resourceQuery(rng, pool, r.cluster, r.namespace);
      const c: HttpCase = { kind: 'http', label: q.watch ? 'resource:watch' : r.name ? 'resource:get' : 'resource:list', method: 'GET', path: sendable(`${r.path}${queryString(rng, q.params)}`), headers: headers(rng) };
      if (q.watch || r.path.includes('/watch/')) c.watchMs = rng.range(20, 400);
      if (r.injectedName) c.expectEmpty = 'name in path';
      else if (q.expectEmpty && !r.name) c.expectEmpty = q.expectEmpty;
      if (!r.name && !c.watchMs && q.params.some((p) => p.key === 'limit')) c.harvest = true;
      return c;
    }
    case 'collection': {
      const name = rng.pick(['any', 'workloads', 'kuberesources', 'nope', rng.pick(INJECTIONS)]);
      const params: Param[] = [];
      if (name === 'any' || rng.chance(0.3)) {
        if (rng.chance(0.7)) params.push({ key: 'groups', value: rng.pick(['*', 'apps', 'apps/v1', '', '/', 'apps/v1/x', rng.pick(INJECTIONS), scalarValue(rng)]) });
        if (rng.chance(0.5)) params.push({ key: 'resources', value: rng.pick(['apps/deployments', '/pods', 'apps/v1/deployments', '//pods', 'x', rng.pick(INJECTIONS), scalarValue(rng)]) });
      }
      params.push(...resourceQuery(rng, pool, false, false).params.filter((p) => p.key !== 'watch'));
      if (!params.some((p) => p.key === 'limit') && rng.chance(0.8)) params.push({ key: 'limit', value: String(rng.range(1, 50)) });
      return { kind: 'http', label: 'collection', method: 'GET', path: sendable(`${C}/${enc(rng, name)}${queryString(rng, params)}`), headers: headers(rng) };
    }
    case 'pediaclusters': {
      // The read API of the registered clusters: selectors, includeObject, watch and resourceVersion as on resources.
      const name = rng.chance(0.2) ? `/${enc(rng, rng.pick(['member-1', 'nope', rng.pick(INJECTIONS)]))}` : '';
      const q = resourceQuery(rng, pool, false, false);
      const params = [...q.params];
      if (rng.chance(0.2)) params.push({ key: 'includeObject', value: rng.pick(['Object', 'None', 'Metadata', '', scalarValue(rng)]) });
      const c: HttpCase = { kind: 'http', label: q.watch ? 'pediaclusters:watch' : 'pediaclusters', method: 'GET', path: sendable(`/apis/cluster.clusterpedia.io/v1alpha2/pediaclusters${name}${queryString(rng, params)}`), headers: headers(rng) };
      if (q.watch) c.watchMs = rng.range(20, 400);
      return c;
    }
    case 'path':
      return { kind: 'http', label: 'path', method: 'GET', path: sendable(randomPath(rng)), headers: headers(rng) };
    case 'method': {
      const r = rng.chance(0.7) ? resourcePath(rng).path : randomPath(rng);
      const method = rng.pick(METHODS);
      const b = method === 'GET' || method === 'HEAD' ? undefined : body(rng);
      return { kind: 'http', label: `method:${method.toUpperCase() === method ? method : 'odd'}`, method, path: sendable(r), headers: headers(rng), ...(b ? { body: b } : {}) };
    }
    case 'headers': {
      const r = resourcePath(rng);
      const h = headers(rng);
      h.accept = rng.pick(ACCEPTS);
      h['x-pad'] = 'p'.repeat(rng.pick([100, 8000, 15_000, 17_000, 100_000]));
      return { kind: 'http', label: 'headers', method: 'GET', path: sendable(`${r.path}?limit=${rng.range(1, 20)}`), headers: h };
    }
    case 'raw':
      return rawCase(rng);
    case 'slow':
      return rng.chance(0.5)
        ? { kind: 'slow-read', label: 'slow:stalled', path: rng.pick([`${P}/api/v1/pods`, `${C}/any?groups=*`, `${P}/api/v1/pods?watch=true`]), mode: 'stalled', holdMs: rng.range(200, 1500) }
        : { kind: 'slow-read', label: 'slow:trickle', path: rng.pick([`${P}/api/v1/pods`, `${P}/apis/apps/v1/deployments`]), mode: 'trickle', holdMs: rng.range(200, 1500) };
    default: {
      // Continue tokens replayed as issued (valid), on another list (foreign), or damaged.
      const t = pool.pick(rng);
      if (!t) return { kind: 'http', label: 'token:none', method: 'GET', path: `${P}/api/v1/pods?limit=3`, headers: {}, harvest: true };
      const mode = rng.pick(['valid', 'valid', 'foreign', 'tampered']);
      const other = resourcePath(rng).path;
      const path = mode === 'foreign' ? `${other}?limit=5` : t.path;
      const token = mode === 'tampered' ? tamper(rng, t.token) : t.token;
      const sep = path.includes('?') ? '&' : '?';
      return { kind: 'http', label: `token:${mode}`, method: 'GET', path: sendable(`${path}${sep}continue=${encodeURIComponent(token)}`), headers: {}, harvest: mode === 'valid' };
    }
  }
}
