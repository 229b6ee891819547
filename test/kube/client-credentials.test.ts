// Member credentials from an exec plugin (EKS, GKE, AKS kubeconfigs): the plugin runs once for many requests, not once
// per request, and a token the member no longer takes is replaced and the request sent again.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { KubeClient, PLUGIN_CREDENTIAL_TTL_MS } from '../../src/kube/client.js';
import { startSimulatedCluster, type SimCluster } from '../../src/sim/cluster.js';
import { probeHealth } from '../../src/roles/synchro/health.js';

const TOKEN = 'member-token-1';
let sim: SimCluster;
let dir: string;

beforeAll(async () => {
  sim = await startSimulatedCluster({ token: TOKEN, pods: 3 });
  dir = mkdtempSync(join(tmpdir(), 'cp-exec-'));
});

afterAll(async () => {
  await sim?.stop();
  rmSync(dir, { recursive: true, force: true });
});

let runs: string;

beforeEach(() => {
  runs = join(dir, `runs-${Math.random().toString(36).slice(2)}`);
  writeFileSync(runs, '');
});

/**
 * A plugin that records each run and prints the tokens given, one per run (the last one after that). HANG: that run
 * answers only after 3 s (a plugin waiting for input).
 */
function plugin(tokens: string[], expiration?: string): string {
  const path = join(dir, `plugin-${Math.random().toString(36).slice(2)}.sh`);
  const cases = tokens.map((t, i) => `${i + 1}) T=${t} ;;`).join(' ');
  const exp = expiration ? `,"expirationTimestamp":"${expiration}"` : '';
  writeFileSync(path, [
    '#!/bin/sh',
    `echo run >> ${runs}`,
    `N=$(wc -l < ${runs})`,
    `case $N in ${cases} *) T=${tokens.at(-1)} ;; esac`,
    `if [ "$T" = HANG ]; then echo $$ >> ${runs}.pids; sleep 3 & echo $! >> ${runs}.pids; wait; fi`,
    `printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s"${exp}}}' "$T"`,
    '',
  ].join('\n'));
  chmodSync(path, 0o755);
  return path;
}

const pluginRuns = (): number => readFileSync(runs, 'utf8').split('\n').filter(Boolean).length;

/** The pids of the last hung run: the plugin's shell, then the sleep it started. */
const hungPids = (): number[] => readFileSync(`${runs}.pids`, 'utf8').split('\n').filter(Boolean).map(Number).slice(-2);

/** Whether a process runs (a zombie waiting for its reaper does not). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function until(ok: () => boolean, ms = 3_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

function kubeConfig(command: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    // A plain http server, and no insecure-skip-tls-verify: kubectl takes it (kubectl proxy), so must we.
    clusters: [{ name: 'm', server: sim.url, skipTLSVerify: false }],
    users: [{ name: 'u', exec: { apiVersion: 'client.authentication.k8s.io/v1', command, args: [], interactiveMode: 'Never' } }],
    contexts: [{ name: 'm', cluster: 'm', user: 'u' }],
    currentContext: 'm',
  });
  return kc;
}

async function client(command: string, now?: () => number): Promise<KubeClient> {
  return KubeClient.create(kubeConfig(command), now ? { now } : {});
}

describe('an exec credential plugin', () => {
  it('runs once for many requests, concurrent or not, when its credential has no expiry (client-node ran it for each)', async () => {
    const c = await client(plugin([TOKEN]));
    try {
      await Promise.all(Array.from({ length: 20 }, () => c.json('/api/v1/namespaces')));
      for (let i = 0; i < 10; i++) await c.json('/api/v1/namespaces');
      expect(pluginRuns()).toBe(1);
    } finally {
      await c.close();
    }
  });

  it('keeps a credential that states no expiry until the member refuses it, as client-go does', async () => {
    let now = 1_000_000;
    const c = await client(plugin([TOKEN]), () => now);
    try {
      await c.json('/api/v1/namespaces');
      now += 100 * PLUGIN_CREDENTIAL_TTL_MS;
      await c.json('/api/v1/namespaces');
      expect(pluginRuns()).toBe(1);
    } finally {
      await c.close();
    }
  });

  it('runs again once the expiry it stated has passed, one run for concurrent requests', async () => {
    let now = Date.parse('2030-01-01T00:00:00Z');
    const c = await client(plugin([TOKEN], '2030-01-01T00:01:00Z'), () => now);
    try {
      await c.json('/api/v1/namespaces');
      now += 59_000;
      await c.json('/api/v1/namespaces');
      expect(pluginRuns()).toBe(1);
      now += 2_000;
      await Promise.all(Array.from({ length: 10 }, () => c.json('/api/v1/namespaces')));
      expect(pluginRuns()).toBe(2);
    } finally {
      await c.close();
    }
  });

  it('replaces a cached credential the member refuses (rotated, or past an expiry it did not state) and sends the request once more; a watch too', async () => {
    // The first run (at create, cached) gives a token the member refuses, every later one the right one.
    const c = await client(plugin(['expired-token', TOKEN]));
    try {
      const list = await c.json<{ items: unknown[] }>('/api/v1/pods');
      expect(list.items.length).toBeGreaterThan(0);
      expect(pluginRuns()).toBe(2);
      // A 401 that fresh headers cannot mend is the caller's: here the plugin keeps giving a refused token.
      const bad = await client(plugin(['wrong-token']));
      try {
        await expect(bad.json('/api/v1/pods')).rejects.toMatchObject({ status: 401 });
      } finally {
        await bad.close();
      }
    } finally {
      await c.close();
    }
    writeFileSync(runs, '');
    const w = await client(plugin(['expired-token', TOKEN]));
    try {
      const events = w.watch('/api/v1/pods', { timeoutSeconds: 1 });
      const first = await events.next();
      expect(first.value?.type).toBe('ADDED');
      await events.return(undefined);
    } finally {
      await w.close();
    }
  });

  it('that does not answer fails create() after the credential timeout and is stopped, with what it started', async () => {
    const kc = kubeConfig(plugin(['HANG']));
    const started = Date.now();
    await expect(KubeClient.create(kc, { credentialTimeoutMs: 300 })).rejects.toMatchObject({
      reason: 'CredentialTimeout',
      message: expect.stringMatching(/^no credentials within 0\.3 s: exec plugin plugin-\w+\.sh has not answered and was stopped$/),
    });
    expect(Date.now() - started).toBeLessThan(2_500);
    // The plugin's shell and the sleep it started are gone: a retry does not leave one more process each time.
    const pids = hungPids();
    expect(pids).toHaveLength(2);
    await until(() => pids.every((pid) => !alive(pid)));
    await expect(KubeClient.create(kc, { credentialTimeoutMs: 300 })).rejects.toMatchObject({ reason: 'CredentialTimeout' });
    expect(pluginRuns()).toBe(2);
  });

  it('that stops answering later fails the request (its health probe included) instead of holding it, and honours its signal', async () => {
    let now = Date.parse('2030-01-01T00:00:00Z');
    const c = await KubeClient.create(kubeConfig(plugin([TOKEN, 'HANG'], '2030-01-01T00:01:00Z')), { now: () => now, credentialTimeoutMs: 300 });
    try {
      now += 120_000;
      await expect(c.json('/api/v1/namespaces')).rejects.toMatchObject({ reason: 'CredentialTimeout', status: 0 });
      expect(await probeHealth(c, 5_000)).toMatchObject({ status: 'False', reason: 'NotReachable', message: expect.stringMatching(/^no credentials within 0\.3 s: exec plugin .* has not answered and was stopped$/) });
      const ac = new AbortController();
      ac.abort(new Error('stopping'));
      await expect(c.json('/api/v1/namespaces', { signal: ac.signal })).rejects.toThrow('stopping');
      expect(pluginRuns()).toBe(3);
    } finally {
      await c.close();
    }
  });

  it('keeps a credential with an expiry until then', async () => {
    const c = await client(plugin([TOKEN], '2099-01-01T00:00:00Z'), () => Date.now() + 10 * PLUGIN_CREDENTIAL_TTL_MS);
    try {
      for (let i = 0; i < 5; i++) await c.json('/api/v1/namespaces');
      expect(pluginRuns()).toBe(1);
    } finally {
      await c.close();
    }
  });
});

describe('a kubeconfig for a plain http server (kubectl proxy)', () => {
  it('needs no insecure-skip-tls-verify, as with kubectl (client-node refused it)', async () => {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'm', server: sim.url, skipTLSVerify: false }],
      users: [{ name: 'u', token: TOKEN }],
      contexts: [{ name: 'm', cluster: 'm', user: 'u' }],
      currentContext: 'm',
    });
    expect(sim.url.startsWith('http://')).toBe(true);
    const c = await KubeClient.create(kc);
    try {
      await expect(c.json('/api/v1/namespaces')).resolves.toMatchObject({ kind: 'NamespaceList' });
    } finally {
      await c.close();
    }
  });
});
