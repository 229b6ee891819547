// The shipped artifact: dist/clusterpedia.mjs answers --help, --version and migrate, with the documented exit codes;
// bin/clusterpedia runs it with the node flags of its role.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, readlinkSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { BUNDLE, BUNDLE_NODE, BundleProcess, ROOT, runBundle, underOpenFilesLimit } from '../support/bundle.js';
import { freshPostgresDatabase } from '../support/postgres.js';
import { freePort } from '../support/postgres-server.js';
import { openStorage } from '../../src/storage/open.js';
import { silentLogger } from '../../src/lib/log.js';
import { pod } from '../support/fixtures.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cp-cli-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('dist/clusterpedia.mjs', () => {
  it('--help lists every command and exits 0; --version prints the version', async () => {
    const help = await runBundle(['--help']);
    expect(help.code).toBe(0);
    for (const c of ['binding', 'apiserver', 'synchro', 'migrate', 'show', 'simulate']) expect(help.stdout).toMatch(new RegExp(`^\\s+${c}\\b`, 'm'));
    const commands = ['binding', 'apiserver', 'synchro', 'migrate', 'show clusters', 'show resources', 'simulate'];
    const helps = await Promise.all(commands.map((c) => runBundle([...c.split(' '), '--help'])));
    for (const [i, c] of commands.entries()) {
      const r = helps[i] as Awaited<ReturnType<typeof runBundle>>;
      expect(r.code, c).toBe(0);
      expect(r.stdout, c).toMatch(/Usage: clusterpedia/);
    }
    const v = await runBundle(['--version']);
    expect(v.code).toBe(0);
    expect(v.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('runs on the node the tests name (`npm run test:node` checks the bundle on Node 22 and 24 so)', async () => {
    const p = BundleProcess.start(['apiserver', '--storage', `sqlite:${join(dir, 'which-node.db')}`, '--secure-port', '0', '--insecure-port', '0']);
    try {
      await p.insecurePort();
      // The node named, else this one: the variable read here, not BUNDLE_NODE, which is what is under test.
      expect(readlinkSync(`/proc/${p.child.pid}/exe`)).toBe(realpathSync(process.env.CLUSTERPEDIA_TEST_NODE ?? process.execPath));
      expect(readFileSync(`/proc/${p.child.pid}/cmdline`, 'utf8').split('\0')).toContain(BUNDLE);
    } finally {
      expect(await p.stop()).toBe(0);
    }
  });

  it('--heap-growing-percent is a process setting of the apiserver and the synchro, checked before anything starts', async () => {
    for (const role of ['apiserver', 'synchro']) {
      const help = await runBundle([role, '--help']);
      expect(help.stdout, role).toMatch(/--heap-growing-percent <n> .*\(default: 50/);
      const bad = await runBundle([role, '--heap-growing-percent', 'abc', '--storage', 'sqlite::memory:']);
      expect(bad.code, role).toBe(2);
      expect(bad.stderr, role).toMatch(/--heap-growing-percent <n>' argument 'abc' is invalid/);
    }
  });

  it('migrate creates a fresh SQLite schema, then is a no-op', async () => {
    const url = `sqlite:${join(dir, 'fresh.db')}`;
    const first = await runBundle(['migrate', '--storage', url, '--log-level', 'warn']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/schema version 0 → \d+/);
    const again = await runBundle(['migrate', '--storage', url, '--log-level', 'warn']);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/up to date/);
  });

  it('read-only commands leave a SQLite path alone: migrate --dry-run plans a fresh schema, show names the missing file', async () => {
    const path = join(dir, 'not-made-yet.db');
    const plan = await runBundle(['migrate', '--dry-run', '--storage', `sqlite:${path}`, '--log-level', 'warn']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(/would migrate schema version 0 → \d+: 0000_init/);
    for (const args of [['show', 'clusters'], ['show', 'resources'], ['show', 'kubeconfig', '--server', 'https://cp.example:8443']]) {
      const r = await runBundle([...args, '--storage', `sqlite:${path}`]);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr).toContain(`error: no SQLite database at ${path}`);
    }
    expect(existsSync(path)).toBe(false);
  });

  it('show clusters|resources NAME… reads only those clusters; a name storage does not have is an error, exit 1', async () => {
    const path = join(dir, 'named.db');
    const storage = await openStorage({ url: `sqlite:${path}` }, { logger: silentLogger() });
    try {
      await storage.migrate();
      for (const name of ['east', 'west', 'north']) {
        await storage.putClusterStatus(name, { spec: {}, status: { conditions: [{ type: 'Ready', status: 'True', reason: 'Ready', message: '' }], syncResources: [{ group: '', resources: [{ name: 'pods', kind: 'Pod', namespaced: true, syncConditions: [{ version: 'v1', status: 'Syncing', initialListPhase: false }] }] }] }, updatedAt: new Date().toISOString() });
        await storage.write({ upserts: [pod(name, 'default', `${name}-web`)], deletes: [] });
      }
    } finally {
      await storage.close();
    }
    const at = ['--storage', `sqlite:${path}`, '--log-level', 'warn'];
    const clusters = await runBundle(['show', 'clusters', 'west', 'east', ...at]);
    expect(clusters.code, clusters.stderr).toBe(0);
    expect(clusters.stdout.trim().split('\n').map((l) => l.split(/\s+/)[0])).toEqual(['NAME', 'east', 'west']);
    const resources = await runBundle(['show', 'resources', 'north', '-o', 'json', ...at]);
    expect(resources.code, resources.stderr).toBe(0);
    expect((JSON.parse(resources.stdout) as Array<{ name: string }>).map((r) => r.name)).toEqual(['north']);
    const typo = await runBundle(['show', 'resources', 'weast', 'east', ...at]);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toBe('error: no cluster named "weast" in storage (it has east, north, west)\n');
    expect(typo.stdout).toBe('');
  });

  it('show --watch whose reader goes away (| head) ends quietly, exit 0', async () => {
    const url = `sqlite:${join(dir, 'watched.db')}`;
    expect((await runBundle(['migrate', '--storage', url, '--log-level', 'warn'])).code).toBe(0);
    const child = spawn(BUNDLE_NODE, [BUNDLE, 'show', 'clusters', '-o', 'yaml', '--watch', '--watch-interval', '50ms', '--storage', url], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
    // The first screen, then the reader leaves, as head does after its lines.
    await new Promise<void>((res) => child.stdout.once('data', () => res()));
    child.stdout.destroy();
    expect(await exited).toBe(0);
    expect(stderr).toBe('');
  });

  it('simulate reads CLUSTERPEDIA_SIMULATE_*, not the roles\' CLUSTERPEDIA_CLUSTERS path', async () => {
    const out = join(dir, 'simulated.yaml');
    const child = spawn(BUNDLE_NODE, [BUNDLE, 'simulate', '--out', out, '--pods-per-cluster', '2'], {
      stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, CLUSTERPEDIA_CLUSTERS: './clusters/', CLUSTERPEDIA_SIMULATE_CLUSTERS: '3' },
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
    try {
      const deadline = Date.now() + 20_000;
      while (!existsSync(out) && child.exitCode === null && Date.now() < deadline) await new Promise((res) => setTimeout(res, 100));
      expect(child.exitCode, stderr).toBeNull();
      expect(readFileSync(out, 'utf8').match(/^kind: PediaCluster$/gm)).toHaveLength(3);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });

  it('migrate creates a fresh PostgreSQL schema, then is a no-op', async () => {
    const db = await freshPostgresDatabase('cli');
    try {
      const first = await runBundle(['migrate', '--storage', db.url, '--log-level', 'warn']);
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).toMatch(/schema version 0 → \d+/);
      const again = await runBundle(['migrate', '--storage', db.url, '--log-level', 'warn']);
      expect(again.stdout).toMatch(/up to date/);
    } finally {
      await db.drop();
    }
  });

  it('bad flags exit 2 naming the flag; a runtime failure exits 1', async () => {
    const notPem = join(ROOT, 'package.json');
    const escaped = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    const cases: [string[], RegExp][] = [
      [['apiserver', '--secure-port', 'abc'], /--secure-port/],
      [['apiserver', '--max-requests-inflight', '-3'], /--max-requests-inflight/],
      [['binding', '--request-timeout', 'soon'], /--request-timeout/],
      [['synchro', '--page-size', '0', '--clusters', 'x.yaml'], /--page-size/],
      [['migrate', '--storage', 'mysql://root@db/x'], /--storage/],
      [['show', 'clusters', '-o', 'xml'], /--output/],
      [['--log-level', 'loud', 'show', 'clusters'], /--log-level/],
      [['synchro'], /cluster source|--clusters/],
      [['synchro', '--clusters', '/nonexistent/clusters.yaml', '--storage', 'sqlite::memory:'], /--clusters: \/nonexistent\/clusters.yaml does not exist/],
      [['binding', '--clusters', '/nonexistent/clusters.yaml', '--storage', 'sqlite::memory:'], /--clusters: \/nonexistent\/clusters.yaml does not exist/],
      // Clusterpedia's flag and messages.
      [['binding', '--allowed-proxy-subresources', 'log,configmaps/proxy'], /--allowed-proxy-subresources.*unsupported subresources or invalid format "configmaps\/proxy"/],
      [['binding', '--allowed-proxy-subresources', 'log,tail'], /--allowed-proxy-subresources.*unsupported subresources or invalid format "tail"/],
      [['binding', '--allowed-proxy-subresources', 'a/b/c'], /--allowed-proxy-subresources.*invalid format "a\/b\/c"/],
      // A standalone apiserver takes members' credentials from the host cluster's PediaClusters (or --clusters files).
      [['apiserver', '--storage', 'sqlite::memory:', '--allowed-proxy-subresources', 'pods/log'],
        /--allowed-proxy-subresources needs the host cluster, but the in-cluster config \(no --kubeconfig given\) is not usable: this process does not run in a Pod/],
      [['apiserver', '--storage', 'sqlite::memory:', '--allow-pediacluster-config-for-proxy-request'],
        /--allow-pediacluster-config-for-proxy-request needs the host cluster, but the in-cluster config/],
      [['synchro', '--storage', 'sqlite::memory:', '--kubeconfig', notPem], new RegExp(`^error: --kubeconfig ${escaped(notPem)}: `)],
      // A period or time-out of 0 would spin a loop (polls, probes, lease retries) or fail every write at once.
      [['apiserver', '--watch-poll-interval', '0'], /--watch-poll-interval.*must be a duration above zero/],
      [['synchro', '--clusters', 'x.yaml', '--health-interval', '0s'], /--health-interval.*must be a duration above zero/],
      [['synchro', '--clusters', 'x.yaml', '--write-timeout', '0ms'], /--write-timeout.*must be a duration above zero/],
      [['binding', '--leader-elect-retry-period', '0'], /--leader-elect-retry-period.*must be a duration above zero/],
      [['show', 'clusters', '--watch', '--watch-interval', '0'], /--watch-interval.*must be a duration above zero/],
      // Flags are checked before storage is looked for (there is none at ./none.db).
      [['show', 'kubeconfig', '--server', 'ftp://x', '--storage', 'sqlite:./none.db'], /^error: --server: the scheme must be https or http, not ftp:\n$/],
      // Files that are not what the flag says: named, once, before anything listens (OpenSSL's own words named neither).
      [['apiserver', '--storage', 'sqlite::memory:', '--tls-cert-file', notPem, '--tls-private-key-file', notPem],
        new RegExp(`^error: --tls-cert-file: ${escaped(notPem)} is not a PEM certificate\\n$`)],
      [['apiserver', '--storage', 'sqlite::memory:', '--client-ca-file', notPem],
        new RegExp(`^error: --client-ca-file: ${escaped(notPem)} is not a PEM certificate bundle: no PEM certificate found\\n$`)],
    ];
    // Three at a time: each is a process start (~0.5 s), and there are two dozen.
    const results: Awaited<ReturnType<typeof runBundle>>[] = [];
    for (let i = 0; i < cases.length; i += 3) results.push(...await Promise.all(cases.slice(i, i + 3).map(([args]) => runBundle(args))));
    for (const [i, [args, flag]] of cases.entries()) {
      const r = results[i] as Awaited<ReturnType<typeof runBundle>>;
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(flag);
      expect(r.stderr, args.join(' ')).not.toMatch(/\n\s+at /);
    }
    const env = await runBundle(['apiserver'], { env: { CLUSTERPEDIA_SECURE_PORT: 'x' } });
    expect(env.code).toBe(2);
    expect(env.stderr).toMatch(/secure-port/i);
    const unreachable = await runBundle(['migrate', '--storage', 'postgres://u@127.0.0.1:1/db', '--storage-initialization-timeout', '0', '--log-level', 'silent']);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).not.toMatch(/\n\s+at /);
  });
  it('a port that cannot be had exits 2 naming its flag (taken, or an address not this machine\'s, or none asked), without a stack', async () => {
    const held = createServer();
    await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve));
    const taken = (held.address() as AddressInfo).port;
    const dir = mkdtempSync(join(tmpdir(), 'cp-ports-'));
    const clusters = join(dir, 'clusters.yaml');
    writeFileSync(clusters, '');
    try {
      const memory = ['--storage', 'sqlite::memory:', '--log-level', 'silent'];
      const cases: [string[], RegExp][] = [
        [['apiserver', ...memory, '--secure-port', '0', '--insecure-port', String(taken)], new RegExp(`^error: --insecure-port: cannot listen on 127\\.0\\.0\\.1:${taken}: the port is in use`)],
        // The insecure listener gets its port: it is closed again and the process ends (it used to serve on, half up).
        [['apiserver', ...memory, '--bind-address', '127.0.0.1', '--secure-port', String(taken), '--insecure-port', String(await freePort())], new RegExp(`^error: --secure-port: cannot listen on 127\\.0\\.0\\.1:${taken}: the port is in use`)],
        // TEST-NET-1 (RFC 5737): never one of this machine's addresses.
        [['apiserver', ...memory, '--bind-address', '192.0.2.1', '--secure-port', String(taken)], new RegExp(`^error: --bind-address: cannot listen on 192\\.0\\.2\\.1:${taken}: the address is not one of this machine's`)],
        [['apiserver', ...memory, '--secure-port', '0'], /^error: nothing to serve: --secure-port is 0 and --insecure-port is not set/],
        [['synchro', ...memory, '--clusters', clusters, '--metrics-host', '127.0.0.1', '--metrics-port', String(taken)], new RegExp(`^error: --metrics-port: cannot listen on 127\\.0\\.0\\.1:${taken}: the port is in use`)],
        [['binding', ...memory, '--clusters', clusters, '--bind-address', '127.0.0.1', '--secure-port', String(await freePort()), '--insecure-port', String(taken)], new RegExp(`^error: --insecure-port: cannot listen on 127\\.0\\.0\\.1:${taken}`)],
      ];
      const results = await Promise.all(cases.map(([args]) => runBundle(args, { timeoutMs: 30_000 })));
      for (const [i, [args, message]] of cases.entries()) {
        const r = results[i] as Awaited<ReturnType<typeof runBundle>>;
        expect(r.stderr, args.join(' ')).toMatch(message);
        expect(r.stderr, args.join(' ')).not.toMatch(/\n\s+at /);
        expect(r.code, args.join(' ')).toBe(2);
      }
    } finally {
      held.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('bin/clusterpedia', () => {
  /** Starts `bin/clusterpedia <args>` and returns node's command line once the launcher has exec'd it. */
  async function nodeCommandLine(args: string[], env?: NodeJS.ProcessEnv): Promise<string[]> {
    return (await nodeProcess(args, env)).argv;
  }

  /**
   * Node's command line, environment and open-files limits (soft, hard) once the launcher has exec'd it. With
   * `softNoFile`, the launcher starts under that soft limit.
   */
  async function nodeProcess(
    args: string[], env: NodeJS.ProcessEnv = withoutArenaMax(), softNoFile?: number,
  ): Promise<{ argv: string[]; env: Map<string, string>; noFile: [string, string] }> {
    const bin = join(ROOT, 'bin/clusterpedia');
    const [cmd, cmdArgs] = softNoFile === undefined ? [bin, args] : underOpenFilesLimit(`-S -n ${softNoFile}`, bin, args);
    const child = spawn(cmd, cmdArgs, { stdio: 'ignore', env });
    try {
      for (let i = 0; i < 200; i++) {
        const argv = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
        if (argv.some((a) => a.endsWith('clusterpedia.mjs'))) {
          const environ = readFileSync(`/proc/${child.pid}/environ`, 'utf8').split('\0').filter(Boolean);
          const limits = /^Max open files\s+(\S+)\s+(\S+)/m.exec(readFileSync(`/proc/${child.pid}/limits`, 'utf8'));
          return {
            argv: argv.map((a) => (a.endsWith('.mjs') ? resolve(a) : a)),
            env: new Map(environ.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)])),
            noFile: [limits?.[1] ?? '', limits?.[2] ?? ''],
          };
        }
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error('bin/clusterpedia never ran the bundle');
    } finally {
      child.kill('SIGKILL');
    }
  }

  it('runs the bundle without Node\'s warning printer (warnings are log lines); the synchro with a 4 MB young generation, other roles with V8 defaults', async () => {
    const clusters = join(dir, 'clusters.yaml');
    writeFileSync(clusters, '');
    const synchro = await nodeCommandLine(['synchro', '--storage', `sqlite:${join(dir, 'bin-synchro.db')}`, '--clusters', clusters, '--metrics-port', '0']);
    expect(synchro[0]).toMatch(/node$/);
    expect(synchro.slice(1, 4)).toEqual(['--no-warnings', '--max-semi-space-size=4', join(ROOT, 'dist/clusterpedia.mjs')]);
    expect(synchro.slice(4, 5)).toEqual(['synchro']);
    const apiserver = await nodeCommandLine(['apiserver', '--storage', `sqlite:${join(dir, 'bin-api.db')}`, '--secure-port', '0', '--insecure-port', '0']);
    expect(apiserver.slice(1, 4)).toEqual(['--no-warnings', join(ROOT, 'dist/clusterpedia.mjs'), 'apiserver']);
    const v = spawnSync(join(ROOT, 'bin/clusterpedia'), ['--version'], { encoding: 'utf8' });
    expect(v.status).toBe(0);
    expect(v.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('limits glibc to two malloc arenas for the roles with a SQLite writer thread, unless MALLOC_ARENA_MAX is set', async () => {
    const clusters = join(dir, 'clusters.yaml');
    writeFileSync(clusters, '');
    const synchro = ['synchro', '--storage', `sqlite:${join(dir, 'arena-synchro.db')}`, '--clusters', clusters, '--metrics-port', '0'];
    expect((await nodeProcess(synchro)).env.get('MALLOC_ARENA_MAX')).toBe('2');
    const binding = ['binding', '--storage', `sqlite:${join(dir, 'arena-binding.db')}`, '--clusters', clusters, '--secure-port', '0', '--insecure-port', '0'];
    expect((await nodeProcess(binding)).env.get('MALLOC_ARENA_MAX')).toBe('2');
    const apiserver = ['apiserver', '--storage', `sqlite:${join(dir, 'arena-api.db')}`, '--secure-port', '0', '--insecure-port', '0'];
    expect((await nodeProcess(apiserver)).env.has('MALLOC_ARENA_MAX')).toBe(false);
    expect((await nodeProcess(synchro, { ...withoutArenaMax(), MALLOC_ARENA_MAX: '8' })).env.get('MALLOC_ARENA_MAX')).toBe('8');
  });

  it('raises the soft open-files limit to the hard one for every role, as Go programs do (systemd starts services at 1,024)', async () => {
    const hard = spawnSync('sh', ['-c', 'ulimit -H -n'], { encoding: 'utf8' }).stdout.trim();
    expect(Number(hard)).toBeGreaterThan(256);
    const clusters = join(dir, 'clusters.yaml');
    writeFileSync(clusters, '');
    const synchro = ['synchro', '--storage', `sqlite:${join(dir, 'nofile-synchro.db')}`, '--clusters', clusters, '--metrics-port', '0'];
    const apiserver = ['apiserver', '--storage', `sqlite:${join(dir, 'nofile-api.db')}`, '--secure-port', '0', '--insecure-port', '0'];
    for (const args of [synchro, apiserver]) {
      expect((await nodeProcess(args, withoutArenaMax(), 256)).noFile).toEqual([hard, hard]);
    }
  });
});

function withoutArenaMax(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.MALLOC_ARENA_MAX;
  return env;
}
