// Test helpers: HTTP calls and a line-by-line watch reader against a simulated cluster (real sockets, undici).
import { Agent, fetch, type Dispatcher } from 'undici';
import type { SimCluster, SimObject } from '../../src/sim/index.js';

const agents = new WeakMap<SimCluster, Agent>();

/** An undici dispatcher trusting the cluster's CA (plain HTTP needs none). */
export function dispatcherFor(c: SimCluster): Dispatcher | undefined {
  if (!c.caData) return undefined;
  let a = agents.get(c);
  if (!a) {
    a = new Agent({ connect: { ca: c.caData } });
    agents.set(c, a);
  }
  return a;
}

export interface CallResult<T = Record<string, unknown>> {
  status: number;
  body: T;
  headers: Headers;
}

export async function call<T = Record<string, unknown>>(c: SimCluster, path: string, init: { method?: string; body?: unknown; contentType?: string; headers?: Record<string, string> } = {}): Promise<CallResult<T>> {
  const headers: Record<string, string> = { accept: 'application/json', ...(init.headers ?? {}) };
  if (c.token) headers.authorization = `Bearer ${c.token}`;
  if (init.body !== undefined) headers['content-type'] = init.contentType ?? 'application/json';
  const d = dispatcherFor(c);
  const res = await fetch(c.url + path, { method: init.method ?? 'GET', headers, ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}), ...(d ? { dispatcher: d } : {}) });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Health endpoints answer text.
  }
  return { status: res.status, body: body as T, headers: res.headers as unknown as Headers };
}

export interface WatchEvent {
  type: string;
  object: SimObject & Record<string, unknown>;
}

/** A watch whose events are read one at a time; `close()` aborts it. `ended` resolves when the server ends the stream. */
export interface WatchReader {
  next(timeoutMs?: number): Promise<WatchEvent>;
  /** Reads events until `pred` is satisfied, returning all read. */
  until(pred: (ev: WatchEvent) => boolean, timeoutMs?: number): Promise<WatchEvent[]>;
  ended: Promise<void>;
  close(): void;
  status: number;
}

export async function openWatch(c: SimCluster, path: string, extraHeaders: Record<string, string> = {}): Promise<WatchReader> {
  const ac = new AbortController();
  const headers: Record<string, string> = { ...extraHeaders };
  if (c.token) headers.authorization = `Bearer ${c.token}`;
  const d = dispatcherFor(c);
  const res = await fetch(c.url + path, { headers, signal: ac.signal, ...(d ? { dispatcher: d } : {}) });
  const queue: WatchEvent[] = [];
  const waiters: Array<() => void> = [];
  let done = false;
  let buffer = '';
  const ended = (async () => {
    try {
      for await (const chunk of res.body ?? []) {
        buffer += Buffer.from(chunk as Uint8Array).toString('utf8');
        let nl = buffer.indexOf('\n');
        while (nl >= 0) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          if (line.trim()) queue.push(JSON.parse(line) as WatchEvent);
          nl = buffer.indexOf('\n');
        }
        for (const w of waiters.splice(0)) w();
      }
    } catch {
      // Aborted by close() or by the server dropping the socket.
    } finally {
      done = true;
      for (const w of waiters.splice(0)) w();
    }
  })();
  const next = async (timeoutMs = 5000): Promise<WatchEvent> => {
    const deadline = Date.now() + timeoutMs;
    while (queue.length === 0) {
      if (done) throw new Error('watch ended');
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('timed out waiting for a watch event');
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        waiters.push(() => { clearTimeout(t); resolve(); });
      });
    }
    return queue.shift() as WatchEvent;
  };
  return {
    status: res.status,
    next,
    until: async (pred, timeoutMs = 5000) => {
      const seen: WatchEvent[] = [];
      for (;;) {
        const ev = await next(timeoutMs);
        seen.push(ev);
        if (pred(ev)) return seen;
      }
    },
    ended,
    close: () => ac.abort(),
  };
}

export interface ListBody {
  kind: string;
  apiVersion: string;
  metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number };
  items: Array<SimObject & Record<string, unknown>>;
}

/** Walks every page of a list, returning all items and the pages' metadata. */
export async function listAll(c: SimCluster, path: string, limit: number, startContinue = ''): Promise<{ items: ListBody['items']; pages: ListBody['metadata'][] }> {
  const items: ListBody['items'] = [];
  const pages: ListBody['metadata'][] = [];
  let cont = startContinue;
  const sep = path.includes('?') ? '&' : '?';
  for (let guard = 0; guard < 100_000; guard++) {
    const r = await call<ListBody>(c, `${path}${sep}limit=${limit}${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`);
    if (r.status !== 200) throw new Error(`list failed: ${r.status} ${JSON.stringify(r.body)}`);
    items.push(...r.body.items);
    pages.push(r.body.metadata);
    if (!r.body.metadata.continue) return { items, pages };
    cont = r.body.metadata.continue;
  }
  throw new Error('list never ended');
}

/** What in an ended pod's status a kubelet would not write: a container not terminated, or ready; a Ready condition. */
export function endedPodProblems(p: SimObject): string[] {
  const st = p.status as { containerStatuses?: Array<{ name: string; ready: boolean; state: Record<string, unknown> }>; conditions?: Array<{ type: string; status: string }> };
  return [
    ...(st.containerStatuses ?? []).filter((c) => c.ready || !c.state.terminated).map((c) => `container ${c.name}: ${JSON.stringify(c.state)}, ready ${c.ready}`),
    ...(st.conditions ?? []).filter((c) => c.type === 'Ready' && c.status === 'True').map(() => 'condition Ready True'),
  ];
}

type PodSpecParts = { containers?: Array<{ name: string; image: string }>; initContainers?: Array<{ name: string; image: string }>; readinessGates?: unknown[] };

/** What the template decides, in a form to compare: container and init container names and images, readiness gates. */
function templated(spec: unknown): string {
  const s = (spec ?? {}) as PodSpecParts;
  const names = (cs: PodSpecParts['containers']): string[] => (cs ?? []).map((c) => `${c.name}=${c.image}`);
  return JSON.stringify({ containers: names(s.containers), init: names(s.initContainers), gates: s.readinessGates ?? [] });
}

/**
 * What kube never shows of pods and their controllers: a pod unlike its controller's template (kube stamps every pod
 * of a ReplicaSet, StatefulSet, DaemonSet or Job from it), missing a template annotation, older than its controller, or
 * made in the future; a ReplicaSet whose selector or template does not carry its own pod-template-hash.
 */
export function templateProblems(pods: SimObject[], controllers: SimObject[], nowMs: number): string[] {
  const byUid = new Map(controllers.map((c) => [c.metadata.uid, c]));
  const problems: string[] = [];
  const at = (o: SimObject): number => Date.parse(o.metadata.creationTimestamp ?? '');
  for (const c of controllers) {
    if (at(c) > nowMs) problems.push(`${c.kind} ${c.metadata.name}: made in the future (${c.metadata.creationTimestamp})`);
    if (c.kind !== 'ReplicaSet') continue;
    const hash = c.metadata.labels?.['pod-template-hash'];
    const spec = c.spec as { selector: { matchLabels: Record<string, string> }; template: { metadata: { labels: Record<string, string> } } };
    if (spec.selector.matchLabels['pod-template-hash'] !== hash || spec.template.metadata.labels['pod-template-hash'] !== hash) problems.push(`ReplicaSet ${c.metadata.name}: selector or template without its hash ${hash}`);
  }
  for (const p of pods) {
    const owner = byUid.get(p.metadata.ownerReferences?.[0]?.uid);
    if (!owner) continue;
    const template = (owner.spec as { template: { metadata?: { annotations?: Record<string, string> }; spec: unknown } }).template;
    const what = `pod ${p.metadata.name} of ${owner.kind} ${owner.metadata.name}`;
    if (templated(p.spec) !== templated(template.spec)) problems.push(`${what}: ${templated(p.spec)} is not the template's ${templated(template.spec)}`);
    for (const [k, v] of Object.entries(template.metadata?.annotations ?? {})) if (p.metadata.annotations?.[k] !== v) problems.push(`${what}: annotation ${k} is ${p.metadata.annotations?.[k]}, the template's ${v}`);
    if (at(p) < at(owner)) problems.push(`${what}: made at ${p.metadata.creationTimestamp}, before its controller (${owner.metadata.creationTimestamp})`);
    if (at(p) > nowMs) problems.push(`${what}: made in the future (${p.metadata.creationTimestamp})`);
  }
  return problems;
}

/**
 * Where a controller's status disagrees with its pods, as kube's controllers never leave it once settled: a
 * ReplicaSet's, StatefulSet's or DaemonSet's count of pods and of ready pods; a Deployment's sums over its
 * ReplicaSets, its unavailable count and its Available condition (maxUnavailable 25 %).
 */
export function controllerCountProblems(pods: SimObject[], controllers: SimObject[]): string[] {
  const problems: string[] = [];
  const ready = (p: SimObject): boolean => ((p.status as { conditions?: Array<{ type: string; status: string }> }).conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
  const num = (o: SimObject, field: string): number => Number((o.status as Record<string, unknown>)[field] ?? 0);
  const byOwner = new Map<string, SimObject[]>();
  // Pods being deleted are not counted (kube's FilterActivePods).
  for (const p of pods.filter((pod) => !pod.metadata.deletionTimestamp)) {
    const uid = p.metadata.ownerReferences?.[0]?.uid ?? '';
    byOwner.set(uid, [...(byOwner.get(uid) ?? []), p]);
  }
  const expect = (o: SimObject, field: string, want: number): void => {
    if (num(o, field) !== want) problems.push(`${o.kind} ${o.metadata.namespace}/${o.metadata.name}: ${field} ${num(o, field)}, not ${want}`);
  };
  for (const o of controllers) {
    const mine = byOwner.get(o.metadata.uid ?? '') ?? [];
    const n = mine.filter(ready).length;
    if (o.kind === 'ReplicaSet' || o.kind === 'StatefulSet') {
      expect(o, 'replicas', mine.length);
      expect(o, 'readyReplicas', n);
      expect(o, 'availableReplicas', n);
    } else if (o.kind === 'DaemonSet') {
      expect(o, 'currentNumberScheduled', mine.length);
      expect(o, 'numberReady', n);
      expect(o, 'numberAvailable', n);
    }
  }
  for (const d of controllers.filter((o) => o.kind === 'Deployment')) {
    const sets = controllers.filter((o) => o.kind === 'ReplicaSet' && o.metadata.ownerReferences?.[0]?.uid === d.metadata.uid);
    const sum = (field: string): number => sets.reduce((s, rs) => s + num(rs, field), 0);
    expect(d, 'replicas', sum('replicas'));
    expect(d, 'readyReplicas', sum('readyReplicas'));
    expect(d, 'availableReplicas', sum('availableReplicas'));
    const wanted = (d.spec as { replicas: number }).replicas;
    expect(d, 'unavailableReplicas', Math.max(0, sets.reduce((s, rs) => s + (rs.spec as { replicas: number }).replicas, 0) - sum('availableReplicas')));
    const available = ((d.status as { conditions?: Array<{ type: string; status: string }> }).conditions ?? []).find((c) => c.type === 'Available')?.status;
    const should = sum('availableReplicas') >= wanted - Math.floor(wanted / 4) ? 'True' : 'False';
    if (available !== should) problems.push(`Deployment ${d.metadata.namespace}/${d.metadata.name}: Available ${available}, not ${should} (${sum('availableReplicas')} of ${wanted} available)`);
  }
  return problems;
}
