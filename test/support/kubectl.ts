// Runs the real kubectl against a server: the dispatcher on PATH, or a pinned kubectl.1.NN beside it.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** The kubectl dispatcher on PATH. */
export function kubectlPath(): string {
  return execFileSync('sh', ['-c', 'command -v kubectl'], { encoding: 'utf8' }).trim();
}

/** A specific kubectl version installed beside the dispatcher (e.g. '1.27'). */
export function kubectlVersion(minor: string): string {
  return join(dirname(realpathSync(kubectlPath())), `kubectl.${minor}`);
}

/** The oldest kubectl installed beside the dispatcher. */
export function oldestKubectl(): string {
  return kubectlVersion('1.27');
}

export interface KubectlResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export class Kubectl {
  private readonly cacheDir = mkdtempSync(join(tmpdir(), 'cp-kubectl-'));

  constructor(private readonly server: string, private readonly binary = kubectlPath(), private readonly extra: string[] = []) {}

  private args(args: string[]): string[] {
    return [`--server=${this.server}`, '--insecure-skip-tls-verify=true', `--cache-dir=${this.cacheDir}`, '--request-timeout=30s', ...this.extra, ...args];
  }

  run(args: string[], timeoutMs = 60_000): Promise<KubectlResult> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.binary, this.args(args), { env: { ...process.env, KUBECONFIG: '/dev/null' } });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const t = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(t);
        resolve({ code, stdout, stderr });
      });
    });
  }

  /** `yaml` written to a file in this kubectl's own directory (gone with dispose): its path, for `-f`. */
  file(yaml: string): string {
    const file = join(mkdtempSync(join(this.cacheDir, 'objects-')), 'objects.yaml');
    writeFileSync(file, yaml);
    return file;
  }

  /** `kubectl apply -f` of `yaml` (with `flags`). */
  async apply(yaml: string, flags: string[] = []): Promise<KubectlResult> {
    return this.run(['apply', ...flags, '-f', this.file(yaml)]);
  }

  /** Runs and fails the test with kubectl's stderr when it exits non-zero. */
  async ok(args: string[]): Promise<string> {
    const r = await this.run(args);
    if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
    return r.stdout;
  }

  /** Starts a long-running kubectl (get -w); output accumulates in `out`. */
  spawn(args: string[]): { child: ChildProcess; out: () => string; err: () => string; waitFor: (re: RegExp, timeoutMs?: number) => Promise<void> } {
    const child = spawn(this.binary, this.args(args), { env: { ...process.env, KUBECONFIG: '/dev/null' } });
    let stdout = '';
    let stderr = '';
    const listeners: (() => void)[] = [];
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      for (const l of [...listeners]) l();
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    return {
      child,
      out: () => stdout,
      err: () => stderr,
      waitFor: (re, timeoutMs = 30_000) => new Promise((resolve, reject) => {
        if (re.test(stdout)) return resolve();
        const t = setTimeout(() => reject(new Error(`kubectl output did not match ${re}:\n${stdout}\n${stderr}`)), timeoutMs);
        const l = (): void => {
          if (re.test(stdout)) {
            clearTimeout(t);
            listeners.splice(listeners.indexOf(l), 1);
            resolve();
          }
        };
        listeners.push(l);
      }),
    };
  }

  dispose(): void {
    rmSync(this.cacheDir, { recursive: true, force: true });
  }
}
