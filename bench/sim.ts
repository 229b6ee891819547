// Simulator benchmark: memory of 100 clusters × 10,000 pods idle, then RSS and items/s while listing every pod with limit=500.
import os from 'node:os';
import { Agent, fetch } from 'undici';
import { startSimulatedFleet } from '../src/sim/index.js';

interface Args {
  clusters: number;
  pods: number;
  limit: number;
  concurrency: number;
}

function args(): Args {
  const get = (name: string, fallback: number): number => {
    const i = process.argv.indexOf(`--${name}`);
    const v = i >= 0 ? Number(process.argv[i + 1]) : fallback;
    if (!Number.isInteger(v) || v <= 0) throw new Error(`--${name} must be a positive integer`);
    return v;
  };
  return { clusters: get('clusters', 100), pods: get('pods', 10_000), limit: get('limit', 500), concurrency: get('concurrency', 4) };
}

const mb = (n: number): string => `${Math.round(n / 1_048_576)} MB`;

async function settle(): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc;
  for (let i = 0; i < 3; i++) {
    gc?.();
    await new Promise((r) => setTimeout(r, 200));
  }
  return process.memoryUsage().rss;
}

async function main(): Promise<void> {
  const a = args();
  const rss0 = await settle();
  const t0 = performance.now();
  const fleet = await startSimulatedFleet({ clusters: a.clusters, podsPerCluster: a.pods, seed: 1, token: 'bench' });
  const startMs = performance.now() - t0;
  const idle = await settle();

  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 100);
  // Shorter than the simulator's 5 s keep-alive, so the client never reuses a socket the server is closing.
  const agent = new Agent({ connections: a.concurrency, keepAliveTimeout: 2000 });
  let items = 0;
  let pages = 0;
  let bytes = 0;
  const queue = [...fleet.clusters];
  const t1 = performance.now();
  await Promise.all(Array.from({ length: a.concurrency }, async () => {
    for (let c = queue.shift(); c; c = queue.shift()) {
      let cont = '';
      do {
        const res = await fetch(`${c.url}/api/v1/pods?limit=${a.limit}${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`, { headers: { authorization: 'Bearer bench' }, dispatcher: agent });
        const text = await res.text();
        bytes += text.length;
        const body = JSON.parse(text) as { items: unknown[]; metadata: { continue?: string } };
        items += body.items.length;
        pages++;
        cont = body.metadata.continue ?? '';
      } while (cont);
    }
  })).catch(async (e: unknown) => {
    clearInterval(sampler);
    await agent.close();
    await fleet.stop();
    throw e;
  });
  const listMs = performance.now() - t1;
  clearInterval(sampler);
  await agent.close();
  await fleet.stop();
  if (items !== a.clusters * a.pods) throw new Error(`listed ${items} pods, expected ${a.clusters * a.pods}`);

  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  const report = {
    date: new Date().toISOString().slice(0, 10),
    machine: `${cpu}, ${os.cpus().length} cores, ${mb(os.totalmem())} RAM, Node ${process.version}`,
    clusters: a.clusters, podsPerCluster: a.pods, gcExposed: typeof (globalThis as { gc?: unknown }).gc === 'function',
    startSeconds: +(startMs / 1000).toFixed(1),
    rssBaseline: mb(rss0), rssIdle: mb(idle), rssPeakWhileListing: mb(peak),
    listed: items, pages, listSeconds: +(listMs / 1000).toFixed(1), itemsPerSecond: Math.round(items / (listMs / 1000)), mbPerSecond: +((bytes / 1_048_576) / (listMs / 1000)).toFixed(1),
    avgPodBytes: Math.round(bytes / items), concurrency: a.concurrency, limit: a.limit,
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? e.stack ?? e.message : String(e)} ${e instanceof Error && e.cause ? String(e.cause) : ''}\n`);
  process.exitCode = 1;
});
