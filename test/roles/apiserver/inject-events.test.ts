// search.clusterpedia.io/inject-events (reference §2.11): built-in list items carry their stored core/v1 Events in
// the annotation shadow.clusterpedia.io/events, in every page form; other lists and requests without it do not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UpsertObject } from '../../../src/storage/types.js';
import { serveStore, type ServedStore, type TestApiserver } from '../../support/apiserver.js';
import { deployment, pod } from '../../support/fixtures.js';

const P = '/apis/clusterpedia.io/v1beta1/resources';
const ANNOTATION = 'shadow.clusterpedia.io/events';
const INJECT = `labelSelector=${encodeURIComponent('search.clusterpedia.io/inject-events=true')}`;

let served: ServedStore;
let api: TestApiserver;

interface Item { metadata: { name: string; uid?: string; annotations?: Record<string, string> } }

function event(cluster: string, involved: UpsertObject, name: string, at: string): UpsertObject {
  const m = (involved.object as { metadata: { name: string; namespace: string; uid: string } }).metadata;
  return {
    cluster, group: '', version: 'v1', resource: 'events', kind: 'Event',
    object: {
      apiVersion: 'v1', kind: 'Event', metadata: { name, namespace: m.namespace, uid: `uid-${name}`, resourceVersion: '5', creationTimestamp: at },
      involvedObject: { kind: 'Pod', namespace: m.namespace, name: m.name, uid: m.uid }, reason: name.split('.')[1], message: 'simulated', type: 'Normal',
    },
  };
}

/** name → the reasons in its annotation, or null when it has none. */
function injected(items: Item[]): Record<string, string[] | null> {
  return Object.fromEntries(items.map((o) => {
    const a = o.metadata.annotations?.[ANNOTATION];
    return [o.metadata.name, a === undefined ? null : (JSON.parse(a) as { reason: string; involvedObject: { uid: string } }[]).map((e) => {
      expect(e.involvedObject.uid).toBe(o.metadata.uid ?? e.involvedObject.uid);
      return e.reason;
    })];
  }));
}

async function items(path: string, accept = 'application/json'): Promise<Item[]> {
  const r = await fetch(`${api.base}${path}`, { headers: { accept } });
  expect(r.status, path).toBe(200);
  return ((await r.json()) as { items: Item[] }).items;
}

const EXPECTED = { a: ['Pulled', 'Started'], b: ['Killing'], c: null, d: ['Other'] };

beforeAll(async () => {
  const [a, b, c] = ['a', 'b', 'c'].map((n) => pod('c1', 'ns', n));
  const d = pod('c2', 'ns', 'd');
  const dep = deployment('c1', 'ns', 'web');
  const widget: UpsertObject = {
    cluster: 'c1', group: 'example.io', version: 'v1', resource: 'widgets', kind: 'Widget',
    object: { apiVersion: 'example.io/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'ns', uid: 'uid-widget', resourceVersion: '3', creationTimestamp: '2024-01-01T00:00:00Z' } },
  };
  served = await serveStore([
    a!, b!, c!, d, dep, widget, event('c1', widget, 'w.Reconciled', '2024-01-01T00:01:00Z'),
    event('c1', a!, 'a.Started', '2024-01-01T00:02:00Z'), event('c1', a!, 'a.Pulled', '2024-01-01T00:01:00Z'), event('c1', b!, 'b.Killing', '2024-01-01T00:01:00Z'),
    event('c2', d, 'd.Other', '2024-01-01T00:01:00Z'),
  ], { c1: true, c2: true });
  api = served.api;
});

afterAll(() => served?.stop());

describe('inject-events', () => {
  it('each pod of every cluster gets its own Events, oldest first; a pod without Events gets no annotation', async () => {
    expect(injected(await items(`${P}/api/v1/pods?${INJECT}`))).toEqual(EXPECTED);
    // The URL parameter too (Clusterpedia forgot to decode it; we do).
    expect(injected(await items(`${P}/api/v1/pods?injectEvents=true`))).toEqual(EXPECTED);
  });

  it('without it, nothing is injected', async () => {
    expect(injected(await items(`${P}/api/v1/pods`))).toEqual({ a: null, b: null, c: null, d: null });
    expect(injected(await items(`${P}/api/v1/pods?injectEvents=false`))).toEqual({ a: null, b: null, c: null, d: null });
  });

  it('every page of a chunked list, one cluster, metadata only', async () => {
    const seen: Item[] = [];
    let cont = '';
    for (let i = 0; i < 10; i++) {
      const r = await fetch(`${api.base}${P}/api/v1/pods?${INJECT}&limit=1${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`);
      const body = (await r.json()) as { items: Item[]; metadata: { continue?: string } };
      seen.push(...body.items);
      cont = body.metadata.continue ?? '';
      if (!cont) break;
    }
    expect(injected(seen)).toEqual(EXPECTED);
    expect(injected(await items(`${P}/clusters/c1/api/v1/namespaces/ns/pods?${INJECT}`))).toEqual({ a: EXPECTED.a, b: EXPECTED.b, c: null });
    // Unlike Clusterpedia, which drops them there: the annotation is metadata.
    const meta = await items(`${P}/api/v1/pods?${INJECT}`, 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io');
    expect(injected(meta)).toEqual(EXPECTED);
  });

  it('owner search on events finds one object\'s Events (its involved object counts as owner)', async () => {
    const events = await items(`${P}/clusters/c1/api/v1/namespaces/ns/events?ownerName=a&ownerGR=pods`);
    expect(events.map((e) => e.metadata.name)).toEqual(['a.Pulled', 'a.Started']);
    const byLabel = await items(`${P}/clusters/c1/api/v1/events?labelSelector=${encodeURIComponent('search.clusterpedia.io/owner-name=b,search.clusterpedia.io/owner-gr=pods')}`);
    expect(byLabel.map((e) => e.metadata.name)).toEqual(['b.Killing']);
  });

  it('a kind without Events lists as usual; custom resources are not injected (as in Clusterpedia)', async () => {
    expect(injected(await items(`${P}/apis/apps/v1/deployments?${INJECT}`))).toEqual({ web: null });
    expect(injected(await items(`${P}/apis/example.io/v1/widgets?${INJECT}`))).toEqual({ w: null });
  });
});
