// GET …/pods/<name>/log as kube-apiserver answers it (the kubelet's stream behind it, simulated): the container rules
// and their messages, tailLines / limitBytes / sinceSeconds / timestamps / previous, and follow, which writes a line
// every `followIntervalMs` until the client goes or `followLines` more lines were written (the container "exits").
import type { ServerResponse } from 'node:http';
import { errors } from './status.js';
import type { SimObject } from './types.js';

/**
 * Lines a container has logged when the request comes, spread over the time it has run (at least a second apart):
 * a pod running for weeks has its last line minutes ago, not weeks ago, so `--since=1h` finds it.
 */
const INITIAL_LINES = 10;

export interface LogOptions {
  followIntervalMs: number;
  followLines: number;
  now: () => number;
}

interface Terminated {
  startedAt?: unknown;
  finishedAt?: unknown;
}

interface ContainerStatus {
  name?: unknown;
  restartCount?: unknown;
  state?: { running?: { startedAt?: unknown }; terminated?: Terminated; waiting?: { reason?: string } };
  lastState?: { terminated?: Terminated };
}

/** When the container (or its previous run) started and stopped logging: its status's times, else the pod's creation and now. */
function logSpan(cs: ContainerStatus | undefined, previous: boolean, created: number, now: number): { start: number; end: number } {
  const ms = (v: unknown): number | undefined => (typeof v === 'string' && !Number.isNaN(Date.parse(v)) ? Date.parse(v) : undefined);
  const run = previous ? cs?.lastState?.terminated : cs?.state?.terminated;
  const start = ms(run?.startedAt) ?? (previous ? undefined : ms(cs?.state?.running?.startedAt)) ?? created;
  return { start, end: Math.max(start, ms(run?.finishedAt) ?? now) };
}

const DEFAULTS: LogOptions = { followIntervalMs: 100, followLines: 600, now: Date.now };

function names(list: unknown): string[] {
  return Array.isArray(list) ? list.map((c) => (c as { name?: unknown })?.name).filter((n): n is string => typeof n === 'string') : [];
}

/** kube's validation of an integer log option: a non-negative (or positive) int64 in the query. */
function intParam(q: URLSearchParams, key: string, min: number): number | undefined {
  const v = q.get(key);
  if (v === null) return undefined;
  if (!/^-?\d+$/.test(v)) throw errors.badRequest(`${key}: Invalid value: "${v}": must be an integer`);
  const n = Number(v);
  if (n < min) throw errors.badRequest(`${key}: Invalid value: ${n}: must be greater than ${min === 0 ? 'or equal to 0' : String(min - 1)}`);
  return n;
}

function boolParam(q: URLSearchParams, key: string): boolean {
  const v = q.get(key);
  if (v === null || v === '' || v === 'false' || v === '0') return false;
  if (v === 'true' || v === '1') return true;
  throw errors.badRequest(`${key}: Invalid value: "${v}": must be a boolean`);
}

/**
 * kube's container choice for a pod's log and exec: the one named (init containers too, where `withInit`), else the
 * only one; its messages when neither works.
 */
export function containerFor(pod: SimObject, query: URLSearchParams, withInit: boolean): string {
  const name = pod.metadata.name ?? '';
  const spec = (pod.spec ?? {}) as { containers?: unknown; initContainers?: unknown };
  const containers = names(spec.containers);
  const inits = withInit ? names(spec.initContainers) : [];
  const asked = query.get('container') ?? '';
  if (asked === '') {
    if (containers.length !== 1) {
      const init = inits.length > 0 ? ` or one of the init containers: [${inits.join(' ')}]` : '';
      throw errors.badRequest(`a container name must be specified for pod ${name}, choose one of: [${containers.join(' ')}]${init}`);
    }
    return containers[0] as string;
  }
  if (!containers.includes(asked) && !inits.includes(asked)) throw errors.badRequest(`container ${asked} is not valid for pod ${name}`);
  return asked;
}

export function servePodLog(pod: SimObject, query: URLSearchParams, res: ServerResponse, o: Partial<LogOptions> = {}): void {
  const opts = { ...DEFAULTS, ...o };
  const name = pod.metadata.name ?? '';
  const container = containerFor(pod, query, true);
  const tail = intParam(query, 'tailLines', 0);
  const limitBytes = intParam(query, 'limitBytes', 1);
  const sinceSeconds = intParam(query, 'sinceSeconds', 1);
  const timestamps = boolParam(query, 'timestamps');
  const previous = boolParam(query, 'previous');
  const follow = boolParam(query, 'follow');
  const status = (pod.status ?? {}) as { phase?: unknown; containerStatuses?: unknown; initContainerStatuses?: unknown };
  const statuses = [status.containerStatuses, status.initContainerStatuses].flatMap((l) => (Array.isArray(l) ? l : [])) as ContainerStatus[];
  const cs = statuses.find((c) => c?.name === container);
  const restarts = Number(cs?.restartCount ?? 0);
  if (previous && !(restarts > 0)) throw errors.badRequest(`previous terminated container "${container}" in pod "${name}" not found`);
  // The kubelet's validateContainerLogStatus: a container that never ran has no log yet, said with its waiting reason.
  const waiting = cs?.state?.waiting?.reason;
  if (!previous && !cs?.state?.running && !cs?.state?.terminated && !cs?.lastState?.terminated && (waiting !== undefined || status.phase === 'Pending')) {
    const why = waiting === 'ErrImagePull' ? "image can't be pulled" : waiting === 'ImagePullBackOff' ? 'trying and failing to pull image' : waiting ?? 'ContainerCreating';
    throw errors.badRequest(`container "${container}" in pod "${name}" is waiting to start: ${why}`);
  }

  const now = opts.now();
  const { start, end } = logSpan(cs, previous, Date.parse(String(pod.metadata.creationTimestamp ?? '')) || now, now);
  const gap = Math.max(1000, Math.floor((end - start) / (INITIAL_LINES - 1)));
  const ns = pod.metadata.namespace ?? '';
  // The lines it had logged, then those it logs while followed, each when written.
  const line = (i: number): string => {
    const text = `${previous ? 'previous ' : ''}${ns}/${name}/${container} line ${i + 1}\n`;
    return timestamps ? `${new Date(i < INITIAL_LINES ? start + i * gap : opts.now()).toISOString()} ${text}` : text;
  };
  let first = 0;
  if (sinceSeconds !== undefined) first = Math.max(0, Math.ceil((now - sinceSeconds * 1000 - start) / gap));
  if (tail !== undefined) first = Math.max(first, INITIAL_LINES - tail);
  let budget = limitBytes ?? Infinity;
  res.writeHead(200, { 'content-type': 'text/plain', 'cache-control': 'no-cache, private' });
  // Writes what fits in limitBytes; false once it is spent.
  const write = (text: string): boolean => {
    const b = Buffer.from(text);
    if (b.length >= budget) {
      res.write(b.subarray(0, budget));
      budget = 0;
      return false;
    }
    budget -= b.length;
    res.write(b);
    return true;
  };
  for (let i = first; i < INITIAL_LINES; i++) {
    if (!write(line(i))) return void res.end();
  }
  if (!follow || previous) return void res.end();
  let next = INITIAL_LINES;
  const timer = setInterval(() => {
    if (res.destroyed || next >= INITIAL_LINES + opts.followLines || !write(line(next++))) {
      clearInterval(timer);
      if (!res.destroyed) res.end();
    }
  }, opts.followIntervalMs);
  res.on('close', () => clearInterval(timer));
}

/** A running pod with one container: its log and exec need no container name (demo hints, tests). */
export function isSingleContainerRunning(pod: SimObject): boolean {
  const phase = (pod.status as { phase?: unknown } | undefined)?.phase;
  return phase === 'Running' && names((pod.spec as { containers?: unknown } | undefined)?.containers).length === 1;
}
