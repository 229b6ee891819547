// What the synchro remembers per object (src/roles/synchro/versions.ts): bytes and lookup time per key of
// `VersionMap`, beside a plain Map<string, string> of the same keys in the same run. Keys and RVs are the simulator's
// pods, ReplicaSets and Deployments (`BENCH_CLUSTERS` (4) clusters × `BENCH_PODS` (6400) pods), repeated
// `BENCH_COPIES` (25) times as separate maps, one per cluster × resource as the synchro holds them (100 × 6,400 pods
// ≈ 1 M keys by default). Needs node's --expose-gc (`npm run bench:versions`); prints a Markdown table.
import { VersionMap } from '../src/roles/synchro/versions.js';
import { startSimulatedFleet } from '../src/sim/index.js';
import { envNumber } from './env.js';

const CLUSTERS = envNumber('BENCH_CLUSTERS', 4);
const PODS = envNumber('BENCH_PODS', 6400);
const COPIES = Math.max(1, envNumber('BENCH_COPIES', 25));
const gc = globalThis.gc;
if (!gc) throw new Error('run with node --expose-gc (npm run bench:versions)');

interface Holder {
  get(key: string): string | undefined;
  set(key: string, rv: string): unknown;
}

/** Heap and external memory once collected: freed ArrayBuffers go back a turn after the collection that found them. */
async function settled(): Promise<number> {
  for (let i = 0; i < 4; i++) {
    gc!();
    await new Promise((r) => setTimeout(r, 20));
  }
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
}

async function measure(make: (entries: [string, string][]) => Holder, sets: [string, string][][]): Promise<{ bytes: number; getNs: number; setNs: number }> {
  const before = await settled();
  const maps: Holder[] = [];
  for (let c = 0; c < COPIES; c++) for (const s of sets) maps.push(make(s));
  const bytes = (await settled()) - before;
  let t = performance.now();
  let found = 0;
  for (let i = 0; i < maps.length; i++) for (const [k] of sets[i % sets.length]!) if (maps[i]!.get(k) !== undefined) found++;
  const getNs = ((performance.now() - t) * 1e6) / found;
  t = performance.now();
  for (let i = 0; i < maps.length; i++) for (const [k, v] of sets[i % sets.length]!) maps[i]!.set(k, String(Number(v) + 1));
  const setNs = ((performance.now() - t) * 1e6) / found;
  maps.length = 0;
  return { bytes: bytes / found, getNs, setNs };
}

const fleet = await startSimulatedFleet({ clusters: CLUSTERS, podsPerCluster: PODS, token: 'bench', seed: 1, bookmarkIntervalMs: 60_000 });
const sets: [string, string][][] = [];
for (const c of fleet.clusters) {
  for (const r of ['pods', 'replicasets.apps', 'deployments.apps']) sets.push(c.snapshot(r).map((o) => [`${o.metadata.namespace}/${o.metadata.name}`, o.metadata.resourceVersion!]));
}
await fleet.stop();
const keys = sets.reduce((n, s) => n + s.length, 0) * COPIES;
const keyBytes = sets.flat().reduce((n, [k]) => n + Buffer.byteLength(k), 0) / (keys / COPIES);
// The Map is given strings of its own, as the synchro's keys and RVs are parsed from each event: here they would
// otherwise be the test data's, counted for neither.
const own = (s: string): string => Buffer.from(s).toString();
const map = await measure((entries) => new Map(entries.map(([k, v]) => [own(k), own(v)])), sets);
const versions = await measure((entries) => VersionMap.from(entries), sets);
const row = (name: string, r: { bytes: number; getNs: number; setNs: number }): string =>
  `| ${name} | ${r.bytes.toFixed(1)} | ${r.getNs.toFixed(0)} | ${r.setNs.toFixed(0)} |`;
console.log(`${keys.toLocaleString('en-US')} keys (mean ${keyBytes.toFixed(1)} bytes), ${new Date().toISOString().slice(0, 10)}, Node ${process.version}\n`);
console.log('| | bytes per key | get, ns | set, ns |\n|---|---|---|---|');
console.log(row('Map<string, string>', map));
console.log(row('VersionMap', versions));
console.log(`\nVersionMap / Map: ${(versions.bytes / map.bytes).toFixed(2)} of the memory`);
process.exit(0);
