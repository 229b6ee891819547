// What the synchro's discovery poll reads of a member with many large CRDs (Crossplane providers, Istio):
// the whole CRDs (what each 30-second poll read until 0f9a15e) against their metadata only (what it reads now).
// One simulated member on loopback, `BENCH_CRDS` CRDs (300) with an OpenAPI schema of ~`BENCH_CRD_KB` kB (60) each,
// `BENCH_ROUNDS` reads (5) of each form, then the whole poll of that member and of the same member serving aggregated
// discovery (kube 1.27+); prints a Markdown table. Bounded, loopback only.
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '../src/kube/client.js';
import { discover, discoverGroups, type DiscoveryTags } from '../src/kube/discovery.js';
import type { SimCluster } from '../src/sim/index.js';
import { pagesOf } from '../src/kube/listwatch.js';
import { kubeconfigFor, startSimulatedCluster } from '../src/sim/index.js';
import { crdSchema, envNumber } from './env.js';

const CRDS = envNumber('BENCH_CRDS', 300);
const CRD_KB = envNumber('BENCH_CRD_KB', 60);
const ROUNDS = Math.max(1, envNumber('BENCH_ROUNDS', 5));
const CRD_REF = 'customresourcedefinitions.apiextensions.k8s.io';


async function measure(client: KubeClient, accept: string | undefined): Promise<{ bytes: number; ms: number; cpuMs: number }> {
  let bytes = 0;
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  for (let r = 0; r < ROUNDS; r++) {
    for await (const page of pagesOf(client, `/apis/apiextensions.k8s.io/v1/customresourcedefinitions`, { pageSize: 100, accept, signal: new AbortController().signal })) {
      bytes += page.bytes;
    }
  }
  const c = process.cpuUsage(c0);
  return { bytes: bytes / ROUNDS, ms: (performance.now() - t0) / ROUNDS, cpuMs: (c.user + c.system) / 1000 / ROUNDS };
}

/** A member with CRDS large CRDs, serving aggregated discovery or not. */
async function member(aggregatedDiscovery: boolean): Promise<SimCluster> {
  const sim = await startSimulatedCluster({ name: 'crds', pods: 1, seed: 1, aggregatedDiscovery });
  const big = crdSchema(CRD_KB);
  for (let i = 0; i < CRDS; i++) {
    const crd = sim.addCRD({ group: `provider${i % 10}.example.io`, plural: `things${i}`, kind: `Thing${i}`, scope: 'Cluster', versions: [{ name: 'v1beta1' }] });
    const spec = crd.spec as { versions: Record<string, unknown>[] };
    spec.versions = spec.versions.map((v) => ({ ...v, schema: { openAPIV3Schema: big } }));
    sim.store.update(CRD_REF, crd);
  }
  return sim;
}

async function clientOf(sim: SimCluster): Promise<KubeClient> {
  const kc = new KubeConfig();
  kc.loadFromString(kubeconfigFor(sim));
  return KubeClient.create(kc);
}

/** Full discovery of `client` (at the synchro's start, and after a poll saw a change), ROUNDS times. */
async function fullDiscoveries(client: KubeClient): Promise<{ ms: number; cpuMs: number }> {
  const p0 = performance.now();
  const c0 = process.cpuUsage();
  for (let r = 0; r < ROUNDS; r++) await discover(client);
  const pc = process.cpuUsage(c0);
  return { ms: (performance.now() - p0) / ROUNDS, cpuMs: (pc.user + pc.system) / 1000 / ROUNDS };
}

/** The synchro's poll of `client` ROUNDS times, after a first one (its ETags kept as the synchro keeps them). */
async function polls(client: KubeClient): Promise<{ ms: number; cpuMs: number }> {
  const tags: DiscoveryTags = new Map();
  await discoverGroups(client, undefined, tags);
  const p0 = performance.now();
  const c0 = process.cpuUsage();
  for (let r = 0; r < ROUNDS; r++) await discoverGroups(client, undefined, tags);
  const pc = process.cpuUsage(c0);
  return { ms: (performance.now() - p0) / ROUNDS, cpuMs: (pc.user + pc.system) / 1000 / ROUNDS };
}

const sim = await member(false);
try {
  const client = await clientOf(sim);
  try {
    const whole = await measure(client, undefined);
    const meta = await measure(client, 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json');
    const poll = await polls(client);
    const aggregatedSim = await member(true);
    const aggregatedClient = await clientOf(aggregatedSim);
    const full = await fullDiscoveries(client);
    const aggregatedFull = await fullDiscoveries(aggregatedClient);
    const aggregated = await polls(aggregatedClient).finally(async () => {
      await aggregatedClient.close();
      await aggregatedSim.stop();
    });
    const mb = (n: number): string => (n / 1024 / 1024).toFixed(2);
    console.log(`${CRDS} CRDs with ~${CRD_KB} kB schemas, one simulated member on loopback, mean of ${ROUNDS} reads, ${new Date().toISOString().slice(0, 10)}, Node ${process.version}\n`);
    console.log('| what the poll reads | MB per poll | ms per poll | CPU ms per poll (client and simulator, one process) |');
    console.log('|---|---|---|---|');
    console.log(`| whole CRDs, pages of 100 (the poll until 0f9a15e read them so, unpaged) | ${mb(whole.bytes)} | ${whole.ms.toFixed(0)} | ${whole.cpuMs.toFixed(0)} |`);
    console.log(`| CRD metadata only (PartialObjectMetadataList), pages of 100 | ${mb(meta.bytes)} | ${meta.ms.toFixed(0)} | ${meta.cpuMs.toFixed(0)} |`);
    console.log(`| the whole poll of a member serving legacy discovery (\`discoverGroups\`: /api, /apis, CRD metadata) | — | ${poll.ms.toFixed(1)} | ${poll.cpuMs.toFixed(1)} |`);
    console.log(`| the whole poll of a member serving aggregated discovery (/api and /apis with If-None-Match: 304s) | — | ${aggregated.ms.toFixed(1)} | ${aggregated.cpuMs.toFixed(1)} |`);
    console.log(`| full discovery (at start, after a change) of a member serving legacy discovery: whole CRDs, every group version | — | ${full.ms.toFixed(0)} | ${full.cpuMs.toFixed(0)} |`);
    console.log(`| full discovery of a member serving aggregated discovery: /api, /apis, CRD names | — | ${aggregatedFull.ms.toFixed(0)} | ${aggregatedFull.cpuMs.toFixed(0)} |`);
  } finally {
    await client.close();
  }
} finally {
  await sim.stop();
}
