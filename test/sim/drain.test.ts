// kubectl drain on a simulated member, as against kube: the node cordoned (unschedulable, and the node lifecycle
// controller's NoSchedule taint), its pods evicted through pods/eviction (policy/v1), their controllers' replacements
// placed on other nodes; uncordoned, it takes pods again.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSimulatedCluster, type SimCluster, type SimObject } from '../../src/sim/index.js';
import { Kubectl, kubectlPath, oldestKubectl } from '../support/kubectl.js';

let c: SimCluster;
beforeAll(async () => {
  // Four nodes: a control plane and three workers (one per hundred pods).
  c = await startSimulatedCluster({ pods: 400, seed: 17, token: null });
  c.churn.kubelets.stopMs = 200;
  c.churn.kubelets.startMs = 200;
  // No CronJob firing a pod onto the node between the test's look at it and kubectl's.
  c.churn.heartbeats.enabled = false;
});
afterAll(async () => {
  await c?.stop();
});

type Node = SimObject & { spec: { unschedulable?: boolean; taints?: Array<{ key: string; effect: string }> } };
const nodeOf = (p: SimObject): string => String((p.spec as { nodeName?: string }).nodeName ?? '');
const ownerKind = (p: SimObject): string | undefined => p.metadata.ownerReferences?.find((r) => r.controller === true)?.kind;
const live = (): SimObject[] => c.snapshot('pods').filter((p) => !p.metadata.deletionTimestamp && !['Succeeded', 'Failed'].includes(String((p.status as { phase?: string }).phase)));
const workers = (): Node[] => (c.snapshot('nodes') as Node[]).filter((n) => !(n.spec.taints ?? []).some((t) => t.key === 'node-role.kubernetes.io/control-plane'));

for (const [label, binary] of [['kubectl 1.32 (the dispatcher)', kubectlPath()], ['kubectl 1.27', oldestKubectl()]] as const) {
  describe(label, () => {
    it('drains a worker: cordoned and tainted, its pods evicted and made again elsewhere; uncordon undoes it', async () => {
      const k = new Kubectl(c.url, binary);
      try {
        // The busiest worker that is not cordoned yet.
        const node = workers().filter((n) => n.spec.unschedulable !== true).map((n) => ({ n, pods: live().filter((p) => nodeOf(p) === n.metadata.name && ownerKind(p) !== 'DaemonSet').length })).sort((a, b) => b.pods - a.pods)[0]!.n;
        const name = node.metadata.name!;
        // kubectl evicts five a second (its client's rate limit): a few workloads' pods, by --pod-selector, not its hundred.
        const onNode = c.snapshot('pods').filter((p) => nodeOf(p) === name && !p.metadata.deletionTimestamp && ownerKind(p) !== 'DaemonSet');
        const apps = [...new Set(['StatefulSet', 'ReplicaSet', 'Job'].map((kind) => onNode.find((p) => ownerKind(p) === kind)?.metadata.labels?.app).filter((a): a is string => a !== undefined))];
        expect(apps.length).toBeGreaterThanOrEqual(2);
        const evictable = onNode.filter((p) => apps.includes(p.metadata.labels?.app ?? ''));
        const kept = live().filter((p) => nodeOf(p) === name && !apps.includes(p.metadata.labels?.app ?? ''));
        const sent = c.requestLog.entries((r) => r.path.endsWith('/eviction')).length;
        const r = await k.run(['drain', name, `--pod-selector=app in (${apps.join(',')})`, '--ignore-daemonsets', '--delete-emptydir-data', '--force', '--timeout=60s']);
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout).toContain(`node/${name} drained`);
        // One eviction per pod, as the API kube serves for it.
        const evictions = c.requestLog.entries((x) => x.path.endsWith('/eviction')).slice(sent);
        expect(evictions.map((x) => x.path.split('/').at(-2)).sort()).toEqual(evictable.map((p) => p.metadata.name).sort());
        expect(evictions.every((x) => x.method === 'POST' && x.status === 201)).toBe(true);
        const cordoned = c.store.get('nodes', undefined, name) as Node;
        expect(cordoned.spec.unschedulable).toBe(true);
        expect(cordoned.spec.taints).toContainEqual(expect.objectContaining({ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }));
        expect((await k.run(['get', 'node', name, '--no-headers'])).stdout).toContain('SchedulingDisabled');
        // The selected pods are gone from it, their controllers' new ones on other nodes; the rest stay.
        await vi.waitFor(() => {
          expect(live().filter((p) => nodeOf(p) === name && apps.includes(p.metadata.labels?.app ?? ''))).toEqual([]);
          for (const p of evictable.filter((x) => ['ReplicaSet', 'StatefulSet'].includes(ownerKind(x) ?? ''))) {
            const owner = p.metadata.ownerReferences!.find((x) => x.controller)!;
            const siblings = live().filter((q) => q.metadata.ownerReferences?.some((x) => x.uid === owner.uid));
            expect(siblings.some((q) => q.metadata.uid !== p.metadata.uid && nodeOf(q) !== name), `${owner.kind} ${owner.name}`).toBe(true);
          }
        }, { timeout: 20_000, interval: 100 });
        expect(kept.filter((p) => c.store.get('pods', p.metadata.namespace, p.metadata.name!)?.metadata.uid !== p.metadata.uid).map((p) => p.metadata.name)).toEqual([]);
        const u = await k.run(['uncordon', name]);
        expect(u.code, u.stderr).toBe(0);
        const back = c.store.get('nodes', undefined, name) as Node;
        expect(back.spec.unschedulable).toBeUndefined();
        expect((back.spec.taints ?? []).map((t) => t.key)).not.toContain('node.kubernetes.io/unschedulable');
      } finally {
        k.dispose();
      }
    });
  });
}

it('an eviction of a pod that is not there is a 404, and one naming another pod a 400', async () => {
  const pod = live().find((p) => ownerKind(p) === 'ReplicaSet')!;
  const post = async (name: string, body: unknown): Promise<{ status: number; body: { reason?: string; message?: string } }> => {
    const res = await fetch(`${c.url}/api/v1/namespaces/${pod.metadata.namespace}/pods/${name}/eviction`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as { reason?: string; message?: string } };
  };
  expect(await post('no-such-pod', { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'no-such-pod' } })).toMatchObject({ status: 404, body: { reason: 'NotFound' } });
  expect(await post(pod.metadata.name!, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'other' } })).toMatchObject({ status: 400, body: { message: 'name in URL does not match name in Eviction object' } });
  expect(c.store.get('pods', pod.metadata.namespace, pod.metadata.name!)?.metadata.deletionTimestamp).toBeUndefined();
});
