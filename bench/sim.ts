// Simulator benchmark: memory of 100 clusters × 10,000 pods idle, then RSS and items/s while listing every pod with limit=500.
import os from 'node:os';
import { Worker } from 'node:worker_threads';
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

async function settle(): Promise<NodeJS.MemoryUsage> {
  const gc = (globalThis as { gc?: () => void }).gc;
  for (let i = 0; i < 3; i++) {
    gc?.();
    await new Promise((r) => setTimeout(r, 200));
  }
  return process.memoryUsage();
}

async function main(): Promise<void> {
  const a = args();
  const rss0 = (await settle()).rss;
  const t0 = performance.now();
  const fleet = await startSimulatedFleet({ clusters: a.clusters, podsPerCluster: a.pods, seed: 1, token: 'bench' });
  const startMs = performance.now() - t0;
  const idle = await settle();

  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 100);
  const t1 = performance.now();
  // The client runs in a worker thread: on 2 cores, parsing 1M pods on the server's thread would halve what is measured.
  const result = await new Promise<ListResult>((resolve, reject) => {
    const worker = new Worker(CLIENT, { eval: true, workerData: { urls: fleet.clusters.map((c) => c.url), limit: a.limit, concurrency: a.concurrency } satisfies ClientJob });
    worker.once('message', (m: ListResult) => resolve(m));
    worker.once('error', reject);
  }).catch(async (e: unknown) => {
    clearInterval(sampler);
    await fleet.stop();
    throw e;
  });
  const { items, pages, bytes } = result;
  const listMs = performance.now() - t1;
  clearInterval(sampler);
  const heapUsed = process.memoryUsage().heapUsed;
  await fleet.stop();
  if (items !== a.clusters * a.pods) throw new Error(`listed ${items} pods, expected ${a.clusters * a.pods}`);

  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  const report = {
    date: new Date().toISOString().slice(0, 10),
    machine: `${cpu}, ${os.cpus().length} cores, ${mb(os.totalmem())} RAM, Node ${process.version}`,
    clusters: a.clusters, podsPerCluster: a.pods, gcExposed: typeof (globalThis as { gc?: unknown }).gc === 'function',
    startSeconds: +(startMs / 1000).toFixed(1),
    rssBaseline: mb(rss0), rssIdle: mb(idle.rss), heapIdle: mb(idle.heapUsed), heapAfterListing: mb(heapUsed), rssPeakWhileListing: mb(peak),
    listed: items, pages, listSeconds: +(listMs / 1000).toFixed(1), itemsPerSecond: Math.round(items / (listMs / 1000)), mbPerSecond: +((bytes / 1_048_576) / (listMs / 1000)).toFixed(1),
    avgPodBytes: Math.round(bytes / items), concurrency: a.concurrency, limit: a.limit,
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
}

interface ClientJob {
  urls: string[];
  limit: number;
  concurrency: number;
}

interface ListResult {
  items: number;
  pages: number;
  bytes: number;
}

/**
 * The list client: every pod of every cluster, page by page, `concurrency` clusters at a time. Plain JavaScript run with
 * `eval: true`, because worker threads do not inherit tsx's loader.
 */
const CLIENT = `
const { parentPort, workerData: job } = require('node:worker_threads');
import('undici').then(async ({ Agent, fetch }) => {
  // Shorter than the simulator's 5 s keep-alive, so the client never reuses a socket the server is closing.
  const agent = new Agent({ connections: job.concurrency, keepAliveTimeout: 2000 });
  const out = { items: 0, pages: 0, bytes: 0 };
  const queue = [...job.urls];
  await Promise.all(Array.from({ length: job.concurrency }, async () => {
    for (let url = queue.shift(); url; url = queue.shift()) {
      let cont = '';
      do {
        const res = await fetch(url + '/api/v1/pods?limit=' + job.limit + (cont ? '&continue=' + encodeURIComponent(cont) : ''), { headers: { authorization: 'Bearer bench' }, dispatcher: agent });
        const text = await res.text();
        out.bytes += text.length;
        const body = JSON.parse(text);
        out.items += body.items.length;
        out.pages++;
        cont = body.metadata.continue || '';
      } while (cont);
    }
  }));
  await agent.close();
  parentPort.postMessage(out);
});
`;

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? e.stack ?? e.message : String(e)} ${e instanceof Error && e.cause ? String(e.cause) : ''}\n`);
  process.exitCode = 1;
});
