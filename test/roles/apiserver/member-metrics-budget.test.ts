// A fleet-wide metrics list does not wait for a member that does not answer: within the request's deadline (less a
// second), the others' items come back and the silent one is named in a warning.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { pediaClustersYaml, startSimulatedCluster, type SimCluster } from '../../../src/sim/index.js';
import { startTestApiserver, serveStore, type ServedStore, type TestApiserver } from '../../support/apiserver.js';

let member: SimCluster;
let silent: Server;
let served: ServedStore;
let api: TestApiserver;
let dir: string;

beforeAll(async () => {
  member = await startSimulatedCluster({ name: 'fast', pods: 4, tls: true });
  // Takes connections and requests, answers nothing.
  silent = createServer(() => undefined);
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  const port = (silent.address() as { port: number }).port;
  dir = mkdtempSync(join(tmpdir(), 'cp-budget-'));
  const file = join(dir, 'clusters.yaml');
  writeFileSync(file, `${pediaClustersYaml([member])}---\napiVersion: cluster.clusterpedia.io/v1alpha2\nkind: PediaCluster\nmetadata: {name: silent}\nspec: {apiserver: "http://127.0.0.1:${port}", tokenData: ${Buffer.from('t0ken').toString('base64')}}\n`);
  served = await serveStore([], { fast: true, silent: true });
  api = await startTestApiserver(served.storage, (o) => {
    o.limits.requestTimeoutMs = 3000;
    o.forward = { ...o.forward, metrics: true, clustersPath: file };
  });
});

afterAll(async () => {
  await api?.stop();
  await served?.stop();
  await member?.stop();
  silent?.closeAllConnections();
  await new Promise<void>((r) => (silent ? silent.close(() => r()) : r()));
  rmSync(dir, { recursive: true, force: true });
});

it("answers with the members that answered, within the request's deadline, naming the one that did not", async () => {
  const started = Date.now();
  const r = await fetch(`${api.resources}/apis/metrics.k8s.io/v1beta1/pods`);
  const took = Date.now() - started;
  expect(r.status).toBe(200);
  expect(took).toBeLessThan(3000);
  expect(r.headers.get('warning'), String(r.headers.get('warning'))).toMatch(/PodMetrics of cluster silent are left out: no answer within 2 s/);
  expect(r.headers.get('warning')).not.toMatch(/cluster fast/);
  const body = (await r.json()) as { items: { metadata: { annotations: Record<string, string> } }[] };
  expect(body.items.length).toBeGreaterThan(0);
  expect(new Set(body.items.map((i) => i.metadata.annotations['shadow.clusterpedia.io/cluster-name']))).toEqual(new Set(['fast']));
});
