// Custom resources take their printer columns, short names and categories from synced CRDs (API.md §4), with kubectl:
// `kubectl get ct` and its columns; without the CRD, NAME and AGE.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { UpsertObject } from '../../../src/storage/types.js';
import { serveStore, type ServedStore } from '../../support/apiserver.js';
import { Kubectl, kubectlPath } from '../../support/kubectl.js';

let served: ServedStore;
let k: Kubectl;

const crd: UpsertObject = {
  cluster: 'c1', group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', kind: 'CustomResourceDefinition',
  object: {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
    metadata: { name: 'crontabs.stable.example.com', uid: 'crd-1', resourceVersion: '5', creationTimestamp: '2024-01-01T00:00:00Z', annotations: { 'shadow.clusterpedia.io/cluster-name': 'c1' } },
    spec: {
      group: 'stable.example.com', scope: 'Namespaced',
      names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', shortNames: ['ct'], categories: ['all'] },
      versions: [{
        name: 'v1', served: true, storage: true,
        subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
        additionalPrinterColumns: [
          { name: 'Spec', type: 'string', jsonPath: '.spec.cronSpec' },
          { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
          { name: 'Image', type: 'string', priority: 1, jsonPath: '.spec.image' },
          { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
        ],
      }],
    },
  },
};

function cronTab(cluster: string, name: string, group = 'stable.example.com', resource = 'crontabs', kind = 'CronTab'): UpsertObject {
  return {
    cluster, group, version: 'v1', resource, kind,
    object: {
      apiVersion: `${group}/v1`, kind,
      metadata: { name, namespace: 'default', uid: `${cluster}-${name}`, resourceVersion: '7', creationTimestamp: '2024-01-01T00:00:00Z', annotations: { 'shadow.clusterpedia.io/cluster-name': cluster } },
      spec: { cronSpec: '*/5 * * * *', replicas: 3, image: 'busybox:1.36' },
    },
  };
}

beforeAll(async () => {
  served = await serveStore([crd, cronTab('c1', 'nightly'), cronTab('c2', 'hourly'), cronTab('c1', 'w1', 'other.example.com', 'widgets', 'Widget')], { c1: true, c2: true });
  k = new Kubectl(served.api.resources, kubectlPath());
});

afterAll(async () => {
  k?.dispose();
  await served?.stop();
});

it('discovery carries the CRD short names and categories', async () => {
  const r = (await (await fetch(`${served.api.resources}/apis/stable.example.com/v1`)).json()) as { resources: { name: string; shortNames?: string[]; categories?: string[] }[] };
  expect(r.resources.find((x) => x.name === 'crontabs')).toMatchObject({ shortNames: ['ct'], categories: ['all'] });
});

it('kubectl get ct prints the CRD columns after CLUSTER, the priority ones with -o wide', async () => {
  const out = (await k.ok(['get', 'ct', '-A'])).trim().split('\n');
  expect(out[0]).toMatch(/^NAMESPACE\s+CLUSTER\s+NAME\s+SPEC\s+REPLICAS\s+AGE$/);
  expect(out.slice(1).sort()).toEqual([
    expect.stringMatching(/^default\s+c1\s+nightly\s+\*\/5 \* \* \* \*\s+3\s+\d+[dy]/),
    expect.stringMatching(/^default\s+c2\s+hourly\s+\*\/5 \* \* \* \*\s+3\s+\d+[dy]/),
  ]);
  expect(await k.ok(['get', 'ct', '-A', '-o', 'wide'])).toMatch(/IMAGE[\s\S]*busybox:1\.36/);
});

it("a custom resource's status and scale subresources follow its CRD; without the CRD it has none", async () => {
  const c1 = new Kubectl(`${served.api.resources}/clusters/c1`, kubectlPath());
  try {
    const scale = JSON.parse(await c1.ok(['get', 'ct', 'nightly', '-n', 'default', '--subresource=scale', '-o', 'json'])) as Record<string, unknown>;
    // No .status.replicas and no .status.selector on the object: 0 and no selector, as apiextensions-apiserver makes it.
    expect(scale).toMatchObject({ kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: { name: 'nightly', uid: 'c1-nightly' }, spec: { replicas: 3 }, status: { replicas: 0 } });
    expect(scale.status).toEqual({ replicas: 0 });
    expect(await c1.ok(['get', 'ct', 'nightly', '-n', 'default', '--subresource=status', '-o', 'name'])).toBe('crontab.stable.example.com/nightly\n');
    const widget = await c1.run(['get', 'widgets.other.example.com', 'w1', '-n', 'default', '--subresource=status']);
    expect(widget.code).not.toBe(0);
    expect(widget.stderr).toMatch(/widgets\.other\.example\.com\/status is not served here/);
  } finally {
    c1.dispose();
  }
  const r = (await (await fetch(`${served.api.resources}/apis/stable.example.com/v1`)).json()) as { resources: { name: string }[] };
  expect(r.resources.map((x) => x.name)).toEqual(['crontabs', 'crontabs/scale', 'crontabs/status']);
});

it('a custom resource whose CRD is not stored prints NAME and AGE', async () => {
  const out = (await k.ok(['get', 'widgets.other.example.com', '-A'])).trim().split('\n');
  expect(out[0]).toMatch(/^NAMESPACE\s+CLUSTER\s+NAME\s+AGE$/);
  expect(out[1]).toMatch(/^default\s+c1\s+w1\s+/);
});
