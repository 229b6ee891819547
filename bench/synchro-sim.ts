// Child process of bench/synchro.ts: the simulated fleet, apart from the synchro so its RSS is the synchro's own.
// Talks over IPC: {cmd:'stats'|'sample'|'churn'|'mark'|'prechurn'|'release'|'stop'}; writes the --clusters file on start.
// Paced churn ('prechurn' then 'release'): the changes are made ahead with watch delivery held, then released to the
// watchers at the asked rate, so the simulator's CPU for making changes does not cap the rate the synchro is measured at.
import { writeFileSync } from 'node:fs';
import { pediaClustersYaml, startSimulatedFleet, type SimCluster, type SimObject } from '../src/sim/index.js';

type Msg =
  | { cmd: 'stats' }
  | { cmd: 'sample'; n: number }
  | { cmd: 'churn'; rate: number }
  | { cmd: 'mark'; i: number }
  | { cmd: 'prechurn'; rate: number; seconds: number }
  | { cmd: 'release'; rate: number }
  | { cmd: 'stop' };

const clusters = Number(process.env.BENCH_CLUSTERS ?? 100);
const pods = Number(process.env.BENCH_PODS ?? 10_000);
const file = process.env.BENCH_CLUSTERS_FILE ?? '/tmp/clusters.yaml';
/** Members serve aggregated discovery, as kube-apiserver 1.27+ does (default 0: the legacy documents only). */
const aggregatedDiscovery = process.env.BENCH_AGGREGATED_DISCOVERY === '1';
/** Members serve HTTPS and HTTP/2 beside HTTP/1.1, as kube-apiserver does (default 0: plain HTTP/1.1). */
const tls = process.env.BENCH_TLS === '1';
export const SYNCED = ['pods', 'replicasets.apps', 'deployments.apps'];

const reply = (m: unknown): void => {
  process.send?.(m);
};

async function main(): Promise<void> {
  const t0 = performance.now();
  const fleet = await startSimulatedFleet({ clusters, podsPerCluster: pods, token: 'bench', seed: 1, bookmarkIntervalMs: 60_000, aggregatedDiscovery, ...(tls ? { tls: true, http2: true } : {}) });
  // The synchro here syncs no events, leases or nodes: churn's events would count towards the rate without reaching it,
  // and the heartbeats' writes (by the clock) would be released with the churn.
  for (const c of fleet.clusters) {
    c.churn.events.enabled = false;
    c.churn.heartbeats.enabled = false;
  }
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
  // Marks made ahead: per cluster, revision → the mark, reported when that revision reaches the watchers.
  const heldMarks = new Map<SimCluster, Map<number, { i: number; namespace: string; name: string }>>();
  const markDeployment = (c: SimCluster, i: number): { cluster: string; namespace: string; name: string; rv: string | undefined } => {
    for (let attempt = 0; ; attempt++) {
      const list = targets(c);
      const t = list[(i + attempt) % list.length]!;
      // A vanished target refreshes the list.
      if (!c.store.get('deployments.apps', t.namespace, t.name)) {
        marked.delete(c);
        continue;
      }
      const obj = c.store.patch('deployments.apps', t.namespace, t.name, { metadata: { annotations: { 'bench.clusterpedia.io/mark': String(i) } } });
      return { cluster: c.name, namespace: t.namespace, name: t.name, rv: obj.metadata.resourceVersion };
    }
  };
  process.on('message', async (m: Msg) => {
    switch (m.cmd) {
      case 'stats': {
        let objects = 0;
        for (const c of fleet.clusters) for (const r of SYNCED) objects += c.store.count(r);
        reply({ cmd: 'stats', objects, revisions: fleet.clusters.reduce((n, c) => n + c.revision, 0), churnOps: fleet.clusters.reduce((n, c) => n + c.churn.operations, 0), unresponsiveWatchesClosed: fleet.clusters.reduce((n, c) => n + c.unresponsiveWatchesClosed, 0) });
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
        reply({ cmd: 'mark', i: m.i, ...markDeployment(c, m.i), at: Date.now() });
        return;
      }
      case 'prechurn': {
        // rate × seconds watch events made now and held, a mark every tenth of a second of release time (clusters
        // release in parallel at rate / clusters each, so cluster k's marks are `clusters` tenths apart, offset by k).
        const perCluster = Math.ceil((m.rate * m.seconds) / fleet.clusters.length);
        const markEvery = Math.max(1, Math.round(m.rate / 10));
        const t0 = performance.now();
        let events = 0;
        let marks = 0;
        // Made in slices, the event loop turning between them: the simulator keeps answering the synchro's health
        // probes and watches while it works. Made in one go (tens of seconds at 1 M objects), the probes timed out,
        // the synchro paused those clusters as unhealthy, and the release began with their watches stopped.
        let slice = performance.now();
        for (const [k, c] of fleet.clusters.entries()) {
          c.store.holdDelivery();
          const held = new Map<number, { i: number; namespace: string; name: string }>();
          heldMarks.set(c, held);
          let nextMark = Math.floor((k * markEvery) / fleet.clusters.length);
          while (c.store.heldChanges < perCluster) {
            if (c.store.heldChanges >= nextMark) {
              const i = k + held.size * fleet.clusters.length;
              const mk = markDeployment(c, i);
              held.set(Number(mk.rv), { i, namespace: mk.namespace, name: mk.name });
              nextMark += markEvery;
            } else c.churn.step(1);
            if (performance.now() - slice > 20) {
              await new Promise((r) => setImmediate(r));
              slice = performance.now();
            }
          }
          events += c.store.heldChanges;
          marks += held.size;
        }
        reply({ cmd: 'prechurn', events, marks, seconds: +((performance.now() - t0) / 1000).toFixed(1) });
        return;
      }
      case 'release': {
        // Each cluster's held changes go to its watchers at rate / clusters per second, on a 10 ms tick; a mark is
        // stamped when its change is released (the member's clock, as the live marks are stamped when applied).
        const perCluster = m.rate / fleet.clusters.length;
        const released = new Map<SimCluster, number>();
        const t0 = performance.now();
        const tick = setInterval(() => {
          const due = (perCluster * (performance.now() - t0)) / 1000;
          let left = 0;
          for (const c of fleet.clusters) {
            const n = Math.floor(due) - (released.get(c) ?? 0);
            if (n > 0) {
              const out = c.store.releaseDelivery(n);
              released.set(c, (released.get(c) ?? 0) + out.length);
              const held = heldMarks.get(c);
              for (const ev of out) {
                const mk = held?.get(ev.rev);
                if (mk) reply({ cmd: 'marked', i: mk.i, cluster: c.name, namespace: mk.namespace, name: mk.name, rv: String(ev.rev), at: Date.now() });
              }
            }
            left += c.store.heldChanges;
          }
          if (left === 0) {
            clearInterval(tick);
            for (const c of fleet.clusters) c.store.resumeDelivery();
            reply({ cmd: 'released', events: [...released.values()].reduce((a, b) => a + b, 0), seconds: +((performance.now() - t0) / 1000).toFixed(1) });
          }
        }, 10);
        reply({ cmd: 'release' });
        return;
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
