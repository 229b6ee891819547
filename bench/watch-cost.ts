// What each synced resource type costs the synchro: one watch, held on its own HTTP/1.1 connection to the member.
// One simulated member over TLS with `BENCH_TYPES` CRDs (300) besides pods; the synchro as shipped (dist) syncs pods
// alone, then pods and every group (`*`). After `BENCH_SETTLE_SECONDS` (25) of each: its RSS, its TCP connections,
// the member's open watches. Prints a Markdown table. Bounded, loopback only.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pediaClustersYaml, startSimulatedCluster, type SimCluster } from '../src/sim/index.js';
import { BUNDLE, memoryOf } from './apiserver-process.js';
import { envNumber } from './env.js';

const TYPES = envNumber('BENCH_TYPES', 300);
const SETTLE_MS = envNumber('BENCH_SETTLE_SECONDS', 25) * 1000;

async function measure(sim: SimCluster, dir: string, everything: boolean): Promise<{ rssMB: number; connections: number; watches: number }> {
  const file = join(dir, `clusters-${everything ? 'all' : 'pods'}.yaml`);
  writeFileSync(file, pediaClustersYaml([sim], [{ group: '', resources: ['pods'] }, ...(everything ? [{ group: '*', resources: ['*'] }] : [])]));
  const child = spawn(process.execPath, [BUNDLE, 'synchro', '--storage', `sqlite:${join(dir, `${everything ? 'all' : 'pods'}.db`)}`, '--clusters', file, '--metrics-port', '0', '--log-level', 'warn'],
    { stdio: ['ignore', 'ignore', 'inherit'] });
  try {
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const rss = (memoryOf(child.pid ?? 0)?.rss ?? 0) / 1024 / 1024;
    const ss = execFileSync('ss', ['-tnpH', 'state', 'established'], { encoding: 'utf8' });
    const connections = ss.split('\n').filter((l) => l.includes(`pid=${child.pid},`)).length;
    return { rssMB: Math.round(rss), connections, watches: sim.openWatches };
  } finally {
    child.kill();
    await new Promise((r) => child.once('exit', r));
  }
}

const sim = await startSimulatedCluster({ name: 'm1', pods: 10, seed: 1, tls: true });
const dir = mkdtempSync(join(tmpdir(), 'cp-bench-watch-cost-'));
try {
  for (let i = 0; i < TYPES; i++) sim.addCRD({ group: `g${i % 10}.example.io`, plural: `things${i}s`, kind: `Thing${i}`, scope: 'Namespaced', versions: [{ name: 'v1' }] });
  const pods = await measure(sim, dir, false);
  const all = await measure(sim, dir, true);
  console.log(`One simulated member over TLS with ${TYPES} CRDs; ${new Date().toISOString().slice(0, 10)}, Node ${process.version}\n`);
  console.log('| synced | member\'s open watches | synchro TCP connections | synchro RSS |');
  console.log('|---|---|---|---|');
  console.log(`| pods | ${pods.watches} | ${pods.connections} | ${pods.rssMB} MB |`);
  console.log(`| pods and every group (\`*\`) | ${all.watches} | ${all.connections} | ${all.rssMB} MB |`);
  console.log(`\n~${Math.round((all.rssMB - pods.rssMB) * 1024 / Math.max(1, all.watches - pods.watches))} kB of synchro RSS per watch.`);
} finally {
  await sim.stop();
  rmSync(dir, { recursive: true, force: true });
}
