// What a fleet keeps out of clusterpedia, end to end through the bundle and real kubectl: namespaces a PediaCluster
// excludes (spec.excludeNamespaces) are never asked of the member, and a list of one says which clusters leave it
// out; with --redact-secret-data the Secrets are kept without their values, as kubectl still prints them.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { stringify } from 'yaml';
import { pediaClusterFor } from '../../src/sim/index.js';
import type { BundleProcess } from '../support/bundle.js';
import { Kubectl } from '../support/kubectl.js';
import { startBinding, startFleet, type Fleet } from './helpers.js';

const P = '/apis/clusterpedia.io/v1beta1/resources';
let f: Fleet;
let proc: BundleProcess;
let base: string;

beforeAll(async () => {
  f = await startFleet({ clusters: 2, pods: 30, seed: 23 });
  // The first member leaves kube-system out; the second keeps everything.
  const [lean, full] = f.fleet.clusters;
  const resources = [{ group: '', resources: ['pods', 'secrets', 'namespaces'] }];
  writeFileSync(f.clustersFile, [pediaClusterFor(lean!, resources, { excludeNamespaces: ['kube-system'] }), pediaClusterFor(full!, resources)].map((o) => stringify(o)).join('---\n'));
  ({ proc, base } = await startBinding(f, `sqlite:${join(f.dir, 'cp.db')}`, ['--redact-secret-data', 'true']));
}, 120_000);

afterAll(async () => {
  await proc?.stop();
  await f?.dispose();
});

const keys = (pods: { metadata: { namespace?: string; name?: string } }[]): string[] => pods.map((p) => `${p.metadata.namespace}/${p.metadata.name}`).sort();

it('kubectl get pods -n kube-system answers from the members that sync it, and warns of the one that does not', async () => {
  const [lean, full] = f.fleet.clusters;
  expect(lean!.store.list('pods').some((p) => p.metadata?.namespace === 'kube-system')).toBe(true);
  const k = new Kubectl(`${base}${P}`);
  try {
    // Every pod of the full member, and the lean member's outside kube-system.
    const want = [...keys(full!.store.list('pods') as never).map((x) => `${full!.name}/${x}`), ...keys(lean!.store.list('pods').filter((p) => p.metadata?.namespace !== 'kube-system') as never).map((x) => `${lean!.name}/${x}`)].sort();
    await vi.waitFor(async () => {
      const out = await k.ok(['get', 'pods', '-A', '-o', 'jsonpath={range .items[*]}{.metadata.annotations.shadow\\.clusterpedia\\.io/cluster-name}/{.metadata.namespace}/{.metadata.name}{"\\n"}{end}']);
      expect(out.trim().split('\n').sort()).toEqual(want);
    }, { timeout: 60_000, interval: 300 });
    // The member was never asked for them.
    const asked = lean!.requestLog.entries((r) => r.path === '/api/v1/pods');
    expect(asked.length).toBeGreaterThan(0);
    expect(asked.every((r) => r.params.fieldSelector === 'metadata.namespace!=kube-system')).toBe(true);
    await vi.waitFor(async () => {
      const r = await k.run(['get', 'pods', '-n', 'kube-system', '-o', 'name']);
      expect(r.code).toBe(0);
      expect(r.stderr).toContain(`Warning: pods: 1 cluster does not sync namespace kube-system (its spec.excludeNamespaces), and none of its objects there are in this answer: ${lean!.name}`);
      expect(r.stdout.trim().split('\n').sort()).toEqual(full!.store.list('pods').filter((p) => p.metadata?.namespace === 'kube-system').map((p) => `pod/${p.metadata?.name}`).sort());
    }, { timeout: 20_000, interval: 300 });
  } finally {
    k.dispose();
  }
});

it('with --redact-secret-data, kubectl prints a member\'s Secrets as the member does, their values left out', async () => {
  const [, full] = f.fleet.clusters;
  const member = new Kubectl(full!.url, undefined, [`--token=${full!.token ?? ''}`]);
  const ours = new Kubectl(`${base}${P}/clusters/${full!.name}`);
  try {
    const want = (await member.ok(['get', 'secrets', '-A'])).split('\n').sort().join('\n');
    // The table (TYPE, DATA counts the keys) is the member's but for the CLUSTER column.
    await vi.waitFor(async () => {
      const got = (await ours.ok(['get', 'secrets', '-A'])).split('\n').map((l) => l.replace(new RegExp(`^(\\S+\\s+)(?:CLUSTER|${full!.name})\\s+`), '$1')).sort().join('\n');
      expect(got).toBe(want);
    }, { timeout: 30_000, interval: 300 });
    const withData = full!.store.list('secrets').find((s) => Object.keys((s as { data?: object }).data ?? {}).length > 0)!;
    const stored = JSON.parse(await ours.ok(['get', 'secret', '-n', withData.metadata!.namespace!, withData.metadata!.name!, '-o', 'json'])) as { data: Record<string, string>; metadata: { annotations: Record<string, string> } };
    expect(Object.keys(stored.data).sort()).toEqual(Object.keys((withData as { data?: object }).data ?? {}).sort());
    expect(Object.values(stored.data).every((v) => v === '')).toBe(true);
    expect(stored.metadata.annotations['shadow.clusterpedia.io/redacted']).toBe('data');
  } finally {
    member.dispose();
    ours.dispose();
  }
});
