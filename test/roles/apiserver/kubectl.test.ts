// Real kubectl (the dispatcher on PATH and the oldest kubectl.1.27) against the apiserver over directly filled storage.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '../../../src/storage/types.js';
import { serveStore, type ServedStore, type TestApiserver } from '../../support/apiserver.js';
import { deployment, event, namespace, node, pod } from '../../support/fixtures.js';
import { Kubectl, kubectlPath, oldestKubectl } from '../../support/kubectl.js';

let served: ServedStore;
let storage: Storage;
let api: TestApiserver;

beforeAll(async () => {
  const upserts = [namespace('east', 'default'), namespace('west', 'default'), deployment('east', 'default', 'web'), deployment('west', 'shop', 'cart')];
  for (let i = 0; i < 12; i++) upserts.push(pod(i % 2 ? 'east' : 'west', i % 3 ? 'default' : 'shop', `web-${i}`, { phase: i === 5 ? 'Pending' : 'Running', labels: { app: i % 4 ? 'web' : 'cart' } }));
  // What `kubectl describe` reads besides the object: the Events about it, and a node's pods.
  const web1 = upserts.find((u) => u.cluster === 'east' && (u.object.metadata as { name: string }).name === 'web-1');
  if (!web1) throw new Error('fixture web-1 missing');
  // An Event in west about a west pod of the same name (gone since: Events outlive their objects).
  const web1West = pod('west', 'default', 'web-1', { node: 'node-9' });
  upserts.push(node('east', 'node-1'), event(web1, 'Pulled', 'Successfully pulled image "nginx:1.25" in east'), event(web1West, 'BackOff', 'Back-off pulling image in west', 'Warning'));
  served = await serveStore(upserts, { east: true, west: true });
  ({ storage, api } = served);
});

afterAll(() => served?.stop());

for (const [label, binary] of [['dispatcher', kubectlPath()], ['kubectl 1.27', oldestKubectl()]] as const) {
  describe(`kubectl (${label})`, () => {
    let k: Kubectl;
    beforeAll(() => {
      k = new Kubectl(api.resources, binary);
    });
    afterAll(() => k.dispose());

    it('get pods -A shows a CLUSTER column and every pod of every cluster', async () => {
      const out = await k.ok(['get', 'pods', '-A']);
      const lines = out.trim().split('\n');
      expect(lines[0]).toMatch(/^NAMESPACE\s+CLUSTER\s+NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$/);
      expect(lines.length).toBe(13);
      expect(out).toMatch(/shop\s+west\s+web-0\s+1\/1\s+Running/);
      expect(out).toMatch(/east\s+web-5\s+0\/1\s+Pending/);
    });

    it('--chunk-size 7 returns the same set as an unchunked list', async () => {
      const whole = await k.ok(['get', 'pods', '-A', '-o', 'name']);
      const chunked = await k.ok(['get', 'pods', '-A', '-o', 'name', '--chunk-size=7']);
      expect(chunked).toBe(whole);
      expect(whole.trim().split('\n').length).toBe(12);
    });

    it('-l, --field-selector and -n filter', async () => {
      const cart = await k.ok(['get', 'pods', '-A', '-l', 'app=cart', '-o', 'name']);
      expect(cart.trim().split('\n').length).toBe(3);
      const pending = await k.ok(['get', 'pods', '-A', '--field-selector', 'status.phase=Pending', '-o', 'name']);
      expect(pending.trim()).toBe('pod/web-5');
      const shop = await k.ok(['get', 'pods', '-n', 'shop', '-o', 'name']);
      expect(shop.trim().split('\n').length).toBe(4);
    });

    it('-o json, yaml, jsonpath and wide', async () => {
      const list = JSON.parse(await k.ok(['get', 'pods', '-A', '-o', 'json'])) as { items: { metadata: { annotations: Record<string, string> } }[] };
      expect(list.items.length).toBe(12);
      expect(new Set(list.items.map((i) => i.metadata.annotations['shadow.clusterpedia.io/cluster-name']))).toEqual(new Set(['east', 'west']));
      expect(await k.ok(['get', 'deploy', '-A', '-o', 'yaml'])).toMatch(/kind: Deployment/);
      const names = await k.ok(['get', 'pods', '-n', 'shop', '-o', 'jsonpath={.items[*].metadata.name}']);
      expect(names.split(' ').length).toBe(4);
      expect(await k.ok(['get', 'pods', '-A', '-o', 'wide'])).toMatch(/IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES/);
    });

    it('--sort-by a field outside the metadata (kubectl asks for whole objects in the Table rows)', async () => {
      const out = await k.ok(['get', 'pods', '-A', '--sort-by=.status.phase', '--no-headers']);
      const lines = out.trim().split('\n');
      expect(lines.length).toBe(12);
      expect(lines[0]).toMatch(/^default\s+east\s+web-5\s+0\/1\s+Pending/);
      expect(lines.slice(1).every((l) => /\sRunning\s/.test(l))).toBe(true);
    });

    it('api-resources lists what the clusters hold, from aggregated discovery: two requests, not one per group version', async () => {
      const fresh = new Kubectl(api.resources, binary);
      try {
        const r = await fresh.run(['api-resources', '-v=6']);
        expect(r.code).toBe(0);
        expect(r.stdout).toMatch(/^pods\s+po\s+v1\s+true\s+Pod$/m);
        expect(r.stdout).toMatch(/^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m);
        const asked = [...r.stderr.matchAll(/GET (\S+) 200/g)].map((m) => new URL(m[1] ?? '').pathname.slice(new URL(api.resources).pathname.length));
        expect(asked.sort()).toEqual(['/api', '/apis']);
      } finally {
        fresh.dispose();
      }
    });

    it('get -w prints a change made after the list', async () => {
      const w = k.spawn(['get', 'pods', '-n', 'default', '-w']);
      const late = `late-${label.length}`;
      try {
        await w.waitFor(/web-1\s/);
        await storage.write({ upserts: [pod('east', 'default', late)], deletes: [] });
        await w.waitFor(new RegExp(`${late}\\s`));
      } finally {
        w.child.kill();
        // Leave the fleet as the other tests expect it.
        await storage.write({ upserts: [], deletes: [{ cluster: 'east', group: '', version: 'v1', resource: 'pods', namespace: 'default', name: late }] });
      }
    });

    it('the per-cluster server URL scopes everything to one cluster', async () => {
      const east = new Kubectl(`${api.resources}/clusters/east`, binary);
      try {
        const out = await east.ok(['get', 'pods', '-A', '-o', 'name']);
        expect(out.trim().split('\n').length).toBe(6);
        expect(await east.ok(['get', 'pod', '-n', 'default', 'web-1', '-o', 'name'])).toBe('pod/web-1\n');
      } finally {
        east.dispose();
      }
    });

    it('describe through a cluster\'s URL shows the object with its Events and a node with its pods', async () => {
      const east = new Kubectl(`${api.resources}/clusters/east`, binary);
      // Whatever describe looks up besides (a node's Lease, say) is answered without a warning on stderr.
      const describe = async (args: string[]): Promise<string> => {
        const r = await east.run(['describe', ...args]);
        expect(r).toMatchObject({ code: 0, stderr: '' });
        return r.stdout;
      };
      try {
        const pod1 = await describe(['pod', '-n', 'default', 'web-1']);
        expect(pod1).toMatch(/^Name:\s+web-1$/m);
        expect(pod1).toMatch(/^Node:\s+node-1/m);
        expect(pod1).toMatch(/^Events:\n\s+Type\s+Reason\s+Age\s+From\s+Message\n[\s-]+\n\s+Normal\s+Pulled\s+\S+\s+kubelet\s+Successfully pulled image "nginx:1.25" in east$/m);
        // The Event about another cluster's pod of the same name is not shown.
        expect(pod1).not.toMatch(/west|Back-off/);
        const nodeOut = await describe(['node', 'node-1']);
        expect(nodeOut).toMatch(/^Name:\s+node-1$/m);
        expect(nodeOut).toMatch(/^Non-terminated Pods:\s+\(6 in total\)$/m);
        expect(nodeOut.match(/^\s+(default|shop)\s+web-\d+\s/gm)?.length).toBe(6);
        const listed = await describe(['pods', '-n', 'shop']);
        expect(listed.match(/^Name:\s+web-\d+$/gm)?.length).toBe(2);
      } finally {
        east.dispose();
      }
      // Through the all-clusters URL a name is ambiguous: kubectl shows the message that says where to ask.
      const all = await k.run(['describe', 'pod', '-n', 'default', 'web-3']);
      expect(all.code).not.toBe(0);
      expect(all.stderr).toMatch(/please specify the cluster name when using the resource name/);
    });

    it('get --subresource=scale and --subresource=status through a cluster\'s URL', async () => {
      const west = new Kubectl(`${api.resources}/clusters/west`, binary);
      try {
        const scale = (await west.ok(['get', 'deploy', 'cart', '-n', 'shop', '--subresource=scale'])).trim().split('\n');
        expect(scale[0]).toMatch(/^CLUSTER\s+NAME\s+DESIRED\s+AVAILABLE\s+AGE$/);
        expect(scale[1]).toMatch(/^west\s+cart\s+2\s+2\s+\S+$/);
        const json = JSON.parse(await west.ok(['get', 'deploy', 'cart', '-n', 'shop', '--subresource=scale', '-o', 'json'])) as Record<string, unknown>;
        expect(json).toMatchObject({ kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: 2 }, status: { replicas: 2, selector: 'app=cart' } });
        const status = await west.ok(['get', 'deploy', 'cart', '-n', 'shop', '--subresource=status']);
        expect(status).toMatch(/^CLUSTER\s+NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\nwest\s+cart\s+2\/2\s+2\s+2\s/);
        // A subresource that needs the member: kubectl shows the message.
        const logs = await west.run(['logs', '-n', 'shop', 'web-0']);
        expect(logs.code).not.toBe(0);
        expect(logs.stderr).toMatch(/pods\/log is not served here/);
      } finally {
        west.dispose();
      }
    });
  });
}
