// What the apiserver knows exists: clusters, their resource types (stored or being synced), CRD printer columns.
// Rebuilt from storage at most every `ttlMs` (more on a fleet whose catalog takes long to read), so discovery and
// routing never scan the resources table.
import { builtinResource, isBuiltinGroup, singularOf } from '../../kube/builtin-resources.js';
import type { PrinterColumn } from '../../kube/printers/index.js';
import { namespacesExcludedBy } from '../../kube/pediacluster.js';
import type { StorageReader, StoredRow, TypeFilter } from '../../storage/types.js';
import { deadline } from '../../lib/lifecycle.js';
import { UnansweredError } from '../../storage/errors.js';
import { compareVersionPriority } from '../../kube/version-priority.js';
import { builtinSubresources, crdSubresources, type Subresources } from '../../kube/subresources.js';
import { nameList } from '../../kube/discovery.js';

export interface TypeInfo {
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespaced: boolean;
  singularName: string;
  shortNames: string[];
  categories: string[];
  /** The verbs discovery lists; get, list and watch when absent. */
  verbs?: readonly string[];
}

export interface ClusterInfo {
  name: string;
  /** ClusterHealthy condition: status and reason, when the synchro has reported one. */
  healthy?: { status: string; reason: string };
  types: Map<string, TypeInfo>;
}

/** Where the clusters a list or watch reads stand for its type (see Catalog.coverage). */
export interface TypeCoverage {
  /** Clusters that store the group/resource only at other versions (most preferred first): their rows are left out. */
  elsewhere: { cluster: string; versions: string[] }[];
  /** Clusters whose rows are in the answer while their ClusterHealthy condition is not True. */
  notReady: { cluster: string; reason: string }[];
  /** Clusters whose rows are in the answer while the resource's first list there has not ended: some are missing. */
  firstListing: string[];
  /** Clusters in the answer that do not sync some of the namespaces asked for (spec.excludeNamespaces). */
  excluding: Excluding[];
}

/** A cluster that leaves out some of the namespaces a list asks for, and which (spec.excludeNamespaces). */
export interface Excluding {
  cluster: string;
  namespaces: string[];
}

/** Of `asked`, those in `excluded` (a cluster's, for one type). */
function leftOut(excluded: readonly string[] | undefined, asked: readonly string[]): string[] {
  return excluded ? asked.filter((ns) => excluded.includes(ns)) : [];
}

interface Snapshot {
  clusters: Map<string, ClusterInfo>;
  /** Union over clusters. */
  all: Map<string, TypeInfo>;
  /** group/resource → cluster → the versions it stores or syncs. */
  versions: Map<string, Map<string, string[]>>;
  /** group/resource → the clusters where its first list is running (sync condition Pending, initialListPhase). */
  firstListing: Map<string, Set<string>>;
  /** group/resource → cluster → the namespaces its sync leaves out (spec.excludeNamespaces, from its field selector). */
  excluded: Map<string, Map<string, readonly string[]>>;
  /**
   * Some cluster is still finding its types: its synchro has not named them yet (no syncResources or an empty list,
   * and not known to be unreachable), or a first list is running. Discovery then reads a fresher snapshot (Catalog.types).
   */
  settling: boolean;
  /** group/resource/version → CRD printer columns (from stored CustomResourceDefinitions). */
  crdColumns: Map<string, PrinterColumn[]>;
  /** group/resource/version → the status and scale subresources a stored CRD declares. */
  crdSubresources: Map<string, Subresources>;
  /** group/resource → names from stored CRDs (short names, singular, categories). */
  crdNames: Map<string, { singular?: string; shortNames?: string[]; categories?: string[] }>;
  at: number;
  /** The storage revision read before the snapshot's tables: a later one means rows may have come since. */
  revision: string;
}

/** How many TTLs old a snapshot may be and still answer while a refresh runs (Catalog.get). */
const STALE_SERVE_TTLS = 5;

/** Refreshes take at most 1/LOAD_SHARE of the time: the TTL grows with the time a load takes. */
const LOAD_SHARE = 20;
/** ... but the TTL grows to no more than this many times the configured one. */
const MAX_TTLS = 10;
/** A lookup that misses refreshes no snapshot younger than this many load times (nor than one TTL). */
const MISS_LOADS = 4;

/** A lookup that misses refreshes a snapshot older than this, whatever the revision says (status-only changes). */
const MISS_REFRESH_MS = 250;

const typeKey = (group: string, version: string, resource: string): string => `${group}/${version}/${resource}`;

export class Catalog {
  private snap: Snapshot | undefined;
  private pending: Promise<Snapshot> | undefined;
  /** Stored CRDs as of the last load, by cluster, version and name (loadCrds). */
  private crdRows = new Map<string, CrdRow>();
  /** What loadCrds made of them, and the storage revision it read them at (or found none written since). */
  private crds: { revision: string; maps: CrdMaps } | undefined;
  /** What those rows say, by its JSON: one object for the same CRD in every cluster. */
  private readonly crdIntern = new Map<string, CrdInfo>();
  /** How long the last load took (real time, ms). */
  private loadMs = 0;
  /** Loads in a row that ran out of time (loadTimeoutMs). */
  private timedOut = 0;

  /**
   * `loadTimeoutMs`: a load not done after this long fails and the next caller starts another; one waiting on a
   * PostgreSQL connection that died without a word would otherwise hold every request that needs a fresh snapshot
   * until the kernel gave the connection up, up to a quarter of an hour.
   */
  constructor(private readonly storage: StorageReader, private readonly ttlMs = 2000, private readonly now: () => number = Date.now,
    private readonly loadTimeoutMs = 60_000) {}

  /**
   * The current snapshot, refreshed when older than `maxAgeMs` (the TTL by default); concurrent callers share one
   * refresh. Past the TTL (but not STALE_SERVE_TTLS of them) a snapshot still answers while the next one loads, so
   * requests do not wait on a refresh (a fleet's catalog takes a while to read); a caller that asks for a fresher one
   * (a lookup that missed) or will not take a stale one (`staleOk` false: discovery) waits for it.
   */
  async get(maxAgeMs = this.ttl(), staleOk = true): Promise<Snapshot> {
    const snap = this.snap;
    const age = snap ? this.now() - snap.at : Infinity;
    if (snap && age < maxAgeMs) return snap;
    const started = performance.now();
    // Each load that ran out of time gives the next twice as long (up to 16 times): a fleet's catalog that only loads
    // slowly (a loaded server) must still load.
    const ms = this.loadTimeoutMs * 2 ** Math.min(this.timedOut, 4);
    let late = false;
    this.pending ??= deadline(this.load(), ms, () => {
      late = true;
      return new UnansweredError(ms);
    }).then(
      (next) => {
        this.timedOut = 0;
        // The first load also parses every stored CRD, once: it says little about the next ones.
        if (snap) this.loadMs = performance.now() - started;
        this.snap = next;
        this.pending = undefined;
        return next;
      },
      (e: unknown) => {
        this.pending = undefined;
        if (late) this.timedOut++;
        throw e;
      },
    );
    if (snap && staleOk && maxAgeMs >= this.ttl() && age < STALE_SERVE_TTLS * this.ttl()) {
      // Its failure is the next caller's to see: this one answers from what it has.
      this.pending.catch(() => undefined);
      return snap;
    }
    return this.pending;
  }

  /**
   * The TTL, or more when a load takes long (a large fleet): refreshes then take at most 1/LOAD_SHARE of the time,
   * up to MAX_TTLS times the TTL.
   */
  private ttl(): number {
    return Math.min(Math.max(this.ttlMs, LOAD_SHARE * this.loadMs), MAX_TTLS * this.ttlMs);
  }

  /**
   * Looks something up, and when the cached snapshot does not have it, once more in a fresh one: a cluster or type
   * that appeared since must not answer 404 (a client that just listed its rows would be told it does not exist).
   * A miss reloads when storage's revision moved past the snapshot's (rows written since), or when the snapshot is
   * older than MISS_REFRESH_MS (a cluster status alone moves no revision); a flood of bogus names on a quiet store
   * costs one revision read each, and loads in flight are shared.
   */
  private async lookup<T>(find: (s: Snapshot) => T | undefined, staleOk = true): Promise<T | undefined> {
    const snap = await this.get(undefined, staleOk);
    const found = find(snap);
    if (found !== undefined) return found;
    // Misses on a fleet whose catalog takes long to load (over MISS_REFRESH_MS / MISS_LOADS) refresh it less often:
    // a flood of bogus names must not keep it loading.
    const age = this.now() - snap.at;
    const spacing = Math.min(MISS_LOADS * this.loadMs, this.ttlMs);
    if (spacing > MISS_REFRESH_MS && age < spacing) return undefined;
    const stale = age >= MISS_REFRESH_MS || (await this.storage.currentRevision()) !== snap.revision;
    return stale ? find(await this.get(0)) : undefined;
  }

  /** Forget the snapshot (tests; after a known change). */
  invalidate(): void {
    this.snap = undefined;
  }

  async cluster(name: string): Promise<ClusterInfo | undefined> {
    return this.lookup((s) => s.clusters.get(name));
  }

  /** Type info for one GVR in one cluster, or in any cluster when `cluster` is undefined. */
  async type(cluster: string | undefined, group: string, version: string, resource: string): Promise<TypeInfo | undefined> {
    const k = typeKey(group, version, resource);
    return this.lookup((s) => (cluster === undefined ? s.all.get(k) : s.clusters.get(cluster)?.types.get(k)));
  }

  /**
   * The types discovery lists: never from a snapshot past its TTL, since kubectl keeps discovery for hours (a type
   * missing from it, `pods` during a first sync, sends `kubectl get pods` to another group's `pods` until then). While
   * a cluster is still finding its types (Snapshot.settling), from one no older than a lookup that misses would take:
   * a type with no rows yet is listed as soon as the synchro's status names it, not a TTL later (kubectl, told a
   * resource type does not exist, reads discovery again once). Nor without the rows written since it was read (the
   * revision moved): a client that has just listed a cluster's first pods must find `pods` in its discovery.
   */
  async types(cluster: string | undefined): Promise<TypeInfo[]> {
    const snap = this.snap;
    if (snap?.settling) {
      const written = (await this.storage.currentRevision()) !== snap.revision;
      await this.get(written ? 0 : Math.max(MISS_REFRESH_MS, Math.min(MISS_LOADS * this.loadMs, this.ttlMs)), false);
    }
    const m = await this.lookup((s) => (cluster === undefined ? s.all : s.clusters.get(cluster)?.types), false);
    return m ? [...m.values()] : [];
  }

  /**
   * How the clusters `inScope` admits cover one type, for the warnings of a list or watch (warnings.ts): those left
   * out because they keep it at another version (a fleet whose members serve a Gateway API or Istio CRD at v1beta1
   * and v1, a beta built-in on an older member, keeps each member's rows at its own version), and of those in the
   * answer, the ones not ready, the ones whose first list of it has not ended, and those that leave out some of
   * `namespaces`.
   */
  async coverage(group: string, version: string, resource: string, inScope: (cluster: string) => boolean, namespaces: readonly string[] = []): Promise<TypeCoverage> {
    const s = await this.get();
    const out: TypeCoverage = { elsewhere: [], notReady: [], firstListing: [], excluding: [] };
    const gr = `${group}/${resource}`;
    const listing = s.firstListing.get(gr);
    const excluded = s.excluded.get(gr);
    for (const [cluster, versions] of s.versions.get(gr) ?? []) {
      if (!inScope(cluster)) continue;
      if (!versions.includes(version)) {
        out.elsewhere.push({ cluster, versions: sortVersions(versions) });
        continue;
      }
      const healthy = s.clusters.get(cluster)?.healthy;
      if (healthy?.status !== 'True') out.notReady.push({ cluster, reason: healthy?.reason ?? '' });
      if (listing?.has(cluster)) out.firstListing.push(cluster);
      const left = leftOut(excluded?.get(cluster), namespaces);
      if (left.length > 0) out.excluding.push({ cluster, namespaces: left });
    }
    return out;
  }

  /**
   * For a collection: the clusters `inScope` admits that leave out some of `namespaces` for any type `covers` admits.
   * A cluster's exclusion holds for all its namespaced types alike, so this is the union over them.
   */
  async excludingNamespaces(namespaces: readonly string[], inScope: (cluster: string) => boolean, covers: (group: string, resource: string) => boolean): Promise<Excluding[]> {
    if (namespaces.length === 0) return [];
    const byCluster = new Map<string, Set<string>>();
    for (const [gr, clusters] of (await this.get()).excluded) {
      const slash = gr.indexOf('/');
      if (!covers(gr.slice(0, slash), gr.slice(slash + 1))) continue;
      for (const [cluster, excluded] of clusters) {
        if (!inScope(cluster)) continue;
        const left = leftOut(excluded, namespaces);
        if (left.length === 0) continue;
        let set = byCluster.get(cluster);
        if (!set) byCluster.set(cluster, (set = new Set()));
        for (const ns of left) set.add(ns);
      }
    }
    return [...byCluster].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([cluster, set]) => ({ cluster, namespaces: namespaces.filter((ns) => set.has(ns)) }));
  }

  /** The clusters `inScope` admits whose ClusterHealthy condition is not True (a collection reads every type). */
  async notReady(inScope: (cluster: string) => boolean): Promise<TypeCoverage['notReady']> {
    const out: TypeCoverage['notReady'] = [];
    for (const [cluster, c] of (await this.get()).clusters) {
      if (inScope(cluster) && c.healthy?.status !== 'True') out.push({ cluster, reason: c.healthy?.reason ?? '' });
    }
    return out;
  }

  async crdColumns(group: string, version: string, resource: string): Promise<PrinterColumn[] | undefined> {
    return (await this.get()).crdColumns.get(typeKey(group, version, resource));
  }

  /** The `status` and `scale` subresources of a type: kube's for built-ins, the stored CRD's for custom resources. */
  async subresources(group: string, version: string, resource: string): Promise<Subresources> {
    if (isBuiltinGroup(group)) return builtinSubresources(group, resource);
    return (await this.get()).crdSubresources.get(typeKey(group, version, resource)) ?? { status: false };
  }

  private async load(): Promise<Snapshot> {
    // Read first: whatever is written after it shows as a newer revision to a lookup that misses.
    const revision = await this.storage.currentRevision();
    const [stored, statuses] = await Promise.all([this.storage.resourceTypes(), this.storage.clusterStatuses()]);
    const crdVersions = sortVersions(stored.filter((t) => t.group === CRD_GROUP && t.resource === CRD_RESOURCE).map((t) => t.version));
    const crd = await this.loadCrds(revision, crdVersions);
    const clusters = new Map<string, ClusterInfo>();
    const all = new Map<string, TypeInfo>();
    const versions = new Map<string, Map<string, string[]>>();
    const ensure = (name: string): ClusterInfo => {
      let c = clusters.get(name);
      if (!c) {
        c = { name, types: new Map() };
        clusters.set(name, c);
      }
      return c;
    };
    // A custom resource's names: its stored CRD's, else those a member's discovery gave it (the first cluster's status
    // that has them), so that short names and categories work without its CRD synced.
    const memberNames = new Map<string, MemberNames>();
    const typesOf = new Map<string, SyncedType[]>();
    for (const [name, rec] of statuses) {
      const types = syncedTypes(rec.status);
      typesOf.set(name, types);
      for (const t of types) if (t.names && !memberNames.has(`${t.group}/${t.resource}`)) memberNames.set(`${t.group}/${t.resource}`, t.names);
    }
    // The same type in every cluster is described once (a fleet holds clusters × types of them).
    const described = new Map<string, TypeInfo>();
    const add = (cluster: string, t: { group: string; version: string; resource: string; kind: string; namespaced: boolean }): void => {
      const k = typeKey(t.group, t.version, t.resource);
      const dk = `${k}/${t.kind}/${t.namespaced ? 1 : 0}`;
      let info = described.get(dk);
      const gr = `${t.group}/${t.resource}`;
      if (!info) described.set(dk, (info = describe(t, crd.names.get(gr) ?? memberNames.get(gr))));
      ensure(cluster).types.set(k, info);
      if (!all.has(k)) all.set(k, info);
      let byCluster = versions.get(gr);
      if (!byCluster) versions.set(gr, (byCluster = new Map()));
      const held = byCluster.get(cluster);
      if (!held) byCluster.set(cluster, [t.version]);
      else if (!held.includes(t.version)) held.push(t.version);
    };
    for (const t of stored) add(t.cluster, t);
    const firstListing = new Map<string, Set<string>>();
    const excluded = new Map<string, Map<string, readonly string[]>>();
    let settling = false;
    for (const [name, rec] of statuses) {
      const c = ensure(name);
      const healthy = conditionOf(rec.status, 'ClusterHealthy');
      if (healthy) c.healthy = healthy;
      // The synchro writes an empty list until it has negotiated the cluster's types (a status before its first probe
      // and discovery): rows can come before the status names their types.
      const named = rec.status.syncResources;
      if ((!Array.isArray(named) || named.length === 0) && healthy?.status !== 'False') settling = true;
      for (const t of typesOf.get(name) ?? []) {
        add(name, t);
        const gr = `${t.group}/${t.resource}`;
        if (t.excluded.length > 0) {
          let byCluster = excluded.get(gr);
          if (!byCluster) excluded.set(gr, (byCluster = new Map()));
          byCluster.set(name, t.excluded);
        }
        if (!t.firstList) continue;
        settling = true;
        let set = firstListing.get(gr);
        if (!set) firstListing.set(gr, (set = new Set()));
        set.add(name);
      }
    }
    return { clusters, all, versions, firstListing, excluded, settling, crdColumns: crd.columns, crdSubresources: crd.subresources, crdNames: crd.names, at: this.now(), revision };
  }

  /**
   * Printer columns, names and subresources of the CRDs synced from members (apiextensions.k8s.io
   * customresourcedefinitions rows, however many). A fleet that syncs its CRDs keeps thousands of them, often tens of
   * kB each (OpenAPI schemas): a refresh asks the change log whether any was written since the last one, and if so
   * reads their keys and revisions and parses only the rows written since (all of them, once, at the first load).
   */
  private async loadCrds(revision: string, versions: string[]): Promise<CrdMaps> {
    if (this.crds) {
      const since = await this.storage.changesSince(this.crds.revision, { types: CRD_TYPES }, 1);
      if (!since.expired && since.changes.length === 0) {
        this.crds.revision = revision;
        return this.crds.maps;
      }
    }
    const rows = new Map<string, CrdRow>();
    const stale = new Map<string, { cluster: string; version: string; name: string }>();
    // One type at a time, the least preferred version first (the preferred one's CRDs are applied last, and win):
    // a single type's rows come in the order of its key index.
    const types = versions.reverse().map((version): TypeFilter => ({ kind: 'one', group: CRD_GROUP, version, resource: CRD_RESOURCE }));
    for (const t of types) {
      for await (const row of (await this.storage.list({ types: t, keysOnly: true })).rows) {
        const key = crdRowKey(row);
        const had = this.crdRows.get(key);
        if (had?.revision === row.revision) {
          rows.set(key, had);
        } else {
          rows.set(key, { revision: row.revision, info: undefined });
          stale.set(key, { cluster: row.cluster, version: row.version, name: row.name });
        }
      }
    }
    // The same CRD in a hundred clusters is kept once.
    const intern = this.crdIntern;
    const keep = (key: string, row: StoredRow): void => {
      let info = crdInfo(row.object);
      if (info) {
        const text = JSON.stringify(info);
        info = intern.get(text) ?? info;
        intern.set(text, info);
      }
      rows.set(key, { revision: row.revision, info });
      stale.delete(key);
    };
    if (stale.size > CRD_GETS_AT_MOST) {
      // Many written since (the first load): read them in one pass rather than one query each, in small pages, so
      // that each page's objects die young instead of piling up as garbage (tens of kB each).
      for (const t of types) {
        let token: string | undefined;
        do {
          const page = await this.storage.list({ types: t, limit: CRD_PAGE, ...(token ? { continue: { token } } : {}) });
          for await (const row of page.rows) {
            const key = crdRowKey(row);
            if (stale.has(key)) keep(key, row);
          }
          token = page.continueToken();
        } while (token);
      }
    } else {
      for (const [key, k] of stale) {
        const row = await this.storage.get({ cluster: k.cluster, group: CRD_GROUP, version: k.version, resource: CRD_RESOURCE, namespace: '', name: k.name });
        if (row) keep(key, row);
      }
    }
    // Left: deleted since their keys were read.
    for (const key of stale.keys()) rows.delete(key);
    this.crdRows = rows;
    const used = new Set<CrdInfo>();
    for (const { info } of rows.values()) if (info) used.add(info);
    for (const [text, info] of intern) if (!used.has(info)) intern.delete(text);
    const columns = new Map<string, PrinterColumn[]>();
    const subresources = new Map<string, Subresources>();
    const names: Snapshot['crdNames'] = new Map();
    // Rows in (version, cluster, name) order; where clusters' CRDs of one type differ, the last one read wins.
    for (const { info } of rows.values()) {
      if (!info) continue;
      names.set(`${info.group}/${info.plural}`, info.names);
      for (const v of info.versions) {
        if (v.columns) columns.set(typeKey(info.group, v.name, info.plural), v.columns);
        subresources.set(typeKey(info.group, v.name, info.plural), v.subresources);
      }
    }
    this.crds = { revision, maps: { columns, subresources, names } };
    return this.crds.maps;
  }
}

/** A stored CRD row's key: a cluster may keep a CRD at more than one version of apiextensions. */
const crdRowKey = (row: StoredRow): string => `${row.cluster}\u0000${row.version}\u0000${row.name}`;

interface CrdMaps {
  columns: Map<string, PrinterColumn[]>;
  subresources: Map<string, Subresources>;
  names: Snapshot['crdNames'];
}

const CRD_GROUP = 'apiextensions.k8s.io';
const CRD_RESOURCE = 'customresourcedefinitions';
const CRD_TYPES: TypeFilter = { kind: 'many', entries: [{ group: CRD_GROUP, resource: CRD_RESOURCE }] };
/** Up to this many CRD rows written since the last refresh are read one by one; more, in one pass over all. */
const CRD_GETS_AT_MOST = 50;
const CRD_PAGE = 50;

/** What the catalog keeps of one stored CRD: what discovery, Tables and subresources need, not its schemas. */
interface CrdInfo {
  group: string;
  plural: string;
  names: { singular?: string; shortNames?: string[]; categories?: string[] };
  versions: { name: string; columns?: PrinterColumn[]; subresources: Subresources }[];
}

/** A stored CRD row as last read: its revision, and what it says (undefined when it names no group or plural). */
interface CrdRow {
  revision: string;
  info: CrdInfo | undefined;
}

function crdInfo(text: string): CrdInfo | undefined {
  let crd: CrdObject;
  try {
    crd = JSON.parse(text) as CrdObject;
  } catch {
    return undefined;
  }
  const group = crd.spec?.group;
  const plural = crd.spec?.names?.plural;
  if (!group || !plural) return undefined;
  const n = crd.spec?.names;
  const versions: CrdInfo['versions'] = [];
  for (const v of crd.spec?.versions ?? []) {
    if (!v.name) continue;
    const columns = v.additionalPrinterColumns ?? crd.spec?.additionalPrinterColumns;
    versions.push({ name: v.name, ...(columns ? { columns } : {}), subresources: crdSubresources(v.subresources ?? crd.spec?.subresources) });
  }
  return { group, plural, names: { singular: n?.singular, shortNames: n?.shortNames, categories: n?.categories }, versions };
}

interface CrdObject {
  spec?: {
    group?: string;
    names?: { plural?: string; singular?: string; shortNames?: string[]; categories?: string[]; kind?: string };
    additionalPrinterColumns?: PrinterColumn[];
    subresources?: unknown;
    versions?: { name?: string; additionalPrinterColumns?: PrinterColumn[]; subresources?: unknown }[];
  };
}

/** A type as discovery lists it: kube's names for a built-in, the stored CRD's for a custom resource. */
export function describe(t: { group: string; version: string; resource: string; kind: string; namespaced: boolean },
  crd?: { singular?: string; shortNames?: string[]; categories?: string[] }): TypeInfo {
  const b = builtinResource(t.group, t.resource);
  return {
    group: t.group,
    version: t.version,
    resource: t.resource,
    kind: t.kind || b?.kind || '',
    namespaced: b ? b.namespaced : t.namespaced,
    singularName: crd?.singular ?? singularOf(t.kind || b?.kind || t.resource),
    shortNames: b?.shortNames ?? crd?.shortNames ?? [],
    categories: b?.categories ?? crd?.categories ?? [],
  };
}

function conditionOf(status: Record<string, unknown>, type: string): { status: string; reason: string } | undefined {
  const conds = status.conditions;
  if (!Array.isArray(conds)) return undefined;
  for (const c of conds) {
    if (c && typeof c === 'object' && (c as { type?: unknown }).type === type) {
      const o = c as { status?: unknown; reason?: unknown };
      return { status: String(o.status ?? 'Unknown'), reason: String(o.reason ?? '') };
    }
  }
  return undefined;
}

interface SyncedType {
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespaced: boolean;
  /** Its first list is running: the status is still Pending (it turns Syncing when the list ends) in initialListPhase. */
  firstList: boolean;
  /** The namespaces its field selector leaves out (spec.excludeNamespaces). */
  excluded: readonly string[];
  /** The names the member's discovery gives a resource kube does not build in. */
  names?: MemberNames;
}

type MemberNames = { singular?: string; shortNames?: string[]; categories?: string[] };

/** The names a synchro recorded for a resource in its status, if any. */
function memberNamesOf(r: { singularName?: unknown; shortNames?: unknown; categories?: unknown }): MemberNames | undefined {
  if (typeof r.singularName !== 'string' || r.singularName === '') return undefined;
  return { singular: r.singularName, shortNames: nameList(r.shortNames), categories: nameList(r.categories) };
}

/** Types the synchro reported in PediaCluster.status.syncResources (so empty synced types are discoverable). */
function syncedTypes(status: Record<string, unknown>): SyncedType[] {
  const out: SyncedType[] = [];
  const groups = status.syncResources;
  if (!Array.isArray(groups)) return out;
  for (const g of groups as { group?: unknown; resources?: unknown }[]) {
    const group = typeof g?.group === 'string' ? g.group : '';
    if (!Array.isArray(g?.resources)) continue;
    for (const r of g.resources as { name?: unknown; kind?: unknown; namespaced?: unknown; syncConditions?: unknown; singularName?: unknown; shortNames?: unknown; categories?: unknown }[]) {
      if (typeof r?.name !== 'string' || !Array.isArray(r.syncConditions)) continue;
      const names = memberNamesOf(r);
      for (const c of r.syncConditions as { version?: unknown; storageVersion?: unknown; status?: unknown; initialListPhase?: unknown; fieldSelector?: unknown }[]) {
        const version = typeof c?.storageVersion === 'string' && c.storageVersion ? c.storageVersion : c?.version;
        if (typeof version !== 'string' || !version) continue;
        out.push({
          group, version, resource: r.name, kind: typeof r.kind === 'string' ? r.kind : '', namespaced: r.namespaced === true,
          firstList: c.initialListPhase === true && c.status === 'Pending',
          excluded: typeof c.fieldSelector === 'string' ? namespacesExcludedBy(c.fieldSelector) : [],
          ...(names ? { names } : {}),
        });
      }
    }
  }
  return out;
}

/** Versions of a group, preferred first. */
export function sortVersions(versions: Iterable<string>): string[] {
  return [...new Set(versions)].sort(compareVersionPriority);
}
