// clusterpedia under test: the BUILT bundle as a child process (so kill -9 is real), kept running like a restart policy
// would — restarted after each kill, and after any exit of its own (which is recorded: it may be a bug).
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { sleep } from '../../src/lib/lifecycle.js';
import { BUNDLE_NODE } from '../../test/support/bundle.js';

export interface UnplannedExit {
  atMs: number;
  code: number | null;
  signal: string | null;
  /** The last log lines before it. */
  tail: string[];
}

export interface ClusterpediaOptions {
  /** How reports name this process (`binding`, `synchro-1`, `apiserver-2`, ...). */
  name: string;
  bundle: string;
  args: string[];
  cwd: string;
  logFile: string;
  /** Milliseconds since the run started, for the records. */
  clock: () => number;
  /** The log line that says an incarnation is up (default: its plain-HTTP listener serving). */
  readyLine?: (line: string) => boolean;
}

const SERVING_PLAIN_HTTP = (line: string): boolean => line.includes('"msg":"serving"') && line.includes('"secure":false');

export class Clusterpedia {
  /** Processes started so far (1 + restarts). */
  incarnations = 0;
  kills = 0;
  readonly unplannedExits: UnplannedExit[] = [];
  /**
   * Exits right after the process logged that it lost its lease: a leader that cannot renew stops, as client-go's do,
   * and its restart is a candidate again. Planned behaviour, counted apart from unplanned exits.
   */
  leadershipLostExits = 0;
  /** This incarnation holds the synchro lease (it logged 'became the leader'); and since when (Date.now()). */
  leading = false;
  leaderSince = 0;
  private lostLeadership = false;
  /** Error-level log lines (level ≥ 50) by message, over every incarnation. */
  readonly errorLines = new Map<string, number>();
  private child: ChildProcess | undefined;
  private serving = false;
  /** Date.now() when the current incarnation began to serve. */
  servingSince = 0;
  private servingWaiters: (() => void)[] = [];
  private readonly tail: string[] = [];
  private readonly log: WriteStream;
  private stopped = false;
  private restartAfterMs: number | undefined;
  private loop: Promise<void> | undefined;
  private wakeRestart: (() => void) | undefined;

  constructor(private readonly o: ClusterpediaOptions) {
    this.log = createWriteStream(o.logFile, { flags: 'a' });
  }

  get name(): string {
    return this.o.name;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get isServing(): boolean {
    return this.serving;
  }

  /** Starts the supervision loop; resolves when the first incarnation serves (or rejects if it exits first). */
  async start(timeoutMs: number): Promise<void> {
    this.loop = this.supervise();
    await this.waitServing(timeoutMs);
  }

  /** Resolves once the current (or next) incarnation logs that it serves plain HTTP. */
  waitServing(timeoutMs: number): Promise<void> {
    if (this.serving) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`${this.o.name} not serving after ${timeoutMs} ms; last lines:\n${this.tail.join('\n')}`)), timeoutMs);
      this.servingWaiters.push(() => {
        clearTimeout(t);
        resolve();
      });
    });
  }

  /** kill -9; the supervisor starts a new process `restartAfterMs` later. Resolves once the process is gone. */
  async kill9(restartAfterMs: number): Promise<{ pid: number | undefined; wasServing: boolean }> {
    const child = this.child;
    const wasServing = this.serving;
    this.restartAfterMs = restartAfterMs;
    if (!child || child.exitCode !== null || child.signalCode !== null) return { pid: undefined, wasServing };
    this.kills++;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill('SIGKILL');
    await exited;
    return { pid: child.pid, wasServing };
  }

  /** Cuts a pending restart delay short (the end of the chaos phase lifts every fault). */
  restartNow(): void {
    this.restartAfterMs = 0;
    this.wakeRestart?.();
  }

  /** Set when the last stop() needed SIGKILL: the graceful shutdown did not finish within its grace. */
  shutdownHung = false;

  /** SIGTERM (SIGKILL after `graceMs`: longer than the bundle's own 20 s shutdown grace) and no more restarts. */
  stop(graceMs = 30_000): Promise<void> {
    this.stopping ??= this.stopOnce(graceMs);
    return this.stopping;
  }

  private stopping: Promise<void> | undefined;

  private async stopOnce(graceMs: number): Promise<void> {
    this.stopped = true;
    this.wakeRestart?.();
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGTERM');
      const t = setTimeout(() => {
        this.shutdownHung = true;
        this.line(JSON.stringify({ chaos: 'shutdown-hung', graceMs, atMs: this.o.clock(), report: `node diagnostic report in ${this.o.cwd}` }));
        // A diagnostic report (libuv handles: the sockets and timers keeping it alive), then the kill.
        child.kill('SIGUSR2');
        setTimeout(() => child.kill('SIGKILL'), 2_000);
      }, graceMs);
      await exited;
      clearTimeout(t);
    }
    await this.loop;
    await new Promise<void>((r) => this.log.end(() => r()));
  }

  /** Last resort on process exit: no child may outlive the driver. */
  killSync(): void {
    this.stopped = true;
    try {
      this.child?.kill('SIGKILL');
    } catch {
      // already gone
    }
  }

  private async supervise(): Promise<void> {
    let crashes = 0;
    while (!this.stopped) {
      const child = this.spawnOne();
      const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((r) => child.once('exit', (c, s) => r([c, s])));
      this.serving = false;
      this.leading = false;
      const lostLeadership = this.lostLeadership;
      this.lostLeadership = false;
      this.line(JSON.stringify({ chaos: 'exit', incarnation: this.incarnations, code, signal, atMs: this.o.clock() }));
      if (this.stopped) break;
      let delay: number;
      if (this.restartAfterMs !== undefined) {
        delay = this.restartAfterMs;
        this.restartAfterMs = undefined;
        crashes = 0;
      } else if (lostLeadership) {
        this.leadershipLostExits++;
        delay = 500;
      } else {
        this.unplannedExits.push({ atMs: this.o.clock(), code, signal, tail: [...this.tail] });
        // A restart policy's back-off (short: the run has a time budget).
        delay = Math.min(5_000, 500 * 2 ** crashes++);
      }
      await new Promise<void>((resolve) => {
        this.wakeRestart = resolve;
        void sleep(delay).then(resolve);
      });
      this.wakeRestart = undefined;
    }
  }

  private spawnOne(): ChildProcess {
    this.incarnations++;
    this.line(JSON.stringify({ chaos: 'start', incarnation: this.incarnations, atMs: this.o.clock() }));
    // SIGUSR2 writes a Node diagnostic report into cwd: taken when a shutdown hangs.
    const node = ['--report-on-signal', '--report-signal=SIGUSR2', `--report-directory=${this.o.cwd}`];
    const child = spawn(BUNDLE_NODE, [...node, this.o.bundle, ...this.o.args, '--log-format', 'json'], { cwd: this.o.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    let buf = '';
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString('utf8');
      let nl = buf.indexOf('\n');
      while (nl >= 0) {
        this.onLine(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        nl = buf.indexOf('\n');
      }
    });
    child.stderr!.on('data', (d: Buffer) => this.onLine(`[stderr] ${d.toString('utf8').trimEnd()}`));
    return child;
  }

  private onLine(line: string): void {
    this.line(line);
    this.tail.push(line.length > 600 ? `${line.slice(0, 600)}…` : line);
    if (this.tail.length > 40) this.tail.shift();
    // Parse only the lines that matter: the listener coming up, and errors.
    if (!this.serving && (this.o.readyLine ?? SERVING_PLAIN_HTTP)(line)) {
      this.serving = true;
      this.servingSince = Date.now();
      for (const w of this.servingWaiters.splice(0)) w();
    }
    if (line.includes('"msg":"became the leader"')) {
      this.leading = true;
      this.leaderSince = Date.now();
    }
    if (line.includes('"msg":"lost leadership; stopping"')) {
      this.lostLeadership = true;
      this.leading = false;
    }
    if (line.includes('"level":50') || line.includes('"level":60') || line.startsWith('[stderr]')) {
      let msg = line.slice(0, 120);
      try {
        msg = String((JSON.parse(line) as { msg?: unknown }).msg);
      } catch {
        // stderr text: keep its start
      }
      this.errorLines.set(msg, (this.errorLines.get(msg) ?? 0) + 1);
    }
  }

  private line(s: string): void {
    this.log.write(`${s}\n`);
  }
}
