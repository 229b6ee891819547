// Real kubectl (the dispatcher → 1.32, and 1.27 directly) against the simulator over HTTPS with a token.
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulatedCluster, type SimCluster } from '../../src/sim/index.js';

const run = promisify(execFile);
let c: SimCluster;
let dir: string;
let flags: string[];
let kubectl127: string;

beforeAll(async () => {
  c = await startSimulatedCluster({ pods: 40, seed: 11, tls: true });
  dir = await mkdtemp(join(tmpdir(), 'sim-kubectl-'));
  await writeFile(join(dir, 'ca.crt'), c.caData ?? '');
  await writeFile(join(dir, 'empty-kubeconfig'), 'apiVersion: v1\nkind: Config\n');
  flags = [`--server=${c.url}`, `--token=${c.token}`, `--certificate-authority=${join(dir, 'ca.crt')}`, `--cache-dir=${join(dir, 'cache')}`, '--request-timeout=20s', `--kubeconfig=${join(dir, 'empty-kubeconfig')}`];
  const onPath = (await run('sh', ['-c', 'command -v kubectl'])).stdout.trim();
  kubectl127 = join(dirname(realpathSync(onPath)), 'kubectl.1.27');
});
afterAll(async () => {
  await c.stop();
  await rm(dir, { recursive: true, force: true });
});

async function kubectl(args: string[], bin = 'kubectl'): Promise<string> {
  const { stdout } = await run(bin, [...args, ...flags], { timeout: 40_000 });
  return stdout;
}

describe('kubectl', () => {
  it('get pods -A prints the server-side table for every pod (dispatcher picks 1.32 from /version)', async () => {
    const out = await kubectl(['get', 'pods', '-A']);
    const lines = out.trim().split('\n');
    expect(lines[0]).toMatch(/^NAMESPACE\s+NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE/);
    expect(lines).toHaveLength(41);
    expect(out).toMatch(/CrashLoopBackOff|Running/);
    const versions = new Set(c.requestLog.entries().map((r) => r.userAgent.split(' ')[0]));
    expect([...versions].some((v) => v?.startsWith('kubectl/v1.32'))).toBe(true);
  });

  it('filters with -l and --field-selector', async () => {
    const pod = c.store.list('pods')[0];
    const app = pod?.metadata.labels?.app ?? '';
    const byLabel = (await kubectl(['get', 'pods', '-A', '-l', `app=${app}`, '-o', 'name'])).trim().split('\n');
    expect(byLabel.sort()).toEqual(c.store.list('pods').filter((p) => p.metadata.labels?.app === app).map((p) => `pod/${p.metadata.name}`).sort());
    const running = (await kubectl(['get', 'pods', '-A', '--field-selector', 'status.phase=Running', '-o', 'name'])).trim().split('\n');
    expect(running.length).toBe(c.store.list('pods').filter((p) => (p.status as { phase: string }).phase === 'Running').length);
  });

  it('--chunk-size 7 returns the same set as an unchunked list, following continue tokens', async () => {
    c.requestLog.clear();
    const chunked = (await kubectl(['get', 'pods', '-A', '--chunk-size', '7', '-o', 'name'])).trim().split('\n');
    const whole = (await kubectl(['get', 'pods', '-A', '--chunk-size', '0', '-o', 'name'])).trim().split('\n');
    expect(chunked).toEqual(whole);
    expect(chunked).toHaveLength(40);
    const pages = c.requestLog.entries((r) => r.path === '/api/v1/pods' && r.params.limit === '7');
    expect(pages).toHaveLength(6);
    expect(pages.filter((p) => p.params.continue)).toHaveLength(5);
  });

  it('-o json returns the pods as a List', async () => {
    const list = JSON.parse(await kubectl(['get', 'pods', '-n', 'kube-system', '-o', 'json'])) as { kind: string; items: Array<{ kind: string; metadata: { name: string } }> };
    expect(list.kind).toBe('List');
    expect(list.items.map((i) => i.metadata.name).sort()).toEqual(c.store.list('pods', 'kube-system').map((p) => p.metadata.name).sort());
    expect(list.items[0]?.kind).toBe('Pod');
  });

  it('get -w prints a change made while it watches', async () => {
    const child = spawn('kubectl', ['get', 'configmaps', '-n', 'default', '-w', ...flags], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    try {
      const waitFor = async (pred: () => boolean): Promise<void> => {
        for (let i = 0; i < 300 && !pred(); i++) await new Promise((r) => setTimeout(r, 100));
        expect(pred()).toBe(true);
      };
      await waitFor(() => out.includes('kube-root-ca.crt'));
      await waitFor(() => c.requestLog.entries((r) => r.watch && r.path.endsWith('/configmaps')).length > 0);
      c.store.create('configmaps', { metadata: { name: 'made-while-watching', namespace: 'default' }, data: { a: '1' } });
      await waitFor(() => out.includes('made-while-watching'));
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('the oldest kubectl (1.27) lists too', async () => {
    const out = await kubectl(['get', 'pods', '-A'], kubectl127);
    expect(out.trim().split('\n')).toHaveLength(41);
    const ns = await kubectl(['get', 'crontabs', '-A', '-o', 'name'], kubectl127);
    expect(ns.trim().split('\n').length).toBe(c.store.count('crontabs.stable.example.com'));
  });
});
