// No secret leaves the process: the built bundle runs `binding` at debug level with token, kubeconfig and certificate members,
// a wrong token, PostgreSQL with a password and delegated auth; everything it prints and serves is searched for each secret.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { stringify } from 'yaml';
import {
  kubeconfigFor, pediaClusterFor, pediaClustersYaml, startSimulatedCluster, startSimulatedFleet, type SimCluster, type SimFleet,
} from '../../../src/sim/index.js';
import { BundleProcess, ensureBundle, runBundle } from '../../support/bundle.js';
import { freeLoopbackPort, makeClientCert, makeTestPki, tlsGet, type TestPki } from '../../support/certs.js';
import { Kubectl } from '../../support/kubectl.js';
import { freshPostgresDatabase } from '../../support/postgres.js';

const P = '/apis/clusterpedia.io/v1beta1/resources';
const b64 = (s: string): string => Buffer.from(s).toString('base64');
const rand = (): string => `${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;

let pki: TestPki;
let fleet: SimFleet;
let certMember: SimCluster;
let kubeconfigMember: SimCluster;
let host: SimCluster;
let proc: BundleProcess | undefined;
let db: { url: string; drop: () => Promise<void> };
let role: string;
let storageUrl: string;
let insecure: string;
let secure: string;
/** Every byte the process or its API handed out: HTTP bodies and headers, kubectl and `show` output. */
const transcript: string[] = [];

const secrets: Record<string, string> = {};
const userToken = `user-${rand()}`;
const wrongToken = `wrong-${rand()}`;
const dbPassword = `pw${rand()}`;

/** PostgreSQL as a role with a password (the test server trusts everyone, so only the URL carries the password). */
async function passwordDatabase(): Promise<string> {
  db = await freshPostgresDatabase('leak');
  role = `leak_${rand()}`;
  const admin = postgres(inject('postgresUrl'), { max: 1, onnotice: () => {} });
  const u = new URL(db.url);
  try {
    await admin.unsafe(`CREATE ROLE ${role} LOGIN PASSWORD '${dbPassword}'`);
    await admin.unsafe(`ALTER DATABASE ${u.pathname.slice(1)} OWNER TO ${role}`);
  } finally {
    await admin.end();
  }
  u.username = role;
  u.password = dbPassword;
  return u.toString();
}

async function record<R extends { status: number; headers: Record<string, unknown> | Headers; text: string }>(r: R): Promise<R> {
  const headers = r.headers instanceof Headers ? Object.fromEntries(r.headers.entries()) : r.headers;
  transcript.push(`${r.status} ${JSON.stringify(headers)}\n${r.text}`);
  return r;
}
const plain = async (path: string, accept = 'application/json'): Promise<{ status: number; headers: Headers; text: string }> => {
  const r = await fetch(`${insecure}${path}`, { headers: { accept } });
  return record({ status: r.status, headers: r.headers, text: await r.text() });
};
const tls = async (path: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> =>
  record(await tlsGet(`${secure}${path}`, { ca: pki.servingCa.cert, headers }));

beforeAll(async () => {
  pki = await makeTestPki();
  fleet = await startSimulatedFleet({ tls: true, clusters: 2, podsPerCluster: 5 });
  certMember = await startSimulatedCluster({ name: 'cert-member', tls: true, token: null, clientCertAuth: true, pods: 5 });
  kubeconfigMember = await startSimulatedCluster({ name: 'kc-member', tls: true, pods: 5 });
  host = await startSimulatedCluster({ name: 'host', host: true, tls: true, pods: 1 });
  host.reviews.setTokenTable({ [userToken]: { username: 'reader', groups: ['readers'] } });

  const [a, b] = fleet.clusters as [SimCluster, SimCluster];
  const kubeconfigText = kubeconfigFor(kubeconfigMember);
  const wrong = pediaClusterFor(a);
  (wrong.metadata as { name: string }).name = 'wrong-token';
  (wrong.spec as Record<string, unknown>).tokenData = b64(wrongToken);
  const viaKubeconfig = { apiVersion: 'cluster.clusterpedia.io/v1alpha2', kind: 'PediaCluster', metadata: { name: 'kc-member' }, spec: { kubeconfig: b64(kubeconfigText), syncResources: [{ group: '', resources: ['pods'] }] } };
  const clustersFile = join(pki.dir, 'clusters.yaml');
  writeFileSync(clustersFile, [pediaClustersYaml([a, b, certMember]), stringify(wrong), stringify(viaKubeconfig)].join('---\n'));
  const hostKubeconfig = join(pki.dir, 'host.kubeconfig');
  writeFileSync(hostKubeconfig, kubeconfigFor(host));
  storageUrl = await passwordDatabase();
  ensureBundle();

  Object.assign(secrets, {
    'member token a': a.token ?? '', 'member token b': b.token ?? '', 'kubeconfig member token': kubeconfigMember.token ?? '',
    'host token': host.token ?? '', 'wrong token': wrongToken, 'user token': userToken, 'database password': dbPassword,
    'member key': pemBody(certMember.clientCert?.keyData ?? ''), 'serving key': pemBody(readKey(pki)),
  });
  for (const [k, v] of Object.entries({ ...secrets })) {
    expect(v.length, k).toBeGreaterThan(8);
    secrets[`${k} (base64)`] = b64(v);
  }
  secrets['member key PEM (base64)'] = b64(certMember.clientCert?.keyData ?? '');
  secrets['kubeconfig (base64)'] = b64(kubeconfigText);

  const securePort = await freeLoopbackPort();
  secure = `https://127.0.0.1:${securePort}`;
  proc = BundleProcess.start([
    '--log-level', 'debug', 'binding', '--clusters', clustersFile, '--kubeconfig', hostKubeconfig,
    '--bind-address', '127.0.0.1', '--secure-port', String(securePort), '--insecure-port', '0',
    '--tls-cert-file', pki.files.tlsCert, '--tls-private-key-file', pki.files.tlsKey,
    '--client-ca-file', pki.files.clientCa, '--requestheader-client-ca-file', pki.files.frontProxyCa,
    '--authentication-token-webhook', '--authorization-mode', 'Delegated', '--health-interval', '1s',
  ], { env: { CLUSTERPEDIA_STORAGE: storageUrl } });
  insecure = `http://127.0.0.1:${await proc.insecurePort()}`;
  await waitForSync();
}, 90_000);

afterAll(async () => {
  await proc?.stop();
  await Promise.all([fleet?.stop(), certMember?.stop(), kubeconfigMember?.stop(), host?.stop()]);
  if (db) {
    await db.drop();
    const admin = postgres(inject('postgresUrl'), { max: 1, onnotice: () => {} });
    await admin.unsafe(`DROP ROLE IF EXISTS ${role}`).finally(() => admin.end());
  }
  if (pki) rmSync(pki.dir, { recursive: true, force: true });
});

function readKey(p: TestPki): string {
  return readFileSync(p.files.tlsKey, 'utf8');
}

/** The base64 body of a PEM block, without its armour and line breaks (what a leak would most likely contain). */
function pemBody(pem: string): string {
  return pem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
}

/** Until the four good members have pods in storage and the wrong-token member has reported a failing condition. */
async function waitForSync(): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const pods = await fetch(`${insecure}${P}/api/v1/pods?limit=500`).then((r) => r.json() as Promise<{ items?: { metadata: { annotations?: Record<string, string> } }[] }>).catch(() => ({ items: [] }));
    const clusters = new Set((pods.items ?? []).map((i) => i.metadata.annotations?.['shadow.clusterpedia.io/cluster-name']));
    const pcs = await fetch(`${insecure}/apis/cluster.clusterpedia.io/v1alpha2/pediaclusters/wrong-token`).then((r) => r.json() as Promise<{ status?: { conditions?: { status: string }[] } }>).catch(() => ({}) as { status?: undefined });
    const wrongFailed = (pcs.status?.conditions ?? []).some((c) => c.status === 'False');
    // The test asks for sim-1's pods in `default` too: a namespace not synced yet is a 404 there.
    const inDefault = await fetch(`${insecure}${P}/clusters/sim-1/api/v1/namespaces/default/pods?limit=1`).then((r) => r.status, () => 0);
    if (['sim-1', 'sim-2', 'cert-member', 'kc-member'].every((c) => clusters.has(c)) && wrongFailed && inDefault === 200) return;
    if (Date.now() > deadline) throw new Error(`members did not sync: ${[...clusters].join(',')}; wrong-token failed: ${wrongFailed}\n${proc?.raw.slice(-20).join('\n')}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

describe('secrets never leak', () => {
  it('serves everything a user asks for, errors included', async () => {
    const bearer = { authorization: `Bearer ${userToken}` };
    for (const path of [`${P}/api/v1/pods`, `${P}/clusters/sim-1/api/v1/namespaces/default/pods`, '/apis/cluster.clusterpedia.io/v1alpha2/pediaclusters', '/apis/cluster.clusterpedia.io/v1alpha2/pediaclusters/kc-member', '/metrics']) {
      expect((await tls(path, bearer)).status, path).toBe(200);
    }
    expect((await tls(`${P}/api/v1/pods`, { authorization: `Bearer ${wrongToken}` })).status).toBe(401);
    expect((await tls(`${P}/api/v1/pods`, { 'x-remote-user': 'admin' })).status).toBe(401);
    for (const path of [`${P}/clusters/nope/api/v1/pods`, `${P}/api/v1/namespaces/default/pods/x`, '/no/such/path', `${P}/api/v1/pods?labelSelector=%%%`, `${P}/api/v1/pods?watch=true&resourceVersion=1&timeoutSeconds=1`]) {
      await plain(path);
    }
    for (const accept of ['application/yaml', 'application/json;as=Table;v=v1;g=meta.k8s.io']) {
      expect((await plain('/apis/cluster.clusterpedia.io/v1alpha2/pediaclusters', accept)).status).toBe(200);
    }
    const client = await makeClientCert(pki.clientCa, 'cert-user');
    transcript.push((await tlsGet(`${secure}/metrics`, { ca: pki.servingCa.cert, client })).text);
  });

  it('the PediaCluster read API redacts spec credentials', async () => {
    const r = await plain('/apis/cluster.clusterpedia.io/v1alpha2/pediaclusters');
    const items = (JSON.parse(r.text) as { items: { metadata: { name: string }; spec: Record<string, unknown> }[] }).items;
    expect(items.map((i) => i.metadata.name).sort()).toEqual(['cert-member', 'kc-member', 'sim-1', 'sim-2', 'wrong-token']);
    for (const i of items) for (const f of ['kubeconfig', 'caData', 'tokenData', 'certData', 'keyData']) expect(i.spec[f], `${i.metadata.name}.${f}`).toBeUndefined();
  });

  it('kubectl and `show clusters` print no secret', async () => {
    const k = new Kubectl(`${insecure}${P}`);
    const root = new Kubectl(insecure);
    try {
      for (const r of [await k.run(['get', 'pods', '-A']), await root.run(['get', 'pediaclusters', '-o', 'yaml']), await k.run(['get', 'pods', '-n', 'x', 'missing'])]) {
        transcript.push(r.stdout, r.stderr);
      }
    } finally {
      k.dispose();
      root.dispose();
    }
    for (const args of [['clusters', '-o', 'yaml'], ['clusters', '-o', 'json'], ['clusters'], ['resources', '-o', 'yaml']]) {
      const show = await runBundle(['--log-level', 'debug', 'show', ...args], { env: { CLUSTERPEDIA_STORAGE: storageUrl } });
      expect(show.code, show.stderr).toBe(0);
      transcript.push(show.stdout, show.stderr);
    }
    expect(transcript.join('\n')).toContain('wrong-token');
  });

  it('storage errors name the database, not its password', async () => {
    const u = new URL(storageUrl);
    const unreachable = new URL(storageUrl);
    unreachable.port = String(await freeLoopbackPort());
    for (const url of [unreachable.toString(), `${u.protocol}//${u.username}:${dbPassword}@${u.hostname}:notaport/x`]) {
      const r = await runBundle(['--log-level', 'debug', 'show', 'clusters'], { env: { CLUSTERPEDIA_STORAGE: url }, timeoutMs: 30_000 });
      expect(r.code, r.stdout + r.stderr).not.toBe(0);
      transcript.push(r.stdout, r.stderr);
    }
    // Clusterpedia's internalstorage config file carries the password as a field.
    const config = join(pki.dir, 'storage.yaml');
    writeFileSync(config, stringify({ type: 'postgres', host: u.hostname, port: Number(unreachable.port), user: u.username, password: dbPassword, database: 'x' }));
    const r = await runBundle(['--log-level', 'debug', 'show', 'clusters', '--storage-config', config], { timeoutMs: 30_000 });
    expect(r.code).not.toBe(0);
    transcript.push(r.stdout, r.stderr);
  });

  it('nothing printed or served contains a secret, in clear or base64', async () => {
    await proc?.stop();
    const channels: Record<string, string> = { 'process output': (proc?.raw ?? []).join('\n'), 'HTTP and CLI transcript': transcript.join('\n') };
    // The run really exercised what it claims: PostgreSQL storage, debug lines, served requests.
    expect(proc?.lines.some((l) => l.dialect === 'postgres')).toBe(true);
    expect(proc?.lines.some((l) => l.level === 20)).toBe(true);
    expect(channels['process output']).toContain('"msg":"request"');
    for (const [channel, text] of Object.entries(channels)) {
      for (const [what, secret] of Object.entries(secrets)) {
        expect(text.includes(secret), `${what} found in ${channel}`).toBe(false);
      }
      // A key body might be wrapped at 64 columns: any full line of it is a leak too.
      for (const line of [certMember.clientCert?.keyData ?? '', readKey(pki)].join('\n').split('\n').filter((l) => l.length >= 40)) {
        expect(text.includes(line), `a line of a private key found in ${channel}`).toBe(false);
      }
    }
  });
});
