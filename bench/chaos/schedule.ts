// The fault schedule: drawn once from the seed before the run starts, so a seed names the same faults at the same times.
import { rngFor, type Rng } from '../../src/sim/prng.js';
import type { Backend } from './options.js';

export type Fault =
  /** End every open watch of the members (cleanly, or by destroying the sockets). */
  | { kind: 'drop-watches'; clusters: number[]; abort: boolean }
  /** The member's next `count` requests answer `code` (watches, lists, health probes alike). */
  | { kind: 'http-5xx'; cluster: number; count: number; code: number; retryAfterSeconds?: number }
  /** The member closes its listener and every socket; back after `forMs`. */
  | { kind: 'member-down'; cluster: number; forMs: number }
  /** The member forgets its event history: resuming a watch or a continue token gets 410 Expired. */
  | { kind: 'compact'; clusters: number[] }
  /** Every response of the member is delayed by `delayMs` for `forMs`. */
  | { kind: 'slow'; cluster: number; delayMs: number; forMs: number }
  /**
   * `kill -9` of clusterpedia at an arbitrary moment; restarted after `restartAfterMs`. `target`: which of its processes
   * (split topology: an index into synchro-1, synchro-2, apiserver-1, apiserver-2; absent: the only one).
   */
  | { kind: 'kill'; restartAfterMs: number; target?: number }
  /**
   * A burst of `burst` member changes, then `kill -9` of clusterpedia the moment its storage writer is seen inside a
   * transaction (SQLite: the write lock is held; PostgreSQL: the writers' advisory lock is granted). In the split
   * topology the process killed is the synchro holding the lease.
   */
  | { kind: 'kill-mid-write'; burst: number; restartAfterMs: number }
  /** A watch client of clusterpedia drops its connection and stays away for `forMs` (then resumes, or relists on 410). */
  | { kind: 'watcher-pause'; watcher: number; forMs: number }
  /**
   * PostgreSQL stops (`pg_ctl stop -m fast|immediate`) and starts again after `forMs`. `killToo`: clusterpedia is also
   * killed once the server is down, so its next start meets no database.
   */
  | { kind: 'postgres-stop'; mode: 'fast' | 'immediate'; forMs: number; killToo: boolean }
  /**
   * The storage goes back in time: backed up now and, `afterMs` later, restored in place while clusterpedia runs (a
   * restore from a backup, a failover to a replica that had not received the commits since).
   */
  | { kind: 'rewind'; afterMs: number }
  /**
   * A member that speaks HTTP/2 ends a connection gracefully (GOAWAY) after a request other than a watch, with
   * `chance`, for `forMs`: kube-apiserver's --goaway-chance, far above the 0.001 it is usually set to.
   */
  | { kind: 'goaway'; cluster: number; chance: number; forMs: number };

export type FaultKind = Fault['kind'];

export const FAULT_KINDS: readonly FaultKind[] = ['drop-watches', 'http-5xx', 'member-down', 'compact', 'slow', 'watcher-pause', 'kill', 'kill-mid-write', 'postgres-stop', 'rewind', 'goaway'];

/** Which members speak HTTP/2 beside HTTP/1.1 (as kube-apiserver does): every other one, so faults meet both. */
export const speaksHttp2 = (member: number): boolean => member % 2 === 0;

export interface PlannedFault {
  /** Milliseconds after the start of the chaos phase. */
  atMs: number;
  fault: Fault;
}

const WEIGHTS: Record<Backend, Partial<Record<FaultKind, number>>> = {
  sqlite: { 'drop-watches': 18, 'http-5xx': 18, 'member-down': 14, compact: 14, slow: 12, 'watcher-pause': 6, kill: 8, 'kill-mid-write': 12, rewind: 3, goaway: 6 },
  postgres: { 'drop-watches': 18, 'http-5xx': 18, 'member-down': 14, compact: 14, slow: 12, 'watcher-pause': 6, kill: 6, 'kill-mid-write': 8, 'postgres-stop': 10, rewind: 3, goaway: 6 },
};

/** clusterpedia-wide faults need the previous one over: a kill's restart, or PostgreSQL back, plus this margin (ms). */
const GLOBAL_GAP_MS = 4_000;

const GLOBAL: ReadonlySet<FaultKind> = new Set(['kill', 'kill-mid-write', 'postgres-stop', 'rewind']);
const PER_MEMBER_STATE: ReadonlySet<FaultKind> = new Set(['member-down', 'slow']);

/**
 * `count` faults spread over `durationMs` (one per equal slot, at a random point of it). Every kind of the backend
 * comes at least once (when `count` allows), the rest are drawn by weight, in a seeded shuffle. A fault that would
 * overlap one of its sort (a member already down or slow; clusterpedia still recovering from a kill or an outage)
 * waits for a later slot, and a fault that never conflicts takes its slot; every fault ends before the phase does.
 */
export function planFaults(o: {
  seed: number; backend: Backend; clusters: number; watchers: number; durationMs: number; count: number; only?: FaultKind[];
  /** clusterpedia's processes (1: binding); a kill picks one when there are more. */
  processes?: number;
}): PlannedFault[] {
  const rng = rngFor('chaos-schedule', o.seed, o.backend);
  const weights = (Object.entries(WEIGHTS[o.backend]) as [FaultKind, number][])
    .filter(([k]) => (!o.only?.length || o.only.includes(k)) && (k !== 'watcher-pause' || o.watchers > 0));
  if (weights.length === 0) throw new Error(`no fault kind left for ${o.backend} (only: ${o.only?.join(',')})`);
  const total = weights.reduce((s, [, w]) => s + w, 0);
  const kinds: FaultKind[] = weights.map(([k]) => k).slice(0, o.count);
  while (kinds.length < o.count) {
    let pick = rng.next() * total;
    kinds.push(weights.find(([, w]) => (pick -= w) < 0)?.[0] ?? weights[0]![0]);
  }
  for (let i = kinds.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [kinds[i], kinds[j]] = [kinds[j]!, kinds[i]!];
  }
  const memberBusyUntil = new Array<number>(o.clusters).fill(0);
  let globalBusyUntil = 0;
  const deferred: FaultKind[] = [];
  const slot = o.durationMs / Math.max(1, o.count);
  const plan: PlannedFault[] = [];
  for (let i = 0; i < o.count; i++) {
    const atMs = Math.round((i + rng.next() * 0.9) * slot);
    const room = o.durationMs - atMs;
    const free = memberBusyUntil.map((u, c) => (u <= atMs ? c : -1)).filter((c) => c >= 0);
    const placeable = (k: FaultKind): boolean =>
      GLOBAL.has(k) ? globalBusyUntil <= atMs && room >= 3_000 : PER_MEMBER_STATE.has(k) ? free.length > 0 : true;
    const waiting = deferred.findIndex(placeable);
    let kind: FaultKind;
    if (waiting >= 0) {
      kind = deferred.splice(waiting, 1)[0]!;
      deferred.push(kinds[i]!);
    } else {
      kind = kinds[i]!;
      if (!placeable(kind)) {
        deferred.push(kind);
        kind = o.only?.length && !o.only.includes('compact') ? (o.only.find((k) => !GLOBAL.has(k) && !PER_MEMBER_STATE.has(k)) ?? kind) : 'compact';
      }
    }
    const fault = draw(rng, kind, o.clusters, o.watchers, room, free, globalBusyUntil <= atMs, o.processes ?? 1);
    if (fault.kind === 'member-down' || fault.kind === 'slow') memberBusyUntil[fault.cluster] = atMs + fault.forMs + 500;
    if (fault.kind === 'kill' || fault.kind === 'kill-mid-write') globalBusyUntil = atMs + fault.restartAfterMs + GLOBAL_GAP_MS;
    if (fault.kind === 'postgres-stop') globalBusyUntil = atMs + fault.forMs + GLOBAL_GAP_MS;
    if (fault.kind === 'rewind') globalBusyUntil = atMs + fault.afterMs + GLOBAL_GAP_MS;
    plan.push({ atMs, fault });
  }
  return plan;
}

function draw(rng: Rng, kind: FaultKind, clusters: number, watchers: number, roomMs: number, free: number[], globalFree: boolean, processes: number): Fault {
  const all = Array.from({ length: clusters }, (_, i) => i);
  const someOrAll = (): number[] => (rng.chance(0.15) ? all : [rng.int(clusters)]);
  const upTo = (lo: number, hi: number): number => Math.max(200, Math.min(rng.range(lo, hi), roomMs - 300));
  // Overlaps are swapped for a fault that never conflicts, so the schedule keeps its count.
  if ((kind === 'member-down' || kind === 'slow') && free.length === 0) kind = 'drop-watches';
  if (GLOBAL.has(kind) && (!globalFree || roomMs < 3_000)) kind = 'compact';
  switch (kind) {
    case 'drop-watches':
      return { kind, clusters: someOrAll(), abort: rng.chance(0.5) };
    case 'compact':
      return { kind, clusters: someOrAll() };
    case 'http-5xx': {
      const code = rng.pick([500, 502, 503, 503, 504]);
      return { kind, cluster: rng.int(clusters), count: rng.range(3, 40), code, ...(code === 503 && rng.chance(0.5) ? { retryAfterSeconds: 1 } : {}) };
    }
    case 'member-down':
      return { kind, cluster: rng.pick(free), forMs: upTo(1_000, 12_000) };
    case 'slow':
      return { kind, cluster: rng.pick(free), delayMs: rng.range(100, 2_500), forMs: upTo(3_000, 20_000) };
    case 'watcher-pause':
      return { kind, watcher: rng.int(watchers), forMs: upTo(5_000, 45_000) };
    case 'kill':
      // The target is drawn only where there is a choice, so a seed's binding schedule stays what it was.
      return { kind, restartAfterMs: rng.range(0, 3_000), ...(processes > 1 ? { target: rng.int(processes) } : {}) };
    case 'kill-mid-write':
      return { kind, burst: rng.range(100, 600), restartAfterMs: rng.range(0, 3_000) };
    case 'postgres-stop':
      return { kind, mode: rng.chance(0.5) ? 'fast' : 'immediate', forMs: upTo(2_000, 12_000), killToo: rng.chance(0.3) };
    case 'rewind':
      // The copy itself takes a few seconds on a loaded machine: the restore comes at least that late.
      return { kind, afterMs: upTo(5_000, 12_000) };
    case 'goaway':
      return { kind, cluster: rng.pick(all.filter(speaksHttp2)), chance: rng.pick([0.05, 0.2, 0.5]), forMs: upTo(3_000, 20_000) };
  }
}

/** Faults per kind, every kind listed (zeros included) in a stable order. */
export function countByKind(faults: readonly { kind: FaultKind }[]): Record<FaultKind, number> {
  const out = Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<FaultKind, number>;
  for (const f of faults) out[f.kind]++;
  return out;
}
