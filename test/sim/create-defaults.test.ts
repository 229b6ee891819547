// What a simulated member fills in on create beyond the fields written, as kube-apiserver does: a Service's cluster IP
// and node ports (unique; one asked for that is taken is a 422), its defaults; a Secret's type and its stringData merged
// into data; a Namespace's label and finalizer; a pod's address outside the services' range; and nothing more (no
// `spec` on kinds that have none); and, asked for (kubectl does), kube's strict field validation.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSimulatedCluster, type SimCluster, type SimObject } from '../../src/sim/index.js';
import { Kubectl } from '../support/kubectl.js';
import { call } from './helpers.js';

let c: SimCluster;
let kubectl: Kubectl;
beforeAll(async () => {
  c = await startSimulatedCluster({ pods: 200, seed: 21, token: null });
  kubectl = new Kubectl(c.url);
});
afterAll(async () => {
  kubectl?.dispose();
  await c?.stop();
});

type Service = SimObject & { spec: { clusterIP?: string; clusterIPs?: string[]; ports?: Array<{ port: number; nodePort?: number; targetPort?: unknown; protocol?: string }> } & Record<string, unknown> };
const create = (path: string, body: unknown): ReturnType<typeof call<Record<string, unknown>>> => call(c, path, { method: 'POST', body });
const svc = (name: string, spec: Record<string, unknown>): Record<string, unknown> => ({ apiVersion: 'v1', kind: 'Service', metadata: { name }, spec });
const inServiceRange = (ip: string): boolean => /^10\.(9[6-9]|10[0-9]|11[01])\.\d+\.\d+$/.test(ip);

describe('a Service created', () => {
  it('gets a free cluster IP, the defaults kube gives, and a target port like its port', async () => {
    const taken = new Set(c.snapshot('services').map((s) => (s as Service).spec.clusterIP));
    const made = await create('/api/v1/namespaces/default/services', svc('plain', { ports: [{ port: 80 }], selector: { app: 'x' } }));
    expect(made.status).toBe(201);
    const s = made.body as Service;
    expect(inServiceRange(s.spec.clusterIP ?? '')).toBe(true);
    expect(taken.has(s.spec.clusterIP)).toBe(false);
    expect(s.spec).toMatchObject({ clusterIPs: [s.spec.clusterIP], type: 'ClusterIP', sessionAffinity: 'None', ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack', internalTrafficPolicy: 'Cluster', ports: [{ port: 80, targetPort: 80, protocol: 'TCP' }] });
    expect(s.status).toEqual({ loadBalancer: {} });
    // Headless keeps None; an ExternalName has no address at all.
    const headless = (await create('/api/v1/namespaces/default/services', svc('headless', { clusterIP: 'None', ports: [{ port: 5432 }] }))).body as Service;
    expect([headless.spec.clusterIP, headless.spec.clusterIPs]).toEqual(['None', ['None']]);
    const external = (await create('/api/v1/namespaces/default/services', svc('external', { type: 'ExternalName', externalName: 'db.example.com' }))).body as Service;
    expect([external.spec.clusterIP, external.spec.clusterIPs, external.spec.ipFamilies]).toEqual([undefined, undefined, undefined]);
  });

  it('of type NodePort or LoadBalancer gets free node ports; one asked for that another holds is refused, as is a taken cluster IP', async () => {
    const held = new Set(c.snapshot('services').flatMap((s) => ((s as Service).spec.ports ?? []).map((p) => p.nodePort)).filter((p) => p !== undefined));
    const lb = (await create('/api/v1/namespaces/default/services', svc('lb', { type: 'LoadBalancer', ports: [{ name: 'a', port: 80 }, { name: 'b', port: 443 }] }))).body as Service;
    const ports = (lb.spec.ports ?? []).map((p) => p.nodePort ?? 0);
    expect(ports.every((p) => p >= 30000 && p <= 32767 && !held.has(p))).toBe(true);
    expect(new Set(ports).size).toBe(2);
    expect(lb.spec).toMatchObject({ externalTrafficPolicy: 'Cluster', allocateLoadBalancerNodePorts: true });
    const clash = await kubectl.run(['create', 'service', 'nodeport', 'clash', '-n', 'default', '--tcp=80:8080', `--node-port=${ports[0]}`]);
    expect(clash.code).not.toBe(0);
    expect(clash.stderr).toContain(`Service "clash" is invalid: spec.ports[0].nodePort: Invalid value: ${ports[0]}: provided port is already allocated`);
    const dns = await create('/api/v1/namespaces/default/services', svc('dns-too', { clusterIP: '10.96.0.10', ports: [{ port: 53 }] }));
    expect(dns.body).toMatchObject({ code: 422, message: 'Service "dns-too" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.10"}: failed to allocate IP 10.96.0.10: provided IP is already allocated' });
    expect(c.store.get('services', 'default', 'clash')).toBeUndefined();
  });
});

describe('a pod created', () => {
  it('gets an address from the pod range once it runs, none of the service range', async () => {
    c.churn.kubelets.startMs = 100;
    await create('/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'addressed' }, spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] } });
    await vi.waitFor(() => expect((c.store.get('pods', 'default', 'addressed')?.status as { phase?: string } | undefined)?.phase).toBe('Running'), { timeout: 10_000, interval: 50 });
    const ip = String((c.store.get('pods', 'default', 'addressed')!.status as { podIP?: string }).podIP);
    expect(ip).toMatch(/^10\.(6[4-9]|[78]\d|9[0-5])\.\d+\.\d+$/);
    expect(inServiceRange(ip)).toBe(false);
    // The generated pods too.
    expect(c.snapshot('pods').map((p) => (p.status as { podIP?: string }).podIP).filter((x): x is string => x !== undefined && inServiceRange(x))).toEqual([]);
  });
});

describe('kinds without a spec', () => {
  it('a Secret gets type Opaque and no spec; a ConfigMap no spec; a Namespace its name label and finalizer', async () => {
    const secret = (await create('/api/v1/namespaces/default/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, stringData: { a: 'b' } })).body;
    // stringData is merged into data, never kept (on an update too).
    expect(secret).toMatchObject({ type: 'Opaque', data: { a: 'Yg==' } });
    expect([secret.spec, secret.stringData]).toEqual([undefined, undefined]);
    const patched = await call(c, '/api/v1/namespaces/default/secrets/s', { method: 'PATCH', contentType: 'application/merge-patch+json', body: { stringData: { a: 'c', d: 'e' } } });
    expect([patched.body.data, patched.body.stringData]).toEqual([{ a: 'Yw==', d: 'ZQ==' }, undefined]);
    const cm = (await create('/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: { a: 'b' } })).body;
    expect(cm.spec).toBeUndefined();
    const ns = (await create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { generateName: 'team-' } })).body as SimObject;
    expect(ns.metadata.labels).toEqual({ 'kubernetes.io/metadata.name': ns.metadata.name });
    expect(ns).toMatchObject({ spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } });
  });
});

describe('strict field validation (kubectl sends fieldValidation=Strict)', () => {
  const deployment = (spec: string, container: string): string =>
    `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: typo, namespace: default}\nspec:\n  ${spec}: 2\n  selector: {matchLabels: {app: typo}}\n  template:\n    metadata: {labels: {app: typo}}\n    spec:\n      containers: [{name: app, image: "nginx:1.27", ${container}: IfNotPresent}]\n`;

  it('refuses a field the kind does not have, naming each as kube does, and makes nothing; without the typos, it is made', async () => {
    const r = await kubectl.apply(deployment('replica', 'imagePullPolcy'));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.replica", unknown field "spec.template.spec.containers[0].imagePullPolcy"');
    expect(c.store.get('deployments.apps', 'default', 'typo')).toBeUndefined();
    expect((await kubectl.apply(deployment('replicas', 'imagePullPolicy'))).code).toBe(0);
    expect((c.store.get('deployments.apps', 'default', 'typo')!.spec as { replicas: number }).replicas).toBe(2);
    // A patch asking for it naming one too (kubectl patch does not ask).
    const p = await call(c, '/apis/apps/v1/namespaces/default/deployments/typo?fieldValidation=Strict', { method: 'PATCH', contentType: 'application/merge-patch+json', body: { spec: { replica: 3 } } });
    expect(p.body).toMatchObject({ code: 400, reason: 'BadRequest', message: 'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.replica"' });
  });

  it('under Warn (the default) and Ignore, drops the fields the kind does not have, as decoding into its type does; Warn says which', async () => {
    // A client that does not ask (client-go's default): made, without the field, and told.
    const made = await create('/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'lenient', labelz: { a: 'b' } }, data: { a: 'b' }, extra: 1 });
    expect(made.status).toBe(201);
    expect(made.headers.get('warning')).toBe('299 - "unknown field \\"metadata.labelz\\"", 299 - "unknown field \\"extra\\""');
    expect(made.body).not.toHaveProperty('extra');
    expect(c.store.get('configmaps', 'default', 'lenient')).toMatchObject({ data: { a: 'b' } });
    expect(c.store.get('configmaps', 'default', 'lenient')).not.toHaveProperty('extra');
    expect(c.store.get('configmaps', 'default', 'lenient')!.metadata).not.toHaveProperty('labelz');
    // kubectl --validate=warn: kubectl prints the server's warnings; --validate=false (Ignore): nothing said.
    const warned = await kubectl.apply(deployment('replicas', 'imagePullPolcy').replace('name: typo', 'name: warned').replace('app: typo', 'app: warned').replace('app: typo', 'app: warned'), ['--validate=warn']);
    expect(warned.code, warned.stderr).toBe(0);
    expect(warned.stderr).toContain('Warning: unknown field "spec.template.spec.containers[0].imagePullPolcy"');
    const ignored = await kubectl.apply(deployment('replica', 'imagePullPolicy').replace('name: typo', 'name: ignored').replace('app: typo', 'app: ignored').replace('app: typo', 'app: ignored'), ['--validate=false']);
    expect(ignored.code, ignored.stderr).toBe(0);
    expect(ignored.stderr).not.toContain('Warning');
    const container = (name: string): Record<string, unknown> => (c.store.get('deployments.apps', 'default', name)!.spec as { template: { spec: { containers: Array<Record<string, unknown>> } } }).template.spec.containers[0]!;
    expect(container('warned')).not.toHaveProperty('imagePullPolcy');
    // The field it meant is defaulted instead, as kube's defaulting does once the typo is gone.
    expect(container('warned').imagePullPolicy).toBe('IfNotPresent');
    expect(c.store.get('deployments.apps', 'default', 'ignored')!.spec).not.toHaveProperty('replica');
    // kubectl patch asks for nothing: the typo is dropped and reported, the rest of the patch applied.
    const patched = await kubectl.run(['patch', 'deployment', 'ignored', '-n', 'default', '--type=merge', '-p', JSON.stringify({ spec: { replica: 5, minReadySeconds: 3 } })]);
    expect(patched.code, patched.stderr).toBe(0);
    expect(patched.stderr).toContain('Warning: unknown field "spec.replica"');
    expect(c.store.get('deployments.apps', 'default', 'ignored')!.spec).toMatchObject({ minReadySeconds: 3 });
    expect(c.store.get('deployments.apps', 'default', 'ignored')!.spec).not.toHaveProperty('replica');
    for (const name of ['warned', 'ignored']) await kubectl.run(['delete', 'deployment', name, '-n', 'default']);
  });

  it("takes every field of a full pod spec, embedded structs' (a volume's source, a probe's handler, a key selector's name) included", async () => {
    const r = await kubectl.apply(`apiVersion: v1
kind: Pod
metadata: {name: full, namespace: default, labels: {app: full}, annotations: {a: b}}
spec:
  restartPolicy: Always
  terminationGracePeriodSeconds: 0
  securityContext: {runAsNonRoot: true, runAsUser: 1000, fsGroup: 2000, seccompProfile: {type: RuntimeDefault}}
  tolerations: [{key: dedicated, operator: Equal, value: batch, effect: NoSchedule, tolerationSeconds: 60}]
  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: kubernetes.io/os, operator: In, values: [linux]}]}]}}}
  volumes:
  - {name: scratch, emptyDir: {sizeLimit: 1Gi}}
  - {name: conf, configMap: {name: settings, defaultMode: 420, items: [{key: a, path: a.conf}]}}
  - {name: token, projected: {sources: [{serviceAccountToken: {path: token, expirationSeconds: 3600}}]}}
  containers:
  - name: app
    image: nginx:1.27
    ports: [{name: http, containerPort: 80, protocol: TCP}]
    env:
    - {name: MODE, valueFrom: {configMapKeyRef: {name: settings, key: mode, optional: true}}}
    - {name: NODE, valueFrom: {fieldRef: {fieldPath: spec.nodeName}}}
    envFrom: [{secretRef: {name: creds}}]
    resources: {requests: {cpu: 100m, memory: 64Mi}, limits: {memory: 128Mi}}
    readinessProbe: {httpGet: {path: /healthz, port: http}, periodSeconds: 5}
    livenessProbe: {tcpSocket: {port: 80}, initialDelaySeconds: 3}
    lifecycle: {preStop: {exec: {command: [sleep, "5"]}}}
    securityContext: {allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}, readOnlyRootFilesystem: true}
    volumeMounts: [{name: scratch, mountPath: /tmp}, {name: conf, mountPath: /etc/app, readOnly: true}]
`);
    expect(r.code, r.stderr).toBe(0);
    expect(c.store.get('pods', 'default', 'full')).toBeDefined();
  });
});
