// What each synced resource type costs the synchro: one watch, on a connection of its own to a member that speaks
// HTTP/1.1 only, or sharing one when the member offers HTTP/2 (src/kube/http2-transport.ts).
// One simulated member over TLS with `BENCH_TYPES` CRDs (300) besides pods, serving HTTP/1.1 only, then HTTP/2 too; the
// synchro as shipped (dist) syncs pods alone, then pods and every group (`*`). After `BENCH_SETTLE_SECONDS` (25) of
// each: its RSS, its TCP connections, the member's open watches. Prints a Markdown table. Bounded, loopback only.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pediaClustersYaml, startSimulatedCluster, type SimCluster } from '../src/sim/index.js';
import { BUNDLE, memoryOf } from './apiserver-process.js';
import { envNumber } from './env.js';

const TYPES = envNumber('BENCH_TYPES', 300);
const SETTLE_MS = envNumber('BENCH_SETTLE_SECONDS', 25) * 1000;

async function measure(sim: SimCluster, dir: string, everything: boolean, tag: string): Promise<{ rssMB: number; connections: number; watches: number; http2: number }> {
  const file = join(dir, `clusters-${tag}-${everything ? 'all' : 'pods'}.yaml`);
  writeFileSync(file, pediaClustersYaml([sim], [{ group: '', resources: ['pods'] }, ...(everything ? [{ group: '*', resources: ['*'] }] : [])]));
  const child = spawn(process.execPath, [BUNDLE, 'synchro', '--storage', `sqlite:${join(dir, `${tag}-${everything ? 'all' : 'pods'}.db`)}`, '--clusters', file, '--metrics-port', '0', '--log-level', 'warn'],
    { stdio: ['ignore', 'ignore', 'inherit'] });
  try {
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const rss = (memoryOf(child.pid ?? 0)?.rss ?? 0) / 1024 / 1024;
    const ss = execFileSync('ss', ['-tnpH', 'state', 'established'], { encoding: 'utf8' });
    const connections = ss.split('\n').filter((l) => l.includes(`pid=${child.pid},`)).length;
    return { rssMB: Math.round(rss), connections, watches: sim.openWatches, http2: sim.openHttp2Connections };
  } finally {
    child.kill();
    await new Promise((r) => child.once('exit', r));
  }
}

const dir = mkdtempSync(join(tmpdir(), 'cp-bench-watch-cost-'));
const rows: string[] = [];
try {
  // The member over HTTP/1.1 only (a connection per watch), then also offering HTTP/2 as kube-apiserver does.
  for (const http2 of [false, true]) {
    const sim = await startSimulatedCluster({ name: 'm1', pods: 10, seed: 1, tls: true, http2 });
    try {
      for (let i = 0; i < TYPES; i++) sim.addCRD({ group: `g${i % 10}.example.io`, plural: `things${i}s`, kind: `Thing${i}`, scope: 'Namespaced', versions: [{ name: 'v1' }] });
      const pods = await measure(sim, dir, false, http2 ? 'h2' : 'h1');
      const all = await measure(sim, dir, true, http2 ? 'h2' : 'h1');
      const member = http2 ? 'HTTP/2 and HTTP/1.1' : 'HTTP/1.1 only';
      rows.push(`| ${member} | pods | ${pods.watches} | ${pods.connections} (${pods.http2}) | ${pods.rssMB} MB |`);
      rows.push(`| ${member} | pods and every group (\`*\`) | ${all.watches} | ${all.connections} (${all.http2}) | ${all.rssMB} MB |`);
      rows.push(`| ${member} | (per watch) | | | ~${Math.round((all.rssMB - pods.rssMB) * 1024 / Math.max(1, all.watches - pods.watches))} kB |`);
    } finally {
      await sim.stop();
    }
  }
  console.log(`One simulated member over TLS with ${TYPES} CRDs; ${new Date().toISOString().slice(0, 10)}, Node ${process.version}\n`);
  console.log('| member serves | synced | member\'s open watches | synchro TCP connections (of them HTTP/2) | synchro RSS |');
  console.log('|---|---|---|---|---|');
  for (const r of rows) console.log(r);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
