// Real kubectl through the secure port with a client certificate from a kubeconfig (and without one: Unauthorized).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/lib/log.js';
import { openStorage } from '../../../src/storage/open.js';
import type { Storage } from '../../../src/storage/types.js';
import { startTestApiserver, type TestApiserver } from '../../support/apiserver.js';
import { freeLoopbackPort, makeCa, makeClientCert, makeTestPki, usePki, type TestPki } from '../../support/certs.js';
import { healthyStatus, pod } from '../../support/fixtures.js';
import { kubectlPath } from '../../support/kubectl.js';

let pki: TestPki;
let storage: Storage;
let api: TestApiserver;
let server: string;
let cacheDir: string;

/** A kubeconfig naming the server, its CA and (optionally) a client certificate by file path. */
function kubeconfig(name: string, user: Record<string, string>): string {
  const path = join(pki.dir, `${name}.kubeconfig`);
  writeFileSync(path, stringify({
    apiVersion: 'v1', kind: 'Config',
    clusters: [{ name: 'clusterpedia', cluster: { server, 'certificate-authority': pki.files.servingCa } }],
    users: [{ name, user }],
    contexts: [{ name, context: { cluster: 'clusterpedia', user: name } }],
    'current-context': name,
  }));
  return path;
}

async function kubectl(config: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(kubectlPath(), [`--kubeconfig=${config}`, `--cache-dir=${cacheDir}`, '--request-timeout=30s', ...args],
      { env: { ...process.env, KUBECONFIG: '' }, timeout: 50_000 },
      (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: unknown }).code ?? 1) || 1 : 0, stdout, stderr }));
    // kubectl prompts for a user name on 401 when the kubeconfig has no user: give it an empty stdin.
    child.stdin?.end();
  });
}

beforeAll(async () => {
  pki = await makeTestPki();
  cacheDir = mkdtempSync(join(tmpdir(), 'cp-kubectl-'));
  storage = await openStorage({ url: 'sqlite::memory:' }, { logger: silentLogger() });
  await storage.migrate();
  await storage.write({ upserts: [pod('east', 'default', 'web-1'), pod('west', 'shop', 'cart-1')], deletes: [] });
  for (const c of ['east', 'west']) await storage.putClusterStatus(c, healthyStatus(c));
  const port = await freeLoopbackPort();
  server = `https://127.0.0.1:${port}/apis/clusterpedia.io/v1beta1/resources`;
  api = await startTestApiserver(storage, (o) => usePki(o, pki, port));
});

afterAll(async () => {
  await api?.stop();
  await storage?.close();
  if (cacheDir) rmSync(cacheDir, { recursive: true, force: true });
  if (pki) rmSync(pki.dir, { recursive: true, force: true });
});

describe('kubectl over HTTPS', () => {
  it('lists pods of every cluster with a client certificate (--client-certificate/--client-key/--certificate-authority)', async () => {
    const cert = await makeClientCert(pki.clientCa, 'alice', { groups: ['dev'] });
    const certFile = join(pki.dir, 'alice.crt');
    const keyFile = join(pki.dir, 'alice.key');
    writeFileSync(certFile, cert.cert);
    writeFileSync(keyFile, cert.key, { mode: 0o600 });
    const r = await kubectl(kubeconfig('alice', { 'client-certificate': certFile, 'client-key': keyFile }), ['get', 'pods', '-A']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^NAMESPACE\s+CLUSTER\s+NAME\s+/);
    expect(lines.slice(1).map((l) => l.split(/\s+/).slice(0, 3).join(' '))).toEqual(['default east web-1', 'shop west cart-1']);
  });

  it('with a certificate of another CA is told it must log in', async () => {
    // (A kubeconfig with no user at all makes kubectl prompt for a password before any request: not a server test.)
    const rogue = await makeClientCert(await makeCa('client-ca'), 'alice', { groups: ['system:masters'] });
    const r = await kubectl(kubeconfig('rogue', {
      'client-certificate-data': Buffer.from(rogue.cert).toString('base64'),
      'client-key-data': Buffer.from(rogue.key).toString('base64'),
    }), ['get', 'pods', '-A']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/must be logged in to the server \(Unauthorized\)/);
  });
});
