// Differential: clusterpedia answers a list exactly as the member it synced answers the same list. The simulated
// kube-apiserver evaluates label and field selectors with code of its own (src/sim), so every random selector here is
// checked against an independent implementation, through the whole chain: the synchro's copy, storage's SQL and the
// apiserver's parsing. Both storage dialects.
import { describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import { defaultSyncResources, memberCrds, type SimCluster, type SimObject, type SyncGroup } from '../../src/sim/index.js';
import { builtinResources } from '../../src/sim/catalog.js';
import type { ResourceDef } from '../../src/sim/types.js';
import { call } from '../sim/helpers.js';
import { Kubectl, kubectlPath, oldestKubectl } from '../support/kubectl.js';
import { bindingOverFleet, bothDialects, onMemberAndThrough, waitConverged, type Fleet } from './helpers.js';

const P = '/apis/clusterpedia.io/v1beta1/resources';
const QUERIES_PER_TYPE = 14;

interface Listed {
  status: number;
  /** "namespace/name member-resourceVersion", in the order answered: one cluster's list comes in kube's order (namespace, then name). */
  keys: string[];
}

interface Item {
  metadata: { name: string; namespace?: string; resourceVersion?: string; annotations?: Record<string, string> };
}

/** What the comparisons need of a type: the simulator's ResourceDef for a built-in, the same fields for a CRD. */
type TypeDef = Pick<ResourceDef, 'group' | 'versions' | 'resource' | 'namespaced' | 'selectableFields'>;

/**
 * The members' custom resources synced beside the defaults, and their CRDs: clusterpedia learns a custom resource's
 * short names and printer columns from its stored CRD (README, "Custom resources are printed …").
 */
const CUSTOM: SyncGroup[] = [
  { group: 'stable.example.com', resources: ['*'] }, { group: 'cert-manager.io', resources: ['*'] }, { group: 'apiextensions.k8s.io', resources: ['customresourcedefinitions'] },
];

/** The synced types, built-ins and the members' CRDs, as `[def, store key, list path]`. */
function syncedTypes(): { def: TypeDef; gr: string; path: string }[] {
  const wanted = defaultSyncResources();
  const synced = (d: ResourceDef): boolean => wanted.some((g) => g.group === d.group && (g.resources.includes('*') || g.resources.includes(d.resource)));
  // A CRD's field selectors: metadata.name and metadata.namespace only (none of these declares selectableFields).
  const crds: TypeDef[] = memberCrds().filter((c) => CUSTOM.some((g) => g.group === c.group))
    .map((c) => ({ group: c.group, versions: c.versions.map((v) => v.name), resource: c.plural, namespaced: c.scope === 'Namespaced', selectableFields: {} }));
  return [...builtinResources().filter(synced), ...crds].map((def) => ({
    def,
    gr: def.group ? `${def.resource}.${def.group}` : def.resource,
    path: def.group ? `/apis/${def.group}/${def.versions[0]}/${def.resource}` : `/api/${def.versions[0]}/${def.resource}`,
  }));
}

/** Label requirements built from the labels the objects carry, plus keys and values none of them has. */
function labelSelectors(objects: SimObject[], seed: number): string[] {
  const pairs = objects.flatMap((o) => Object.entries(o.metadata?.labels ?? {}));
  const keys = [...new Set(pairs.map(([k]) => k)), 'absent.example.com/key'];
  const values = [...new Set(pairs.map(([, v]) => v)), 'absent-value', ''].filter((v) => v.length <= 63);
  const valueOf = (k: string): fc.Arbitrary<string> => {
    const own = [...new Set(pairs.filter(([key]) => key === k).map(([, v]) => v))];
    return fc.oneof(own.length ? fc.constantFrom(...own) : fc.constant('absent-value'), fc.constantFrom(...values));
  };
  const requirement = fc.constantFrom(...keys).chain((k) => fc.oneof(
    valueOf(k).map((v) => `${k}=${v}`),
    valueOf(k).map((v) => `${k}==${v}`),
    valueOf(k).map((v) => `${k}!=${v}`),
    fc.uniqueArray(valueOf(k), { minLength: 1, maxLength: 3 }).map((vs) => `${k} in (${vs.join(',')})`),
    fc.uniqueArray(valueOf(k), { minLength: 1, maxLength: 3 }).map((vs) => `${k} notin (${vs.join(', ')})`),
    fc.constant(k),
    fc.constant(`!${k}`),
    // Gt/Lt: integers that are label values too (so not negative); a label whose value is not an integer matches
    // neither.
    fc.integer({ min: 0, max: 12 }).map((n) => `${k}>${n}`),
    fc.integer({ min: 0, max: 12 }).map((n) => `${k}<${n}`),
  ));
  // Gt/Lt at each integer value a label has, and next to it: where an off-by-one would show.
  const edges = [...new Set(pairs.filter(([, v]) => /^[0-9]{1,9}$/.test(v)).flatMap(([k, v]) => [Number(v) - 1, Number(v)].filter((n) => n >= 0).flatMap((n) => [`${k}>${n}`, `${k}<${n + 1}`])))];
  return [...fc.sample(fc.uniqueArray(requirement, { minLength: 1, maxLength: 3 }).map((rs) => rs.join(',')), { seed, numRuns: QUERIES_PER_TYPE }), ...edges];
}

/** Field requirements on the fields kube lets a client select for the type, with values the objects have. */
function fieldSelectors(def: TypeDef, objects: SimObject[], seed: number): string[] {
  const getters: Record<string, (o: SimObject) => string> = {
    'metadata.name': (o) => o.metadata?.name ?? '',
    ...(def.namespaced ? { 'metadata.namespace': (o: SimObject) => o.metadata?.namespace ?? '' } : {}),
    ...def.selectableFields,
  };
  const escape = (v: string): string => v.replace(/[\\,=!]/g, (c) => `\\${c}`);
  const requirement = fc.constantFrom(...Object.keys(getters)).chain((field) => {
    const seen = [...new Set(objects.map((o) => getters[field]!(o)))];
    const value = fc.oneof({ arbitrary: seen.length ? fc.constantFrom(...seen) : fc.constant(''), weight: 4 }, fc.constantFrom('', 'absent-value'));
    return fc.tuple(fc.constantFrom('=', '==', '!='), value).map(([op, v]) => `${field}${op}${escape(v)}`);
  });
  return fc.sample(fc.uniqueArray(requirement, { minLength: 1, maxLength: 2 }).map((rs) => rs.join(',')), { seed, numRuns: QUERIES_PER_TYPE });
}

function keysOf(items: Item[], rv: (i: Item) => string | undefined): string[] {
  return items.map((i) => `${i.metadata.namespace ?? ''}/${i.metadata.name} ${rv(i) ?? '?'}`);
}

async function fromMember(c: SimCluster, path: string): Promise<Listed> {
  const r = await call<{ items?: Item[] }>(c, path);
  return { status: r.status, keys: r.status === 200 ? keysOf(r.body.items ?? [], (i) => i.metadata.resourceVersion) : [] };
}

async function fromClusterpedia(base: string, c: SimCluster, path: string): Promise<Listed> {
  const r = await fetch(`${base}${P}/clusters/${c.name}${path}`, { headers: { accept: 'application/json' } });
  const body = (await r.json()) as { items?: Item[] };
  return { status: r.status, keys: r.status === 200 ? keysOf(body.items ?? [], (i) => i.metadata.annotations?.['shadow.clusterpedia.io/resource-version']) : [] };
}

/** The list walked in pages of `limit` through its continue tokens, every page's items together. */
async function pagedFromClusterpedia(base: string, c: SimCluster, path: string, limit: number): Promise<Listed> {
  const items: Item[] = [];
  let token = '';
  for (let pages = 0; pages < 1000; pages++) {
    const r = await fetch(`${base}${P}/clusters/${c.name}${path}&limit=${limit}${token ? `&continue=${encodeURIComponent(token)}` : ''}`, { headers: { accept: 'application/json' } });
    const body = (await r.json()) as { items?: Item[]; metadata?: { continue?: string } };
    if (r.status !== 200) return { status: r.status, keys: [] };
    expect(body.items?.length ?? 0).toBeLessThanOrEqual(limit);
    items.push(...(body.items ?? []));
    token = body.metadata?.continue ?? '';
    if (!token) break;
  }
  return { status: 200, keys: keysOf(items, (i) => i.metadata.annotations?.['shadow.clusterpedia.io/resource-version']) };
}

/**
 * Both answers, asked again for up to 3 s while they differ: the members' controllers move objects on their own now
 * and then (a Job's pods, a node's heartbeat), and the copy trails them by a watch event.
 */
async function compare(base: string, c: SimCluster, path: string, limit?: number): Promise<{ member: Listed; ours: Listed }> {
  const deadline = Date.now() + 3_000;
  for (;;) {
    const member = await fromMember(c, path);
    const ours = limit ? await pagedFromClusterpedia(base, c, path, limit) : await fromClusterpedia(base, c, path);
    if (member.status !== ours.status || String(member.keys) !== String(ours.keys)) {
      if (Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
        continue;
      }
    }
    return { member, ours };
  }
}

/**
 * describe's text without the annotations clusterpedia adds to every object (shadow.clusterpedia.io/cluster-name and
 * /resource-version), laid out as kubectl lays out the rest: the first remaining one, or <none>, on the label's line.
 */
function withoutShadowAnnotations(text: string): string {
  const lines = text.split('\n');
  const out: string[] = [];
  const ours = (l: string): boolean => l.trimStart().startsWith('shadow.clusterpedia.io/');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const label = /^(\s*Annotations:\s+)(.*)$/.exec(line);
    if (!label || !ours(label[2]!)) {
      out.push(line);
      continue;
    }
    const indent = ' '.repeat(label[1]!.length);
    let j = i + 1;
    while (j < lines.length && lines[j]!.startsWith(indent) && ours(lines[j]!)) j++;
    const next = lines[j];
    if (next !== undefined && next.startsWith(indent) && next.trim() !== '') {
      out.push(label[1] + next.trimStart());
      i = j;
    } else {
      out.push(`${label[1]}<none>`);
      i = j - 1;
    }
  }
  return out.filter((l) => !(ours(l) && /^\s+shadow/.test(l))).join('\n');
}

/**
 * `args` print the same (not nothing) against the member and through clusterpedia, once `comparable` has left out what
 * differs by design (`onlyThrough`: on clusterpedia's side only); the shadow annotations always. Asked again for ~2 s while
 * they differ: relative times turn over between the two, and a custom resource's CRD may still be on its way.
 */
async function expectSamePrint(member: Kubectl, through: Kubectl, args: string[], comparable: (t: string) => string = (t) => t, onlyThrough = false): Promise<void> {
  let want = '';
  let got = '';
  for (let i = 0; i < 8; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, 250));
    want = onlyThrough ? await member.ok(args) : comparable(await member.ok(args));
    got = comparable(withoutShadowAnnotations(await through.ok(args)));
    if (got === want) break;
  }
  expect(want.trim(), args.join(' ')).not.toBe('');
  expect(got, args.join(' ')).toBe(want);
}

describe.each(bothDialects('cp_diff'))('lists through clusterpedia equal the member\'s own (%s)', (_name, storage) => {
  let f: Fleet;
  let base: string;
  bindingOverFleet({ clusters: 2, pods: 30, seed: 29, sync: [...defaultSyncResources(), ...CUSTOM] }, storage, async (fleet, b) => {
    [f, base] = [fleet, b];
    await waitConverged(base, f.fleet);
  });

  it('every synced type, random label selectors (every operator, absent keys and values)', async () => {
    let nonEmpty = 0;
    let checked = 0;
    let accepted = 0;
    for (const [ci, c] of f.fleet.clusters.entries()) {
      for (const [ti, t] of syncedTypes().entries()) {
        for (const [qi, selector] of labelSelectors(c.store.list(t.gr), 1000 * ci + ti).entries()) {
          const path = `${t.path}?labelSelector=${encodeURIComponent(selector)}`;
          // Every third list walked in small pages, as kubectl --chunk-size does.
          const { member, ours } = await compare(base, c, path, qi % 3 === 0 ? 1 + (qi % 4) : undefined);
          // A selector the member refuses (`k in ()`) must be refused alike.
          expect(ours, `${c.name} ${path}`).toEqual(member);
          checked++;
          if (member.status === 200) accepted++;
          if (member.keys.length > 0) nonEmpty++;
        }
      }
    }
    // The selectors are drawn from the objects' own labels: most are valid and select something, so the comparison
    // means something.
    expect(accepted).toBeGreaterThan(checked * 0.9);
    expect(nonEmpty).toBeGreaterThan(checked / 5);
  }, 120_000);

  it('kubectl api-resources through a cluster\'s path prints the member\'s own rows for every synced type', async () => {
    await onMemberAndThrough(base, f.fleet.clusters[0]!, async (member, ours) => {
      const rows = async (k: Kubectl): Promise<Map<string, string>> => {
        const out = await k.ok(['api-resources', '--no-headers']);
        // NAME SHORTNAMES APIVERSION NAMESPACED KIND, keyed by name and group version.
        return new Map(out.trim().split('\n').map((l) => l.trim().split(/\s+/)).map((w) => [`${w[0]} ${w.at(-3)}`, w.join(' ')]));
      };
      const synced = syncedTypes().map((t) => `${t.def.resource} ${t.def.group ? `${t.def.group}/` : ''}${t.def.versions[0]}`);
      expect(synced.length).toBeGreaterThan(15);
      // A custom resource's short names come with the cluster's status or its CRD, either of which may still be on its way.
      await vi.waitFor(async () => {
        const [want, got] = [await rows(member), await rows(ours)];
        for (const id of synced) {
          expect(want.get(id), id).toBeDefined();
          expect(got.get(id), id).toBe(want.get(id));
        }
      }, { timeout: 10_000, interval: 250 });
    });
  });

  for (const [label, binary] of [['dispatcher', kubectlPath()], ['kubectl 1.27', oldestKubectl()]] as const) {
    it(`kubectl describe through a cluster's path prints what it prints against the member (${label})`, async () => {
      // describe reads more than the object: events by involvedObject field selectors, a Deployment's ReplicaSets and
      // a ReplicaSet's Pods by label selector, a Node's non-terminated Pods by spec.nodeName and status.phase. Types
      // whose describer reads what clusterpedia does not sync (Endpoints, ResourceQuotas, ...) are left out.
      const c = f.fleet.clusters[1]!;
      await onMemberAndThrough(base, c, async (member, ours) => {
        let described = 0;
        for (const gr of ['pods', 'deployments.apps', 'replicasets.apps', 'statefulsets.apps', 'daemonsets.apps', 'jobs.batch', 'cronjobs.batch', 'nodes', 'configmaps', 'secrets', 'serviceaccounts', 'persistentvolumeclaims', 'persistentvolumes']) {
          for (const o of c.store.list(gr).slice(0, 3)) {
            // A Node's Lease (kube-node-lease) is not among the synced types: its section is left out on both sides.
            await expectSamePrint(member, ours, ['describe', gr, o.metadata?.name ?? '', ...(o.metadata?.namespace ? ['-n', o.metadata.namespace] : [])],
              (t) => (gr === 'nodes' ? t.replace(/^Lease:.*\n(?: {2}.*\n)*/m, '') : t));
            described++;
          }
        }
        expect(described).toBeGreaterThan(20);
      }, binary, binary);
    }, 120_000);

    it(`kubectl rollout history, kubectl events and get all through a cluster's path print what they print against the member (${label})`, async () => {
      const c = f.fleet.clusters[0]!;
      await onMemberAndThrough(base, c, async (member, ours) => {
        // A pod that has events.
        const about = c.store.list('events').map((e) => e.involvedObject as { kind?: string; name?: string; namespace?: string }).find((o) => o.kind === 'Pod')!;
        const ns = about.namespace!;
        const commands: string[][] = [
          ['events', '-n', ns], ['events', '-A'], ['events', '-n', ns, '--for', `pod/${about.name}`], ['events', '-A', '--types', 'Normal'],
        ];
        for (const [gr, kind] of [['deployments.apps', 'deployment'], ['statefulsets.apps', 'statefulset'], ['daemonsets.apps', 'daemonset']] as const) {
          const o = c.store.list(gr)[0];
          if (o) commands.push(['rollout', 'history', `${kind}/${o.metadata!.name}`, '-n', o.metadata!.namespace!], ['rollout', 'history', `${kind}/${o.metadata!.name}`, '-n', o.metadata!.namespace!, '--revision', '1']);
        }
        expect(commands.length).toBeGreaterThan(8);
        for (const args of commands) await expectSamePrint(member, ours, args);
        // get's tables have a CLUSTER column (after NAMESPACE, if any), which a member's have not. The members' custom
        // resources print their CRDs' columns, priority ones with -o wide.
        const withoutCluster = (t: string): string => t.replace(new RegExp(`^((?:\\S+ +)?)(?:CLUSTER|${c.name}) +`, 'gm'), '$1');
        for (const args of [['get', 'all', '-n', ns, '-o', 'wide'], ['get', 'crontabs', '-A', '-o', 'wide'], ['get', 'certificates.cert-manager.io', '-A', '-o', 'wide'], ['get', 'clusterissuers']]) {
          await expectSamePrint(member, ours, args, withoutCluster, true);
        }
        // A custom resource's describer prints all its metadata: its resourceVersion through clusterpedia is the
        // storage revision (the member's is in an annotation).
        const cert = c.store.list('certificates.cert-manager.io')[0]!;
        await expectSamePrint(member, ours, ['describe', 'certificates.cert-manager.io', cert.metadata!.name!, '-n', cert.metadata!.namespace!],
          (t) => t.replace(/^( +Resource Version: +)\d+$/m, '$1N'));
      }, binary, binary);
    }, 120_000);
  }

  it('every object of every synced type is the member\'s, but for what the defaults prune and clusterpedia adds', async () => {
    // Pruned by default: managedFields and kubectl's last-applied annotation. Added: the shadow annotations, the
    // storage revision as metadata.resourceVersion (the member's is in an annotation, checked by the lists above), and
    // apiVersion and kind, which kube leaves out of a list's items and a stored object keeps.
    const comparable = (o: SimObject): unknown => {
      const { managedFields: _m, resourceVersion: _rv, annotations, ...meta } = o.metadata ?? {};
      const { apiVersion: _a, kind: _k, ...rest } = o;
      const kept = Object.entries(annotations ?? {}).filter(([k]) => !k.startsWith('shadow.clusterpedia.io/') && k !== 'kubectl.kubernetes.io/last-applied-configuration');
      return { ...rest, metadata: { ...meta, ...(kept.length ? { annotations: Object.fromEntries(kept) } : {}) } };
    };
    let objects = 0;
    for (const c of f.fleet.clusters) {
      for (const t of syncedTypes()) {
        await vi.waitFor(async () => {
          const member = await call<{ items: SimObject[] }>(c, t.path);
          const r = await fetch(`${base}${P}/clusters/${c.name}${t.path}`, { headers: { accept: 'application/json' } });
          const ours = (await r.json()) as { items: SimObject[] };
          expect(r.status).toBe(200);
          expect(ours.items.map(comparable), `${c.name} ${t.path}`).toEqual(member.body.items.map(comparable));
          objects += member.body.items.length;
        }, { timeout: 3_000, interval: 200 });
      }
    }
    expect(objects).toBeGreaterThan(200);
  }, 120_000);

  it('across the fleet: the union of the members\' answers, each item once', async () => {
    let nonEmpty = 0;
    for (const [ti, t] of syncedTypes().entries()) {
      const all = f.fleet.clusters.flatMap((c) => c.store.list(t.gr));
      for (const selector of labelSelectors(all, 50_000 + ti).slice(0, 4)) {
        const path = `${t.path}?labelSelector=${encodeURIComponent(selector)}`;
        await vi.waitFor(async () => {
          const members = await Promise.all(f.fleet.clusters.map(async (c) => ({ c, l: await fromMember(c, path) })));
          const want = members.flatMap(({ c, l }) => l.keys.map((k) => `${c.name} ${k}`)).sort();
          const r = await fetch(`${base}${P}${path}`, { headers: { accept: 'application/json' } });
          const body = (await r.json()) as { items?: Item[] };
          const got = r.status === 200 ? (body.items ?? []).map((i) => `${i.metadata.annotations?.['shadow.clusterpedia.io/cluster-name'] ?? '?'} ${keysOf([i], (x) => x.metadata.annotations?.['shadow.clusterpedia.io/resource-version'])[0]}`).sort() : [];
          expect({ status: r.status, got }, path).toEqual({ status: members[0]?.l.status, got: want });
          if (want.length > 0) nonEmpty++;
        }, { timeout: 3_000, interval: 200 });
      }
    }
    expect(nonEmpty).toBeGreaterThan(10);
  }, 120_000);

  it('every synced type, random field selectors on the fields kube lets a client select', async () => {
    let nonEmpty = 0;
    let checked = 0;
    for (const [ci, c] of f.fleet.clusters.entries()) {
      for (const [ti, t] of syncedTypes().entries()) {
        const objects = c.store.list(t.gr);
        for (const selector of fieldSelectors(t.def, objects, 7000 + 1000 * ci + ti)) {
          // Namespaced types also through one namespace's path, the one of the first object.
          const ns = t.def.namespaced ? objects[0]?.metadata?.namespace : undefined;
          for (const base_ of ns ? [t.path, t.path.replace(/\/([^/]+)$/, `/namespaces/${ns}/$1`)] : [t.path]) {
            const path = `${base_}?fieldSelector=${encodeURIComponent(selector)}`;
            const { member, ours } = await compare(base, c, path);
            expect(member.status, `${c.name} ${path}: the member refused the generated selector`).toBe(200);
            expect(ours, `${c.name} ${path}`).toEqual(member);
            checked++;
            if (member.keys.length > 0) nonEmpty++;
          }
        }
      }
    }
    expect(nonEmpty).toBeGreaterThan(checked / 3);
  }, 120_000);
});
