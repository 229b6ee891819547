// Storage outage: PostgreSQL stopped and started under churn loses no event, and memory stays bounded meanwhile.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type PostgresServer } from '../../support/postgres-server.js';
import { defaultSynchroOptions } from '../../../src/roles/synchro/options.js';
import { freshPostgresDatabase } from '../../support/postgres.js';
import type { ClusterResourceSyncCondition } from '../../../src/kube/pediacluster.js';
import type { SimCluster } from '../../../src/sim/index.js';
import { Harness, postgresBackend, SYNCED, waitFor } from './harness.js';

describe('synchro over postgres: storage outage', () => {
  let server: PostgresServer;
  let h: Harness | undefined;
  beforeAll(async () => {
    // A server of its own: stopping the shared one would break every other test file.
    server = await startPostgres();
  });
  afterAll(() => server?.stop());
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('PostgreSQL stopped and started under churn: writes retry, watches wait, nothing is lost', async () => {
    h = await Harness.start(postgresBackend, { url: server.url });
    const queue = { ...defaultSynchroOptions().queue, flushDelayMs: 2, maxEntries: 40, batchSize: 20, writeTimeoutMs: 3000 };
    const parts = await h.startSynchro({ queue });
    await h.converged();
    for (const c of h.clusters) c.churn.start(200);
    await new Promise((r) => setTimeout(r, 300));
    server.pause();
    // Back-pressure: the queue stays within its bound while the members keep changing.
    expect(await h.expectWritesPaused(parts, 'the outage')).toMatch(/storage writes failing/);
    server.start();
    await waitFor(() => parts.queue.storageAvailable, 30_000, () => 'writes did not resume');
    for (const c of h.clusters) c.churn.stop();
    await h.converged(30_000);
    const [c1] = h.clusters;
    await waitFor(async () => (await h!.condition(c1!.name, 'Ready'))?.status === 'True', 10_000);
    await h.expectOutageRemembered();
  });

  it('a member that becomes healthy while PostgreSQL is down starts its resources once it is back', async () => {
    // A database of its own on this server: the test above left other members' rows under the same names.
    const db = await freshPostgresDatabase('late_member', server.url);
    h = await Harness.start(postgresBackend, { url: db.url });
    await h.startSynchro();
    await h.converged();
    // A restart that meets the second member failing (as after a kill during its 503s): it resumes from the stored
    // status once healthy, and reads its stored rows then, while storage is down.
    await h.stopSynchro();
    const [first, late] = h.clusters as [SimCluster, SimCluster];
    for (const c of h.clusters) c.churn.start(50);
    late.faults.failNext(1_000, 503, 1);
    const parts = await h.startSynchro();
    await waitFor(() => parts.manager.renderStatus(first.name)?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true, 10_000,
      () => 'the first member not ready');
    server.pause();
    late.faults.clear();
    const lateResources = (): ClusterResourceSyncCondition[] =>
      (parts.manager.renderStatus(late.name)?.syncResources ?? []).flatMap((g) => g.resources.flatMap((r) => r.syncConditions));
    // Its resources found storage unreachable when they started: they wait, and retry.
    await waitFor(() => lateResources().some((c) => c.lastError?.startsWith('StorageExpection: read stored resource versions') === true), 15_000,
      () => `the late member's resources did not meet the outage: ${JSON.stringify(lateResources())}`);
    server.start();
    for (const c of h.clusters) c.churn.stop();
    await h.converged(30_000);
    // Storage can equal the member before the last resource's retry has come (quiet types change nothing meanwhile).
    await waitFor(() => lateResources().length === SYNCED.length && lateResources().every((c) => c.status === 'Syncing'), 30_000,
      () => `the late member's resources are not all syncing: ${JSON.stringify(lateResources())}`);
  });
});
