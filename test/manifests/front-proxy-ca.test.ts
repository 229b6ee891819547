// Runs manifests/base/fetch-front-proxy-ca.mjs (the API pods' init container) against a local HTTPS server
// standing in for kube-apiserver: the script the manifests ship is exercised, not only referenced.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSelfSigned } from '../../src/roles/apiserver/certs.js';
import { MANIFESTS } from './render.js';

const SCRIPT = join(MANIFESTS, 'base', 'fetch-front-proxy-ca.mjs');
const CM_PATH = '/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication';
const TOKEN = 'sa-token-123';
const FRONT_PROXY_CA = '-----BEGIN CERTIFICATE-----\nfront-proxy\n-----END CERTIFICATE-----\n';

/** What the fake kube-apiserver answers for the ConfigMap. */
let answer: { status: number; body: unknown } = { status: 200, body: {} };
let server: Server;
let dir: string;
let caFile: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'front-proxy-ca-'));
  const { cert, key } = await generateSelfSigned(['localhost'], ['127.0.0.1']);
  caFile = join(dir, 'ca.crt');
  writeFileSync(caFile, cert);
  writeFileSync(join(dir, 'token'), `${TOKEN}\n`);
  server = createServer({ cert, key }, (req, res) => {
    const authorized = req.headers.authorization === `Bearer ${TOKEN}`;
    const status = req.url !== CM_PATH ? 404 : authorized ? answer.status : 401;
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(status === answer.status ? answer.body : { kind: 'Status', code: status }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

function run(out: string, trustCa = true): Promise<{ code: number | null; stderr: string }> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    KUBERNETES_SERVICE_HOST: '127.0.0.1',
    KUBERNETES_SERVICE_PORT: String((server.address() as AddressInfo).port),
    SERVICE_ACCOUNT_DIR: dir,
    ...(trustCa ? { NODE_EXTRA_CA_CERTS: caFile } : {}),
  };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SCRIPT, out], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('fetch-front-proxy-ca.mjs', () => {
  it('writes the requestheader CA of kube-system/extension-apiserver-authentication, authenticating with the token', async () => {
    answer = { status: 200, body: { kind: 'ConfigMap', data: { 'requestheader-client-ca-file': FRONT_PROXY_CA, 'client-ca-file': 'other' } } };
    const out = join(dir, 'out', 'ca.crt');
    const r = await run(out);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(FRONT_PROXY_CA);
  });

  it('fails (so the Pod does not start without it) when the read is forbidden or the CA is absent', async () => {
    answer = { status: 403, body: { kind: 'Status', code: 403, message: 'forbidden' } };
    const denied = await run(join(dir, 'denied.crt'));
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain('HTTP 403');
    answer = { status: 200, body: { kind: 'ConfigMap', data: { 'client-ca-file': 'x' } } };
    const absent = await run(join(dir, 'absent.crt'));
    expect(absent.code).toBe(1);
    expect(absent.stderr).toContain('aggregation layer is not configured');
  });

  it('verifies the API server\'s certificate (trusts only NODE_EXTRA_CA_CERTS, the service account CA)', async () => {
    answer = { status: 200, body: { kind: 'ConfigMap', data: { 'requestheader-client-ca-file': FRONT_PROXY_CA } } };
    const r = await run(join(dir, 'untrusted.crt'), false);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/certificate/i);
  });
});
