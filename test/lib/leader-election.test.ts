// Leader election over a real (simulated) Lease: one leader at a time, hand-over on release, step-down on failure.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '../../src/kube/client.js';
import { KubeLeaseLock } from '../../src/kube/lease-lock.js';
import { runLeaderElection, type LeaderElectionOptions } from '../../src/lib/leader-election.js';
import { silentLogger } from '../../src/lib/log.js';
import { startSimulatedCluster, type SimCluster } from '../../src/sim/index.js';

let host: SimCluster;
const clients: KubeClient[] = [];

beforeEach(async () => {
  host = await startSimulatedCluster({ name: 'host', host: true, pods: 1, token: 't' });
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  await host.stop();
});

async function client(): Promise<KubeClient> {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'h', server: host.url, skipTLSVerify: true }], users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'h', cluster: 'h', user: 'u' }], currentContext: 'h',
  });
  const c = await KubeClient.create(kc);
  clients.push(c);
  return c;
}

/** Each candidate records when it led: [start, end] intervals must never overlap. */
type Interval = { who: string; start: number; end?: number };

async function candidate(who: string, intervals: Interval[], signal: AbortSignal, extra: Partial<LeaderElectionOptions> = {}): Promise<unknown> {
  const o: LeaderElectionOptions = {
    lock: new KubeLeaseLock(await client(), 'clusterpedia-system', 'clusterpedia-synchro'),
    identity: who, leaseDurationMs: 1500, renewDeadlineMs: 1000, retryPeriodMs: 200, logger: silentLogger(), ...extra,
  };
  return runLeaderElection(o, signal, async (leader) => {
    const iv: Interval = { who, start: Date.now() };
    intervals.push(iv);
    await new Promise<void>((r) => (leader.aborted ? r() : leader.addEventListener('abort', () => r(), { once: true })));
    iv.end = Date.now();
  }).then(() => 'stopped', (e: unknown) => e);
}

function assertNoOverlap(intervals: Interval[]): void {
  const sorted = [...intervals].sort((a, b) => a.start - b.start);
  for (let i = 1; i < sorted.length; i++) expect(sorted[i]!.start).toBeGreaterThanOrEqual(sorted[i - 1]!.end ?? Infinity);
}

/** Leader a's run (`ra`) ends having lost leadership, then b leads, never both at once; b is stopped after. */
async function expectLostThenTakenOver(ra: Promise<unknown>, rb: Promise<unknown>, b: AbortController, intervals: Interval[], afterLoss = (): void => {}): Promise<void> {
  const lost = await ra;
  expect((lost as { code?: string }).code).toBe('LeadershipLost');
  afterLoss();
  const t = Date.now();
  while (intervals.length < 2 && Date.now() - t < 5000) await new Promise((r) => setTimeout(r, 50));
  expect(intervals.map((i) => i.who)).toEqual(['a', 'b']);
  assertNoOverlap(intervals);
  b.abort();
  await rb;
}

it('one of two candidates leads; the other takes over at once when it releases', async () => {
  const intervals: Interval[] = [];
  const a = new AbortController();
  const b = new AbortController();
  const ra = candidate('a', intervals, a.signal);
  await new Promise((r) => setTimeout(r, 400));
  const rb = candidate('b', intervals, b.signal);
  await new Promise((r) => setTimeout(r, 800));
  expect(intervals.map((i) => i.who)).toEqual(['a']);
  a.abort();
  expect(await ra).toBe('stopped');
  const t = Date.now();
  while (intervals.length < 2 && Date.now() - t < 3000) await new Promise((r) => setTimeout(r, 50));
  expect(intervals.map((i) => i.who)).toEqual(['a', 'b']);
  // Released, not expired: b did not wait for the 1.5 s lease.
  expect(intervals[1]!.start - (intervals[0]!.end ?? 0)).toBeLessThan(1000);
  b.abort();
  expect(await rb).toBe('stopped');
  assertNoOverlap(intervals);
});

it('a leader that cannot renew steps down before anyone else can take the lease', async () => {
  const intervals: Interval[] = [];
  const a = new AbortController();
  const b = new AbortController();
  const ra = candidate('a', intervals, a.signal);
  await new Promise((r) => setTimeout(r, 300));
  const rb = candidate('b', intervals, b.signal);
  await new Promise((r) => setTimeout(r, 300));
  expect(intervals.map((i) => i.who)).toEqual(['a']);
  // a's renewals now fail (every request of the next few seconds), b's attempts too: b must wait for expiry.
  host.faults.failNext(1000, 503);
  await expectLostThenTakenOver(ra, rb, b, intervals, () => host.faults.clear());
});

it('a leader whose renewal is never answered (a connection that died without a word) steps down before anyone else can take the lease', async () => {
  const intervals: Interval[] = [];
  const a = new AbortController();
  const b = new AbortController();
  const lock = new KubeLeaseLock(await client(), 'clusterpedia-system', 'clusterpedia-synchro');
  let hang = false;
  const hanging: typeof lock = Object.assign(Object.create(lock) as typeof lock, {
    tryAcquireOrRenew: (identity: string, ttlMs: number) => (hang ? new Promise<boolean>(() => undefined) : lock.tryAcquireOrRenew(identity, ttlMs)),
  });
  const ra = candidate('a', intervals, a.signal, { lock: hanging });
  await new Promise((r) => setTimeout(r, 300));
  const rb = candidate('b', intervals, b.signal);
  await new Promise((r) => setTimeout(r, 300));
  expect(intervals.map((i) => i.who)).toEqual(['a']);
  hang = true;
  await expectLostThenTakenOver(ra, rb, b, intervals);
});

/** Writes the Lease as a candidate with another clock would: held by `who`, renewed now. */
async function takeLease(who: string): Promise<void> {
  const c = await client();
  const path = '/apis/coordination.k8s.io/v1/namespaces/clusterpedia-system/leases/clusterpedia-synchro';
  const lease = await c.json<{ spec: Record<string, unknown> }>(path);
  lease.spec = { ...lease.spec, holderIdentity: who, renewTime: new Date().toISOString().replace('Z', '000Z') };
  await c.json(path, { method: 'PUT', body: lease });
}

it('a leader whose renewal finds the lease held by another steps down at once, not at its renew deadline', async () => {
  const intervals: Interval[] = [];
  const slow = { leaseDurationMs: 6000, renewDeadlineMs: 4000, retryPeriodMs: 200 };
  const ra = candidate('a', intervals, new AbortController().signal, slow);
  await new Promise((r) => setTimeout(r, 300));
  expect(intervals.map((i) => i.who)).toEqual(['a']);
  await takeLease('b');
  const taken = Date.now();
  const lost = await ra;
  expect((lost as { code?: string }).code).toBe('LeadershipLost');
  expect(String(lost)).toMatch(/another holder has it/);
  // The next renewal (every 200 ms) found it; the renew deadline was 4 s away.
  expect(intervals[0]!.end! - taken).toBeLessThan(2000);
});

it('one renewal refused by a conflicting write to the lease is asked again at once, and the leader stays', async () => {
  const intervals: Interval[] = [];
  const a = new AbortController();
  const lock = new KubeLeaseLock(await client(), 'clusterpedia-system', 'clusterpedia-synchro');
  let refuse = 0;
  const flaky: typeof lock = Object.assign(Object.create(lock) as typeof lock, {
    tryAcquireOrRenew: async (identity: string, ttlMs: number) => (refuse > 0 && refuse-- > 0 ? false : lock.tryAcquireOrRenew(identity, ttlMs)),
  });
  const ra = candidate('a', intervals, a.signal, { lock: flaky, leaseDurationMs: 6000, renewDeadlineMs: 4000, retryPeriodMs: 200 });
  await new Promise((r) => setTimeout(r, 300));
  refuse = 1;
  await new Promise((r) => setTimeout(r, 800));
  expect(refuse).toBe(0);
  expect(intervals).toHaveLength(1);
  expect(intervals[0]!.end).toBeUndefined();
  a.abort();
  expect(await ra).toBe('stopped');
});

it('refuses a renew deadline that is not shorter than the lease', async () => {
  const r = await candidate('x', [], new AbortController().signal, { renewDeadlineMs: 1500 });
  expect(String(r)).toMatch(/renew deadline/);
});
