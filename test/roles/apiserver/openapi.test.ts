// Our own API's OpenAPI at the root, as Clusterpedia publishes it and kube-apiserver's aggregator collects it:
// kubectl explain of PediaCluster (the CRD's schema) and CollectionResource, the v3 index's hashes, v2 as JSON.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { serveStore, type ServedStore } from '../../support/apiserver.js';
import { Kubectl, kubectlPath, kubectlVersion } from '../../support/kubectl.js';

let served: ServedStore;

beforeAll(async () => {
  served = await serveStore([], { east: true });
});
afterAll(() => served?.stop());

const get = async (path: string, accept = 'application/json'): Promise<{ status: number; text: string }> => {
  const r = await fetch(`${served.api.base}${path}`, { headers: { accept } });
  return { status: r.status, text: await r.text() };
};

describe('kubectl explain at the root', () => {
  for (const binary of [kubectlPath(), kubectlVersion('1.29')]) {
    it(`describes PediaCluster from its CRD and CollectionResource (${binary.split('/').pop() ?? ''})`, async () => {
      const k = new Kubectl(served.api.base, binary);
      try {
        const spec = await k.run(['explain', 'pediaclusters.spec.apiserver']);
        expect(spec).toMatchObject({ code: 0, stderr: '' });
        expect(spec.stdout).toMatch(/^GROUP:\s+cluster\.clusterpedia\.io\nKIND:\s+PediaCluster\nVERSION:\s+v1alpha2\n\nFIELD: apiserver <string>/);
        expect(spec.stdout).toMatch(/URL of the member cluster's kube-apiserver/);
        const recursive = await k.ok(['explain', 'pediaclusters.spec', '--recursive']);
        expect(recursive).toMatch(/^\s+authenticationFrom\s+<Object>$/m);
        expect(recursive).toMatch(/^\s+syncResources\s+<\[\]Object> -required-$/m);
        expect(await k.ok(['explain', 'collectionresources.resourceTypes'])).toMatch(/FIELD: resourceTypes <\[\]Object>[\s\S]*resource\s+<string>/);
      } finally {
        k.dispose();
      }
    });
  }
});

describe('the documents', () => {
  it('are listed in the v3 index under the hash of their content, and PediaCluster is the CRD\'s schema', async () => {
    const index = JSON.parse((await get('/openapi/v3')).text) as { paths: Record<string, { serverRelativeURL: string }> };
    expect(Object.keys(index.paths).sort()).toEqual(['apis/cluster.clusterpedia.io/v1alpha2', 'apis/clusterpedia.io/v1beta1']);
    for (const [gv, { serverRelativeURL }] of Object.entries(index.paths)) {
      const doc = await get(`/openapi/v3/${gv}`);
      expect(doc.status).toBe(200);
      expect(serverRelativeURL).toBe(`/openapi/v3/${gv}?hash=${createHash('sha512').update(doc.text).digest('hex').toUpperCase()}`);
    }
    const doc = JSON.parse((await get('/openapi/v3/apis/cluster.clusterpedia.io/v1alpha2')).text) as { components: { schemas: Record<string, { properties: Record<string, unknown> }> } };
    const crd = parse(readFileSync('manifests/base/crds/cluster.clusterpedia.io_pediaclusters.yaml', 'utf8')) as { spec: { versions: { schema: { openAPIV3Schema: { properties: unknown } } }[] } };
    expect(doc.components.schemas['io.clusterpedia.cluster.v1alpha2.PediaCluster']?.properties).toEqual(crd.spec.versions[0]?.schema.openAPIV3Schema.properties);
  });

  it('answer v2 as JSON, refuse protobuf alone with a 406, and 404 what is not there', async () => {
    const v2 = await get('/openapi/v2');
    expect(v2.status).toBe(200);
    expect(JSON.parse(v2.text)).toMatchObject({ swagger: '2.0', definitions: { 'io.clusterpedia.v1beta1.CollectionResource': { type: 'object' } } });
    const pb = await get('/openapi/v2', 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf');
    expect(pb.status).toBe(406);
    expect(JSON.parse(pb.text)).toMatchObject({ kind: 'Status', reason: 'NotAcceptable' });
    for (const p of ['/openapi/v3/apis/apps/v1', '/openapi/v3/apis/clusterpedia.io%2F..%2F..%2Fv1', '/openapi/v4']) {
      const r = await get(p);
      expect(r.status, p).toBe(404);
      expect(JSON.parse(r.text)).toMatchObject({ kind: 'Status', code: 404 });
    }
  });
});
