// The CRDs of manifests/base (reference §4.1, §4.4) and the examples in manifests/examples against them.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { MANIFESTS, NAMESPACE, Rendered, readObjects, render, type Obj } from './render.js';
import { check, untypedNodes, type Schema } from './schema-check.js';

interface Crd extends Obj {
  spec: {
    group: string;
    scope: string;
    names: { kind: string; listKind: string; plural: string; singular: string; shortNames?: string[] };
    versions: {
      name: string;
      served: boolean;
      storage: boolean;
      subresources?: { status?: Record<string, never> };
      additionalPrinterColumns?: { name: string; type: string; jsonPath: string; priority?: number }[];
      schema: { openAPIV3Schema: Schema };
    }[];
  };
}

const GROUP = 'cluster.clusterpedia.io';
let base: Rendered;
const crd = (plural: string): Crd => base.get<Crd>('CustomResourceDefinition', `${plural}.${GROUP}`);
const schemaOf = (plural: string): Schema => crd(plural).spec.versions[0]!.schema.openAPIV3Schema;
/** The schema node at a dotted path of property names ("spec.syncResources[]" walks into items). */
function at(s: Schema, path: string): Schema {
  let cur: Schema | undefined = s;
  for (const part of path.split('.')) {
    const [name, items] = part.endsWith('[]') ? [part.slice(0, -2), true] : [part, false];
    cur = cur?.properties?.[name];
    if (items) cur = cur?.items;
  }
  if (!cur) throw new Error(`no schema at ${path}`);
  return cur;
}

beforeAll(() => {
  base = new Rendered(render('base'));
});

describe('CRDs', () => {
  it('PediaCluster and ClusterSyncResources: cluster-scoped v1alpha2 with the original names', () => {
    const pc = crd('pediaclusters').spec;
    expect(pc.group).toBe(GROUP);
    expect(pc.scope).toBe('Cluster');
    expect(pc.names).toEqual({ kind: 'PediaCluster', listKind: 'PediaClusterList', plural: 'pediaclusters', singular: 'pediacluster' });
    expect(pc.versions.map((v) => [v.name, v.served, v.storage])).toEqual([['v1alpha2', true, true]]);
    expect(pc.versions[0]!.subresources).toEqual({ status: {} });
    const csr = crd('clustersyncresources').spec;
    expect(csr.scope).toBe('Cluster');
    expect(csr.names).toEqual({ kind: 'ClusterSyncResources', listKind: 'ClusterSyncResourcesList', plural: 'clustersyncresources', singular: 'clustersyncresources' });
    expect(csr.versions.map((v) => [v.name, v.served, v.storage])).toEqual([['v1alpha2', true, true]]);
  });

  it('PediaCluster printer columns as in reference §4.1 (wide ones at priority 10)', () => {
    const cols = crd('pediaclusters').spec.versions[0]!.additionalPrinterColumns;
    expect(cols?.map((c) => [c.name, c.jsonPath, c.priority ?? 0])).toEqual([
      ['Ready', ".status.conditions[?(@.type == 'Ready')].status", 0],
      ['Version', '.status.version', 0],
      ['APIServer', '.status.apiserver', 0],
      ['Validated', ".status.conditions[?(@.type == 'Validated')].reason", 10],
      ['SynchroRunning', ".status.conditions[?(@.type == 'SynchroRunning')].reason", 10],
      ['ClusterHealthy', ".status.conditions[?(@.type == 'ClusterHealthy')].reason", 10],
      ['ShardingName', '.status.shardingName', 10],
    ]);
  });

  it('spec schemas have the fields of reference §4.1/§4.4 and are structural', () => {
    const pc = schemaOf('pediaclusters');
    expect(untypedNodes(pc)).toEqual([]);
    expect(untypedNodes(schemaOf('clustersyncresources'))).toEqual([]);
    expect(at(pc, 'spec').required).toEqual(['syncResources']);
    for (const f of ['kubeconfig', 'caData', 'tokenData', 'certData', 'keyData']) expect(at(pc, `spec.${f}`), f).toMatchObject({ type: 'string', format: 'byte' });
    for (const f of ['apiserver', 'syncResourcesRefName', 'shardingName']) expect(at(pc, `spec.${f}`).type, f).toBe('string');
    expect(at(pc, 'spec.syncAllCustomResources').type).toBe('boolean');
    for (const ref of ['kubeconfig', 'ca', 'cert', 'key', 'token']) {
      const s = at(pc, `spec.authenticationFrom.${ref}`);
      expect(s.required?.sort(), ref).toEqual(['key', 'name']);
      expect(Object.keys(s.properties ?? {}).sort(), ref).toEqual(['key', 'name']);
    }
    for (const s of [pc, schemaOf('clustersyncresources')]) {
      const item = at(s, 'spec.syncResources[]');
      expect(item.required?.sort()).toEqual(['group', 'resources']);
      expect(Object.keys(item.properties ?? {}).sort()).toEqual(['eventsInvolvedResources', 'group', 'resources', 'versions']);
      expect(at(s, 'spec.syncResources[].resources').minItems).toBe(1);
      expect(at(s, 'spec').required).toEqual(['syncResources']);
    }
  });

  it('status keeps unknown fields of conditions and sync conditions and declares our count, lastEventTime, lastError and the names of a resource kube does not build in', () => {
    const pc = schemaOf('pediaclusters');
    expect(at(pc, 'status.conditions[]')['x-kubernetes-preserve-unknown-fields']).toBe(true);
    const sync = at(pc, 'status.syncResources[].resources[].syncConditions[]');
    expect(sync['x-kubernetes-preserve-unknown-fields']).toBe(true);
    expect(sync.properties?.count).toMatchObject({ type: 'integer' });
    expect(sync.properties?.lastEventTime).toMatchObject({ type: 'string', format: 'date-time' });
    expect(sync.properties?.lastError).toMatchObject({ type: 'string' });
    expect(sync.properties?.lastErrorTime).toMatchObject({ type: 'string', format: 'date-time' });
    // A custom resource's names from the member's discovery, which discovery serves without its CRD synced.
    const resource = at(pc, 'status.syncResources[].resources[]');
    expect(resource.properties?.singularName).toMatchObject({ type: 'string' });
    for (const f of ['shortNames', 'categories']) expect(resource.properties?.[f], f).toMatchObject({ type: 'array', items: { type: 'string' } });
    for (const f of ['apiserver', 'version', 'shardingName']) expect(at(pc, `status.${f}`).type, f).toBe('string');
  });

  it('rejects what the API forbids (the structural check sees the required fields)', () => {
    const pc = schemaOf('pediaclusters');
    const ok = { apiVersion: `${GROUP}/v1alpha2`, kind: 'PediaCluster', metadata: { name: 'c' }, spec: { syncResources: [] } };
    expect(check(ok, pc)).toEqual([]);
    expect(check({ ...ok, spec: {} }, pc)).toEqual(['.spec: missing required field syncResources']);
    expect(check({ ...ok, spec: { syncResources: [{ group: 'apps', resources: [] }] } }, pc)).toEqual(['.spec.syncResources[0].resources: needs at least 1 item(s)']);
    expect(check({ ...ok, spec: { syncResources: [{ resources: ['pods'] }] } }, pc)).toEqual(['.spec.syncResources[0]: missing required field group']);
    expect(check({ ...ok, spec: { syncResources: [], authenticationFrom: { token: { name: 's' } } } }, pc)).toEqual(['.spec.authenticationFrom.token: missing required field key']);
    expect(check({ ...ok, spec: { syncResources: [], tokenData: 'not base64!' } }, pc)).toEqual(['.spec.tokenData: not base64 (format: byte)']);
    expect(check({ ...ok, spec: { syncResources: [], apiServer: 'x' } }, pc)).toEqual(['.spec: unknown field apiServer']);
  });
});

describe('manifests/examples', () => {
  const files = ['pediacluster-token.yaml', 'pediacluster-kubeconfig.yaml', 'pediacluster-secret-ref.yaml', 'clustersyncresources.yaml'];

  it('has the four examples, none of them part of a kustomization', () => {
    expect(readdirSync(join(MANIFESTS, 'examples')).sort()).toEqual([...files].sort());
    for (const variant of ['base', 'binding', 'split']) {
      const kinds = render(variant).map((o) => o.kind);
      expect(kinds, variant).not.toContain('PediaCluster');
      expect(kinds, variant).not.toContain('ClusterSyncResources');
    }
  });

  it('match the CRD schemas; Secret and ClusterSyncResources references resolve', () => {
    const objects = files.flatMap((f) => readObjects(join('examples', f)).map((o) => ({ file: f, o })));
    const kinds = new Map([['PediaCluster', 'pediaclusters'], ['ClusterSyncResources', 'clustersyncresources']]);
    const syncResources = new Set(objects.filter(({ o }) => o.kind === 'ClusterSyncResources').map(({ o }) => o.metadata.name));
    let clusters = 0;
    for (const { file, o } of objects) {
      if (o.kind === 'Secret') {
        expect(o.metadata.namespace, `${file}: Secrets are read from the clusterpedia namespace only`).toBe(NAMESPACE);
        continue;
      }
      const plural = kinds.get(o.kind);
      expect(plural, `${file}: ${o.kind}`).toBeDefined();
      expect(o.apiVersion, file).toBe(`${GROUP}/v1alpha2`);
      expect(o.metadata.namespace, `${file}: cluster-scoped`).toBeUndefined();
      expect(check(o, schemaOf(plural!)), file).toEqual([]);
      if (o.kind !== 'PediaCluster') continue;
      clusters++;
      const spec = (o as Obj & { spec: { syncResourcesRefName?: string; authenticationFrom?: Record<string, { name: string; key: string }> } }).spec;
      if (spec.syncResourcesRefName) expect(syncResources, file).toContain(spec.syncResourcesRefName);
      for (const [what, ref] of Object.entries(spec.authenticationFrom ?? {})) {
        const secret = objects.find(({ o: s }) => s.kind === 'Secret' && s.metadata.name === ref.name)?.o as (Obj & { stringData?: Record<string, string>; data?: Record<string, string> }) | undefined;
        expect(secret, `${file}: Secret ${ref.name} (${what})`).toBeDefined();
        expect({ ...secret!.data, ...secret!.stringData }[ref.key], `${file}: ${ref.name}/${ref.key}`).toBeTruthy();
      }
    }
    expect(clusters).toBe(3);
  });
});
