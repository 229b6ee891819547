// kube's garbage collector on a simulated member for owners outside any namespace: a Node deleted takes its kubelet's
// Lease in kube-node-lease (its owner reference), an orphaning delete leaves the Lease without it; a cluster-scoped
// custom resource takes the namespaced objects that name it as owner.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSimulatedCluster, type SimCluster, type SimObject } from '../../src/sim/index.js';
import { Kubectl } from '../support/kubectl.js';
import { call } from './helpers.js';

let c: SimCluster;
let kubectl: Kubectl;
beforeAll(async () => {
  // Four nodes (one per hundred pods, and a control plane).
  c = await startSimulatedCluster({ pods: 300, seed: 41, token: null });
  c.churn.heartbeats.enabled = false;
  kubectl = new Kubectl(c.url);
});
afterAll(async () => {
  kubectl?.dispose();
  await c?.stop();
});

const leaseOf = (node: SimObject): SimObject | undefined => c.store.get('leases.coordination.k8s.io', 'kube-node-lease', node.metadata.name ?? '');

it("a Node deleted takes its kubelet's Lease; deleted with --cascade=orphan, the Lease stays without its owner", async () => {
  const [first, second, ...rest] = c.snapshot('nodes');
  expect(rest.length).toBeGreaterThan(0);
  for (const node of [first!, second!]) expect(leaseOf(node)?.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'Node', name: node.metadata.name, uid: node.metadata.uid })]);
  await kubectl.ok(['delete', 'node', first!.metadata.name!]);
  expect(leaseOf(first!)).toBeUndefined();
  // The other nodes' Leases stay.
  for (const node of [second!, ...rest]) expect(leaseOf(node)).toBeDefined();
  await kubectl.ok(['delete', 'node', second!.metadata.name!, '--cascade=orphan']);
  expect(leaseOf(second!)).toBeDefined();
  expect(leaseOf(second!)?.metadata.ownerReferences).toBeUndefined();
});

it('a cluster-scoped custom resource deleted takes the namespaced objects that name it as owner', async () => {
  const issuer = c.snapshot('clusterissuers.cert-manager.io')[0]!;
  const owned = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'issued-by', namespace: 'default', ownerReferences: [{ apiVersion: 'cert-manager.io/v1', kind: 'ClusterIssuer', name: issuer.metadata.name, uid: issuer.metadata.uid }] }, data: { a: 'b' } };
  expect((await call(c, '/api/v1/namespaces/default/configmaps', { method: 'POST', body: owned })).status).toBe(201);
  const unrelated = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'unrelated', namespace: 'default' }, data: { a: 'b' } };
  expect((await call(c, '/api/v1/namespaces/default/configmaps', { method: 'POST', body: unrelated })).status).toBe(201);
  await kubectl.ok(['delete', 'clusterissuer', issuer.metadata.name!]);
  expect(c.store.get('configmaps', 'default', 'issued-by')).toBeUndefined();
  expect(c.store.get('configmaps', 'default', 'unrelated')).toBeDefined();
});
