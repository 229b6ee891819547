// A member reached through a proxy that serves it under a path prefix (Rancher: https://rancher/k8s/clusters/<id>):
// every request the synchro makes (discovery, lists, watches, health probes) carries the prefix, and the member's
// objects converge to storage and stay watched. Over legacy and aggregated discovery.
import { afterEach, describe, expect, it } from 'vitest';
import { pediaClusterFor } from '../../../src/sim/index.js';
import { generateCertificates } from '../../../src/sim/tls.js';
import { startPrefixProxy, type PrefixProxy } from '../../support/prefix-proxy.js';
import { Harness, SYNC, sqliteBackend, waitFor } from './harness.js';

const b64 = (s: string): string => Buffer.from(s).toString('base64');
const PREFIX = '/k8s/clusters/c-m-4x2lq';

describe('a member behind a proxy path prefix', () => {
  let h: Harness | undefined;
  let proxy: PrefixProxy | undefined;
  afterEach(async () => {
    await h?.close();
    await proxy?.close();
    h = undefined;
    proxy = undefined;
  });

  for (const aggregatedDiscovery of [false, true]) {
    it(`syncs, watches and probes it through the prefix (${aggregatedDiscovery ? 'aggregated' : 'legacy'} discovery)`, async () => {
      h = await Harness.start(sqliteBackend, { clusters: 1, pods: 10, aggregatedDiscovery });
      const [c] = h.clusters;
      const certs = await generateCertificates();
      proxy = await startPrefixProxy(c!, PREFIX, certs);
      h.writeClusters([pediaClusterFor(c!, SYNC, { apiserver: proxy.url, caData: b64(certs.caCert) })]);
      await h.startSynchro();
      await waitFor(async () => (await h!.diff(c!)).length === 0, 15_000, () => 'member not converged through the proxy');
      // Changes arrive by watch through the proxy.
      const { revision } = c!;
      c!.churn.step(20);
      expect(c!.revision).toBeGreaterThan(revision);
      await waitFor(async () => (await h!.diff(c!)).length === 0, 15_000, () => 'changes not followed through the proxy');
      await waitFor(async () => (await h!.condition(c!.name, 'ClusterHealthy'))?.status === 'True', 10_000, () => 'not healthy');
      const got = proxy.paths;
      expect(got.filter((p) => !p.startsWith(`${PREFIX}/`))).toEqual([]);
      expect(got).toContain(`${PREFIX}/readyz`);
      expect(got).toContain(`${PREFIX}/apis`);
      expect(got).toContain(`${PREFIX}/api/v1/pods`);
      // Legacy discovery reads each group version through the proxy too; aggregated discovery needs none.
      expect(got.includes(`${PREFIX}/apis/apps/v1`)).toBe(!aggregatedDiscovery);
      expect(c!.requestLog.entries((r) => r.watch && r.path === '/api/v1/pods').length).toBeGreaterThan(0);
    });
  }
});
