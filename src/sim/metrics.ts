// metrics.k8s.io/v1beta1 as metrics-server answers it (what `kubectl top` reads): the PodMetrics of running pods and
// the NodeMetrics of nodes, get and list (with a labelSelector), never stored and never watched. Usage is made up
// from the object's uid, so every read gives the same figures and a test can compare `kubectl top` through
// clusterpedia with `kubectl top` against the member itself.
import { iso } from './gen-meta.js';
import { matchLabels, parseLabelSelector } from './label-selector.js';
import { hash32 } from './prng.js';
import { errors } from './status.js';
import type { SimStore } from './store.js';
import type { ResourceDef, SimObject } from './types.js';

const GROUP_VERSION = 'metrics.k8s.io/v1beta1';
/** metrics-server's scrape window. */
const WINDOW = '15.006s';

/** A number in [min, max] drawn from `seed`, the same for the same seed. */
const figure = (seed: string, min: number, max: number): number => min + (hash32(seed) % (max - min + 1));

/** CPU in nanocores and memory in KiB, as metrics-server writes them. */
function usage(seed: string, cpuMillis: [number, number], memMi: [number, number]): Record<string, string> {
  return { cpu: `${figure(`${seed}/cpu`, ...cpuMillis) * 1_000_000 + figure(`${seed}/n`, 0, 999_999)}n`, memory: `${figure(`${seed}/mem`, ...memMi) * 1024}Ki` };
}

function podMetrics(pod: SimObject, timestamp: string): Record<string, unknown> {
  const m = pod.metadata;
  const containers = ((pod.spec as { containers?: { name: string }[] } | undefined)?.containers ?? [])
    .map((c) => ({ name: c.name, usage: usage(`${m.uid ?? ''}/${c.name}`, [1, 400], [8, 1024]) }));
  return {
    kind: 'PodMetrics', apiVersion: GROUP_VERSION,
    metadata: { name: m.name, namespace: m.namespace, creationTimestamp: timestamp, ...(m.labels ? { labels: m.labels } : {}) },
    timestamp, window: WINDOW, containers,
  };
}

function nodeMetrics(node: SimObject, timestamp: string): Record<string, unknown> {
  const m = node.metadata;
  return {
    kind: 'NodeMetrics', apiVersion: GROUP_VERSION,
    metadata: { name: m.name, creationTimestamp: timestamp, ...(m.labels ? { labels: m.labels } : {}) },
    timestamp, window: WINDOW, usage: usage(m.uid ?? '', [100, 3000], [512, 12_288]),
  };
}

/** metrics-server has figures for pods whose containers run. */
const running = (pod: SimObject): boolean => (pod.status as { phase?: string } | undefined)?.phase === 'Running';

export function serveMetrics(store: SimStore, def: ResourceDef, method: string, namespace: string | undefined, name: string | undefined, url: URL,
  send: (code: number, body: unknown) => void): void {
  if (method !== 'GET' && method !== 'HEAD') throw errors.methodNotAllowed();
  if (url.searchParams.get('watch') === 'true' || url.searchParams.get('watch') === '1') throw errors.methodNotAllowed();
  const pods = def.resource === 'pods';
  const source = pods ? 'pods' : 'nodes';
  const timestamp = iso(Math.floor(Date.now() / 15_000) * 15_000);
  const make = (o: SimObject): Record<string, unknown> => (pods ? podMetrics(o, timestamp) : nodeMetrics(o, timestamp));
  if (name !== undefined) {
    const o = store.get(source, pods ? namespace : undefined, name);
    // metrics-server names a missing pod's metrics by namespace/name.
    if (!o || (pods && !running(o))) throw errors.notFound(`${pods ? 'pod' : 'node'}metrics.metrics.k8s.io`, pods ? `${namespace ?? ''}/${name}` : name);
    return send(200, make(o));
  }
  const selector = parseLabelSelector(url.searchParams.get('labelSelector') ?? '');
  const items: Record<string, unknown>[] = [];
  for (const [, o] of store.table(source)?.entries('', pods && namespace !== undefined ? `${namespace}/` : '') ?? []) {
    if (pods && !running(o)) continue;
    if (!matchLabels(selector, o.metadata.labels)) continue;
    items.push(make(o));
  }
  send(200, { kind: `${def.kind}List`, apiVersion: GROUP_VERSION, metadata: {}, items });
}
