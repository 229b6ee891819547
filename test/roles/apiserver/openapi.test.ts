// Our own API's OpenAPI at the root, as Clusterpedia publishes it and kube-apiserver's aggregator collects it:
// kubectl explain of PediaCluster (the CRD's schema) and CollectionResource, the v3 index's hashes, v2 as JSON.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { serveStore, startTestApiserver, type ServedStore } from '../../support/apiserver.js';
import { Kubectl, kubectlPath, kubectlVersion, oldestKubectl } from '../../support/kubectl.js';

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
  // 1.29 and newer read OpenAPI v3, 1.27 and 1.28 v2 in protobuf.
  for (const binary of [kubectlPath(), kubectlVersion('1.29'), kubectlVersion('1.28'), oldestKubectl()]) {
    it(`describes PediaCluster from its CRD and CollectionResource (${binary.split('/').pop() ?? ''})`, async () => {
      const k = new Kubectl(served.api.base, binary);
      try {
        const spec = await k.run(['explain', 'pediaclusters.spec.apiserver']);
        expect(spec).toMatchObject({ code: 0, stderr: '' });
        expect(spec.stdout).toMatch(/^GROUP:\s+cluster\.clusterpedia\.io\nKIND:\s+PediaCluster\nVERSION:\s+v1alpha2\n\nFIELD: apiserver <string>/);
        expect(spec.stdout).toMatch(/URL of the member cluster's kube-apiserver/);
        const recursive = await k.ok(['explain', 'pediaclusters.spec', '--recursive']);
        expect(recursive).toMatch(/^\s+authenticationFrom\s+<Object>$/m);
        expect(recursive).toMatch(/^\s+syncResources\s+<\[\]Object>(\s+-required-)?$/m);
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

  it('answer v2 as JSON or in protobuf, refuse other types with a 406, and 404 what is not there', async () => {
    const v2 = await get('/openapi/v2');
    expect(v2.status).toBe(200);
    expect(JSON.parse(v2.text)).toMatchObject({ swagger: '2.0', definitions: { 'io.clusterpedia.v1beta1.CollectionResource': { type: 'object' } } });
    const pb = await fetch(`${served.api.base}/openapi/v2`, { headers: { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' } });
    expect(pb.headers.get('content-type')).toBe('application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    const bytes = Buffer.from(await pb.arrayBuffer());
    // Document.swagger (field 1) first, then the definitions' names somewhere in the message.
    expect(bytes.subarray(0, 5)).toEqual(Buffer.from([0x0a, 3, ...Buffer.from('2.0')]));
    expect(bytes.includes('io.clusterpedia.cluster.v1alpha2.PediaCluster')).toBe(true);
    const yaml = await get('/openapi/v2', 'application/yaml');
    expect(yaml.status).toBe(406);
    expect(JSON.parse(yaml.text)).toMatchObject({ kind: 'Status', reason: 'NotAcceptable' });
    for (const p of ['/openapi/v3/apis/apps/v1', '/openapi/v3/apis/clusterpedia.io%2F..%2F..%2Fv1', '/openapi/v4']) {
      const r = await get(p);
      expect(r.status, p).toBe(404);
      expect(JSON.parse(r.text)).toMatchObject({ kind: 'Status', code: 404 });
    }
  });
});

describe("a member's odd OpenAPI index", () => {
  it('is passed on with what can be rewritten rewritten, never a 500; one too long is a 503', async () => {
    let index = '{"paths":{"a":null,"b":{"serverRelativeURL":"/openapi/v3/apis/b/v1?hash=1"},"c":"x","d":{"serverRelativeURL":7}}}';
    const member: Server = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(req.url === '/openapi/v3' ? index : '{}');
    });
    await new Promise<void>((r) => member.listen(0, '127.0.0.1', r));
    const port = (member.address() as { port: number }).port;
    const dir = mkdtempSync(join(tmpdir(), 'cp-openapi-'));
    const file = join(dir, 'clusters.yaml');
    writeFileSync(file, `apiVersion: cluster.clusterpedia.io/v1alpha2\nkind: PediaCluster\nmetadata: {name: east}\nspec: {apiserver: "http://127.0.0.1:${port}", tokenData: ${Buffer.from('t0ken').toString('base64')}}\n`);
    const api = await startTestApiserver(served.storage, (o) => {
      o.forward = { ...o.forward, openapi: true, clustersPath: file };
    });
    try {
      const r = await fetch(`${api.resources}/clusters/east/openapi/v3`);
      expect(r.status).toBe(200);
      expect(await r.json()).toEqual({ paths: { a: null, b: { serverRelativeURL: '/apis/clusterpedia.io/v1beta1/resources/clusters/east/openapi/v3/apis/b/v1?hash=1' }, c: 'x', d: { serverRelativeURL: 7 } } });
      index = 'not json';
      expect((await fetch(`${api.resources}/clusters/east/openapi/v3`)).status).toBe(503);
      index = JSON.stringify({ paths: { big: 'x'.repeat(5 * 1024 * 1024) } });
      const big = await fetch(`${api.resources}/clusters/east/openapi/v3`);
      expect(big.status).toBe(503);
      expect(await big.json()).toMatchObject({ message: expect.stringMatching(/more than 4 MiB/) });
    } finally {
      await api.stop();
      await new Promise<void>((r) => member.close(() => r()));
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
