// Child process of bench/synchro.ts: the simulated fleet, apart from the synchro so its RSS is the synchro's own.
// Talks over IPC: {cmd:'stats'|'sample'|'churn'|'mark'|'stop'}; writes the --clusters file on start.
import { writeFileSync } from 'node:fs';
import { pediaClustersYaml, startSimulatedFleet, type SimCluster, type SimObject } from '../src/sim/index.js';

type Msg =
  | { cmd: 'stats' }
  | { cmd: 'sample'; n: number }
  | { cmd: 'churn'; rate: number }
  | { cmd: 'mark'; i: number }
  | { cmd: 'stop' };

const clusters = Number(process.env.BENCH_CLUSTERS ?? 100);
const pods = Number(process.env.BENCH_PODS ?? 10_000);
const file = process.env.BENCH_CLUSTERS_FILE ?? '/tmp/clusters.yaml';
export const SYNCED = ['pods', 'replicasets.apps', 'deployments.apps'];

const reply = (m: unknown): void => {
  process.send?.(m);
};

async function main(): Promise<void> {
  const t0 = performance.now();
  const fleet = await startSimulatedFleet({ clusters, podsPerCluster: pods, token: 'bench', seed: 1, bookmarkIntervalMs: 60_000 });
  writeFileSync(file, pediaClustersYaml(fleet.clusters, [{ group: '', resources: ['pods'] }, { group: 'apps', resources: ['deployments', 'replicasets'] }]));
  const marked = new Map<SimCluster, { namespace: string; name: string }[]>();
  const targets = (c: SimCluster): { namespace: string; name: string }[] => {
    let t = marked.get(c);
    if (!t) {
      t = c.snapshot('deployments.apps').slice(0, 64).map((p) => ({ namespace: p.metadata.namespace!, name: p.metadata.name! }));
      marked.set(c, t);
    }
    return t;
  };
  process.on('message', (m: Msg) => {
    switch (m.cmd) {
      case 'stats': {
        let objects = 0;
        for (const c of fleet.clusters) for (const r of SYNCED) objects += c.store.count(r);
        reply({ cmd: 'stats', objects, revisions: fleet.clusters.reduce((n, c) => n + c.revision, 0), churnOps: fleet.clusters.reduce((n, c) => n + c.churn.operations, 0) });
        return;
      }
      case 'sample': {
        const sample: SimObject[] = fleet.clusters[0]!.snapshot('pods').slice(0, m.n);
        reply({ cmd: 'sample', sample });
        return;
      }
      case 'churn':
        for (const c of fleet.clusters) c.churn.start(m.rate / fleet.clusters.length);
        reply({ cmd: 'churn' });
        return;
      case 'mark': {
        // One change whose commit the benchmark times: an annotation on a Deployment (churn replaces pods, so pods make
        // poor targets), stamped when the member applied it.
        const c = fleet.clusters[m.i % fleet.clusters.length]!;
        for (let attempt = 0; ; attempt++) {
          const list = targets(c);
          const t = list[(m.i + attempt) % list.length]!;
          // A vanished target refreshes the list.
          if (!c.store.get('deployments.apps', t.namespace, t.name)) {
            marked.delete(c);
            continue;
          }
          const obj = c.store.patch('deployments.apps', t.namespace, t.name, { metadata: { annotations: { 'bench.clusterpedia.io/mark': String(m.i) } } });
          reply({ cmd: 'mark', i: m.i, cluster: c.name, namespace: t.namespace, name: t.name, rv: obj.metadata.resourceVersion, at: Date.now() });
          return;
        }
      }
      case 'stop':
        for (const c of fleet.clusters) c.churn.stop();
        void fleet.stop().then(() => process.exit(0));
        return;
    }
  });
  reply({ cmd: 'ready', file, startSeconds: +((performance.now() - t0) / 1000).toFixed(1), rss: process.memoryUsage().rss });
}

main().catch((e: unknown) => {
  process.stderr.write(`simulator failed: ${String(e)}\n`);
  process.exit(1);
});
