// Exec credential plugins as client-go runs them for a process with no terminal: what the plugin is given
// (KUBERNETES_EXEC_INFO, no standard input), what is checked of its answer, what its failures say (never its output,
// which holds the credential), and a client certificate it hands out that changes (rotation).
import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { KubeConfig, type Cluster } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient } from '../../src/kube/client.js';
import { parseExecCredential, runExecPlugin } from '../../src/kube/exec-credential.js';
import { generateCertificates, type SimCertificates } from '../../src/sim/tls.js';

const V1 = 'client.authentication.k8s.io/v1';
const V1BETA1 = 'client.authentication.k8s.io/v1beta1';
const CLUSTER: Cluster = { name: 'm', server: 'https://10.1.2.3:6443', caData: 'Q0EtREFUQQ==', skipTLSVerify: false, tlsServerName: 'api.example' };

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cp-exec-cred-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
/** A shell script as a plugin; returns its path. */
function script(body: string): string {
  const path = join(dir, `plugin-${++n}.sh`);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

const credential = (status: Record<string, string>, apiVersion = V1): string => JSON.stringify({ apiVersion, kind: 'ExecCredential', status });
const printing = (out: string): string => `cat <<'EOF'\n${out}\nEOF`;

describe('running an exec plugin', () => {
  it('gives it KUBERNETES_EXEC_INFO (not interactive; the cluster when asked) and the stanza env on top of the process env', async () => {
    const seen = join(dir, 'seen.json');
    const cmd = script(`printf '%s\\n%s\\n%s' "$KUBERNETES_EXEC_INFO" "$FROM_STANZA" "$PATH" > ${seen}\n${printing(credential({ token: 't' }))}`);
    await expect(runExecPlugin({ apiVersion: V1, command: cmd, interactiveMode: 'Never', env: [{ name: 'FROM_STANZA', value: 'x1' }] }, CLUSTER, 5_000)).resolves.toEqual({ token: 't' });
    const [info, fromStanza, path] = readFileSync(seen, 'utf8').split('\n');
    expect(JSON.parse(info!)).toEqual({ kind: 'ExecCredential', apiVersion: V1, spec: { interactive: false } });
    expect(fromStanza).toBe('x1');
    expect(path).toBe(process.env.PATH);

    await runExecPlugin({ apiVersion: V1, command: cmd, interactiveMode: 'Never', provideClusterInfo: true }, CLUSTER, 5_000);
    expect(JSON.parse(readFileSync(seen, 'utf8').split('\n')[0]!)).toEqual({
      kind: 'ExecCredential', apiVersion: V1,
      spec: { interactive: false, cluster: { server: 'https://10.1.2.3:6443', 'certificate-authority-data': 'Q0EtREFUQQ==', 'tls-server-name': 'api.example' } },
    });
  });

  it('gives it no standard input: a plugin that asks for a login fails at once instead of waiting for ever', async () => {
    const cmd = script(`if read -r answer; then echo '${credential({ token: 't' })}'; else echo 'error: no terminal to ask for the password' >&2; exit 3; fi`);
    const started = Date.now();
    await expect(runExecPlugin({ apiVersion: V1, command: cmd, interactiveMode: 'IfAvailable' }, null, 20_000)).rejects.toMatchObject({
      reason: 'CredentialPluginError',
      message: `exec plugin plugin-${n}.sh failed (exit code 3): error: no terminal to ask for the password`,
    });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('refuses interactiveMode Always without running it, and checks the stanza as client-go does', async () => {
    const ran = join(dir, 'ran');
    const cmd = script(`touch ${ran}\n${printing(credential({ token: 't' }))}`);
    await expect(runExecPlugin({ apiVersion: V1, command: cmd, interactiveMode: 'Always' }, null, 5_000)).rejects.toThrow(/needs an interactive terminal \(interactiveMode: Always\)/);
    await expect(runExecPlugin({ apiVersion: V1, command: cmd }, null, 5_000)).rejects.toThrow('interactiveMode must be set for client.authentication.k8s.io/v1');
    await expect(runExecPlugin({ apiVersion: 'client.authentication.k8s.io/v1alpha1', command: cmd, interactiveMode: 'Never' }, null, 5_000)).rejects.toThrow('apiVersion "client.authentication.k8s.io/v1alpha1" is not supported');
    await expect(runExecPlugin({ apiVersion: V1, interactiveMode: 'Never' }, null, 5_000)).rejects.toThrow('has no command');
    expect(() => readFileSync(ran)).toThrow();
    // v1beta1 defaults to IfAvailable.
    await expect(runExecPlugin({ apiVersion: V1BETA1, command: script(printing(credential({ token: 'b' }, V1BETA1))) }, null, 5_000)).resolves.toEqual({ token: 'b' });
  });

  it('says what a failed run printed last on stderr, never what it printed on stdout', async () => {
    const cmd = script(`echo '${credential({ token: 'secret-on-stdout' })}'\necho 'first line' >&2\necho 'aws: the SSO session has expired; run aws sso login' >&2\nexit 255`);
    const err = await runExecPlugin({ apiVersion: V1, command: cmd, interactiveMode: 'Never' }, null, 5_000).catch((e: unknown) => e as Error);
    expect(err).toMatchObject({ message: `exec plugin plugin-${n}.sh failed (exit code 255): aws: the SSO session has expired; run aws sso login`, retryable: true });
    expect(String((err as Error).message)).not.toContain('secret-on-stdout');
  });

  it('names a plugin that is not installed, with its installHint', async () => {
    await expect(runExecPlugin({ apiVersion: V1, command: '/nonexistent/bin/aws-iam-authenticator', interactiveMode: 'Never', installHint: 'Install aws-iam-authenticator: https://example.com/install\n' }, null, 5_000)).rejects.toMatchObject({
      reason: 'CredentialPluginNotFound',
      message: 'exec plugin /nonexistent/bin/aws-iam-authenticator not found: Install aws-iam-authenticator: https://example.com/install',
    });
  });
});

describe('an ExecCredential answer', () => {
  const bad: [string, string, string][] = [
    ['not JSON', 'token: secret-1', 'exec plugin p did not print an ExecCredential (its output is not JSON)'],
    ['another kind', JSON.stringify({ apiVersion: V1, kind: 'Secret', status: { token: 'secret-1' } }), 'exec plugin p did not print an ExecCredential (kind "Secret")'],
    ['another version', credential({ token: 'secret-1' }, V1BETA1), `exec plugin p is configured for ${V1} but answered "${V1BETA1}"`],
    ['no status', JSON.stringify({ apiVersion: V1, kind: 'ExecCredential' }), 'exec plugin p did not return a status'],
    ['an empty status', credential({}), 'exec plugin p returned neither a token nor a client certificate and key'],
    ['a certificate without its key', credential({ clientCertificateData: 'secret-1' }), 'exec plugin p returned a client certificate without its key'],
    ['a key without its certificate', credential({ clientKeyData: 'secret-1' }), 'exec plugin p returned a client key without its certificate'],
    ['an expiry that is not a time', credential({ token: 'secret-1', expirationTimestamp: 'soon' }), 'exec plugin p returned an expirationTimestamp that is not a time: "soon"'],
  ];
  for (const [what, out, message] of bad) {
    it(`with ${what} is refused with a message that does not quote the credential`, () => {
      expect(() => parseExecCredential(out, V1, 'p')).toThrow(message);
      try {
        parseExecCredential(out, V1, 'p');
      } catch (e: unknown) {
        expect((e as Error).message).not.toContain('secret-1');
      }
    });
  }

  it('gives the token, the certificate and key, and the expiry', () => {
    expect(parseExecCredential(credential({ token: 't', clientCertificateData: 'c', clientKeyData: 'k', expirationTimestamp: '2030-01-01T00:00:00Z' }), V1, 'p'))
      .toEqual({ token: 't', cert: 'c', key: 'k', expiresAt: Date.parse('2030-01-01T00:00:00Z') });
  });
});

describe('a client certificate from an exec plugin', () => {
  let certs: SimCertificates;
  let second: { cert: string; key: string };
  let server: Server;
  let url: string;
  /** The subject CN of the client certificate of each request served. */
  const seen: string[] = [];
  /** CNs answered 401 (a revoked certificate). */
  const refused = new Set<string>();

  beforeAll(async () => {
    certs = await generateCertificates();
    second = await clientCertificate(certs, 'rotated-user');
    server = createServer({ cert: certs.serverCert, key: certs.serverKey, ca: certs.caCert, requestCert: true, rejectUnauthorized: true }, (req, res) => {
      const cn = String((req.socket as TLSSocket).getPeerCertificate().subject?.CN ?? '');
      seen.push(cn);
      if (refused.has(cn)) {
        res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Unauthorized', code: 401 }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ kind: 'NamespaceList', apiVersion: 'v1', metadata: {}, items: [] }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  /** A plugin printing the first certificate (valid until `expiry`) on its first run and the second after. */
  function rotatingPlugin(expiry: string): { command: string; runs: () => number } {
    const count = join(dir, `cert-runs-${++n}`);
    writeFileSync(count, '');
    const out = (c: string, k: string, until: string): string => credential({ clientCertificateData: c, clientKeyData: k, expirationTimestamp: until });
    const first = join(dir, `first-${n}.json`);
    const next = join(dir, `next-${n}.json`);
    writeFileSync(first, out(certs.clientCert, certs.clientKey, expiry));
    writeFileSync(next, out(second.cert, second.key, '2099-01-01T00:00:00Z'));
    const command = script(`echo run >> ${count}\nif [ "$(wc -l < ${count})" -eq 1 ]; then cat ${first}; else cat ${next}; fi`);
    return { command, runs: () => readFileSync(count, 'utf8').split('\n').filter(Boolean).length };
  }

  function kubeConfig(command: string): KubeConfig {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'm', server: url, caData: Buffer.from(certs.caCert).toString('base64'), skipTLSVerify: false }],
      users: [{ name: 'u', exec: { apiVersion: V1, command, interactiveMode: 'Never' } }],
      contexts: [{ name: 'm', cluster: 'm', user: 'u' }],
      currentContext: 'm',
    });
    return kc;
  }

  it('is presented, and once it expires the next one is, on new connections', async () => {
    let now = Date.parse('2030-01-01T00:00:00Z');
    const p = rotatingPlugin('2030-01-01T01:00:00Z');
    const c = await KubeClient.create(kubeConfig(p.command), { now: () => now });
    try {
      seen.length = 0;
      await c.json('/api/v1/namespaces');
      await c.json('/api/v1/namespaces');
      expect(seen).toEqual(['sim-admin', 'sim-admin']);
      now += 2 * 3600_000;
      await c.json('/api/v1/namespaces');
      await c.json('/api/v1/namespaces');
      expect(seen.slice(2)).toEqual(['rotated-user', 'rotated-user']);
      expect(p.runs()).toBe(2);
    } finally {
      await c.close();
    }
  });

  it('that the member refuses is replaced and the request sent again with the new one', async () => {
    const p = rotatingPlugin('2099-01-01T00:00:00Z');
    const c = await KubeClient.create(kubeConfig(p.command));
    refused.add('sim-admin');
    try {
      seen.length = 0;
      await expect(c.json('/api/v1/namespaces')).resolves.toMatchObject({ kind: 'NamespaceList' });
      expect(seen).toEqual(['sim-admin', 'rotated-user']);
      expect(p.runs()).toBe(2);
    } finally {
      refused.clear();
      await c.close();
    }
  });
});

/** A client certificate for CN=`cn` signed by the simulator's CA (openssl, as the simulator makes its own). */
async function clientCertificate(certs: SimCertificates, cn: string): Promise<{ cert: string; key: string }> {
  const d = mkdtempSync(join(tmpdir(), 'cp-client-cert-'));
  const f = (name: string): string => join(d, name);
  const run = promisify(execFile);
  try {
    writeFileSync(f('ca.crt'), certs.caCert);
    writeFileSync(f('ca.key'), certs.caKey);
    writeFileSync(f('client.ext'), 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n');
    await run('openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', f('c.key'), '-out', f('c.csr'), '-subj', `/CN=${cn}`]);
    await run('openssl', ['x509', '-req', '-in', f('c.csr'), '-CA', f('ca.crt'), '-CAkey', f('ca.key'), '-CAcreateserial', '-out', f('c.crt'), '-days', '1', '-extfile', f('client.ext')]);
    return { cert: readFileSync(f('c.crt'), 'utf8'), key: readFileSync(f('c.key'), 'utf8') };
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
}
