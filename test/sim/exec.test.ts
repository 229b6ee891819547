// The simulator's pod exec, driven by real kubectl: over WebSocket (1.30+, the v5 channel protocol) and over SPDY
// (kubectl 1.27, v4.channel.k8s.io).
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulatedCluster, type SimCluster, type SimObject } from '../../src/sim/index.js';
import { kubectlPath, oldestKubectl } from '../support/kubectl.js';

let c: SimCluster;
let pod: SimObject;
let dir: string;

beforeAll(async () => {
  c = await startSimulatedCluster({ pods: 1, tls: true });
  dir = await mkdtemp(join(tmpdir(), 'sim-exec-'));
  await writeFile(join(dir, 'ca.crt'), c.caData ?? '');
  c.store.create('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ex' } });
  pod = c.store.create('pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'box', namespace: 'ex' }, spec: { containers: [{ name: 'main', image: 'busybox' }] }, status: { phase: 'Running' } });
  c.store.create('pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'two', namespace: 'ex' }, spec: { containers: [{ name: 'a', image: 'busybox' }, { name: 'b', image: 'busybox' }] }, status: { phase: 'Running' } });
});
afterAll(async () => {
  await c?.stop();
  await rm(dir, { recursive: true, force: true });
});

const flags = (): string[] => [`--server=${c.url}`, `--token=${c.token ?? ''}`, `--certificate-authority=${join(dir, 'ca.crt')}`, '--kubeconfig=/dev/null'];

/** `stdin` null keeps the child's stdin open until it exits (script(1) types ^D into the terminal at its stdin's end). */
async function kubectl(args: string[], stdin?: string | null, base = flags(), binary = 'kubectl'): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(binary, [...base, ...args]);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    if (stdin === null) child.on('exit', () => child.stdin.end());
    else child.stdin.end(stdin ?? '');
  });
}

/** Copies `from` into a fresh file under `dir`; its path. */
async function cpOut(run: (args: string[]) => Promise<{ code: number | null }>, from: string, dir: string): Promise<string> {
  const to = join(dir, `out-${Math.random().toString(36).slice(2)}`);
  expect((await run(['cp', from, to])).code).toBe(0);
  return to;
}

describe('pod exec', () => {
  for (const [transport, binary] of [['WebSocket', kubectlPath()], ['SPDY', oldestKubectl()]] as const) {
    it(`runs echo and hostname, passes stdin through cat, and reports exit codes as kubectl shows them (${transport})`, async () => {
      const run = (args: string[], stdin?: string): ReturnType<typeof kubectl> => kubectl(args, stdin, flags(), binary);
      const before = c.requestLog.entries((r) => r.path.endsWith('/pods/box/exec')).length;
      expect(await run(['exec', '-n', 'ex', 'box', '--', 'echo', 'hello', 'world'])).toMatchObject({ code: 0, stdout: 'hello world\n' });
      expect(await run(['exec', '-n', 'ex', 'box', '--', 'hostname'])).toMatchObject({ code: 0, stdout: 'box\n' });
      expect(await run(['exec', '-i', '-n', 'ex', 'box', '--', 'cat'], 'line one\nline two\n')).toMatchObject({ code: 0, stdout: 'line one\nline two\n' });
      // With a tty (kubectl given a terminal by script(1)), stderr is merged, a resize stream is opened instead, the
      // process starts once the terminal has kubectl's size, and its newlines come out as CR LF.
      const tty = await kubectl(['-qec', [binary, ...flags(), 'exec', '-i', '-t', '-n', 'ex', 'box', '--', 'echo', 'tty'].join(' '), '/dev/null'], null, [], 'script');
      expect(tty).toMatchObject({ code: 0, stdout: 'tty\r\n' });
      expect(await run(['exec', '-n', 'ex', 'box', '--', 'exit', '3'])).toMatchObject({ code: 3, stderr: expect.stringMatching(/command terminated with exit code 3/) });
      const missing = await run(['exec', '-n', 'ex', 'box', '--', 'nope']);
      expect(missing.code).toBe(127);
      expect(missing.stderr).toMatch(/exec: "nope": executable file not found in \$PATH/);
      // One upgrade per command: no fallback from one transport to the other.
      expect(c.requestLog.entries((r) => r.path.endsWith('/pods/box/exec')).length).toBe(before + 6);
    });
  }

  for (const [transport, binary] of [['WebSocket', kubectlPath()], ['SPDY', oldestKubectl()]] as const) {
    it(`kubectl cp in and out of a container, files and directories; tar's messages (${transport})`, async () => {
      const local = await mkdtemp(join(tmpdir(), 'sim-cp-'));
      const run = (args: string[]): ReturnType<typeof kubectl> => kubectl(args, '', flags(), binary);
      try {
        await writeFile(join(local, 'a.txt'), `alpha ${transport}\n`);
        expect((await run(['cp', join(local, 'a.txt'), 'ex/box:/data/a.txt'])).code).toBe(0);
        expect(await run(['exec', '-n', 'ex', 'box', '--', 'test', '-d', '/data'])).toMatchObject({ code: 0 });
        expect(await run(['exec', '-n', 'ex', 'box', '--', 'test', '-f', '/data'])).toMatchObject({ code: 1 });
        // (kubectl prints tar's stderr when it comes before the archive's end; it may not wait for it.)
        expect(await run(['cp', 'ex/box:/data', join(local, 'data')])).toMatchObject({ code: 0 });
        expect(await readFile(join(local, 'data', 'a.txt'), 'utf8')).toBe(`alpha ${transport}\n`);
        expect(await readFile(join(await cpOut(run, 'ex/box:/etc/hostname', local), ''), 'utf8')).toBe('box\n');
        // A path that is not there: nothing copied (kubectl does not wait for tar's message), and tar's own answer.
        await run(['cp', 'ex/box:/nope', join(local, 'nope')]);
        await expect(readFile(join(local, 'nope'))).rejects.toThrow(/ENOENT/);
        const tar = await run(['exec', '-n', 'ex', 'box', '--', 'tar', 'cf', '-', '/nope']);
        expect(tar).toMatchObject({ code: 2, stderr: expect.stringMatching(/tar: \/nope: Cannot stat: No such file or directory\ntar: Exiting with failure status due to previous errors\n/) });
      } finally {
        await rm(local, { recursive: true, force: true });
      }
    });
  }

  it('answers the container rules, a missing pod and a bad token as kube does', async () => {
    const choose = await kubectl(['exec', '-n', 'ex', 'two', '-c', 'c', '--', 'echo']);
    expect(choose.code).not.toBe(0);
    expect(choose.stderr).toMatch(/container c is not valid for pod two/);
    expect(await kubectl(['exec', '-n', 'ex', 'two', '-c', 'b', '--', 'hostname'])).toMatchObject({ code: 0, stdout: 'two\n' });
    const gone = await kubectl(['exec', '-n', 'ex', 'gone', '--', 'echo']);
    expect(gone.stderr).toMatch(/pods "gone" not found/);
    const wrong = await kubectl(['exec', '-n', 'ex', 'box', '--', 'echo'], '', flags().map((f) => (f.startsWith('--token=') ? '--token=wrong' : f)));
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toMatch(/Unauthorized|provide credentials/i);
    expect(pod.metadata.name).toBe('box');
  });

  it("attaches to the container's process: its lines as they come, stdin echoed", async () => {
    const child = spawn('kubectl', [...flags(), 'attach', '-i', '-n', 'ex', 'box']);
    let out = '';
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`no attach output: ${out}`)), 20_000);
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('attached line 2\n') && !out.includes('typed')) child.stdin.write('typed\n');
        if (out.includes('typed\n')) {
          clearTimeout(t);
          resolve();
        }
      });
    });
    child.kill('SIGKILL');
    expect(out).toMatch(/^ex\/box\/main attached line 1\n/);
  });

  it("refuses a SPDY upgrade without a stream protocol it speaks, as kube's handshake does", async () => {
    const ask = (protocols: string[]): Promise<{ code: number; body: string }> => new Promise((resolve, reject) => {
      const headers: Record<string, string | string[]> = { connection: 'Upgrade', upgrade: 'SPDY/3.1', authorization: `Bearer ${c.token ?? ''}` };
      if (protocols.length > 0) headers['x-stream-protocol-version'] = protocols;
      const req = httpsRequest(`${c.url}/api/v1/namespaces/ex/pods/box/exec?command=echo&stdout=true`, { ca: c.caData, headers });
      req.on('response', (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString())).on('end', () => resolve({ code: res.statusCode ?? 0, body }));
      });
      req.on('upgrade', (_res, socket) => {
        socket.destroy();
        resolve({ code: 101, body: '' });
      });
      req.on('error', reject);
      req.end();
    });
    // Each header line is one protocol: a comma-joined list is one protocol nobody speaks.
    const joined = await ask(['v4.channel.k8s.io, v3.channel.k8s.io']);
    expect(joined.code).toBe(403);
    expect(JSON.parse(joined.body)).toMatchObject({ message: 'unable to upgrade: unable to negotiate protocol: client supports [v4.channel.k8s.io, v3.channel.k8s.io], server accepts [v4.channel.k8s.io]' });
    expect((await ask([])).code).toBe(403);
    expect((await ask(['v3.channel.k8s.io', 'v4.channel.k8s.io'])).code).toBe(101);
  });
});
