// YAML lists are streamed item by item like JSON ones: the same document as before, in bounded memory. Materialised,
// 8 concurrent YAML lists of 40 MB took the apiserver to 1.8 GB resident (1.1 GB for the 24 MB here; ~0.4 GB streamed).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { toYaml } from '../../src/kube/yaml.js';
import { silentLogger } from '../../src/lib/log.js';
import { openStorage } from '../../src/storage/open.js';
import { BundleProcess } from '../support/bundle.js';
import { healthyStatus, pod } from '../support/fixtures.js';
import { freePort } from '../support/postgres-server.js';

const P = '/apis/clusterpedia.io/v1beta1/resources';
let dir: string;
let proc: BundleProcess;
let base: string;

const memMiB = (field: 'VmRSS' | 'VmHWM'): number =>
  Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${proc.child.pid}/status`, 'utf8'))?.[1]) / 1024;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'clusterpedia-yaml-'));
  const storage = await openStorage({ url: `sqlite:${join(dir, 'db.sqlite')}` }, { logger: silentLogger() });
  await storage.migrate();
  // ~24 MB of pods, with multi-line strings (YAML block scalars) and characters YAML must quote.
  const padding = 'x'.repeat(20_000);
  for (let b = 0; b < 24; b++) {
    await storage.write({
      upserts: Array.from({ length: 50 }, (_, i) => {
        const p = pod('c1', 'default', `big-${b}-${i}`);
        Object.assign(p.object.metadata.annotations as Record<string, string>, { padding, script: 'line 1\n  line 2\n#: not a comment', odd: ': - ? [ ] { } & * ! | > \' " % @ `' });
        return p;
      }),
      deletes: [],
    });
  }
  await storage.putClusterStatus('c1', healthyStatus('c1'));
  await storage.close();
  const port = await freePort();
  proc = BundleProcess.start(['apiserver', '--storage', `sqlite:${join(dir, 'db.sqlite')}`, '--secure-port', '0', '--insecure-port', String(port), '--log-level', 'warn'], { cwd: dir });
  base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(`${base}/readyz`)).status === 200) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
});

afterAll(async () => {
  await proc?.stop();
  rmSync(dir, { recursive: true, force: true });
});

it('a YAML list is the YAML of the JSON list, for full, paged, Table and metadata-only lists', async () => {
  for (const [query, accept] of [['?limit=3', 'application/yaml'], ['?limit=2&continue=', 'application/yaml'], ['?limit=2', 'application/yaml;as=Table;v=v1;g=meta.k8s.io'],
    ['?limit=2', 'application/yaml;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io'], ['?labelSelector=app%3Dnone', 'application/yaml']] as const) {
    let q: string = query;
    if (q.endsWith('continue=')) {
      const first = (await (await fetch(`${base}${P}/api/v1/pods?limit=2`)).json()) as { metadata: { continue: string } };
      q += encodeURIComponent(first.metadata.continue);
    }
    const json = (await (await fetch(`${base}${P}/api/v1/pods${q}`, { headers: { accept: accept.replace('yaml', 'json') } })).json()) as Record<string, unknown>;
    const r = await fetch(`${base}${P}/api/v1/pods${q}`, { headers: { accept } });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/yaml/);
    const text = await r.text();
    const doc = parseYaml(text) as Record<string, unknown>;
    // Tables carry a server-side age column; compare everything else exactly.
    const strip = (v: Record<string, unknown>): unknown => JSON.parse(JSON.stringify(v).replace(/"\d+[smhd]"/g, '"AGE"'));
    expect(strip(doc)).toEqual(strip(json));
    if (!accept.includes('as=')) expect(text).toBe(toYaml(json));
  }
});

it('eight concurrent unpaged YAML lists of 24 MB stay in bounded memory', async () => {
  const before = memMiB('VmRSS');
  const sizes = await Promise.all(Array.from({ length: 8 }, async () => {
    const r = await fetch(`${base}${P}/api/v1/pods`, { headers: { accept: 'application/yaml' } });
    let n = 0;
    for await (const chunk of r.body as unknown as AsyncIterable<Uint8Array>) n += chunk.length;
    return n;
  }));
  for (const n of sizes) expect(n).toBeGreaterThan(24_000_000);
  // Streaming holds one item at a time per request: the peak is the baseline plus socket buffers and GC slack.
  expect(memMiB('VmHWM') - before).toBeLessThan(700);
}, 90_000);
