// Churn: deterministic from the seed, every kind of change, bounded, at roughly the requested rate, stoppable.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CHURN_TIER_LABEL, startSimulatedCluster, type SimCluster, type SimObject } from '../../src/sim/index.js';
import { crashBackoff } from '../../src/sim/kubelet.js';
import { controllerCountProblems, endedPodProblems, openWatch, templateProblems } from './helpers.js';

const started: SimCluster[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((c) => c.stop()));
});

async function cluster(seed = 4): Promise<SimCluster> {
  const c = await startSimulatedCluster({ pods: 80, seed, epochMs: Date.parse('2026-06-01T00:00:00Z') });
  started.push(c);
  return c;
}

const names = (c: SimCluster, gr: string): string[] => c.snapshot(gr).map((o) => `${o.metadata.namespace}/${o.metadata.name}`);

describe('churn', () => {
  it('applies the same changes for the same seed', async () => {
    const a = await cluster();
    const b = await cluster();
    expect(a.churn.step(300)).toBe(b.churn.step(300));
    for (const gr of ['pods', 'replicasets.apps', 'deployments.apps', 'events']) expect(names(a, gr)).toEqual(names(b, gr));
    // Timestamps come from the wall clock; everything else must be identical.
    const phases = (c: SimCluster): string[] => c.snapshot('pods').map((p) => JSON.stringify((p.status as { containerStatuses?: unknown }).containerStatuses ?? null).replace(/\d{4}-\d\d-\d\dT[\d:]+Z/g, 'T'));
    expect(phases(a)).toEqual(phases(b));
    const other = await cluster(5);
    other.churn.step(300);
    expect(names(other, 'pods')).not.toEqual(names(a, 'pods'));
  });

  it('with a relabel share, also flips pods between two tiers of a label; the other changes stay as they were', async () => {
    const plain = await cluster();
    const relabeled = await cluster();
    relabeled.churn.relabelShare = 0.2;
    plain.churn.step(300);
    while (relabeled.churn.operations - relabeled.churn.relabels < 300) relabeled.churn.step(1);
    expect(relabeled.churn.relabels).toBeGreaterThan(20);
    const tiers = (c: SimCluster): Record<string, number> => {
      const out: Record<string, number> = {};
      for (const p of c.snapshot('pods')) {
        const t = p.metadata.labels?.[CHURN_TIER_LABEL] ?? 'none';
        out[t] = (out[t] ?? 0) + 1;
      }
      return out;
    };
    expect(tiers(plain)).toEqual({ none: plain.snapshot('pods').length });
    const got = tiers(relabeled);
    expect(got.a).toBeGreaterThan(0);
    expect(got.b).toBeGreaterThan(0);
    // The relabels are drawn apart: the other operations made and removed the same objects.
    for (const gr of ['pods', 'replicasets.apps', 'deployments.apps']) expect(names(relabeled, gr)).toEqual(names(plain, gr));
  });

  it('creates, modifies and deletes pods and ReplicaSets, and stays bounded', async () => {
    const c = await cluster();
    const eventsBefore = new Set(c.snapshot('events').map((e) => e.metadata.name));
    const w = await openWatch(c, `/api/v1/pods?watch=true&resourceVersion=${c.revision}`);
    c.churn.step(400);
    const types = new Set<string>();
    for (;;) {
      const ev = await w.next(300).catch(() => undefined);
      if (!ev) break;
      types.add(ev.type);
    }
    w.close();
    expect([...types].sort()).toEqual(['ADDED', 'DELETED', 'MODIFIED']);
    expect(c.store.count('pods')).toBeGreaterThan(30);
    expect(c.store.count('pods')).toBeLessThan(250);
    expect(c.store.count('replicasets.apps')).toBeGreaterThan(c.store.count('deployments.apps'));
    // Its events read as the kubelet's: the container by name in the message and the field path.
    const made = c.snapshot('events').filter((e) => !eventsBefore.has(e.metadata.name) && (e as { reportingComponent?: string }).reportingComponent === 'kubelet');
    expect(made.length).toBeGreaterThan(5);
    for (const e of made) {
      const ev = e as unknown as { reason: string; message: string; involvedObject: { fieldPath: string } };
      const container = /^spec\.containers\{(.+)\}$/.exec(ev.involvedObject.fieldPath)?.[1];
      expect(container, JSON.stringify(ev)).toBeDefined();
      if (ev.reason === 'Started') expect(ev.message).toBe(`Started container ${container}`);
      expect(ev.message).not.toMatch(/^simulated/);
    }
    // The churn never brings a pod that ended back to life (its status changes skip it, as the kubelet does).
    const ended = c.snapshot('pods').filter((p) => ['Succeeded', 'Failed'].includes((p.status as { phase: string }).phase));
    expect(ended.length).toBeGreaterThan(0);
    for (const p of ended) expect(endedPodProblems(p), p.metadata.name).toEqual([]);
    // The kubelet starts what the controllers make: few of the pods churn made still wait for their containers, and
    // those that run have containers of their own (not the ids of the pod they were copied from).
    const madePods = c.snapshot('pods').filter((p) => Date.parse(p.metadata.creationTimestamp ?? '') > Date.parse('2026-06-02T00:00:00Z'));
    const phase = (p: SimObject): string => (p.status as { phase: string }).phase;
    expect(madePods.length).toBeGreaterThan(20);
    expect(madePods.filter((p) => phase(p) === 'Pending').length, madePods.map(phase).join()).toBeLessThan(madePods.length / 4);
    const ids = c.snapshot('pods').flatMap((p) => ((p.status as { containerStatuses?: Array<{ containerID?: string }> }).containerStatuses ?? []).map((s) => s.containerID).filter(Boolean));
    expect(new Set(ids).size).toBe(ids.length);
    // Pods made, replaced and rolled out are stamped from their controller's template, as the generated ones.
    const controllers = ['replicasets.apps', 'statefulsets.apps', 'daemonsets.apps', 'jobs.batch'].flatMap((gr) => c.snapshot(gr));
    expect(templateProblems(c.snapshot('pods'), controllers, Date.now())).toEqual([]);
    // And counted them as they are after each change: ready pods, pods that came and went.
    expect(controllerCountProblems(c.snapshot('pods'), [...controllers, ...c.snapshot('deployments.apps')])).toEqual([]);
    // Their controllers saw every spec change: `kubectl rollout status` waits on a generation not yet observed.
    const unobserved = ['deployments.apps', 'replicasets.apps', 'statefulsets.apps', 'daemonsets.apps']
      .flatMap((gr) => c.snapshot(gr))
      .filter((o) => (o.status as { observedGeneration?: number }).observedGeneration !== o.metadata.generation)
      .map((o) => `${o.kind}/${o.metadata.name}: ${o.metadata.generation} vs ${(o.status as { observedGeneration?: number }).observedGeneration}`);
    expect(unobserved).toEqual([]);
    // Each pod has an address of its own, but for those on their node's network.
    const addresses = c.snapshot('pods').map((p) => p.status as { podIP?: string; hostIP?: string }).filter((st) => st.podIP !== undefined && st.podIP !== st.hostIP).map((st) => st.podIP);
    expect(addresses.length).toBeGreaterThan(30);
    expect(addresses.filter((ip, i) => addresses.indexOf(ip) !== i)).toEqual([]);
    // Every pod still points at an owner that exists.
    const owners = new Set(['replicasets.apps', 'statefulsets.apps', 'daemonsets.apps', 'jobs.batch'].flatMap((gr) => c.snapshot(gr).map((o) => o.metadata.uid)));
    expect(c.snapshot('pods').every((p) => owners.has(p.metadata.ownerReferences?.[0]?.uid))).toBe(true);
  });

  it('records the events of what it did, in the words of the controllers, the scheduler and the kubelet', async () => {
    const c = await cluster();
    const before = new Set(c.snapshot('events').map((e) => e.metadata.name));
    const podsBefore = new Set(c.snapshot('pods').map((p) => p.metadata.uid));
    const deploymentsBefore = new Map(c.snapshot('deployments.apps').map((d) => [d.metadata.uid, d.metadata.generation]));
    c.churn.step(150);
    interface Ev { metadata: { name: string }; reason: string; message: string; type: string; count?: number; eventTime: string | null; lastTimestamp: string | null; involvedObject: { kind: string; name: string; uid: string; fieldPath?: string }; source: { component?: string; host?: string } }
    const made = c.snapshot('events').filter((e) => !before.has(e.metadata.name)) as unknown as Ev[];
    expect(made.length).toBeLessThan(1000); // none dropped yet
    const about = (uid: string | undefined): Ev[] => made.filter((e) => e.involvedObject.uid === uid);
    // Each pod churn made and the kubelet started: created by its controller, scheduled, and each container's image
    // pulled, the container created and started, on the pod's node.
    const running = c.snapshot('pods').filter((p) => !podsBefore.has(p.metadata.uid) && (p.status as { phase: string }).phase === 'Running');
    expect(running.length).toBeGreaterThan(10);
    for (const pod of running) {
      const evs = about(pod.metadata.uid);
      const scheduled = evs.find((e) => e.reason === 'Scheduled');
      const node = (pod.spec as { nodeName: string }).nodeName;
      expect(scheduled?.message, pod.metadata.name).toBe(`Successfully assigned ${pod.metadata.namespace}/${pod.metadata.name} to ${node}`);
      // The scheduler's events come through events.k8s.io: an eventTime with microseconds, no last timestamp.
      expect(scheduled?.eventTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
      expect(scheduled?.lastTimestamp).toBeNull();
      for (const container of (pod.spec as { containers: Array<{ name: string; image: string }> }).containers) {
        const of = evs.filter((e) => e.involvedObject.fieldPath === `spec.containers{${container.name}}`);
        // In the order they happened by name, as kube's names (the time in nanoseconds) sort.
        const inNameOrder = of.sort((x, y) => (x.metadata.name < y.metadata.name ? -1 : 1)).map((e) => e.reason).filter((r) => r !== 'Unhealthy');
        expect(inNameOrder, `${pod.metadata.name} ${container.name}`).toEqual(['Pulled', 'Created', 'Started']);
        expect(of.find((e) => e.reason === 'Pulled')?.message).toBe(`Container image "${container.image}" already present on machine`);
        for (const e of of) expect(e.source).toEqual({ component: 'kubelet', host: node });
      }
      const owner = pod.metadata.ownerReferences?.[0];
      const created = about(owner?.uid).filter((e) => e.reason === 'SuccessfulCreate').map((e) => e.message);
      expect(created.some((m) => m === `Created pod: ${pod.metadata.name}` || m === `create Pod ${pod.metadata.name} in StatefulSet ${owner?.name} successful`), `${pod.metadata.name}: ${created.join('; ')}`).toBe(true);
    }
    // Every Deployment churn scaled or rolled out says so; pods deleted had their containers stopped.
    const changed = c.snapshot('deployments.apps').filter((d) => d.metadata.generation !== deploymentsBefore.get(d.metadata.uid));
    expect(changed.length).toBeGreaterThan(3);
    for (const d of changed) expect(about(d.metadata.uid).map((e) => e.message).join('\n'), d.metadata.name).toMatch(/^Scaled (up|down) replica set \S+ from \d+ to \d+$/m);
    const gone = made.filter((e) => e.involvedObject.kind === 'Pod' && !c.snapshot('pods').some((p) => p.metadata.uid === e.involvedObject.uid));
    expect(gone.filter((e) => e.reason === 'Killing').length).toBeGreaterThan(5);
    expect(made.filter((e) => e.reason === 'SuccessfulDelete').length).toBeGreaterThan(3);
    // A probe that fails again is counted on the same event, as client-go's correlator does.
    const unhealthy = made.filter((e) => e.reason === 'Unhealthy');
    expect(unhealthy.length).toBeGreaterThan(3);
    expect(unhealthy.every((e) => e.type === 'Warning')).toBe(true);
    const keys = made.map((e) => `${e.involvedObject.uid} ${e.involvedObject.fieldPath ?? ''} ${e.reason} ${e.message}`);
    expect(keys.filter((k, i) => keys.indexOf(k) !== i)).toEqual([]);
    // Bounded: the oldest go first.
    c.churn.step(4000);
    expect(c.snapshot('events').filter((e) => !before.has(e.metadata.name)).length).toBeLessThanOrEqual(1000);
  });

  it("counts the kubelet's repeated warnings on the cluster's own events: back-offs and failing probes go on", async () => {
    const c = await cluster();
    interface Ev { metadata: { name: string }; reason: string; message: string; count: number; lastTimestamp: string; involvedObject: { uid: string } }
    const events = (): Ev[] => c.snapshot('events') as unknown as Ev[];
    const before = new Map(events().map((e) => [e.metadata.name, e]));
    const waiting = (reason: string): SimObject | undefined => c.snapshot('pods').find((p) => JSON.stringify(p.status).includes(`"reason":"${reason}"`) && (p.status as { phase: string }).phase !== 'Succeeded');
    // Running, its containers all running, one of them not ready: its readiness probe fails.
    const unready = c.snapshot('pods').find((p) => {
      const st = p.status as { phase: string; containerStatuses?: Array<{ ready: boolean; state: { running?: unknown } }> };
      return st.phase === 'Running' && (st.containerStatuses ?? []).every((cs) => cs.state.running) && st.containerStatuses?.some((cs) => !cs.ready);
    });
    const t0 = Date.now();
    for (const pod of [waiting('CrashLoopBackOff'), unready]) {
      expect(pod).toBeDefined();
      c.churn.events.kubeletWarning(pod!);
    }
    const counted = events().filter((e) => before.has(e.metadata.name) && e.count > (before.get(e.metadata.name)?.count ?? 0));
    expect(counted.map((e) => e.reason).sort()).toEqual(['BackOff', 'Unhealthy']);
    for (const e of counted) expect(Date.parse(e.lastTimestamp)).toBeGreaterThanOrEqual(Math.floor(t0 / 1000) * 1000);
    expect(events().length).toBe(before.size);
    // Under churn too, never two events for the same thing said about the same object.
    c.churn.step(2000);
    const keys = events().map((e) => `${e.involvedObject.uid} ${e.reason} ${e.message}`);
    expect(keys.filter((k, i) => keys.indexOf(k) !== i)).toEqual([]);
  });

  it("a container that crashes after a restart waits out the kubelet's back-off in CrashLoopBackOff, then runs again", async () => {
    const c = await cluster();
    type Cs = { name: string; ready: boolean; restartCount: number; state: { running?: unknown; waiting?: { reason: string; message?: string } }; lastState: { terminated?: { reason: string; exitCode: number } } };
    const first = (p: SimObject): Cs | undefined => (p.status as { containerStatuses?: Cs[] }).containerStatuses?.[0];
    // Each pod's first container, after each change to it: what it was doing and its restarts.
    const seen = new Map<string, Array<{ state: string; restarts: number; ready: boolean; message?: string; last?: string }>>();
    const look = (): void => {
      for (const p of c.snapshot('pods')) {
        const cs = first(p);
        if (!cs || p.metadata.deletionTimestamp) continue;
        const now = { state: cs.state.running ? 'running' : cs.state.waiting?.reason ?? 'other', restarts: cs.restartCount, ready: cs.ready, message: cs.state.waiting?.message, last: cs.lastState.terminated?.reason };
        const list = seen.get(p.metadata.uid!) ?? [];
        const prev = list.at(-1);
        if (!prev || JSON.stringify(prev) !== JSON.stringify(now)) list.push(now);
        seen.set(p.metadata.uid!, list);
      }
    };
    look();
    for (let i = 0; i < 600; i++) {
      c.churn.step(1);
      look();
    }
    let backedOff = 0;
    for (const [uid, list] of seen) {
      for (let i = 1; i < list.length; i++) {
        const [was, now] = [list[i - 1]!, list[i]!];
        // A ready container that had been restarted never comes back at once: it backs off first.
        if (was.state === 'running' && was.ready && was.restarts > 0) expect(now.state, uid).not.toBe('running');
        if (now.state !== 'CrashLoopBackOff' || was.state === 'CrashLoopBackOff') continue;
        if (was.state !== 'running') continue;
        backedOff++;
        const pod = c.snapshot('pods').find((p) => p.metadata.uid === uid);
        expect(now).toMatchObject({ restarts: was.restarts, ready: false, last: 'Error' });
        expect(now.message).toMatch(new RegExp(`^back-off (10s|20s|40s|1m20s|2m40s|5m0s) restarting failed container=\\S+ pod=\\S+_\\S+\\(${uid}\\)$`));
        // Its back-off over, it runs again, restarted once more.
        const after = list[i + 1];
        if (after) expect(after).toMatchObject({ state: 'running', restarts: was.restarts + 1, ready: false });
        if (pod) expect(c.snapshot('events').some((e) => (e as unknown as { involvedObject: { uid: string }; reason: string }).involvedObject.uid === uid && (e as unknown as { reason: string }).reason === 'BackOff')).toBe(true);
      }
    }
    expect(backedOff).toBeGreaterThan(0);
    expect([1, 2, 3, 4, 5, 6, 9].map(crashBackoff)).toEqual(['10s', '20s', '40s', '1m20s', '2m40s', '5m0s', '5m0s']);
  });

  it('deletes pods as kube does: Terminating for a while, then removed by their kubelet; a StatefulSet pod comes back after', async () => {
    const c = await cluster();
    const w = await openWatch(c, `/api/v1/pods?watch=true&resourceVersion=${c.revision}`);
    const t0 = Date.now();
    c.churn.step(300);
    // A pod is Terminating for a few operations only: a few more, one at a time, until one is (a bounded number).
    for (let i = 0; i < 100 && !c.snapshot('pods').some((p) => p.metadata.deletionTimestamp); i++) c.churn.step(1);
    interface PodEv { type: string; object: SimObject }
    const seen: PodEv[] = [];
    for (;;) {
      const ev = (await w.next(300).catch(() => undefined)) as PodEv | undefined;
      if (!ev) break;
      seen.push(ev);
    }
    // Some are being deleted now: marked 30 s ahead with their grace period, still listed.
    const terminating = c.snapshot('pods').filter((p) => p.metadata.deletionTimestamp);
    expect(terminating.length).toBeGreaterThan(0);
    expect(terminating.length).toBeLessThan(20);
    for (const p of terminating) {
      expect(p.metadata.deletionGracePeriodSeconds).toBe(30);
      expect(Date.parse(p.metadata.deletionTimestamp ?? '') - t0).toBeGreaterThan(25_000);
    }
    // Every pod that went was marked first, and its containers had stopped and it was not ready when it went.
    const deleted = seen.filter((e) => e.type === 'DELETED');
    expect(deleted.length).toBeGreaterThan(10);
    for (const d of deleted) {
      const before = seen.filter((e) => e.object.metadata.uid === d.object.metadata.uid && e !== d);
      if (!(d.object.spec as { nodeName?: string }).nodeName) continue; // never placed: gone at once
      expect(before.some((e) => e.type === 'MODIFIED' && e.object.metadata.deletionTimestamp), d.object.metadata.name).toBe(true);
      const status = d.object.status as { containerStatuses?: Array<{ state: Record<string, unknown> }>; conditions: Array<{ type: string; status: string }> };
      expect(status.conditions.find((x) => x.type === 'Ready')?.status, d.object.metadata.name).toBe('False');
      for (const s of status.containerStatuses ?? []) expect(Object.keys(s.state), d.object.metadata.name).not.toContain('running');
    }
    // Stopped, churn lets them go; every StatefulSet has each of its ordinals again.
    c.churn.stop();
    expect(c.snapshot('pods').filter((p) => p.metadata.deletionTimestamp)).toEqual([]);
    const names = new Set(c.snapshot('pods').map((p) => `${p.metadata.namespace}/${p.metadata.name}`));
    for (const sts of c.snapshot('statefulsets.apps')) {
      for (let i = 0; i < (sts.spec as { replicas: number }).replicas; i++) expect(names.has(`${sts.metadata.namespace}/${sts.metadata.name}-${i}`), `${sts.metadata.name}-${i}`).toBe(true);
    }
    // A pod made from one no node could take cannot be placed either: Pending, no containers, no address.
    for (const p of c.snapshot('pods').filter((pod) => !(pod.spec as { nodeName?: string }).nodeName)) {
      const status = p.status as { phase: string; podIP?: string; containerStatuses?: unknown };
      expect([status.phase, status.podIP, status.containerStatuses], p.metadata.name).toEqual(['Pending', undefined, undefined]);
    }
  });

  it('a rollout that makes no progress for its progressDeadlineSeconds times out; progress again clears it', async () => {
    const c = await cluster();
    type Cond = { type: string; status: string; reason: string; message: string; lastUpdateTime: string; lastTransitionTime: string };
    const condition = (d: SimObject | undefined, type: string): Cond | undefined => ((d?.status as { conditions?: Cond[] } | undefined)?.conditions ?? []).find((x) => x.type === type);
    const progressing = (d: SimObject | undefined): Cond | undefined => condition(d, 'Progressing');
    const under = (): SimObject[] => c.snapshot('deployments.apps').filter((d) => progressing(d)?.reason === 'ReplicaSetUpdated');
    for (let i = 0; i < 100 && under().length < 2; i++) c.churn.step(10);
    const [stuck, endless] = under();
    expect(endless, 'two rollouts under way').toBeDefined();
    // A deadline of the largest int32 means none (kube's HasProgressDeadline).
    c.store.patch('deployments.apps', endless!.metadata.namespace, endless!.metadata.name!, { spec: { progressDeadlineSeconds: 2 ** 31 - 1 } });
    const get = (d: SimObject): SimObject | undefined => c.store.get('deployments.apps', d.metadata.namespace, d.metadata.name!);
    const was = progressing(stuck)!;
    const available = condition(stuck, 'Available');
    const from = Date.parse(was.lastUpdateTime);
    expect((stuck!.spec as { progressDeadlineSeconds: number }).progressDeadlineSeconds).toBe(600);
    // Before its deadline nothing changes.
    c.churn.progressDeadlines(from + 599_000);
    expect(progressing(get(stuck!))).toEqual(was);
    const rev = c.revision;
    c.churn.progressDeadlines(from + 601_000);
    const rs = (c.snapshot('replicasets.apps').filter((r) => r.metadata.ownerReferences?.[0]?.uid === stuck!.metadata.uid)
      .sort((a, b) => Number(b.metadata.annotations?.['deployment.kubernetes.io/revision']) - Number(a.metadata.annotations?.['deployment.kubernetes.io/revision'])))[0];
    expect(progressing(get(stuck!))).toEqual({
      type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded', message: `ReplicaSet "${rs?.metadata.name}" has timed out progressing.`,
      lastUpdateTime: new Date(from + 601_000).toISOString().replace('.000Z', 'Z'), lastTransitionTime: new Date(from + 601_000).toISOString().replace('.000Z', 'Z'),
    });
    expect(condition(get(stuck!), 'Available')).toEqual(available);
    expect(progressing(get(endless!))?.reason).toBe('ReplicaSetUpdated');
    // One write for each rollout that timed out, and the endless one's: its controller has now seen its new spec, and
    // found no deadline. A second look changes nothing.
    const timedOut = c.snapshot('deployments.apps').filter((d) => progressing(d)?.reason === 'ProgressDeadlineExceeded').length;
    expect(timedOut).toBeGreaterThanOrEqual(1);
    expect(c.revision - rev).toBe(timedOut + 1);
    expect((get(endless!)?.status as { observedGeneration?: number }).observedGeneration).toBe(get(endless!)?.metadata.generation);
    const after = c.revision;
    c.churn.progressDeadlines(from + 1_300_000);
    expect(progressing(get(stuck!))?.reason).toBe('ProgressDeadlineExceeded');
    expect(progressing(get(endless!))?.reason).toBe('ReplicaSetUpdated');
    expect(c.revision).toBe(after);
    // Its pods go on starting: progress (or completion) turns it True again.
    for (let i = 0; i < 200 && progressing(get(stuck!))?.status === 'False'; i++) c.churn.step(10);
    expect(progressing(get(stuck!))).toMatchObject({ status: 'True', reason: expect.stringMatching(/^(ReplicaSetUpdated|NewReplicaSetAvailable)$/) });
  });

  it('the CronJob clock: a Job at each scheduled minute (none while one is active, for Forbid), its pod run to success, old Jobs let go', async () => {
    const c = await cluster();
    c.churn.batch.jobRunMs = 500;
    c.churn.batch.failureShare = 0;
    const cj = c.snapshot('cronjobs.batch').find((x) => /^\*\/\d+ \* \* \* \*$/.test(String((x.spec as { schedule: string }).schedule)))!;
    expect(cj, 'a CronJob every N minutes').toBeDefined();
    const ns = cj.metadata.namespace!;
    const every = Number(String((cj.spec as { schedule: string }).schedule).split(' ')[0]!.slice(2));
    const jobsOf = (): SimObject[] => c.snapshot('jobs.batch').filter((j) => j.metadata.ownerReferences?.[0]?.uid === cj.metadata.uid);
    const before = jobsOf().map((j) => j.metadata.name);
    const isComplete = (j: SimObject): boolean => ((j.status as { conditions?: Array<{ type: string; status: string }> }).conditions ?? []).some((x) => x.type === 'Complete' && x.status === 'True');
    const completeBefore = jobsOf().filter(isComplete).length;
    // The first look starts the clock; the next scheduled minute makes a Job, the minutes between nothing.
    const next = (Math.floor(Date.now() / 60_000 / every) + 1) * every;
    expect(c.churn.batch.cronTick((next - 2) * 60_000)).toBe(0);
    c.churn.batch.cronTick((next - 1) * 60_000);
    expect(jobsOf().map((j) => j.metadata.name)).toEqual(before);
    expect(c.churn.batch.cronTick(next * 60_000)).toBeGreaterThanOrEqual(1);
    const job = c.store.get('jobs.batch', ns, `${cj.metadata.name}-${next}`)!;
    expect(job).toBeDefined();
    const uid = job.metadata.uid!;
    expect(job.metadata.ownerReferences).toEqual([{ apiVersion: 'batch/v1', kind: 'CronJob', name: cj.metadata.name, uid: cj.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    expect((job.spec as { selector: unknown }).selector).toEqual({ matchLabels: { 'batch.kubernetes.io/controller-uid': uid } });
    expect(job.metadata.annotations?.['batch.kubernetes.io/cronjob-scheduled-timestamp']).toBe(new Date(next * 60_000).toISOString().replace('.000Z', 'Z'));
    const pods = (): SimObject[] => c.snapshot('pods').filter((p) => p.metadata.ownerReferences?.[0]?.uid === uid);
    expect(pods()).toHaveLength(1);
    expect(pods()[0]!.metadata.labels).toMatchObject({ 'batch.kubernetes.io/controller-uid': uid, 'job-name': job.metadata.name });
    expect(pods()[0]!.metadata.ownerReferences?.[0]).toMatchObject({ apiVersion: 'batch/v1', kind: 'Job', uid });
    const cjStatus = (): { active?: Array<{ uid: string }>; lastScheduleTime?: string; lastSuccessfulTime?: string } => c.store.get('cronjobs.batch', ns, cj.metadata.name!)!.status as never;
    expect(cjStatus().active?.map((a) => a.uid)).toEqual([uid]);
    // Forbid (the generated CronJobs' policy): the next run waits while this one is active.
    expect((cj.spec as { concurrencyPolicy: string }).concurrencyPolicy).toBe('Forbid');
    c.churn.batch.cronTick((next + every) * 60_000);
    expect(c.store.get('jobs.batch', ns, `${cj.metadata.name}-${next + every}`)).toBeUndefined();
    // Its pod starts, runs, succeeds; the Job completes, the CronJob sees it; at most three successful Jobs stay.
    await vi.waitFor(() => {
      expect((pods()[0]?.status as { phase?: string } | undefined)?.phase).toBe('Succeeded');
      expect(((c.store.get('jobs.batch', ns, job.metadata.name!)?.status as { conditions?: Array<{ type: string }> }).conditions ?? []).map((x) => x.type)).toEqual(['SuccessCriteriaMet', 'Complete']);
    }, { timeout: 8000, interval: 100 });
    expect(cjStatus().active).toBeUndefined();
    expect(cjStatus().lastSuccessfulTime).toBeDefined();
    const complete = jobsOf().filter(isComplete);
    expect(complete).toHaveLength(Math.min(3, completeBefore + 1));
    expect(complete.map((j) => j.metadata.name)).toContain(job.metadata.name);
    const gone = before.filter((n) => !jobsOf().some((j) => j.metadata.name === n));
    for (const n of gone) expect(c.snapshot('pods').some((p) => p.metadata.labels?.['job-name'] === n)).toBe(false);
    expect(c.snapshot('events').some((e) => e.reason === 'SuccessfulCreate' && e.message === `Created job ${job.metadata.name}`)).toBe(true);
    // Off with the heartbeats.
    c.churn.heartbeats.enabled = false;
    expect(c.churn.batch.cronTick((next + 10 * every) * 60_000)).toBe(0);
  });

  it('heartbeats: node Leases every 10 s, leader Leases every 2 s, each node\'s status every 5 minutes, by the clock', async () => {
    // Three nodes (80 pods have one).
    const c = await startSimulatedCluster({ pods: 300, seed: 4, epochMs: Date.parse('2026-06-01T00:00:00Z') });
    started.push(c);
    const t0 = Date.parse('2026-06-01T00:00:00Z');
    const hb = c.churn.heartbeats;
    const nodes = c.snapshot('nodes').length;
    expect(nodes).toBeGreaterThan(1);
    const renewed = (ns: string): string[] => c.snapshot('leases.coordination.k8s.io').filter((l) => l.metadata.namespace === ns).map((l) => String((l.spec as { renewTime?: string }).renewTime));
    const heartbeats = (): string[] => c.snapshot('nodes').flatMap((n) => ((n.status as { conditions: { lastHeartbeatTime: string }[] }).conditions).map((x) => x.lastHeartbeatTime));
    const writes = (at: number): number => {
      const rev = c.revision;
      const n = hb.tick(at);
      // One write, one watch event, each.
      expect(c.revision - rev).toBe(n);
      return n;
    };
    // Generated 4 s and 20 s before the epoch: the leaders are due first, then the kubelets' Leases.
    expect(writes(t0)).toBe(2);
    expect(renewed('kube-system')).toEqual(['2026-06-01T00:00:00.000000Z', '2026-06-01T00:00:00.000000Z']);
    expect(writes(t0 + 500)).toBe(0);
    expect(writes(t0 + 6_000)).toBe(nodes + 2);
    expect(new Set(renewed('kube-node-lease'))).toEqual(new Set(['2026-06-01T00:00:06.000000Z']));
    expect(writes(t0 + 16_000)).toBe(nodes + 2);
    expect(heartbeats().every((t) => t === '2026-05-31T23:59:40Z')).toBe(true);
    // Within five minutes every node has reported once, its conditions otherwise as they were.
    const before = c.snapshot('nodes').map((n) => (n.status as { conditions: { type: string; lastTransitionTime: string }[] }).conditions.map((x) => `${x.type} ${x.lastTransitionTime}`));
    let reports = 0;
    for (let at = t0 + 17_000; at <= t0 + 280_000; at += 1_000) reports += writes(at);
    expect(new Set(heartbeats()).has('2026-05-31T23:59:40Z')).toBe(false);
    expect(c.snapshot('nodes').map((n) => (n.status as { conditions: { type: string; lastTransitionTime: string }[] }).conditions.map((x) => `${x.type} ${x.lastTransitionTime}`))).toEqual(before);
    // 263 s of ticks: the Leases (node ones 26 times, leaders 131 or 132) and one report per node.
    expect(reports).toBeGreaterThanOrEqual(26 * nodes + 131 * 2 + nodes);
    expect(reports).toBeLessThanOrEqual(27 * nodes + 132 * 2 + nodes);
    // A late call writes each once, however many periods it missed.
    expect(writes(t0 + 3_600_000)).toBe(2 * nodes + 2);
    hb.enabled = false;
    expect(writes(t0 + 7_200_000)).toBe(0);
  });

  it('heartbeats run with churn, on the wall clock', async () => {
    const c = await cluster();
    const from = Date.now();
    c.churn.start(1);
    await new Promise((r) => setTimeout(r, 300));
    c.churn.stop();
    expect(c.churn.heartbeats.written).toBeGreaterThanOrEqual(c.snapshot('nodes').length + 2);
    const renewTimes = c.snapshot('leases.coordination.k8s.io').map((l) => Date.parse(String((l.spec as { renewTime?: string }).renewTime)));
    expect(renewTimes.every((t) => t >= from - 1000)).toBe(true);
  });

  it('keeps its rate when the process is too busy to fire its timer on time', async () => {
    const c = await cluster();
    const rev = c.revision;
    c.churn.start(200);
    // Block the event loop for 150 ms out of every 200: the 50 ms timer fires about five times a second.
    const busy = setInterval(() => {
      const until = performance.now() + 150;
      while (performance.now() < until);
    }, 50);
    await new Promise((r) => setTimeout(r, 1500));
    clearInterval(busy);
    c.churn.stop();
    const made = c.revision - rev;
    // Counting nominal ticks would give ~75 events (7-8 ticks × 10); counting elapsed time gives ~300.
    expect(made).toBeGreaterThan(180);
    expect(made).toBeLessThan(450);
  });

  it('runs at about the requested rate and stops', async () => {
    const c = await cluster();
    const rev = c.revision;
    c.churn.start(100);
    await new Promise((r) => setTimeout(r, 1000));
    c.churn.stop();
    const made = c.revision - rev;
    expect(made).toBeGreaterThan(50);
    expect(made).toBeLessThan(200);
    const after = c.revision;
    await new Promise((r) => setTimeout(r, 200));
    expect(c.revision).toBe(after);
    expect(c.churn.running).toBe(false);
  });
});
