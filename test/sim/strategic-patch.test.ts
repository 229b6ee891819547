// kube's strategic merge patch, as kubectl set image, set env, edit and apply send it to a member's built-in objects.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulatedCluster, type SimCluster } from '../../src/sim/index.js';
import { strategicMergePatch } from '../../src/sim/patch.js';
import { Kubectl } from '../support/kubectl.js';
import { call } from './helpers.js';

describe('strategicMergePatch', () => {
  const pod = {
    metadata: { name: 'p', finalizers: ['a', 'b'], labels: { x: '1' } },
    spec: {
      containers: [
        { name: 'app', image: 'app:1', ports: [{ containerPort: 80, name: 'http' }, { containerPort: 81, name: 'admin' }], env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }] },
        { name: 'sidecar', image: 'side:1' },
      ],
      tolerations: [{ key: 't1' }, { key: 't2' }],
    },
  };

  it('merges the built-in lists by their keys and replaces the others', () => {
    expect(strategicMergePatch(pod, { spec: { containers: [{ name: 'sidecar', image: 'side:2' }], tolerations: [{ key: 't3' }] } })).toEqual({
      ...pod, spec: { containers: [pod.spec.containers[0], { name: 'sidecar', image: 'side:2' }], tolerations: [{ key: 't3' }] },
    });
    // A container's ports by containerPort, its env by name; a new element goes last; null deletes a field.
    const out = strategicMergePatch(pod, { metadata: { labels: { x: null, y: '2' } }, spec: { containers: [{ name: 'app', ports: [{ containerPort: 81, name: 'metrics' }, { containerPort: 90 }], env: [{ name: 'C', value: '3' }] }] } }) as typeof pod;
    expect(out.metadata.labels).toEqual({ y: '2' });
    expect(out.spec.containers[0]!.ports).toEqual([{ containerPort: 80, name: 'http' }, { containerPort: 81, name: 'metrics' }, { containerPort: 90 }]);
    expect(out.spec.containers[0]!.env).toEqual([{ name: 'A', value: '1' }, { name: 'B', value: '2' }, { name: 'C', value: '3' }]);
    // A Service's ports by port.
    expect(strategicMergePatch({ spec: { ports: [{ port: 80, targetPort: 8080 }, { port: 443 }] } }, { spec: { ports: [{ port: 80, targetPort: 9090 }] } })).toEqual({ spec: { ports: [{ port: 80, targetPort: 9090 }, { port: 443 }] } });
    // finalizers merge as a set; $deleteFromPrimitiveList takes values out.
    expect((strategicMergePatch(pod, { metadata: { finalizers: ['b', 'c'] } }) as typeof pod).metadata.finalizers).toEqual(['a', 'b', 'c']);
    expect((strategicMergePatch(pod, { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] } }) as typeof pod).metadata.finalizers).toEqual(['b']);
  });

  it('follows the directives: $setElementOrder, $patch delete and replace, $retainKeys', () => {
    // kubectl set image: the element changed, and the order of every element.
    const set = strategicMergePatch(pod, { spec: { '$setElementOrder/containers': [{ name: 'sidecar' }, { name: 'app' }], containers: [{ name: 'app', image: 'app:2' }] } }) as typeof pod;
    expect(set.spec.containers.map((c) => `${c.name} ${c.image}`)).toEqual(['sidecar side:1', 'app app:2']);
    expect(set.spec.containers[1]!.env).toEqual(pod.spec.containers[0]!.env);
    expect(JSON.stringify(set)).not.toContain('$');
    const gone = strategicMergePatch(pod, { spec: { containers: [{ name: 'sidecar', $patch: 'delete' }] } }) as typeof pod;
    expect(gone.spec.containers.map((c) => c.name)).toEqual(['app']);
    const replaced = strategicMergePatch(pod, { spec: { containers: [{ name: 'only', image: 'o:1' }, { $patch: 'replace' }] } }) as typeof pod;
    expect(replaced.spec.containers).toEqual([{ name: 'only', image: 'o:1' }]);
    expect(strategicMergePatch({ spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } } }, { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } })).toEqual({ spec: { strategy: { type: 'Recreate' } } });
    expect(strategicMergePatch(pod, { metadata: { labels: { $patch: 'replace', z: '3' } } })).toMatchObject({ metadata: { labels: { z: '3' } } });
    expect((strategicMergePatch(pod, { metadata: { labels: { $patch: 'delete' } } }) as typeof pod).metadata).not.toHaveProperty('labels');
  });
});

describe('kubectl against a member', () => {
  let c: SimCluster;
  let kubectl: Kubectl;
  beforeAll(async () => {
    c = await startSimulatedCluster({ pods: 30, seed: 8, token: null });
    kubectl = new Kubectl(c.url);
  });
  afterAll(async () => {
    kubectl?.dispose();
    await c?.stop();
  });

  it('set image and set env change the one container and keep everything else; a custom resource has no strategic merge', async () => {
    const d = c.snapshot('deployments.apps').find((x) => x.metadata.namespace !== 'kube-system' && ((x.spec as { template: { spec: { containers: unknown[] } } }).template.spec.containers.length > 1))!;
    type Containers = Array<Record<string, unknown> & { name: string; image: string; env?: Array<{ name: string }> }>;
    const containers = (): Containers => (c.store.get('deployments.apps', d.metadata.namespace, d.metadata.name!)!.spec as { template: { spec: { containers: Containers } } }).template.spec.containers;
    const before = containers();
    const [first, second] = before;
    const ns = ['-n', d.metadata.namespace!];
    const r = await kubectl.run(['set', 'image', `deployment/${d.metadata.name}`, ...ns, `${second!.name}=registry.example.com/side:9`]);
    expect(r.code, r.stderr).toBe(0);
    expect(containers()).toEqual([first, { ...second, image: 'registry.example.com/side:9' }]);
    const e = await kubectl.run(['set', 'env', `deployment/${d.metadata.name}`, ...ns, '-c', first!.name, 'ADDED=yes']);
    expect(e.code, e.stderr).toBe(0);
    expect(containers()[0]).toEqual({ ...first, env: [...(first!.env ?? []), { name: 'ADDED', value: 'yes' }] });
    expect(containers()[1]!.image).toBe('registry.example.com/side:9');
    const crontab = c.snapshot('crontabs.stable.example.com')[0];
    expect(crontab).toBeDefined();
    const res = await call<{ code: number; message: string }>(c, `/apis/stable.example.com/v1/namespaces/${crontab!.metadata.namespace}/crontabs/${crontab!.metadata.name}`, { method: 'PATCH', contentType: 'application/strategic-merge-patch+json', body: { spec: {} } });
    expect(res.body).toMatchObject({ code: 415, message: 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json (got application/strategic-merge-patch+json)' });
  });
});
