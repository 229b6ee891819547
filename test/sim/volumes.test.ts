// The StatefulSets' storage on a simulated member, as on a cluster with a CSI provisioner: a claim per ordinal from the
// volumeClaimTemplates, bound to a volume provisioned for it; made before a new ordinal's pod, kept when the StatefulSet
// scales down and used again when it scales back up, named among its pod's volumes; printed by kubectl as kube prints
// them.
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { startSimulatedCluster, type SimCluster, type SimObject } from '../../src/sim/index.js';
import { Kubectl } from '../support/kubectl.js';

let c: SimCluster;
let kubectl: Kubectl;
beforeAll(async () => {
  c = await startSimulatedCluster({ pods: 300, seed: 47, token: null });
  c.churn.heartbeats.enabled = false;
  c.churn.kubelets.startMs = 200;
  c.churn.kubelets.stopMs = 200;
  kubectl = new Kubectl(c.url);
});
afterAll(async () => {
  kubectl?.dispose();
  await c?.stop();
});

type Claim = SimObject & { spec: { volumeName?: string; storageClassName?: string; accessModes: string[] }; status: { phase: string; capacity?: { storage: string } } };
type Volume = SimObject & { spec: { claimRef: { name: string; namespace: string; uid: string }; capacity: { storage: string }; persistentVolumeReclaimPolicy: string }; status: { phase: string } };
const replicas = (o: SimObject): number => Number((o.spec as { replicas?: number }).replicas ?? 0);

it("gives each StatefulSet ordinal a claim bound to its own volume, and kubectl prints both as kube does", async () => {
  const sets = c.snapshot('statefulsets.apps');
  expect(sets.length).toBeGreaterThan(0);
  const claims = c.snapshot('persistentvolumeclaims') as Claim[];
  const volumes = new Map((c.snapshot('persistentvolumes') as Volume[]).map((v) => [v.metadata.name, v]));
  expect(claims).toHaveLength(sets.reduce((n, s) => n + replicas(s), 0));
  for (const sts of sets) {
    for (let i = 0; i < replicas(sts); i++) {
      const claim = c.store.get('persistentvolumeclaims', sts.metadata.namespace, `data-${sts.metadata.name}-${i}`) as Claim | undefined;
      expect(claim?.status.phase, `${sts.metadata.name}-${i}`).toBe('Bound');
      expect(claim?.metadata.labels).toMatchObject((sts.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels);
      const volume = volumes.get(claim?.spec.volumeName);
      expect(volume?.spec.claimRef).toMatchObject({ name: claim?.metadata.name, namespace: claim?.metadata.namespace, uid: claim?.metadata.uid });
      expect(volume?.status.phase).toBe('Bound');
      expect(claim?.status.capacity?.storage).toBe(volume?.spec.capacity.storage);
      // The ordinal's pod names its claim first among its volumes.
      const pod = c.store.get('pods', sts.metadata.namespace, `${sts.metadata.name}-${i}`);
      expect((pod?.spec as { volumes: unknown[] } | undefined)?.volumes[0]).toEqual({ name: 'data', persistentVolumeClaim: { claimName: claim?.metadata.name } });
    }
  }
  const claim = claims[0]!;
  const row = (await kubectl.ok(['get', 'pvc', '-n', claim.metadata.namespace!, claim.metadata.name!, '--no-headers', '-o', 'wide'])).trim().split(/\s+/);
  expect(row.slice(0, 7)).toEqual([claim.metadata.name, 'Bound', claim.spec.volumeName, '10Gi', 'RWO', 'gp3', '<unset>']);
  expect(row.at(-1)).toBe('Filesystem');
  const pv = (await kubectl.ok(['get', 'pv', claim.spec.volumeName!, '--no-headers'])).trim().split(/\s+/);
  expect(pv.slice(0, 6)).toEqual([claim.spec.volumeName, '10Gi', 'RWO', 'Delete', 'Bound', `${claim.metadata.namespace}/${claim.metadata.name}`]);
});

it("scaled up, a StatefulSet's new ordinal gets its claim and volume before its pod; scaled down, the claim stays and is used again", async () => {
  const sts = c.snapshot('statefulsets.apps').find((s) => s.metadata.namespace !== 'kube-system')!;
  const ns = sts.metadata.namespace!;
  const name = sts.metadata.name!;
  const n = replicas(sts);
  const claimOf = (i: number): Claim | undefined => c.store.get('persistentvolumeclaims', ns, `data-${name}-${i}`) as Claim | undefined;
  expect(claimOf(n)).toBeUndefined();
  await kubectl.ok(['scale', 'statefulset', name, '-n', ns, `--replicas=${n + 1}`]);
  await kubectl.ok(['rollout', 'status', `statefulset/${name}`, '-n', ns, '--timeout=60s']);
  const made = claimOf(n)!;
  expect(made.status.phase).toBe('Bound');
  expect(Date.parse(made.metadata.creationTimestamp!)).toBeLessThanOrEqual(Date.parse(c.store.get('pods', ns, `${name}-${n}`)!.metadata.creationTimestamp!));
  const volume = c.store.get('persistentvolumes', undefined, made.spec.volumeName!) as Volume;
  expect(volume.spec.claimRef.uid).toBe(made.metadata.uid);
  // Made like a sibling, it names its own claim, not the sibling's; once.
  const volumes = (c.store.get('pods', ns, `${name}-${n}`)!.spec as { volumes: Array<{ name: string; persistentVolumeClaim?: { claimName: string } }> }).volumes;
  expect(volumes.filter((v) => v.persistentVolumeClaim)).toEqual([{ name: 'data', persistentVolumeClaim: { claimName: `data-${name}-${n}` } }]);
  expect(volumes[0]?.name).toBe('data');
  await kubectl.ok(['scale', 'statefulset', name, '-n', ns, `--replicas=${n}`]);
  await vi.waitFor(() => expect(c.store.get('pods', ns, `${name}-${n}`)).toBeUndefined(), { timeout: 30_000, interval: 100 });
  // Retain (the default): the claim and its volume stay, and the ordinal finds them when it comes back.
  expect(claimOf(n)?.metadata.uid).toBe(made.metadata.uid);
  await kubectl.ok(['scale', 'statefulset', name, '-n', ns, `--replicas=${n + 1}`]);
  await kubectl.ok(['rollout', 'status', `statefulset/${name}`, '-n', ns, '--timeout=60s']);
  expect(claimOf(n)?.metadata.uid).toBe(made.metadata.uid);
  expect(c.snapshot('persistentvolumes').filter((v) => (v as Volume).spec.claimRef.name === `data-${name}-${n}`)).toHaveLength(1);
});

it('a claim applied over HTTP gets the default class and volume mode, Pending until a pod consumes it; a bound claim deleted takes its volume (reclaim Delete)', async () => {
  const applied = await kubectl.apply('apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: scratch, namespace: default}\nspec:\n  accessModes: [ReadWriteOnce]\n  resources: {requests: {storage: 1Gi}}\n');
  expect(applied.code, applied.stderr).toBe(0);
  const scratch = c.store.get('persistentvolumeclaims', 'default', 'scratch') as Claim;
  expect(scratch.spec).toMatchObject({ storageClassName: 'gp3', volumeMode: 'Filesystem' });
  expect(scratch.status.phase).toBe('Pending');
  // A claim asking for no class keeps none.
  expect((await kubectl.apply('apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: classless, namespace: default}\nspec:\n  storageClassName: ""\n  accessModes: [ReadWriteOnce]\n  resources: {requests: {storage: 1Gi}}\n')).code).toBe(0);
  expect((c.store.get('persistentvolumeclaims', 'default', 'classless') as Claim).spec.storageClassName).toBe('');
  // A StatefulSet's claim deleted (no protection finalizer holds it here): its volume is released and deleted.
  const claim = (c.snapshot('persistentvolumeclaims') as Claim[]).find((x) => x.spec.volumeName && x.metadata.namespace !== 'kube-system')!;
  const volume = claim.spec.volumeName!;
  const other = (c.snapshot('persistentvolumeclaims') as Claim[]).find((x) => x.spec.volumeName && x.spec.volumeName !== volume)!;
  await kubectl.ok(['delete', 'pvc', claim.metadata.name!, '-n', claim.metadata.namespace!]);
  expect(c.store.get('persistentvolumes', undefined, volume)).toBeUndefined();
  expect(c.store.get('persistentvolumes', undefined, other.spec.volumeName!)).toBeDefined();
});
