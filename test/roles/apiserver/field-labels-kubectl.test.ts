// kubectl's field selectors on Kubernetes' own field labels answer as a member's kube-apiserver would, through lists
// and watches: an absent field has kube's rendered value (spec.unschedulable=false lists schedulable nodes) and a
// renamed label reads its field (jobs' status.successful is status.succeeded).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLUSTER_ANNOTATION } from '../../../src/kube/types.js';
import { silentLogger } from '../../../src/lib/log.js';
import { openStorage } from '../../../src/storage/open.js';
import type { Storage, UpsertObject } from '../../../src/storage/types.js';
import { startTestApiserver, type TestApiserver } from '../../support/apiserver.js';
import { healthyStatus, pod } from '../../support/fixtures.js';
import { Kubectl } from '../../support/kubectl.js';

const P = '/apis/clusterpedia.io/v1beta1/resources';
let storage: Storage;
let api: TestApiserver;
let kubectl: Kubectl;

function object(group: string, resource: string, kind: string, name: string, rest: Record<string, unknown>, namespace?: string): UpsertObject {
  const apiVersion = group ? `${group}/v1` : 'v1';
  return {
    cluster: 'c1', group, version: 'v1', resource, kind,
    object: { apiVersion, kind, metadata: { name, ...(namespace ? { namespace } : {}), uid: `uid-${name}`, resourceVersion: '10', creationTimestamp: '2024-01-01T00:00:00Z', annotations: { [CLUSTER_ANNOTATION]: 'c1' } }, ...rest },
  };
}

beforeAll(async () => {
  storage = await openStorage({ url: 'sqlite::memory:' }, { logger: silentLogger() });
  await storage.migrate();
  const unscheduled = pod('c1', 'default', 'pending-1', { phase: 'Pending' });
  delete (unscheduled.object.spec as Record<string, unknown>).nodeName;
  await storage.write({
    upserts: [
      object('', 'nodes', 'Node', 'node-a', { spec: { podCIDR: '10.0.0.0/24' }, status: { conditions: [{ type: 'Ready', status: 'True' }] } }),
      object('', 'nodes', 'Node', 'node-b', { spec: { unschedulable: true }, status: { conditions: [{ type: 'Ready', status: 'True' }] } }),
      object('batch', 'jobs', 'Job', 'done', { spec: {}, status: { succeeded: 1 } }, 'default'),
      object('batch', 'jobs', 'Job', 'running', { spec: {}, status: { active: 1 } }, 'default'),
      pod('c1', 'default', 'web-1'),
      unscheduled,
    ],
    deletes: [],
  });
  await storage.putClusterStatus('c1', healthyStatus('c1'));
  api = await startTestApiserver(storage);
  kubectl = new Kubectl(`${api.base}${P}`);
});

afterAll(async () => {
  kubectl?.dispose();
  await api?.stop();
  await storage?.close();
});

const names = async (args: string[]): Promise<string[]> => (await kubectl.ok([...args, '-o', 'name'])).split('\n').filter(Boolean);

describe('kubectl --field-selector on kube field labels', () => {
  it('lists as kube does', async () => {
    expect(await names(['get', 'nodes', '--field-selector', 'spec.unschedulable=false'])).toEqual(['node/node-a']);
    expect(await names(['get', 'nodes', '--field-selector', 'spec.unschedulable!=true'])).toEqual(['node/node-a']);
    expect(await names(['get', 'nodes', '--field-selector', 'spec.unschedulable=true'])).toEqual(['node/node-b']);
    expect(await names(['get', 'jobs', '-A', '--field-selector', 'status.successful=1'])).toEqual(['job.batch/done']);
    expect(await names(['get', 'jobs', '-A', '--field-selector', 'status.successful=0'])).toEqual(['job.batch/running']);
    expect(await names(['get', 'pods', '-A', '--field-selector', 'spec.nodeName='])).toEqual(['pod/pending-1']);
    expect(await names(['get', 'nodes', '--field-selector', 'metadata.namespace='])).toEqual(['node/node-a', 'node/node-b']);
  });

  it('watches as kube does (the initial events pass the same filter)', async () => {
    const r = await fetch(`${api.base}${P}/api/v1/nodes?watch=true&timeoutSeconds=1&fieldSelector=${encodeURIComponent('spec.unschedulable=false')}`);
    const events = (await r.text()).split('\n').filter(Boolean).map((l) => JSON.parse(l) as { type: string; object: { metadata: { name: string } } });
    expect(events.filter((e) => e.type === 'ADDED').map((e) => e.object.metadata.name)).toEqual(['node-a']);
  });
});
