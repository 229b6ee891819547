// Full discovery of a member: every group version's resources, read a few at a time over HTTP/1.1 (a connection
// each) and all at once over HTTP/2 (one connection).
import { afterEach, describe, expect, it } from 'vitest';
import { KubeClient } from '../../src/kube/client.js';
import { discover } from '../../src/kube/discovery.js';
import { kubeConfigFromString } from '../../src/kube/kubeconfig.js';
import { kubeconfigFor, startSimulatedCluster, type SimCluster } from '../../src/sim/index.js';

const running: { sim: SimCluster; client: KubeClient }[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) {
    await r.client.close();
    await r.sim.stop();
  }
});

/** A group version's resource list (/api/v1, /apis/<group>/<version>), not a group or a collection. */
const isGroupVersion = (path: string): boolean => /^\/api\/v1$|^\/apis\/[^/]+\/[^/]+$/.test(path);

/** The most group version reads the member had in flight at once (an answer's end before a start of the same ms). */
function mostInFlight(sim: SimCluster): number {
  const edges = sim.requestLog.entries((r) => isGroupVersion(r.path)).flatMap((r) => [
    { at: r.startedAt, d: 1 },
    { at: r.startedAt + (r.durationMs ?? Infinity), d: -1 },
  ]);
  edges.sort((a, b) => a.at - b.at || a.d - b.d);
  let now = 0;
  let most = 0;
  for (const e of edges) most = Math.max(most, (now += e.d));
  return most;
}

async function discovered(o: { tls: boolean; http2: boolean }): Promise<{ sim: SimCluster; gvs: number; resources: string[]; inFlight: number; protocol: string | undefined }> {
  const sim = await startSimulatedCluster({ pods: 5, seed: 3, ...o });
  const client = await KubeClient.create(kubeConfigFromString(kubeconfigFor(sim)));
  running.push({ sim, client });
  // Each answer waits: reads sent together overlap at the member.
  sim.faults.slow(40);
  const d = await discover(client);
  return {
    sim,
    gvs: sim.requestLog.entries((r) => isGroupVersion(r.path)).length,
    resources: d.resources.map((r) => `${r.group}/${r.version}/${r.resource}`),
    inFlight: mostInFlight(sim),
    protocol: client.protocol,
  };
}

describe('discover', () => {
  it('over HTTP/1.1 reads at most 4 group versions at once, every one of them', async () => {
    const h1 = await discovered({ tls: false, http2: false });
    expect(h1.protocol).toBe('http/1.1');
    expect(h1.gvs).toBeGreaterThan(8);
    expect(h1.inFlight).toBe(4);
    expect(h1.resources).toEqual(expect.arrayContaining(['/v1/pods', 'apps/v1/deployments', 'batch/v1/jobs']));
    // Nothing is left out or read twice: one resource list per group version the member serves.
    expect(new Set(h1.resources).size).toBe(h1.resources.length);
  });

  it('over HTTP/2 reads every group version at once, on one connection', async () => {
    const h2 = await discovered({ tls: true, http2: true });
    expect(h2.protocol).toBe('h2');
    expect(h2.inFlight).toBe(h2.gvs);
    expect(h2.sim.openConnections).toBe(1);
    const h1 = await discovered({ tls: false, http2: false });
    // The same member's discovery either way, in the same order.
    expect(h2.resources).toEqual(h1.resources);
  });
});
