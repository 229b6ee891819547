// collectionresources over HTTP (reference §1.6): the list of collections, `any`, `workloads` and `kuberesources`
// as JSON, YAML and Table, with resourceTypes in first-seen order, paging, onlyMetadata and the errors.
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { serveStore, type ServedStore } from '../../support/apiserver.js';
import { deployment, namespace, pod } from '../../support/fixtures.js';

const C = '/apis/clusterpedia.io/v1beta1/collectionresources';
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';

let served: ServedStore;

interface Collection {
  kind: string;
  metadata: { name: string };
  resourceTypes: { group: string; version: string; kind: string; resource: string }[];
  items: { kind: string; metadata: { name: string; namespace?: string; annotations?: Record<string, string> }; spec?: unknown }[];
  continue?: string;
  remainingItemCount?: number;
}

async function get(path: string, accept = 'application/json'): Promise<{ status: number; type: string; text: string }> {
  const r = await fetch(`${served.api.base}${path}`, { headers: { accept } });
  return { status: r.status, type: r.headers.get('content-type') ?? '', text: await r.text() };
}

async function collection(path: string): Promise<Collection> {
  const r = await get(path);
  expect(r.status, r.text).toBe(200);
  return JSON.parse(r.text) as Collection;
}

beforeAll(async () => {
  served = await serveStore([
    namespace('c1', 'default'),
    deployment('c1', 'default', 'web'), deployment('c2', 'default', 'api'),
    pod('c1', 'default', 'web-1'), pod('c2', 'default', 'api-1'),
  ], { c1: true, c2: true });
});

afterAll(() => served?.stop());

it('lists the three collections, and as a Table with Name and Resources', async () => {
  const list = JSON.parse((await get(C)).text) as { kind: string; items: { metadata: { name: string }; resourceTypes: unknown[] }[] };
  expect(list.kind).toBe('CollectionResourceList');
  expect(list.items.map((i) => i.metadata.name)).toEqual(['any', 'workloads', 'kuberesources']);
  expect(list.items[1]?.resourceTypes).toEqual([
    { group: 'apps', version: 'v1', resource: 'deployments' },
    { group: 'apps', version: 'v1', resource: 'daemonsets' },
    { group: 'apps', version: 'v1', resource: 'statefulsets' },
  ]);
  const table = JSON.parse((await get(C, TABLE)).text) as { columnDefinitions: { name: string }[]; rows: { cells: string[] }[] };
  expect(table.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Resources']);
  expect(table.rows.find((r) => r.cells[0] === 'workloads')?.cells[1]).toBe('apps.deployments,apps.daemonsets,apps.statefulsets');
  expect(table.rows.find((r) => r.cells[0] === 'any')?.cells[1]).toBe('*');
});

it('workloads holds the Deployments of every cluster, objects as stored, resourceTypes of what was returned', async () => {
  const w = await collection(`${C}/workloads`);
  expect(w).toMatchObject({ kind: 'CollectionResource', metadata: { name: 'workloads' } });
  expect(w.items.map((i) => `${i.metadata.annotations?.['shadow.clusterpedia.io/cluster-name']}/${i.metadata.name}`)).toEqual(['c1/web', 'c2/api']);
  expect(w.items[0]?.spec).toBeDefined();
  expect(w.resourceTypes).toEqual([{ group: 'apps', version: 'v1', kind: 'Deployment', resource: 'deployments' }]);
});

it('any takes groups or resources; resourceTypes come in first-seen order', async () => {
  const both = await collection(`${C}/any?resources=/pods,apps/deployments&clusters=c1`);
  expect(both.items.map((i) => `${i.kind}/${i.metadata.name}`).sort()).toEqual(['Deployment/web', 'Pod/web-1']);
  const firstKind = both.items[0]?.kind;
  expect(both.resourceTypes.map((t) => t.kind)).toEqual(firstKind === 'Pod' ? ['Pod', 'Deployment'] : ['Deployment', 'Pod']);
  const core = await collection(`${C}/any?groups=`.concat(encodeURIComponent('/')));
  expect(new Set(core.items.map((i) => i.kind))).toEqual(new Set(['Namespace', 'Pod']));
  const none = await get(`${C}/any`);
  expect(none.status).toBe(400);
  expect(JSON.parse(none.text)).toMatchObject({ kind: 'Status', code: 400, message: expect.stringContaining('`groups` or `resources` is required') });
});

it('kuberesources holds every built-in kind; onlyMetadata strips spec', async () => {
  const k = await collection(`${C}/kuberesources?onlyMetadata=true`);
  expect(new Set(k.items.map((i) => i.kind))).toEqual(new Set(['Namespace', 'Deployment', 'Pod']));
  for (const i of k.items) expect(i.spec).toBeUndefined();
});

it('pages with limit and continue, with remainingItemCount when asked, until every item is seen once', async () => {
  const seen: string[] = [];
  let path = `${C}/kuberesources?limit=2&withRemainingCount=true`;
  const remaining: (number | undefined)[] = [];
  for (let pages = 0; pages < 10; pages++) {
    const p = await collection(path);
    seen.push(...p.items.map((i) => `${i.kind}/${i.metadata.annotations?.['shadow.clusterpedia.io/cluster-name']}/${i.metadata.name}`));
    remaining.push(p.remainingItemCount);
    if (!p.continue) break;
    path = `${C}/kuberesources?limit=2&withRemainingCount=true&continue=${encodeURIComponent(p.continue)}`;
  }
  expect(seen.length).toBe(5);
  expect(new Set(seen).size).toBe(5);
  // Clusterpedia sets it whenever it is asked for, 0 on the last page included.
  expect(remaining).toEqual([3, 1, 0]);
});

it('answers YAML with a YAML body that says the same as the JSON one', async () => {
  const y = await get(`${C}/workloads`, 'application/yaml');
  expect(y.status).toBe(200);
  expect(y.type).toMatch(/^application\/yaml/);
  expect(y.text.trimStart().startsWith('{')).toBe(false);
  expect(parseYaml(y.text)).toEqual(await collection(`${C}/workloads`));
});

it('a Table has the collection columns and metadata-only rows', async () => {
  const t = JSON.parse((await get(`${C}/workloads`, TABLE)).text) as { columnDefinitions: { name: string }[]; rows: { cells: string[]; object: { kind: string } }[] };
  expect(t.columnDefinitions.map((c) => c.name)).toEqual(['Cluster', 'Group', 'Version', 'Kind', 'Namespace', 'Name', 'Age']);
  expect(t.rows.map((r) => r.cells.slice(0, 6))).toEqual([
    ['c1', 'apps', 'v1', 'Deployment', 'default', 'web'],
    ['c2', 'apps', 'v1', 'Deployment', 'default', 'api'],
  ]);
});

it('an unknown collection is a 404 Status', async () => {
  const r = await get(`${C}/nope`);
  expect(r.status).toBe(404);
  expect(JSON.parse(r.text)).toMatchObject({ kind: 'Status', reason: 'NotFound', message: 'collectionresources.clusterpedia.io "nope" not found' });
});
