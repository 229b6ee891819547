// A kubeconfig user's token-file is read as client-go reads it: again as it rotates (a projected service-account
// token), relative to the kubeconfig's directory, and a file missing at load fails requests, not the load.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { KubeClient } from '../../src/kube/client.js';
import { kubeConfigFromFile, kubeConfigFromString, withTokenFiles } from '../../src/kube/kubeconfig.js';
import { startSimulatedCluster, type SimCluster } from '../../src/sim/cluster.js';

const TOKEN = 'rotated-token-2';
let sim: SimCluster;
let dir: string;

beforeAll(async () => {
  sim = await startSimulatedCluster({ token: TOKEN, pods: 1 });
  dir = mkdtempSync(join(tmpdir(), 'cp-kubeconfig-'));
});
afterAll(async () => {
  await sim?.stop();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  vi.useRealTimers();
});

const config = (server: string, user: string): string => `apiVersion: v1
kind: Config
clusters: [{name: m, cluster: {server: '${server}'}}]
users: [{name: u, user: ${user}}]
contexts: [{name: c, context: {cluster: m, user: u}}]
current-context: c
`;

describe('withTokenFiles', () => {
  it('turns a token-file user into a file token that is read again, resolving a relative path against the directory', () => {
    const out = JSON.parse(withTokenFiles(config('https://x', '{token-file: sa/token}'), '/etc/kube')) as { users: { user: unknown }[] };
    expect(out.users[0]?.user).toEqual({ 'auth-provider': { name: 'tokenFile', config: { tokenFile: '/etc/kube/sa/token' } } });
  });

  it('leaves the rest alone: a token beside it, an absolute path kept, no token file, text that does not parse', () => {
    const both = config('https://x', '{token: t, token-file: /f}');
    expect(withTokenFiles(both, '/d')).toBe(both);
    expect(JSON.parse(withTokenFiles(config('https://x', '{token-file: /run/token}'), '/d')).users[0].user['auth-provider'].config.tokenFile).toBe('/run/token');
    const plain = config('https://x', '{token: t}');
    expect(withTokenFiles(plain, '/d')).toBe(plain);
    expect(withTokenFiles('{{{', '/d')).toBe('{{{');
  });

  it('a token file missing at load fails the request that needs it, not the load', async () => {
    const kc = kubeConfigFromString(config(sim.url, `{token-file: ${join(dir, 'absent')}}`));
    await expect(KubeClient.create(kc)).rejects.toThrow(/ENOENT/);
  });
});

describe('a kubeconfig file', () => {
  it("resolves an exec plugin's relative command against its directory, and leaves a bare name to PATH", () => {
    const path = join(dir, 'exec.kubeconfig');
    const exec = (command: string): string => `{exec: {apiVersion: client.authentication.k8s.io/v1, command: '${command}', interactiveMode: Never}}`;
    writeFileSync(path, config('https://x', exec('./bin/get-token')));
    expect(kubeConfigFromFile(path).getCurrentUser()?.exec.command).toBe(join(dir, 'bin/get-token'));
    writeFileSync(path, config('https://x', exec('aws')));
    expect(kubeConfigFromFile(path).getCurrentUser()?.exec.command).toBe('aws');
    writeFileSync(path, config('https://x', exec('/usr/local/bin/aws')));
    expect(kubeConfigFromFile(path).getCurrentUser()?.exec.command).toBe('/usr/local/bin/aws');
  });
});

describe("a user's impersonation fields", () => {
  it('are all sent, as client-go sends them (client-node sent as only)', async () => {
    const seen: Record<string, string[]>[] = [];
    const server = createServer((req, res) => {
      seen.push(Object.fromEntries(Object.entries(req.headersDistinct).filter(([k]) => k.startsWith('impersonate-')).map(([k, v]) => [k, v ?? []])));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"kind":"NamespaceList","apiVersion":"v1","metadata":{},"items":[]}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const c = await KubeClient.create(kubeConfigFromString(config(url, "{token: t, as: alice, as-uid: u-1, as-groups: [dev, ops], as-user-extra: {scopes: [a, b], 'x/y': [z]}}")));
      try {
        await c.json('/api/v1/namespaces');
      } finally {
        await c.close();
      }
      expect(seen).toEqual([{
        'impersonate-user': ['alice'], 'impersonate-uid': ['u-1'], 'impersonate-group': ['dev', 'ops'],
        'impersonate-extra-scopes': ['a', 'b'], 'impersonate-extra-x%2fy': ['z'],
      }]);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});

describe("a cluster's exec extension", () => {
  it('reaches an exec plugin with provideClusterInfo as spec.cluster.config, as client-go gives it', async () => {
    const seen = join(dir, 'exec-info.json');
    const plugin = join(dir, 'info-plugin.sh');
    writeFileSync(plugin, `#!/bin/sh\nprintf '%s' "$KUBERNETES_EXEC_INFO" > ${seen}\nprintf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"${TOKEN}"}}'\n`, { mode: 0o755 });
    const text = `apiVersion: v1
kind: Config
clusters:
- name: m
  cluster:
    server: '${sim.url}'
    extensions:
    - name: client.authentication.k8s.io/exec
      extension: {audience: fleet, region: eu-1}
    - name: other
      extension: {x: 1}
users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: '${plugin}', interactiveMode: Never, provideClusterInfo: true}}}]
contexts: [{name: c, context: {cluster: m, user: u}}]
current-context: c
`;
    const c = await KubeClient.create(kubeConfigFromString(text));
    try {
      await expect(c.json('/api/v1/namespaces')).resolves.toMatchObject({ kind: 'NamespaceList' });
    } finally {
      await c.close();
    }
    expect(JSON.parse(readFileSync(seen, 'utf8'))).toEqual({
      kind: 'ExecCredential', apiVersion: 'client.authentication.k8s.io/v1',
      spec: { interactive: false, cluster: { server: sim.url, config: { audience: 'fleet', region: 'eu-1' } } },
    });
  });
});

describe('a rotated token file', () => {
  it('is read again within a minute, as client-go does (client-node read it once at load)', async () => {
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, 'old-token');
    const path = join(dir, 'kubeconfig');
    writeFileSync(path, config(sim.url, '{token-file: token}'));
    vi.useFakeTimers({ toFake: ['Date'] });
    const c = await KubeClient.create(kubeConfigFromFile(path));
    try {
      await expect(c.json('/api/v1/namespaces')).rejects.toMatchObject({ status: 401 });
      writeFileSync(tokenFile, TOKEN);
      vi.setSystemTime(Date.now() + 61_000);
      await expect(c.json('/api/v1/namespaces')).resolves.toMatchObject({ kind: 'NamespaceList' });
    } finally {
      await c.close();
    }
  });
});
