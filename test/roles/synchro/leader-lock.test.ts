// The lock a synchro with a host cluster leads on: the host cluster's Lease, with the storage lease that fences its
// writes held beside it. A real (simulated) host cluster and a real storage.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '../../../src/kube/client.js';
import { KubeLeaseLock } from '../../../src/kube/lease-lock.js';
import { silentLogger } from '../../../src/lib/log.js';
import { FencedHostLock } from '../../../src/roles/synchro/leader-lock.js';
import { startSimulatedCluster, type SimCluster } from '../../../src/sim/index.js';
import { openStorage } from '../../../src/storage/open.js';
import type { Storage } from '../../../src/storage/types.js';

const NAME = 'clusterpedia-synchro';
let host: SimCluster;
let storage: Storage;
let client: KubeClient;

beforeEach(async () => {
  host = await startSimulatedCluster({ name: 'host', host: true, pods: 1, token: 't' });
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'h', server: host.url, skipTLSVerify: true }], users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'h', cluster: 'h', user: 'u' }], currentContext: 'h',
  });
  client = await KubeClient.create(kc);
  storage = await openStorage({ url: 'sqlite::memory:' }, { logger: silentLogger() });
  await storage.migrate();
});

afterEach(async () => {
  await client.close();
  await storage.close();
  await host.stop();
});

/**
 * The storage's lease calls, made to fail (`'fail'`) or never answer (`'hang'`) on demand. `withinMs`: how long the
 * lock waits for storage — long by default, so that a loaded machine's slow answer is not taken for no answer.
 */
function faultyStorage(withinMs = 10_000): { lock: FencedHostLock; mode: { now: 'ok' | 'fail' | 'hang' } } {
  const mode: { now: 'ok' | 'fail' | 'hang' } = { now: 'ok' };
  const leases = {
    tryAcquireLease: (name: string, holder: string, ttlMs: number): Promise<boolean> =>
      mode.now === 'ok' ? storage.tryAcquireLease(name, holder, ttlMs) : mode.now === 'fail' ? Promise.reject(new Error('storage down')) : new Promise<never>(() => undefined),
    releaseLease: (name: string, holder: string) => storage.releaseLease(name, holder),
  };
  const lock = new FencedHostLock(new KubeLeaseLock(client, 'clusterpedia-system', NAME), leases, NAME, { storageWithinMs: withinMs, logger: silentLogger() });
  return { lock, mode };
}

const hostHolder = async (): Promise<string | undefined> =>
  (host.store.get('leases.coordination.k8s.io', 'clusterpedia-system', NAME)?.spec as { holderIdentity?: string } | undefined)?.holderIdentity;

it('leads only holding both: a storage lease held by another keeps it from leading although it holds the host Lease', async () => {
  const { lock } = faultyStorage();
  expect(await storage.tryAcquireLease(NAME, 'elsewhere', 60_000)).toBe(true);
  expect(await lock.tryAcquireOrRenew('a', 15_000)).toBe(false);
  expect(await hostHolder()).toBe('a');
  await storage.releaseLease(NAME, 'elsewhere');
  expect(await lock.tryAcquireOrRenew('a', 15_000)).toBe(true);
  // The storage lease is now a's: writes fenced by it go through, and one fenced by another holder does not.
  expect(await storage.tryAcquireLease(NAME, 'elsewhere', 60_000)).toBe(false);
});

it('once leading, a storage that fails or does not answer does not end it; before, it keeps it from leading', async () => {
  const { lock, mode } = faultyStorage(1000);
  mode.now = 'fail';
  await expect(lock.tryAcquireOrRenew('a', 15_000)).rejects.toThrow('storage down');
  mode.now = 'hang';
  await expect(lock.tryAcquireOrRenew('a', 15_000)).rejects.toThrow('storage did not answer within 1000 ms');
  mode.now = 'ok';
  expect(await lock.tryAcquireOrRenew('a', 15_000)).toBe(true);
  mode.now = 'fail';
  expect(await lock.tryAcquireOrRenew('a', 15_000)).toBe(true);
  mode.now = 'hang';
  expect(await lock.tryAcquireOrRenew('a', 15_000)).toBe(true);
});

it('a storage lease found taken by another while leading ends it, as losing the host Lease does', async () => {
  const { lock, mode } = faultyStorage();
  expect(await lock.tryAcquireOrRenew('a', 15_000)).toBe(true);
  await storage.releaseLease(NAME, 'a');
  expect(await storage.tryAcquireLease(NAME, 'elsewhere', 60_000)).toBe(true);
  expect(await lock.tryAcquireOrRenew('a', 15_000)).toBe(false);
  // No longer leading: a storage that fails now is not taken for a renewal.
  mode.now = 'fail';
  await expect(lock.tryAcquireOrRenew('a', 15_000)).rejects.toThrow('storage down');
});

it('release gives both up: the next candidate leads at once', async () => {
  const a = faultyStorage();
  const b = faultyStorage();
  expect(await a.lock.tryAcquireOrRenew('a', 60_000)).toBe(true);
  expect(await b.lock.tryAcquireOrRenew('b', 60_000)).toBe(false);
  await a.lock.release('a');
  expect(await b.lock.tryAcquireOrRenew('b', 60_000)).toBe(true);
  expect(await hostHolder()).toBe('b');
});
