// `clusterpedia simulate`: starts clusters, writes a PediaCluster file, prints one line each, exits 0 on SIGTERM, 2 on bad flags.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { Agent, fetch } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';

let dir: string;
const children: ChildProcess[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sim-cmd-'));
});
afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

interface Run {
  child: ChildProcess;
  lines: () => string[];
  stderr: () => string;
  exited: Promise<number | null>;
}

function simulate(args: string[]): Run {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'simulate', '--log-level', 'silent', ...args], { cwd: join(import.meta.dirname, '../..'), stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr?.on('data', (d: Buffer) => { err += d.toString(); });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, lines: () => out.split('\n').filter((l) => l.trim() !== ''), stderr: () => err, exited };
}

/**
 * Two consecutive loopback ports that were free a moment ago, below Linux's ephemeral range (32768+), where outgoing
 * connections of other tests take ports at random.
 */
async function freePortPair(): Promise<number> {
  const bindable = (port: number) =>
    new Promise<boolean>((resolve) => {
      const s = createServer();
      s.once('error', () => resolve(false));
      s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
    });
  for (let i = 0; i < 50; i++) {
    const port = 20000 + Math.floor(Math.random() * 12000);
    if ((await bindable(port)) && (await bindable(port + 1))) return port;
  }
  throw new Error('no two consecutive free loopback ports found');
}

async function waitLines(run: Run, n: number): Promise<string[]> {
  for (let i = 0; i < 300 && run.lines().length < n; i++) await new Promise((r) => setTimeout(r, 100));
  expect(run.lines(), run.stderr()).toHaveLength(n);
  return run.lines();
}

interface PediaCluster {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec: { apiserver: string; caData?: string; tokenData?: string; syncResources: Array<{ group: string; resources: string[] }> };
}

describe('clusterpedia simulate', () => {
  it('serves N clusters, writes their PediaClusters and stops on SIGTERM with exit 0', async () => {
    const out = join(dir, 'clusters.yaml');
    const run = simulate(['--clusters', '2', '--pods-per-cluster', '5', '--out', out]);
    const lines = await waitLines(run, 2);
    expect(lines[0]).toMatch(/^sim-1 http:\/\/127\.0\.0\.1:\d+/);
    const docs = parseAllDocuments(await readFile(out, 'utf8')).map((d) => d.toJSON() as PediaCluster);
    expect(docs.map((d) => [d.apiVersion, d.kind, d.metadata.name])).toEqual([['cluster.clusterpedia.io/v1alpha2', 'PediaCluster', 'sim-1'], ['cluster.clusterpedia.io/v1alpha2', 'PediaCluster', 'sim-2']]);
    expect(docs[0]?.spec.syncResources).toEqual(expect.arrayContaining([expect.objectContaining({ group: 'apps', resources: ['*'] })]));
    const token = Buffer.from(docs[1]?.spec.tokenData ?? '', 'base64').toString();
    const pods = await fetch(`${docs[1]?.spec.apiserver}/api/v1/pods`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await pods.json()) as { items: unknown[] }).items).toHaveLength(5);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
  });

  it('with --tls and --port serves HTTPS on consecutive ports, verifiable with caData', async () => {
    const port = await freePortPair();
    const out = join(dir, 'tls.yaml');
    const run = simulate(['--clusters', '2', '--pods-per-cluster', '3', '--tls', '--port', String(port), '--out', out, '--churn', '5']);
    await waitLines(run, 2);
    const docs = parseAllDocuments(await readFile(out, 'utf8')).map((d) => d.toJSON() as PediaCluster);
    expect(docs.map((d) => d.spec.apiserver)).toEqual([`https://127.0.0.1:${port}`, `https://127.0.0.1:${port + 1}`]);
    const ca = Buffer.from(docs[0]?.spec.caData ?? '', 'base64').toString();
    const token = Buffer.from(docs[0]?.spec.tokenData ?? '', 'base64').toString();
    const res = await fetch(`${docs[0]?.spec.apiserver}/api/v1/namespaces`, { headers: { authorization: `Bearer ${token}` }, dispatcher: new Agent({ connect: { ca } }) });
    expect(res.status).toBe(200);
    // HTTP/2 offered beside HTTP/1.1, as kube-apiserver does.
    const alpn = await new Promise<string | false | null>((resolve, reject) => {
      const s = tlsConnect({ host: '127.0.0.1', port, ca, ALPNProtocols: ['h2', 'http/1.1'] }, () => {
        resolve(s.alpnProtocol);
        s.destroy();
      });
      s.on('error', reject);
    });
    expect(alpn).toBe('h2');
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(0);
  });

  it('exits 2 naming the flag on a bad value', async () => {
    const run = simulate(['--clusters', 'many']);
    expect(await run.exited).toBe(2);
    expect(run.stderr()).toContain('--clusters');
  });
});
