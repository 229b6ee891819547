// kube's dryRun=All on a simulated member (kubectl --dry-run=server, kubectl diff): each write is checked, worked out
// and answered as it would be, and nothing changes — no object stored or deleted, no revision taken, no controller
// answering; a value other than All is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulatedCluster, type SimCluster, type SimObject } from '../../src/sim/index.js';
import { Kubectl } from '../support/kubectl.js';
import { call } from './helpers.js';

let c: SimCluster;
let kubectl: Kubectl;
beforeAll(async () => {
  c = await startSimulatedCluster({ pods: 200, seed: 43, token: null });
  c.churn.heartbeats.enabled = false;
  kubectl = new Kubectl(c.url);
});
afterAll(async () => {
  kubectl?.dispose();
  await c?.stop();
});

const deployment = (name: string, image: string): string =>
  `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: ${name}, namespace: default}\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: ${name}}}\n  template:\n    metadata: {labels: {app: ${name}}}\n    spec:\n      containers: [{name: app, image: "${image}"}]\n`;

/** Runs `fn` and expects the store not to have moved: no write committed, no watch event. */
async function unchanged(fn: () => Promise<void>): Promise<void> {
  // Changes are held back from watchers meanwhile, to be named here.
  c.store.holdDelivery();
  let changes: string[] = [];
  try {
    await fn();
  } finally {
    changes = c.store.releaseDelivery(Number.MAX_SAFE_INTEGER).map((x) => `${x.type} ${x.resource} ${x.key}`);
    c.store.resumeDelivery();
  }
  expect(changes).toEqual([]);
}

describe('dryRun=All', () => {
  it('kubectl apply and create --dry-run=server answer the object as made, defaults and all, and make nothing', async () => {
    await unchanged(async () => {
      const applied = await kubectl.apply(deployment('dry', 'nginx:1.27'), ['--dry-run=server']);
      expect(applied.code, applied.stderr).toBe(0);
      expect(applied.stdout.trim()).toBe('deployment.apps/dry created (server dry run)');
      const out = JSON.parse(await kubectl.ok(['create', 'deployment', 'dry-made', '-n', 'default', '--image=nginx:1.27', '--dry-run=server', '-o', 'json'])) as SimObject & { spec: Record<string, unknown> };
      expect(out.metadata).toMatchObject({ name: 'dry-made', namespace: 'default', uid: expect.any(String), generation: 1 });
      expect(out.spec).toMatchObject({ replicas: 1, revisionHistoryLimit: 10, strategy: { type: 'RollingUpdate' } });
      expect(JSON.stringify(out.spec)).toContain('"imagePullPolicy":"IfNotPresent"');
    });
    expect(c.store.get('deployments.apps', 'default', 'dry')).toBeUndefined();
    expect(c.store.get('deployments.apps', 'default', 'dry-made')).toBeUndefined();
    expect(c.snapshot('replicasets.apps').filter((rs) => rs.metadata.name?.startsWith('dry'))).toEqual([]);
    const sent = c.requestLog.entries((r) => r.method === 'POST' && r.path.endsWith('/deployments'));
    expect(sent.at(-1)?.query).toContain('dryRun=All');
  });

  it('kubectl diff shows what apply would change, and the member keeps its object; scale and set image --dry-run=server change nothing', async () => {
    expect((await kubectl.apply(deployment('live', 'nginx:1.27'))).code).toBe(0);
    // Its pods started (the kubelets act a moment later): from here on, the member changes only if asked to.
    await kubectl.ok(['rollout', 'status', 'deployment/live', '-n', 'default', '--timeout=30s']);
    const live = (): SimObject & { spec: { replicas: number; template: { spec: { containers: Array<{ image: string }> } } } } => c.store.get('deployments.apps', 'default', 'live') as never;
    const now = live().metadata.resourceVersion;
    const file = kubectl.file(deployment('live', 'nginx:1.28'));
    await unchanged(async () => {
      // kubectl diff: a server-side dry-run patch of each object; exit 1 when there is a difference.
      const diff = await kubectl.run(['diff', '-f', file]);
      expect(diff.code, diff.stderr).toBe(1);
      expect(diff.stdout).toMatch(/^-\s+- image: nginx:1\.27$/m);
      expect(diff.stdout).toMatch(/^\+\s+- image: nginx:1\.28$/m);
      expect((await kubectl.run(['scale', 'deployment', 'live', '-n', 'default', '--replicas=5', '--dry-run=server'])).stdout.trim()).toBe('deployment.apps/live scaled (server dry run)');
      expect((await kubectl.run(['set', 'image', 'deployment/live', '-n', 'default', 'app=nginx:1.29', '--dry-run=server'])).code).toBe(0);
    });
    expect(live().metadata.resourceVersion).toBe(now);
    expect(live().spec.replicas).toBe(2);
    expect(live().spec.template.spec.containers[0]!.image).toBe('nginx:1.27');
  });

  it('kubectl delete --dry-run=server of a pod, a namespace and a collection deletes nothing; drain --dry-run=server evicts nothing', async () => {
    const pod = c.snapshot('pods').find((p) => p.metadata.namespace !== 'kube-system' && (p.status as { phase: string }).phase === 'Running')!;
    const ns = pod.metadata.namespace!;
    const inNs = c.snapshot('pods').filter((p) => p.metadata.namespace === ns).length;
    const node = c.snapshot('nodes').find((n) => !JSON.stringify(n.spec ?? {}).includes('control-plane'))!;
    await unchanged(async () => {
      expect((await kubectl.ok(['delete', 'pod', pod.metadata.name!, '-n', ns, '--dry-run=server'])).trim()).toBe(`pod "${pod.metadata.name}" deleted (server dry run)`);
      expect((await kubectl.ok(['delete', 'namespace', ns, '--dry-run=server'])).trim()).toBe(`namespace "${ns}" deleted (server dry run)`);
      expect(await kubectl.ok(['delete', 'pods', '--all', '-n', ns, '--dry-run=server'])).toContain('(server dry run)');
      // One app's pods on the node: kubectl evicts five a second (its client's rate limit).
      const app = c.snapshot('pods').find((p) => (p.spec as { nodeName?: string }).nodeName === node.metadata.name && p.metadata.ownerReferences?.[0]?.kind === 'ReplicaSet')!.metadata.labels!.app!;
      const drained = await kubectl.run(['drain', node.metadata.name!, `--pod-selector=app=${app}`, '--ignore-daemonsets', '--delete-emptydir-data', '--force', '--dry-run=server', '--timeout=20s']);
      expect(drained.code, drained.stderr).toBe(0);
      expect(drained.stdout).toMatch(/^evicting pod \S+ \(server dry run\)$/m);
    });
    expect(c.store.get('pods', ns, pod.metadata.name!)?.metadata.deletionTimestamp).toBeUndefined();
    expect(c.store.get('namespaces', undefined, ns)?.metadata.deletionTimestamp).toBeUndefined();
    expect(c.snapshot('pods').filter((p) => p.metadata.namespace === ns)).toHaveLength(inNs);
    expect((c.store.get('nodes', undefined, node.metadata.name!)?.spec as { unschedulable?: boolean } | undefined)?.unschedulable).toBeUndefined();
  });

  it('a dryRun other than All is refused as kube refuses it', async () => {
    const r = await call(c, '/api/v1/namespaces/default/configmaps?dryRun=Some', { method: 'POST', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } } });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ reason: 'Invalid', message: 'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: "Some": supported values: "All"' });
    expect(c.store.get('configmaps', 'default', 'x')).toBeUndefined();
  });
});
