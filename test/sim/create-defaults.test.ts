// What a simulated member fills in on create beyond the fields written, as kube-apiserver does: a Service's cluster IP
// and node ports (unique; one asked for that is taken is a 422), its defaults; a Secret's type and its stringData merged
// into data; a Namespace's label and finalizer; a pod's address outside the services' range; and nothing more (no
// `spec` on kinds that have none).
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
