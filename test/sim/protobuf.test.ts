// kubectl create sends the built-in kinds as protobuf (kube's "k8s\0" + runtime.Unknown envelope), with no fallback to
// JSON; the simulated member reads them as kube-apiserver does. What kubectl create makes must be what kubectl's own
// JSON of it says (--dry-run=client -o json), and the same as that JSON created through `create -f`: a wrong field
// number, a dropped zero or a field read as the wrong type shows as a difference.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEEP_ZERO, MESSAGES } from '../../src/kube/proto-schema.js';
import { startSimulatedCluster, type SimCluster } from '../../src/sim/index.js';
import { generateCertificates } from '../../src/sim/tls.js';
import { Kubectl, kubectlPath, kubectlVersion, oldestKubectl } from '../support/kubectl.js';

let c: SimCluster;
let dir: string;
beforeAll(async () => {
  c = await startSimulatedCluster({ pods: 10, seed: 11, token: null });
  dir = mkdtempSync(join(tmpdir(), 'cp-sim-protobuf-'));
  const tls = await generateCertificates();
  writeFileSync(join(dir, 'tls.crt'), tls.serverCert);
  writeFileSync(join(dir, 'tls.key'), tls.serverKey);
  writeFileSync(join(dir, 'blob.bin'), Buffer.from(Array.from({ length: 256 }, (_, i) => i)));
  writeFileSync(join(dir, 'app.properties'), 'color=blue\nsize=3\n');
});
afterAll(async () => {
  await c?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

type Obj = { metadata: { name: string; namespace?: string; uid?: string; annotations?: Record<string, string> }; spec?: Record<string, unknown> } & Record<string, unknown>;

interface Form {
  /** Resource and name to read the object back by. */
  get: [string, string];
  args: (nodePort: number) => string[];
}

/** Every `kubectl create` form of a kind this member serves, each with the fields it can set. */
const FORMS: Form[] = [
  { get: ['deployment', 'web'], args: () => ['create', 'deployment', 'web', '--image=nginx:1.27', '--image=busybox:1.36', '--port=8080', '--replicas=3'] },
  { get: ['deployment', 'sleeper'], args: () => ['create', 'deployment', 'sleeper', '--image=busybox:1.36', '--', 'sleep', '3600'] },
  // A pointer's zero: replicas 0 is not replicas unset (which would be 1).
  { get: ['deployment', 'idle'], args: () => ['create', 'deployment', 'idle', '--image=nginx', '--replicas=0'] },
  { get: ['configmap', 'settings'], args: () => ['create', 'configmap', 'settings', '--from-literal=mode=fast', '--from-literal=empty=', `--from-file=${join(dir, 'app.properties')}`, `--from-file=blob=${join(dir, 'blob.bin')}`] },
  { get: ['secret', 'password'], args: () => ['create', 'secret', 'generic', 'password', '--from-literal=password=hunter2', '--type=Opaque', `--from-file=blob=${join(dir, 'blob.bin')}`] },
  { get: ['secret', 'site-tls'], args: () => ['create', 'secret', 'tls', 'site-tls', `--cert=${join(dir, 'tls.crt')}`, `--key=${join(dir, 'tls.key')}`] },
  { get: ['secret', 'registry'], args: () => ['create', 'secret', 'docker-registry', 'registry', '--docker-server=registry.example.com', '--docker-username=u', '--docker-password=p', '--docker-email=u@example.com'] },
  { get: ['serviceaccount', 'robot'], args: () => ['create', 'serviceaccount', 'robot'] },
  { get: ['service', 'web'], args: () => ['create', 'service', 'clusterip', 'web', '--tcp=80:8080', '--tcp=443:https'] },
  { get: ['service', 'headless'], args: () => ['create', 'service', 'clusterip', 'headless', '--clusterip=None', '--tcp=5432'] },
  { get: ['service', 'edge'], args: (port) => ['create', 'service', 'nodeport', 'edge', '--tcp=80:8080', `--node-port=${port}`] },
  { get: ['service', 'lb'], args: () => ['create', 'service', 'loadbalancer', 'lb', '--tcp=443:8443'] },
  { get: ['service', 'db'], args: () => ['create', 'service', 'externalname', 'db', '--external-name=db.example.com'] },
  { get: ['job', 'once'], args: () => ['create', 'job', 'once', '--image=busybox', '--', 'echo', 'hi'] },
  { get: ['cronjob', 'nightly'], args: () => ['create', 'cronjob', 'nightly', '--image=busybox', '--schedule=0 3 * * *', '--restart=Never', '--', 'date'] },
  // Its owner reference (controller: true) and annotation come from the CronJob kubectl reads first.
  { get: ['job', 'manual'], args: () => ['create', 'job', 'manual', '--from=cronjob/nightly'] },
  {
    get: ['ingress', 'site'],
    args: () => ['create', 'ingress', 'site', '--class=nginx', '--rule=foo.com/=web:80', '--rule=foo.com/admin*=web:https,tls=site-tls', '--default-backend=web:80', '--annotation=nginx.ingress.kubernetes.io/rewrite-target=/'],
  },
];

/** The object less what its server decides (identity, time, status, allocated addresses) and nulls. */
function comparable(o: Obj): unknown {
  const uid = o.metadata.uid ?? '';
  const { uid: _u, resourceVersion: _r, creationTimestamp: _c, namespace: _n, managedFields: _m, annotations, ...metadata } = o.metadata as Record<string, unknown> & Obj['metadata'];
  const { 'deployment.kubernetes.io/revision': _rev, ...kept } = annotations ?? {};
  const { status: _s, ...rest } = o;
  const spec = rest.spec && { ...rest.spec };
  if (spec) for (const k of ['clusterIP', 'clusterIPs']) if (spec[k] !== 'None' && !(Array.isArray(spec[k]) && spec[k][0] === 'None')) delete spec[k];
  if (Array.isArray(spec?.ports)) spec.ports = spec.ports.map(({ nodePort: _p, ...p }: Record<string, unknown>) => p);
  const text = JSON.stringify({ ...rest, ...(spec ? { spec } : {}), metadata: { ...metadata, ...(Object.keys(kept).length ? { annotations: kept } : {}) } });
  // The labels and selector a Job gets from its own uid.
  return JSON.parse(uid ? text.replaceAll(uid, '<uid>') : text);
}

function withoutNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutNulls);
  if (typeof v !== 'object' || v === null) return v;
  return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null).map(([k, x]) => [k, withoutNulls(x)]));
}

/** kubectl sends protobuf from 1.32 on; 1.27 sends the same objects as JSON, and must get the same. */
const KUBECTLS: Array<[string, string]> = [['the kubectl the dispatcher picks for this member (1.32, protobuf)', kubectlPath()], ['kubectl 1.33 (protobuf)', kubectlVersion('1.33')], ['kubectl 1.27 (JSON)', oldestKubectl()]];

KUBECTLS.forEach(([label, binary], i) => {
  describe(label, () => {
    it('creates every built-in kind as its own JSON of it says, and as that JSON created with create -f', async () => {
      const k = new Kubectl(c.url, binary);
      try {
        const ok = async (args: string[]): Promise<string> => {
          const r = await k.run(args);
          expect(r.code, `kubectl ${args.join(' ')}: ${r.stderr}`).toBe(0);
          return r.stdout;
        };
        const ns = `pb-${i}`;
        const twin = `pb-${i}-json`;
        // A Namespace is created from protobuf too.
        expect(await ok(['create', 'namespace', ns])).toBe(`namespace/${ns} created\n`);
        await ok(['create', 'namespace', twin]);
        for (const form of FORMS) {
          const args = ['-n', ns, ...form.args(30100 + i)];
          const sent = JSON.parse(await ok(['--dry-run=client', '-o', 'json', ...args])) as Obj;
          await ok(args);
          const made = JSON.parse(await ok(['get', ...form.get, '-n', ns, '-o', 'json'])) as Obj;
          // Less its status, which the server writes.
          const { status: _s, ...asked } = sent;
          expect(made, form.args(0).slice(0, 3).join(' ')).toMatchObject(withoutNulls({ ...asked, metadata: { ...sent.metadata, namespace: ns } }) as Obj);
          // The same object as JSON, beside it (a node port is the cluster's to give only once).
          const ports = (sent.spec?.ports ?? undefined) as Array<Record<string, unknown>> | undefined;
          const json = { ...sent, metadata: { ...sent.metadata, namespace: twin }, ...(ports ? { spec: { ...sent.spec, ports: ports.map(({ nodePort: _p, ...p }) => p) } } : {}) };
          const file = join(dir, `${i}-${form.get.join('-')}.json`);
          writeFileSync(file, JSON.stringify(json));
          await ok(['create', '-f', file]);
          const fromJson = JSON.parse(await ok(['get', ...form.get, '-n', twin, '-o', 'json'])) as Obj;
          expect(comparable(made), form.args(0).slice(0, 3).join(' ')).toEqual(comparable(fromJson));
        }
        const idle = JSON.parse(await ok(['get', 'deployment', 'idle', '-n', ns, '-o', 'json'])) as Obj;
        expect(idle.spec?.replicas).toBe(0);
        const cm = JSON.parse(await ok(['get', 'configmap', 'settings', '-n', ns, '-o', 'json'])) as { data: Record<string, string>; binaryData: Record<string, string> };
        expect(cm.data).toEqual({ mode: 'fast', empty: '', 'app.properties': 'color=blue\nsize=3\n' });
        expect(Buffer.from(cm.binaryData.blob ?? '', 'base64')).toEqual(Buffer.from(Array.from({ length: 256 }, (_, n) => n)));
      } finally {
        k.dispose();
      }
    });
  });
});

describe('protobuf bodies the member cannot read', () => {
  const post = async (path: string, body: Uint8Array | string): Promise<{ status: number; body: { reason?: string; message?: string } }> => {
    const res = await fetch(`${c.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/vnd.kubernetes.protobuf', accept: 'application/json' }, body });
    return { status: res.status, body: (await res.json()) as { reason?: string; message?: string } };
  };
  /** A length-delimited field. */
  const ld = (no: number, bytes: Uint8Array | string): Buffer => {
    const b = typeof bytes === 'string' ? Buffer.from(bytes) : Buffer.from(bytes);
    return Buffer.concat([Buffer.from([(no << 3) | 2, b.length]), b]);
  };
  const envelope = (apiVersion: string, kind: string, raw: Buffer): Buffer => Buffer.concat([Buffer.from('k8s\0', 'latin1'), ld(1, Buffer.concat([ld(1, apiVersion), ld(2, kind)])), ld(2, raw)]);
  const configMap = (extra: Buffer = Buffer.alloc(0)): Buffer => Buffer.concat([ld(1, ld(1, 'from-bytes')), ld(2, Buffer.concat([ld(1, 'k'), ld(2, 'v')])), extra]);

  it('reads one made here byte by byte, and refuses what is not kube protobuf (400) and what it has no schema for (415)', async () => {
    const made = await post('/api/v1/namespaces/default/configmaps', envelope('v1', 'ConfigMap', configMap()));
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'from-bytes', namespace: 'default' }, data: { k: 'v' } });
    expect(await post('/api/v1/namespaces/default/configmaps', '{"kind":"ConfigMap"}')).toMatchObject({ status: 400, body: { reason: 'BadRequest', message: expect.stringContaining('does not start with the Kubernetes protobuf prefix') } });
    expect(await post('/api/v1/namespaces/default/configmaps', envelope('v1', 'ConfigMap', configMap()).subarray(0, 20))).toMatchObject({ status: 400, body: { message: expect.stringContaining('truncated or malformed') } });
    // Field 9 of a ConfigMap is none of kube's: kept out, the object would be stored without it.
    expect(await post('/api/v1/namespaces/default/configmaps', envelope('v1', 'ConfigMap', configMap(Buffer.from([9 << 3, 1]))))).toMatchObject({
      status: 415, body: { reason: 'UnsupportedMediaType', message: expect.stringContaining('field 9 of core.ConfigMap is not in the schema here') },
    });
    // A custom resource has no protobuf encoding, as in kube.
    expect(await post('/apis/stable.example.com/v1/namespaces/default/crontabs', envelope('stable.example.com/v1', 'CronTab', ld(1, ld(1, 'w'))))).toMatchObject({
      status: 415, body: { message: expect.stringContaining('CronTab stable.example.com/v1 has no protobuf encoding') },
    });
  });
});

describe('the schema', () => {
  it('names every message a field refers to, gives each field its own number, and keeps zeros only of fields it has', () => {
    const scalars = new Set(['string', 'int32', 'int64', 'bool', 'bytes', 'double']);
    const problems: string[] = [];
    const fieldsOf = new Map<string, Set<string>>();
    for (const [message, spec] of Object.entries(MESSAGES)) {
      const numbers = new Set<string>();
      const names = new Set<string>();
      for (const f of spec.split(/,\s+/)) {
        const [name = '', no = '', type = ''] = f.split(/\s+/);
        const target = (/^map<\w+,(.+)>$/.exec(type)?.[1] ?? type).replace(/\[\]$/, '');
        if (!scalars.has(target) && !(target in MESSAGES)) problems.push(`${message}.${name}: no message ${target}`);
        if (numbers.has(no) || names.has(name)) problems.push(`${message}: ${name} ${no} twice`);
        numbers.add(no);
        names.add(name);
      }
      fieldsOf.set(message, names);
    }
    for (const key of KEEP_ZERO) {
      const dot = key.lastIndexOf('.');
      if (!fieldsOf.get(key.slice(0, dot))?.has(key.slice(dot + 1))) problems.push(`KEEP_ZERO ${key}: no such field`);
    }
    expect(problems).toEqual([]);
  });
});
