// Runs the built bundle (dist/clusterpedia.mjs) as a child process, the artifact we ship (STYLE §15).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/**
 * The bundle under test and the node that runs it: dist/'s and this process's, unless CLUSTERPEDIA_TEST_BUNDLE and
 * CLUSTERPEDIA_TEST_NODE name others. `npm run test:node -- 22` sets both: the same bundle, copied beside a
 * better-sqlite3 built for another Node release, so the tests that start it check it on Node 22 and 24 too.
 */
const OTHER_BUNDLE = process.env.CLUSTERPEDIA_TEST_BUNDLE;
export const BUNDLE = OTHER_BUNDLE ?? join(ROOT, 'dist', 'clusterpedia.mjs');
export const BUNDLE_NODE = process.env.CLUSTERPEDIA_TEST_NODE ?? process.execPath;

function newestMtime(dir: string): number {
  return readdirSync(dir, { withFileTypes: true })
    .reduce((m, e) => Math.max(m, e.isDirectory() ? newestMtime(join(dir, e.name)) : statSync(join(dir, e.name)).mtimeMs), 0);
}

/**
 * Tests must run the code under test: builds the bundle when it is missing or older than any source file
 * (`npm test` builds first, so under it this only checks).
 */
export function ensureBundle(): string {
  // Another bundle is what its script copied there, from a build of this tree.
  if (OTHER_BUNDLE !== undefined) return OTHER_BUNDLE;
  let built = 0;
  try {
    built = statSync(BUNDLE).mtimeMs;
  } catch {
    built = 0;
  }
  if (built < newestMtime(join(ROOT, 'src'))) {
    const r = spawnSync(process.execPath, [join(ROOT, 'build.mjs')], { cwd: ROOT, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`build failed: ${r.stderr}`);
  }
  return BUNDLE;
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the bundle to completion (for commands that exit: --help, migrate, show). */
export function runBundle(args: string[], opts: { env?: Record<string, string>; cwd?: string; timeoutMs?: number } = {}): Promise<RunResult> {
  const bundle = ensureBundle();
  return new Promise((resolve, reject) => {
    const child = spawn(BUNDLE_NODE, [bundle, ...args], { cwd: opts.cwd ?? ROOT, env: { ...process.env, ...opts.env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * `command args` under an open-files limit: `limit` is what `ulimit` takes (`-n 64` soft and hard, `-S -n 256` soft
 * only), set by a shell that then execs the command, so the pid is the command's.
 */
export function underOpenFilesLimit(limit: string, command: string, args: string[]): [string, string[]] {
  return ['sh', ['-c', `ulimit ${limit} && exec "$0" "$@"`, command, ...args]];
}

/** A long-running bundle process (a role) whose JSON log lines are collected. */
export class BundleProcess {
  readonly lines: Record<string, unknown>[] = [];
  readonly raw: string[] = [];
  private readonly waiters: { pred: (l: Record<string, unknown>) => boolean; resolve: (l: Record<string, unknown>) => void }[] = [];
  readonly exited: Promise<number | null>;

  private constructor(readonly child: ChildProcess) {
    let buf = '';
    const onData = (d: Buffer): void => {
      buf += d.toString();
      let nl = buf.indexOf('\n');
      while (nl >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        this.raw.push(line);
        try {
          const obj = JSON.parse(line) as Record<string, unknown>;
          this.lines.push(obj);
          for (const w of [...this.waiters]) {
            if (w.pred(obj)) {
              this.waiters.splice(this.waiters.indexOf(w), 1);
              w.resolve(obj);
            }
          }
        } catch {
          // Not a log line (a printed banner, say): kept in raw only.
        }
        nl = buf.indexOf('\n');
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (d: Buffer) => this.raw.push(d.toString()));
    this.exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  }

  /** Starts the bundle with `args`; with `noFile`, under that open-files limit (soft and hard). */
  static start(args: string[], opts: { env?: Record<string, string>; cwd?: string; noFile?: number } = {}): BundleProcess {
    const bundle = ensureBundle();
    const argv = [bundle, ...args, '--log-format', 'json'];
    const [cmd, cmdArgs] = opts.noFile === undefined ? [BUNDLE_NODE, argv] : underOpenFilesLimit(`-n ${opts.noFile}`, BUNDLE_NODE, argv);
    const child = spawn(cmd, cmdArgs, { cwd: opts.cwd ?? ROOT, env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    return new BundleProcess(child);
  }

  /** Resolves with the first log line (past or future) matching `pred`. */
  waitFor(pred: (l: Record<string, unknown>) => boolean, timeoutMs = 30_000): Promise<Record<string, unknown>> {
    const seen = this.lines.find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`timed out waiting for a log line; last lines:\n${this.raw.slice(-20).join('\n')}`)), timeoutMs);
      this.waiters.push({ pred, resolve: (l) => { clearTimeout(t); resolve(l); } });
      void this.exited.then((code) => {
        clearTimeout(t);
        reject(new Error(`process exited (${code}) before the expected log line; output:\n${this.raw.slice(-30).join('\n')}`));
      });
    });
  }

  /** The port of the plain-HTTP listener, from the 'serving' log line. */
  async insecurePort(timeoutMs = 30_000): Promise<number> {
    const l = await this.waitFor((x) => x.msg === 'serving' && x.secure === false, timeoutMs);
    return Number(l.port);
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 20_000): Promise<number | null> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return this.child.exitCode;
    this.child.kill(signal);
    const t = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
    const code = await this.exited;
    clearTimeout(t);
    return code;
  }
}
