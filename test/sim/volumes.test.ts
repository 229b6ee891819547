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

it('a claim applied over HTTP gets the default class, volume mode and protection finalizer, Pending until a pod consumes it; unused, it goes when deleted', async () => {
  const applied = await kubectl.apply('apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: scratch, namespace: default}\nspec:\n  accessModes: [ReadWriteOnce]\n  resources: {requests: {storage: 1Gi}}\n');
  expect(applied.code, applied.stderr).toBe(0);
  const scratch = c.store.get('persistentvolumeclaims', 'default', 'scratch') as Claim;
  expect(scratch.spec).toMatchObject({ storageClassName: 'gp3', volumeMode: 'Filesystem' });
  expect(scratch.status.phase).toBe('Pending');
  expect(scratch.metadata.finalizers).toEqual(['kubernetes.io/pvc-protection']);
  // A claim asking for no class keeps none.
  expect((await kubectl.apply('apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: classless, namespace: default}\nspec:\n  storageClassName: ""\n  accessModes: [ReadWriteOnce]\n  resources: {requests: {storage: 1Gi}}\n')).code).toBe(0);
  expect((c.store.get('persistentvolumeclaims', 'default', 'classless') as Claim).spec.storageClassName).toBe('');
  // No pod names it: the protection controller lets it go (kubectl waits for that).
  await kubectl.ok(['delete', 'pvc', 'scratch', 'classless', '-n', 'default', '--timeout=20s']);
  expect(c.store.get('persistentvolumeclaims', 'default', 'scratch')).toBeUndefined();
  // Generated claims and volumes carry their finalizers too, as the admission plugin left them.
  expect(c.snapshot('persistentvolumeclaims').every((o) => o.metadata.finalizers?.includes('kubernetes.io/pvc-protection'))).toBe(true);
  expect(c.snapshot('persistentvolumes').every((o) => o.metadata.finalizers?.includes('kubernetes.io/pv-protection'))).toBe(true);
});

it("a claim deleted while its pod runs stays Terminating, and its volume deleted stays while bound; the pod deleted, both go and the StatefulSet makes the pod again on a new claim", async () => {
  const sts = c.snapshot('statefulsets.apps').find((s) => s.metadata.namespace !== 'kube-system' && replicas(s) > 0)!;
  const ns = sts.metadata.namespace!;
  const name = `data-${sts.metadata.name}-0`;
  const old = c.store.get('persistentvolumeclaims', ns, name) as Claim;
  const volume = old.spec.volumeName!;
  // Who is there after each change: the ordinal's pod and its claim, by uid.
  const states: Array<{ pod?: string; claim?: string }> = [];
  const off = c.store.onChange(() => {
    const pod = c.store.get('pods', ns, `${sts.metadata.name}-0`)?.metadata.uid;
    const claim = c.store.get('persistentvolumeclaims', ns, name)?.metadata.uid;
    const last = states.at(-1);
    if (last?.pod !== pod || last?.claim !== claim) states.push({ pod, claim });
  });
  try {
    await kubectl.ok(['delete', 'pvc', name, '-n', ns, '--wait=false']);
    await kubectl.ok(['delete', 'pv', volume, '--wait=false']);
    await new Promise((r) => setTimeout(r, 200));
    // Held: the running pod names the claim, and the claim is bound to the volume.
    expect((await kubectl.ok(['get', 'pvc', name, '-n', ns, '--no-headers'])).trim().split(/\s+/).slice(0, 3)).toEqual([name, 'Terminating', volume]);
    expect((await kubectl.ok(['get', 'pv', volume, '--no-headers'])).trim().split(/\s+/)[4]).toBe('Terminating');
    expect((c.store.get('persistentvolumes', undefined, volume) as Volume).status.phase).toBe('Bound');
    const pod = c.store.get('pods', ns, `${sts.metadata.name}-0`)!;
    await kubectl.ok(['delete', 'pod', pod.metadata.name!, '-n', ns, '--timeout=30s']);
    await vi.waitFor(() => {
      const made = c.store.get('pods', ns, `${sts.metadata.name}-0`);
      expect(made?.metadata.uid).not.toBe(pod.metadata.uid);
      expect(made?.metadata.uid).toBeDefined();
    }, { timeout: 30_000, interval: 100 });
    const claim = c.store.get('persistentvolumeclaims', ns, name) as Claim;
    expect(claim.metadata.uid).not.toBe(old.metadata.uid);
    expect(claim.metadata.deletionTimestamp).toBeUndefined();
    expect(claim.status.phase).toBe('Bound');
    expect(claim.spec.volumeName).not.toBe(volume);
    // The volume goes a moment after its claim: released, then its pv-protection finalizer off (two controllers, as in
    // kube, neither waiting for the StatefulSet's new pod).
    await vi.waitFor(() => expect(c.store.get('persistentvolumes', undefined, volume)).toBeUndefined(), { timeout: 5_000, interval: 20 });
    // The old claim went only after its pod, and the new pod came only after the old claim went (kube's StatefulSet
    // controller makes no pod on a claim being deleted).
    const made = c.store.get('pods', ns, `${sts.metadata.name}-0`)!;
    expect(states.some((x) => x.pod === undefined && x.claim === old.metadata.uid)).toBe(true);
    expect(states.some((x) => x.pod === pod.metadata.uid && x.claim !== old.metadata.uid)).toBe(false);
    expect(states.some((x) => x.pod === made.metadata.uid && x.claim === old.metadata.uid)).toBe(false);
  } finally {
    off();
  }
});

it("a namespace deleted takes its StatefulSet's claims, and their volumes are released and deleted", async () => {
  const manifest = `apiVersion: v1
kind: Namespace
metadata: {name: scratch-db}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: scratch-db}
spec:
  replicas: 2
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: db, image: postgres:16}]}
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 5Gi}}}
`;
  expect((await kubectl.apply(manifest)).code).toBe(0);
  await kubectl.ok(['rollout', 'status', 'statefulset/db', '-n', 'scratch-db', '--timeout=60s']);
  // Its status as kube's controller writes it, collisionCount included.
  expect(c.store.get('statefulsets.apps', 'scratch-db', 'db')?.status).toMatchObject({ collisionCount: 0, replicas: 2, readyReplicas: 2 });
  const volumes = (c.snapshot('persistentvolumeclaims') as Claim[]).filter((x) => x.metadata.namespace === 'scratch-db').map((x) => x.spec.volumeName);
  expect(volumes).toHaveLength(2);
  await kubectl.ok(['delete', 'namespace', 'scratch-db', '--timeout=30s']);
  expect(c.store.get('namespaces', undefined, 'scratch-db')).toBeUndefined();
  await vi.waitFor(() => {
    for (const v of volumes) expect(c.store.get('persistentvolumes', undefined, v!)).toBeUndefined();
  }, { timeout: 10_000, interval: 50 });
});
