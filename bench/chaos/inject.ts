// Applies planned faults to the members, clusterpedia and its storage; remembers how to lift the ones that last, so the
// end of the chaos phase can lift them all at once. Every fault becomes one JSON line of the chaos log.
import { sleep } from '../../src/lib/lifecycle.js';
import type { SimCluster } from '../../src/sim/index.js';
import type { RunStorage } from './backend.js';
import type { Clusterpedia } from './clusterpedia.js';
import type { Fault, PlannedFault } from './schedule.js';
import type { Watcher } from './watcher.js';

export interface InjectedFault {
  /** Milliseconds since the run started, when applied. */
  atMs: number;
  plannedAtMs: number;
  fault: Fault;
  /** What happened (watches dropped, compacted revision, pid killed, mid-transaction or not, errors...). */
  result: Record<string, unknown>;
}

export interface InjectorDeps {
  clusters: readonly SimCluster[];
  /** clusterpedia's processes: the binding alone, or (split) the synchros first, then the apiservers. */
  processes: readonly Clusterpedia[];
  storage: RunStorage;
  watchers: readonly Watcher[];
  /** Milliseconds since the run started. */
  clock: () => number;
  record: (f: InjectedFault) => void;
}

export class Injector {
  /** Pending lifts by what they restore; run early by liftAll(). */
  private readonly lifts = new Map<string, { timer: NodeJS.Timeout; lift: () => Promise<void> }>();
  private readonly running = new Set<Promise<void>>();
  /** When the last fault was lifted or applied, ms since the run started. */
  lastFaultEndMs = 0;

  constructor(private readonly d: InjectorDeps) {}

  /** Applies one fault (in the background when it takes time, e.g. a mid-write kill waiting for a transaction). */
  apply(p: PlannedFault): void {
    const task = this.applyNow(p).catch((e: unknown) => {
      this.d.record({ atMs: this.d.clock(), plannedAtMs: p.atMs, fault: p.fault, result: { error: String(e) } });
    });
    this.running.add(task);
    void task.finally(() => this.running.delete(task));
  }

  private async applyNow(p: PlannedFault): Promise<void> {
    const f = p.fault;
    const at = this.d.clock();
    const record = (result: Record<string, unknown>): void => {
      this.lastFaultEndMs = Math.max(this.lastFaultEndMs, this.d.clock());
      this.d.record({ atMs: at, plannedAtMs: p.atMs, fault: f, result });
    };
    const member = (i: number): SimCluster => this.d.clusters[i]!;
    switch (f.kind) {
      case 'drop-watches': {
        let dropped = 0;
        for (const c of f.clusters) dropped += member(c).faults.dropWatches({ abort: f.abort });
        record({ dropped });
        return;
      }
      case 'compact': {
        const revisions = f.clusters.map((c) => member(c).faults.compact());
        record({ compactedRevisions: revisions.length === 1 ? revisions[0] : revisions.length });
        return;
      }
      case 'http-5xx':
        member(f.cluster).faults.failNext(f.count, f.code, f.retryAfterSeconds);
        record({});
        return;
      case 'member-down': {
        const c = member(f.cluster);
        await c.faults.down();
        this.later(`member-${f.cluster}`, f.forMs, () => c.faults.up());
        record({});
        return;
      }
      case 'slow': {
        const c = member(f.cluster);
        c.faults.slow(f.delayMs);
        this.later(`slow-${f.cluster}`, f.forMs, async () => c.faults.slow(0));
        record({});
        return;
      }
      case 'goaway': {
        const c = member(f.cluster);
        c.faults.goAway(f.chance);
        this.later(`goaway-${f.cluster}`, f.forMs, async () => c.faults.goAway(0));
        record({});
        return;
      }
      case 'watcher-pause': {
        const w = this.d.watchers[f.watcher]!;
        w.pause(f.forMs);
        this.later(`watcher-${f.watcher}`, f.forMs, async () => w.resume());
        record({ watcher: w.name, resource: w.view.ref });
        return;
      }
      case 'kill': {
        const target = this.d.processes[(f.target ?? 0) % this.d.processes.length]!;
        const r = await target.kill9(f.restartAfterMs);
        record({ process: target.name, leading: target.leading, pid: r.pid, wasServing: r.wasServing });
        return;
      }
      case 'kill-mid-write': {
        // A burst of changes spread over the members makes write batches; the kill waits (bounded) for one to be open.
        const n = this.d.clusters.length;
        for (let i = 0; i < n; i++) this.d.clusters[(p.atMs + i) % n]!.churn.step(Math.ceil(f.burst / n));
        const started = Date.now();
        let probes = 0;
        let busy = false;
        const errorsBefore = this.d.storage.probeErrors.count;
        while (Date.now() - started < 3_000) {
          probes++;
          if (await this.d.storage.writerBusy()) {
            busy = true;
            break;
          }
          await new Promise((r) => setImmediate(r));
        }
        const writer = this.writer();
        const r = await writer.kill9(f.restartAfterMs);
        const probeErrors = this.d.storage.probeErrors.count - errorsBefore;
        record({ process: writer.name, pid: r.pid, wasServing: r.wasServing, midTransaction: busy, waitedMs: Date.now() - started, probes, ...(probeErrors > 0 ? { probeErrors, lastProbeError: this.d.storage.probeErrors.last } : {}) });
        return;
      }
      case 'postgres-stop': {
        await this.d.storage.stopServer(f.mode);
        this.later('postgres', f.forMs, () => this.d.storage.startServer());
        // Restarted at once, it must wait for the database (--storage-initialization-timeout), not exit.
        const killed = f.killToo ? await this.writer().kill9(0) : undefined;
        record({ stoppedAfterMs: this.d.clock() - at, ...(killed ? { killedPid: killed.pid } : {}) });
        return;
      }
      case 'rewind': {
        // PostgreSQL may be coming back from a stop fault (recovery refuses connections for a moment): wait for it.
        const restore = await whenDatabaseUp(() => this.d.storage.backup());
        // Restored `afterMs` after the fault began, however long the copy took: the schedule keeps the next global
        // fault (a kill) clear of it by that, so the restore meets a running clusterpedia, as the fault says.
        const took = this.d.clock() - at;
        this.later('rewind', Math.max(0, f.afterMs - took), () => whenDatabaseUp(restore));
        record({ backedUpAfterMs: took });
        return;
      }
    }
  }

  /** The process that writes: the synchro holding the lease, else the first (the binding, which runs no election). */
  private writer(): Clusterpedia {
    return this.d.processes.find((p) => p.leading) ?? this.d.processes[0]!;
  }

  /** Schedules a lift; a newer fault on the same target supersedes the pending lift (its end counts). */
  private later(key: string, ms: number, lift: () => Promise<void>): void {
    const previous = this.lifts.get(key);
    if (previous) clearTimeout(previous.timer);
    const run = async (): Promise<void> => {
      const entry = this.lifts.get(key);
      if (!entry || entry.timer !== timer) return;
      this.lifts.delete(key);
      await lift();
      this.lastFaultEndMs = Math.max(this.lastFaultEndMs, this.d.clock());
    };
    const timer = setTimeout(() => {
      const task = run().catch(() => undefined);
      this.running.add(task);
      void task.finally(() => this.running.delete(task));
    }, ms);
    this.lifts.set(key, { timer, lift });
  }

  /**
   * Lifts everything at once: members up and fast, pending 5xx cleared, PostgreSQL started, clusterpedia restarted
   * now if it waits for its restart. Waits for faults still being applied first (a mid-write kill, say).
   */
  async liftAll(): Promise<void> {
    for (let i = 0; i < 20 && this.running.size > 0; i++) await Promise.race([Promise.all([...this.running]), sleep(500)]);
    for (const [key, entry] of [...this.lifts]) {
      clearTimeout(entry.timer);
      this.lifts.delete(key);
      await entry.lift();
    }
    for (const c of this.d.clusters) {
      c.faults.clear();
      await c.faults.up();
    }
    for (const w of this.d.watchers) w.resume();
    await this.d.storage.startServer();
    for (const p of this.d.processes) p.restartNow();
    this.lastFaultEndMs = this.d.clock();
  }

  /** Clears timers without lifting (shutdown after a failure). */
  dispose(): void {
    for (const { timer } of this.lifts.values()) clearTimeout(timer);
    this.lifts.clear();
  }
}

/** The refusals of a PostgreSQL server stopped or starting up (another fault's doing), as postgres.js reports them. */
const DATABASE_COMING_BACK = /not yet accepting connections|starting up|shutting down|ECONNREFUSED|ECONNRESET/;

/** Runs `fn`, and again every 200 ms for up to 30 s while the database refuses it as stopped or starting up. */
export async function whenDatabaseUp<T>(fn: () => Promise<T>, waitMs = 30_000): Promise<T> {
  for (let waited = 0; ; waited += 200) {
    try {
      return await fn();
    } catch (e: unknown) {
      if (waited >= waitMs || !DATABASE_COMING_BACK.test(String(e))) throw e;
      await sleep(200);
    }
  }
}
