// events.k8s.io/v1: the same Events as core/v1 (one object, one resourceVersion), under kube's other field names.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSimulatedCluster, type SimCluster } from '../../src/sim/index.js';
import { call, openWatch, type ListBody, type WatchReader } from './helpers.js';

let c: SimCluster;
const open: WatchReader[] = [];
beforeEach(async () => {
  c = await startSimulatedCluster({ pods: 30, seed: 11 });
});
afterEach(async () => {
  for (const w of open.splice(0)) w.close();
  await c.stop();
});

const CORE = '/api/v1';
const V1 = '/apis/events.k8s.io/v1';
type Obj = Record<string, unknown> & { metadata: { name: string; namespace: string; resourceVersion: string; uid: string } };
const rec = (v: unknown): Record<string, unknown> => (v ?? {}) as Record<string, unknown>;

/** A new Event as an events.k8s.io recorder (client-go's events package) writes it. */
const recorded = (name: string, over: Record<string, unknown> = {}): Record<string, unknown> => ({
  apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name, namespace: 'default' },
  eventTime: '2026-12-05T10:00:00.123456Z', reportingController: 'example.com/operator', reportingInstance: 'operator-0',
  action: 'Reconcile', reason: 'Synced', regarding: { kind: 'ConfigMap', namespace: 'default', name: 'settings', apiVersion: 'v1' },
  note: 'settings synced', type: 'Normal', ...over,
});

describe('events.k8s.io/v1', () => {
  it('is discovered, and serves every core/v1 Event with the same name, uid and resourceVersion under its own field names', async () => {
    const resources = await call<{ resources: { name: string; kind: string; namespaced: boolean; verbs: string[] }[] }>(c, `${V1}`);
    expect(resources.body.resources).toContainEqual(expect.objectContaining({ name: 'events', kind: 'Event', namespaced: true, verbs: expect.arrayContaining(['list', 'watch', 'create']) }));
    const groups = await call<{ groups: { name: string }[] }>(c, '/apis');
    expect(groups.body.groups.map((g) => g.name)).toContain('events.k8s.io');

    const core = await call<ListBody>(c, `${CORE}/events`);
    const v1 = await call<ListBody>(c, `${V1}/events`);
    expect(v1.status).toBe(200);
    expect(v1.body).toMatchObject({ kind: 'EventList', apiVersion: 'events.k8s.io/v1' });
    expect(core.body.items.length).toBeGreaterThan(0);
    expect(v1.body.items.map((e) => [e.metadata.name, e.metadata.uid, e.metadata.resourceVersion])).toEqual(core.body.items.map((e) => [e.metadata.name, e.metadata.uid, e.metadata.resourceVersion]));
    for (const [i, e] of core.body.items.entries()) {
      const v = v1.body.items[i]!;
      expect(v.regarding).toEqual(e.involvedObject);
      expect(v.note).toBe(e.message);
      expect(v.reason).toBe(e.reason);
      expect(v.type).toBe(e.type);
      expect(v.deprecatedSource).toEqual(e.source);
      expect(v.deprecatedCount).toBe(e.count);
      expect(v.deprecatedFirstTimestamp).toBe(e.firstTimestamp);
      expect(v.deprecatedLastTimestamp).toBe(e.lastTimestamp);
      expect(v.eventTime).toBe(e.eventTime);
      expect(v.reportingController ?? '').toBe(e.reportingComponent);
      // None of core's names leak through.
      for (const k of ['involvedObject', 'message', 'source', 'count', 'firstTimestamp', 'lastTimestamp', 'reportingComponent']) expect(v).not.toHaveProperty(k);
    }
    const one = core.body.items[0]!;
    const got = await call<Obj>(c, `${V1}/namespaces/${one.metadata.namespace}/events/${one.metadata.name}`);
    expect(got.body).toMatchObject({ kind: 'Event', apiVersion: 'events.k8s.io/v1', metadata: { resourceVersion: one.metadata.resourceVersion }, note: one.message });
    const missing = await call<{ code: number; message: string }>(c, `${V1}/namespaces/default/events/nope`);
    expect(missing.body).toMatchObject({ code: 404, message: 'events.events.k8s.io "nope" not found' });
  });

  it('takes its own field labels (regarding.*, reportingController), refuses core\'s, and selects what core selects', async () => {
    const core = await call<ListBody>(c, `${CORE}/events`);
    const about = rec(core.body.items[0]!.involvedObject);
    const byCore = await call<ListBody>(c, `${CORE}/events?fieldSelector=${encodeURIComponent(`involvedObject.name=${String(about.name)},involvedObject.kind=${String(about.kind)}`)}`);
    const byV1 = await call<ListBody>(c, `${V1}/events?fieldSelector=${encodeURIComponent(`regarding.name=${String(about.name)},regarding.kind=${String(about.kind)}`)}`);
    expect(byV1.status).toBe(200);
    expect(byV1.body.items.map((e) => e.metadata.uid)).toEqual(byCore.body.items.map((e) => e.metadata.uid));
    expect(byV1.body.items.length).toBeGreaterThan(0);
    expect(byV1.body.items.length).toBeLessThan(core.body.items.length);

    const kubelet = await call<ListBody>(c, `${V1}/events?fieldSelector=reportingController%3Dkubelet`);
    expect(kubelet.body.items.length).toBeGreaterThan(0);
    expect(kubelet.body.items.every((e) => e.reportingController === 'kubelet')).toBe(true);
    // "source" is the component, or the reporting controller of an event that has none (events.k8s.io's own).
    const scheduler = await call<ListBody>(c, `${CORE}/events?fieldSelector=source%3Ddefault-scheduler`);
    expect(scheduler.body.items.length).toBeGreaterThan(0);
    expect(scheduler.body.items.every((e) => e.reportingComponent === 'default-scheduler')).toBe(true);

    const refused = await call<{ code: number; message: string }>(c, `${V1}/events?fieldSelector=involvedObject.name%3Dx`);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain('field label not supported: involvedObject.name');
  });

  it('one object in both watches: a core/v1 write is seen here converted, a write here is seen by core/v1 with its names', async () => {
    const from = c.revision;
    const v1Watch = await openWatch(c, `${V1}/namespaces/default/events?watch=true&resourceVersion=${from}`);
    const coreWatch = await openWatch(c, `${CORE}/namespaces/default/events?watch=true&resourceVersion=${from}`);
    open.push(v1Watch, coreWatch);

    const created = await call<Obj>(c, `${V1}/namespaces/default/events`, { method: 'POST', body: recorded('operator.1') });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ apiVersion: 'events.k8s.io/v1', note: 'settings synced', reportingController: 'example.com/operator', deprecatedSource: {}, deprecatedFirstTimestamp: null });
    const asCore = await call<Obj>(c, `${CORE}/namespaces/default/events/operator.1`);
    expect(asCore.body).toMatchObject({
      apiVersion: 'v1', message: 'settings synced', reportingComponent: 'example.com/operator', reportingInstance: 'operator-0', action: 'Reconcile',
      involvedObject: { kind: 'ConfigMap', name: 'settings' }, eventTime: '2026-12-05T10:00:00.123456Z', firstTimestamp: null, source: {},
      metadata: { resourceVersion: created.body.metadata.resourceVersion, uid: created.body.metadata.uid },
    });

    // A merge patch in this version's names lands on the stored object.
    const patched = await call<Obj>(c, `${V1}/namespaces/default/events/operator.1`, { method: 'PATCH', contentType: 'application/merge-patch+json', body: { note: 'settings synced again', series: { count: 2, lastObservedTime: '2026-12-05T10:05:00.000000Z' } } });
    expect(patched.status).toBe(200);
    expect((await call<Obj>(c, `${CORE}/namespaces/default/events/operator.1`)).body).toMatchObject({ message: 'settings synced again', series: { count: 2 } });

    // core/v1's own writer (the old recorder) is seen here too.
    c.store.create('events', { apiVersion: 'v1', kind: 'Event', metadata: { name: 'old.1', namespace: 'default' }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' }, reason: 'Pulled', message: 'pulled', source: { component: 'kubelet', host: 'n1' }, firstTimestamp: '2026-12-05T10:00:00Z', lastTimestamp: '2026-12-05T10:00:00Z', count: 1, type: 'Normal', eventTime: null, reportingComponent: '', reportingInstance: '' });

    const v1Events = await v1Watch.until((e) => e.object.metadata.name === 'old.1');
    const coreEvents = await coreWatch.until((e) => e.object.metadata.name === 'old.1');
    const summary = (evs: typeof v1Events): string[] => evs.map((e) => `${e.type} ${e.object.metadata.name} ${e.object.metadata.resourceVersion}`);
    expect(summary(v1Events)).toEqual(summary(coreEvents));
    expect(v1Events.map((e) => e.object.apiVersion)).toEqual(['events.k8s.io/v1', 'events.k8s.io/v1', 'events.k8s.io/v1']);
    expect(v1Events[1]!.object).toMatchObject({ note: 'settings synced again' });
    // Go's omitempty: an old recorder's event has no reportingController here, but its source and times are kept.
    expect(v1Events[2]!.object).not.toHaveProperty('reportingController');
    expect(v1Events[2]!.object).toMatchObject({ deprecatedSource: { component: 'kubelet', host: 'n1' }, deprecatedCount: 1, eventTime: null, regarding: { kind: 'Pod', name: 'p' } });
    expect(coreEvents[0]!.object).toMatchObject({ apiVersion: 'v1', message: 'settings synced' });

    const gone = await call<Obj>(c, `${V1}/namespaces/default/events/operator.1`, { method: 'DELETE' });
    expect(gone.status).toBe(200);
    expect((await call(c, `${CORE}/namespaces/default/events/operator.1`)).status).toBe(404);
  });

  it('a new Event must say what kube\'s events.k8s.io/v1 validation asks for; core/v1 asks none of it', async () => {
    const bare = await call<{ code: number; reason: string; message: string; details: { causes: { field: string; reason: string }[] } }>(c, `${V1}/namespaces/default/events`, {
      method: 'POST', body: { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'bare' }, regarding: { kind: 'Pod', name: 'p' }, type: 'Info' },
    });
    expect(bare.status).toBe(422);
    expect(bare.body.message).toBe('Event.events.k8s.io "bare" is invalid: [eventTime: Required value, type: Invalid value: "": has invalid value: Info, reportingController: Required value, reportingInstance: Required value, action: Required value, reason: Required value]');
    expect(bare.body.details.causes.map((x) => `${x.field} ${x.reason}`)).toContain('eventTime FieldValueRequired');
    expect((await call(c, `${V1}/namespaces/default/events/bare`)).status).toBe(404);
    const oldStyle = await call(c, `${CORE}/namespaces/default/events`, { method: 'POST', body: { apiVersion: 'v1', kind: 'Event', metadata: { name: 'bare' }, involvedObject: { kind: 'Pod', name: 'p' } } });
    expect(oldStyle.status).toBe(201);
  });
});
