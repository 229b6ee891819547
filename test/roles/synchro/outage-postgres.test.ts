// Storage outage: PostgreSQL stopped and started under churn loses no event, and memory stays bounded meanwhile.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type PostgresServer } from '../../support/postgres-server.js';
import { defaultSynchroOptions } from '../../../src/roles/synchro/options.js';
import { Harness, postgresBackend, waitFor } from './harness.js';

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
});
