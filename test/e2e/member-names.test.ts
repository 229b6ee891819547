// A custom resource's short names, singular name and categories come to clusterpedia's discovery from the member's
// own discovery (through the synchro's status), so `kubectl get cert`, `kubectl get certificate` and
// `kubectl get cert-manager` work through clusterpedia as against the member, without the CRDs synced. Both dialects.
import { describe, expect, it, vi } from 'vitest';
import { Kubectl } from '../support/kubectl.js';
import { bindingOverFleet, bothDialects, onMemberAndThrough, type Fleet } from './helpers.js';

const P = '/apis/clusterpedia.io/v1beta1/resources';
/** No CRDs among them: what clusterpedia knows of a custom resource's names is what the member's discovery said. */
const SYNC = [
  { group: '', resources: ['pods'] }, { group: 'apps', resources: ['deployments'] },
  { group: 'stable.example.com', resources: ['*'] }, { group: 'cert-manager.io', resources: ['*'] },
];
const CUSTOM_GROUP_VERSIONS = ['stable.example.com/v1', 'cert-manager.io/v1'];

interface ApiResource { name: string; singularName?: string; shortNames?: string[]; categories?: string[] }
type Names = Record<string, Omit<ApiResource, 'name'>>;

/** The names of each top-level resource in a group version's legacy discovery document. */
function namesIn(doc: string): Names {
  const list = JSON.parse(doc) as { resources: ApiResource[] };
  return Object.fromEntries(list.resources.filter((r) => !r.name.includes('/'))
    .map((r) => [r.name, { singularName: r.singularName, shortNames: r.shortNames ?? [], categories: r.categories ?? [] }]));
}

/** The same through clusterpedia's path `prefix` (kubectl get --raw would leave the path out). */
async function namesThrough(base: string, prefix: string, gv: string): Promise<Names> {
  const r = await fetch(`${base}${prefix}/apis/${gv}`);
  expect(r.status, `${prefix}/apis/${gv}`).toBe(200);
  return namesIn(await r.text());
}

describe.each(bothDialects('cp_names'))('custom resources named as their members name them, no CRD synced (%s)', (_name, storage) => {
  let f: Fleet;
  let base: string;
  bindingOverFleet({ clusters: 1, pods: 20, seed: 31, sync: SYNC }, storage, async (fleet, b) => {
    [f, base] = [fleet, b];
    const c = f.fleet.clusters[0]!;
    // Until every custom resource of the member is served, and the cluster's status names them (written as they are
    // negotiated, at once).
    await vi.waitFor(async () => {
      const pc = (await (await fetch(`${base}/apis/cluster.clusterpedia.io/v1alpha2/pediaclusters/${c.name}`)).json()) as { status?: { syncResources?: { group: string }[] } };
      expect((pc.status?.syncResources ?? []).map((g) => g.group)).toEqual(expect.arrayContaining(['stable.example.com', 'cert-manager.io']));
      for (const gr of ['certificates.cert-manager.io', 'clusterissuers.cert-manager.io', 'crontabs.stable.example.com']) {
        const [resource, ...group] = gr.split('.');
        const r = await fetch(`${base}${P}/clusters/${c.name}/apis/${group.join('.')}/v1/${resource}`);
        expect(r.status, gr).toBe(200);
        expect(((await r.json()) as { items: unknown[] }).items.length, gr).toBe(c.store.count(gr));
      }
    }, { timeout: 60_000, interval: 250 });
  });

  it('discovery gives each custom resource the singular name, short names and categories the member gives it', async () => {
    const c = f.fleet.clusters[0]!;
    await onMemberAndThrough(base, c, async (member) => {
      for (const gv of CUSTOM_GROUP_VERSIONS) {
        const want = namesIn(await member.ok(['get', '--raw', `/apis/${gv}`]));
        expect(Object.values(want).some((n) => (n.shortNames ?? []).length > 0), gv).toBe(true);
        expect(await namesThrough(base, `${P}/clusters/${c.name}`, gv), gv).toEqual(want);
        expect(await namesThrough(base, P, gv), `${gv} (fleet)`).toEqual(want);
      }
    });
  });

  it('kubectl finds them by short name, singular name and category, as against the member', async () => {
    const c = f.fleet.clusters[0]!;
    await onMemberAndThrough(base, c, async (member, ours) => {
      for (const args of [['get', 'cert', '-A'], ['get', 'certificate', '-A'], ['get', 'ct', '-A'], ['get', 'cert-manager', '-A']]) {
        const want = await member.ok([...args, '-o', 'name']);
        expect(want.trim(), args.join(' ')).not.toBe('');
        expect(await ours.ok([...args, '-o', 'name']), args.join(' ')).toBe(want);
      }
    });
    // The fleet's path too, each row under its cluster.
    const fleet = new Kubectl(`${base}${P}`);
    try {
      const rows = (await fleet.ok(['get', 'cert', '-A', '--no-headers'])).trim().split('\n');
      expect(rows).toHaveLength(c.store.count('certificates.cert-manager.io'));
      // NAMESPACE, CLUSTER, NAME, AGE.
      for (const row of rows) expect(row.split(/\s+/)[1]).toBe(c.name);
    } finally {
      fleet.dispose();
    }
  });
});
