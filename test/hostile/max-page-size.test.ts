// --max-page-size caps lists that ask for no limit, with kube's paging semantics intact: the capped page carries a
// continue token, and paging clients (a client-go style pager, kubectl --chunk-size) get every object exactly once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/lib/log.js';
import { openStorage } from '../../src/storage/open.js';
import type { Storage } from '../../src/storage/types.js';
import { startTestApiserver, type TestApiserver } from '../support/apiserver.js';
import { Kubectl } from '../support/kubectl.js';
import { clusterName, datasetObjects } from './dataset.js';

const CAP = 40;
const SHAPE = { clusters: 3, deploymentsPerCluster: 12, podsPerDeployment: 7 };
const PODS = 3 * 12 * 7;
const P = '/apis/clusterpedia.io/v1beta1/resources';
let storage: Storage;
let api: TestApiserver;

beforeAll(async () => {
  storage = await openStorage({ url: 'sqlite::memory:' }, { logger: silentLogger() });
  await storage.migrate();
  await storage.write({ upserts: datasetObjects(SHAPE), deletes: [] });
  for (let c = 0; c < SHAPE.clusters; c++) {
    await storage.putClusterStatus(clusterName(c), { spec: {}, status: { conditions: [{ type: 'Ready', status: 'True' }, { type: 'ClusterHealthy', status: 'True' }] }, updatedAt: new Date().toISOString() });
  }
  api = await startTestApiserver(storage, (o) => {
    o.limits.maxPageSize = CAP;
  });
});

afterAll(async () => {
  await api?.stop();
  await storage?.close();
});

interface List {
  items: { metadata: { name: string; namespace?: string; annotations?: Record<string, string> } }[];
  metadata: { continue?: string; resourceVersion?: string };
}

const key = (o: List['items'][number]): string => `${o.metadata.annotations?.['shadow.clusterpedia.io/cluster-name']}/${o.metadata.namespace}/${o.metadata.name}`;

async function get(path: string): Promise<List> {
  const r = await fetch(`${api.base}${path}`);
  expect(r.status, path).toBe(200);
  return (await r.json()) as List;
}

/** What client-go's pager does: the same request, following continue until it is empty. */
async function pager(path: string): Promise<{ keys: string[]; pages: number }> {
  const keys: string[] = [];
  let token: string | undefined;
  let pages = 0;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const page = await get(token ? `${path}${sep}continue=${encodeURIComponent(token)}` : path);
    keys.push(...page.items.map(key));
    token = page.metadata.continue;
    if (++pages > 1000) throw new Error('continue never ends');
  } while (token);
  return { keys, pages };
}

describe('--max-page-size', () => {
  it('caps a list without limit at the page size and hands out a continue token', async () => {
    const page = await get(`${P}/api/v1/pods`);
    expect(page.items).toHaveLength(CAP);
    expect(page.metadata.continue).toBeTruthy();
  });

  it('a pager following the tokens gets every object once, in the order of an uncapped list', async () => {
    const all = (await get(`${P}/api/v1/pods?limit=100000`)).items.map(key);
    expect(all).toHaveLength(PODS);
    for (const path of [`${P}/api/v1/pods`, `${P}/api/v1/pods?labelSelector=${encodeURIComponent('tier=backend')}`, `${P}/api/v1/pods?orderby=${encodeURIComponent('created_at desc')}`]) {
      const { keys, pages } = await pager(path);
      expect(new Set(keys).size, path).toBe(keys.length);
      const expected = (await get(`${path}${path.includes('?') ? '&' : '?'}limit=100000`)).items.map(key);
      expect(keys, path).toEqual(expected);
      expect(pages, path).toBe(Math.max(1, Math.ceil(expected.length / CAP)));
    }
  });

  it('an explicit limit is honoured as asked, above or below the cap', async () => {
    expect((await get(`${P}/api/v1/pods?limit=7`)).items).toHaveLength(7);
    expect((await get(`${P}/api/v1/pods?limit=100`)).items).toHaveLength(100);
  });

  it('a capped page keeps its continue token even with withContinue=false: the client asked for everything, not a truncated list', async () => {
    const page = await get(`${P}/api/v1/pods?withContinue=false`);
    expect(page.items).toHaveLength(CAP);
    expect(page.metadata.continue).toBeTruthy();
    // A page the client limited itself still honours withContinue=false.
    expect((await get(`${P}/api/v1/pods?limit=5&withContinue=false`)).metadata.continue).toBeUndefined();
  });

  it('collectionresources lists are capped too, and page to the end', async () => {
    const page = (await (await fetch(`${api.base}/apis/clusterpedia.io/v1beta1/collectionresources/any?groups=apps`)).json()) as { items: unknown[]; continue?: string };
    expect(page.items).toHaveLength(CAP);
    expect(page.continue).toBeTruthy();
    let n = 0;
    let token: string | undefined;
    do {
      const r = (await (await fetch(`${api.base}/apis/clusterpedia.io/v1beta1/collectionresources/any?groups=apps${token ? `&continue=${encodeURIComponent(token)}` : ''}`)).json()) as { items: unknown[]; continue?: string };
      n += r.items.length;
      token = r.continue;
    } while (token);
    // Deployments and replica sets of every cluster.
    expect(n).toBe(SHAPE.clusters * SHAPE.deploymentsPerCluster * 2);
  });

  it('kubectl --chunk-size pages through everything', async () => {
    const k = new Kubectl(`${api.base}${P}`);
    try {
      for (const chunk of ['7', '500']) {
        const out = await k.ok(['get', 'pods', '-A', '--no-headers', `--chunk-size=${chunk}`]);
        expect(out.trim().split('\n'), `--chunk-size=${chunk}`).toHaveLength(PODS);
      }
    } finally {
      k.dispose();
    }
  });
});
