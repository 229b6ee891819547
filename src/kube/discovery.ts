// Member cluster discovery: API groups, their resources, and CustomResourceDefinitions, as plain data.
import { createHash } from 'node:crypto';
import type { KubeClient } from './client.js';
import { KubeApiError } from './client-errors.js';
import { pagesOf } from './listwatch.js';
import { compareVersionPriority } from './version-priority.js';
import { forEachLimited } from '../lib/pool.js';

/** One API group in the member's priority order of versions (preferred first). */
export interface DiscoveredGroup {
  name: string;
  versions: string[];
  preferredVersion: string;
}

/** One top-level resource of one group version (subresources are left out). */
export interface DiscoveredResource {
  group: string;
  version: string;
  /** Plural name, as in URLs. */
  resource: string;
  singular: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
  shortNames: string[];
  categories: string[];
}

/** What matters of an Established CRD: its names and served versions in Kubernetes version priority order. */
export interface CrdInfo {
  group: string;
  plural: string;
  kind: string;
  servedVersions: string[];
}

export interface Discovery {
  groups: DiscoveredGroup[];
  resources: DiscoveredResource[];
  /** Undefined when the CRD list could not be read (forbidden, not served). */
  crds: CrdInfo[] | undefined;
  /** Group versions (`group/version`, core `/v1`) whose resource list could not be read: their resources are unknown. */
  failed?: string[];
}

interface APIVersions { versions?: string[] }
interface APIGroupList { groups?: { name: string; versions?: { groupVersion: string; version: string }[]; preferredVersion?: { version: string } }[] }
interface APIResourceList {
  resources?: { name: string; singularName?: string; namespaced?: boolean; kind: string; verbs?: string[]; shortNames?: unknown; categories?: unknown }[];
}
interface CrdObject {
  metadata?: { name?: string; resourceVersion?: string };
  spec?: { group?: string; names?: { plural?: string; kind?: string }; versions?: { name: string; served?: boolean }[] };
  status?: { conditions?: { type?: string; status?: string }[] };
}

const CRDS_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
/** CRDs as kube-apiserver's metadata-only list (a server that cannot sends them whole, which reads the same). */
const METADATA_ONLY = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
/** CRDs per page: a CRD with a large schema is hundreds of kB; the page bound shrinks pages of such. */
const CRD_PAGE_SIZE = 100;
/**
 * Group versions read at once from a member over HTTP/1.1 (plain HTTP, a proxy, an exec client certificate). All at
 * once, a cluster's dozens of group versions opened as many connections, each a TLS handshake on a real member: a
 * synchro starting 1,000 simulated members held 14,000 sockets at its peak, 8,000 with 4 at once, and its heap
 * peaked 70 MB lower (BENCHMARKS.md, "A fleet of 1,000 small clusters").
 */
const HTTP1_DISCOVERY_READS = 4;

/**
 * /api and /apis are asked for kube's aggregated discovery first (kube-apiserver 1.27+: every group's versions and
 * resources in these two answers, instead of one more read per group version), legacy JSON else.
 */
const GROUPS_ACCEPT = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

interface APIGroupDiscoveryList {
  kind?: string;
  items?: { metadata?: { name?: string }; versions?: { version: string; freshness?: string; resources?: AggregatedResource[] }[] }[];
}
interface AggregatedResource {
  resource: string; responseKind?: { kind?: string }; scope?: string; singularResource?: string; verbs?: string[]; shortNames?: unknown; categories?: unknown;
}

/** What /api and /apis said: the groups, and the resources of the group versions aggregated discovery described. */
export interface GroupsRead {
  groups: DiscoveredGroup[];
  /** Resources by group version (`group/version`, core `/v1`), for those an aggregated answer described. */
  described: Map<string, DiscoveredResource[]>;
  /** Group versions aggregated discovery listed Stale (their aggregated API server is down): resources unknown. */
  stale: string[];
  /** Both answers were aggregated discovery: every group version's resources are described (or stale). */
  aggregated: boolean;
}

/**
 * A member's /api and /apis answers as the last poll got them: their ETag (aggregated discovery's) and a digest of
 * what they said, so that the next poll asks If-None-Match and a 304 stands for the same answer. Kept by the caller,
 * one per member.
 */
export type DiscoveryTags = Map<string, { etag: string; digest: string; aggregated: boolean }>;

/** What the poll sees. */
export interface GroupsPoll {
  /** Changes when the groups (with aggregated discovery, their resources too) or a CRD changed, appeared or went. */
  fingerprint: string;
  /** What /api and /apis said; undefined when the member answered 304 (unchanged) to either. */
  read: GroupsRead | undefined;
}

/**
 * The cheap poll: the groups (/api, /apis; a 304 when their ETag still matches), and from a member that answers them in
 * legacy JSON the CRDs' metadata only. A CRD changed, appeared or went changes its fingerprint; full discovery
 * (`discover`) is only needed then. The whole CRDs were read here before: with hundreds of CRDs (Crossplane providers)
 * that was tens of megabytes per member every poll. Aggregated discovery already lists every served version and
 * resource of every Established CRD, all that negotiation takes from them; their metadata would only add changes that
 * do not matter here (a controller rewriting a conversion webhook's CA bundle, say) and a read of every CRD each poll.
 */
export async function discoverGroups(client: KubeClient, signal?: AbortSignal, tags?: DiscoveryTags): Promise<GroupsPoll> {
  const groups = await readGroups(client, signal, tags);
  const crds = groups.aggregated ? 'aggregated' : await readCrds(client, METADATA_ONLY, signal, (crd) => `${crd.metadata?.name ?? ''}@${crd.metadata?.resourceVersion ?? ''}`);
  return { fingerprint: digestOf([groups.digest, crds]), read: groups.read };
}

function digestOf(value: unknown): string {
  return createHash('sha1').update(JSON.stringify(value)).digest('base64');
}

/** What /api and /apis said (undefined if either was a 304), its digest, and whether both were aggregated discovery. */
interface GroupsAnswer {
  read: GroupsRead | undefined;
  digest: string;
  aggregated: boolean;
}

async function readGroups(client: KubeClient, signal?: AbortSignal, tags?: DiscoveryTags): Promise<GroupsAnswer> {
  const [core, named] = await Promise.all([readGroupsAt(client, '/api', signal, tags), readGroupsAt(client, '/apis', signal, tags)]);
  const digest = `${core.digest} ${named.digest}`;
  const aggregated = core.aggregated && named.aggregated;
  if (!core.read || !named.read) return { read: undefined, digest, aggregated };
  return {
    aggregated,
    read: {
      groups: [...core.read.groups, ...named.read.groups],
      described: new Map([...core.read.described, ...named.read.described]),
      stale: [...core.read.stale, ...named.read.stale],
      aggregated,
    },
    digest,
  };
}

/** One of /api and /apis, aggregated or legacy, and the digest of what it said (the last one's, on a 304). */
async function readGroupsAt(client: KubeClient, path: '/api' | '/apis', signal?: AbortSignal, tags?: DiscoveryTags): Promise<GroupsAnswer> {
  const memo = tags?.get(path);
  const answer = await client.jsonUnlessMatch<APIVersions & APIGroupList & APIGroupDiscoveryList>(path, memo?.etag, { accept: GROUPS_ACCEPT, signal });
  if (answer === undefined) {
    if (memo) return { read: undefined, digest: memo.digest, aggregated: memo.aggregated };
    throw new KubeApiError(`GET ${path}: 304 Not Modified to a request that named no ETag`, 304, 'InvalidResponse', false);
  }
  const { value, etag } = answer;
  const aggregated = value.kind === 'APIGroupDiscoveryList';
  const read = aggregated ? fromAggregated(value) : path === '/api' ? fromVersions(value) : fromGroupList(value);
  const digest = digestOf([read.groups, [...read.described], read.stale]);
  if (etag !== undefined) tags?.set(path, { etag, digest, aggregated });
  else tags?.delete(path);
  return { read, digest, aggregated };
}

function fromVersions(core: APIVersions): GroupsRead {
  const versions = core.versions ?? [];
  return { groups: versions.length > 0 ? [{ name: '', versions, preferredVersion: versions[0]! }] : [], described: new Map(), stale: [], aggregated: false };
}

function fromGroupList(apis: APIGroupList): GroupsRead {
  const groups: DiscoveredGroup[] = [];
  for (const g of apis.groups ?? []) {
    const versions = (g.versions ?? []).map((v) => v.version);
    if (versions.length === 0) continue;
    groups.push({ name: g.name, versions, preferredVersion: g.preferredVersion?.version ?? versions[0]! });
  }
  return { groups, described: new Map(), stale: [], aggregated: false };
}

/** An APIGroupDiscoveryList: versions in the member's priority order (preferred first), as kube sorts them. */
function fromAggregated(list: APIGroupDiscoveryList): GroupsRead {
  const out: GroupsRead = { groups: [], described: new Map(), stale: [], aggregated: true };
  for (const item of list.items ?? []) {
    const group = item.metadata?.name ?? '';
    const versions = (item.versions ?? []).filter((v) => typeof v.version === 'string' && v.version !== '');
    if (versions.length === 0) continue;
    out.groups.push({ name: group, versions: versions.map((v) => v.version), preferredVersion: versions[0]!.version });
    for (const v of versions) {
      const gv = `${group}/${v.version}`;
      if (v.freshness === 'Stale') {
        out.stale.push(gv);
        continue;
      }
      const resources: DiscoveredResource[] = [];
      for (const r of v.resources ?? []) {
        const kind = r.responseKind?.kind;
        // client-go leaves out a resource without a kind too: nothing could be stored of it.
        if (!kind || !r.resource) continue;
        resources.push({
          group, version: v.version, resource: r.resource, singular: r.singularResource || kind.toLowerCase(),
          kind, namespaced: r.scope === 'Namespaced', verbs: r.verbs ?? [], shortNames: nameList(r.shortNames), categories: nameList(r.categories),
        });
      }
      out.described.set(gv, resources);
    }
  }
  return out;
}

/**
 * Full discovery: groups, CRDs, and every group version's resources. Those aggregated discovery described are taken
 * from it; the others are read one by one (`/api/v1`, `/apis/<group>/<version>`). A group version that fails (an
 * aggregated API that is down answers 503, or is listed Stale) is left out and named in `failed` rather than failing
 * the whole discovery. `read`: what a poll just read (discoverGroups), so it is not asked for again.
 */
export async function discover(
  client: KubeClient, signal?: AbortSignal, o: { maxPageBytes?: number; read?: GroupsRead } = {},
): Promise<Discovery> {
  // Asked with no ETag, the member cannot answer 304: read is there.
  const read = o.read ?? (await readGroups(client, signal)).read!;
  // Aggregated discovery describes every Established CRD's served resources: the CRDs' names say which resources
  // are theirs, and their whole objects (tens of MB on a member with hundreds of large CRDs) are not read at all.
  const crds = read.aggregated
    ? await readCrds(client, METADATA_ONLY, signal, (crd) => crd.metadata?.name).then((names) => names && crdsDescribed(names, read))
    : await readCrds(client, 'application/json', signal, crdInfo, o.maxPageBytes);
  const gvs = read.groups.flatMap((g) => g.versions.map((v) => `${g.name}/${v}`));
  const stale = new Set(read.stale);
  const unread = gvs.filter((gv) => !read.described.has(gv) && !stale.has(gv));
  const lists = new Map<string, DiscoveredResource[] | 'failed'>();
  // Over HTTP/2 every read shares the one connection; over HTTP/1.1 each read in flight holds a connection of its own.
  const inFlight = client.protocol === 'h2' ? unread.length : HTTP1_DISCOVERY_READS;
  await forEachLimited(unread, inFlight, async (gv) => {
    const [group = '', version = ''] = gv.split('/');
    const path = group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
    try {
      lists.set(gv, fromResourceList(group, version, await client.json<APIResourceList>(path, { signal })));
    } catch (e: unknown) {
      if (e instanceof KubeApiError && e.status !== 0 && !signal?.aborted) lists.set(gv, 'failed');
      else throw e;
    }
  });
  const resources: DiscoveredResource[] = [];
  const failed: string[] = [];
  for (const gv of gvs) {
    const list = read.described.get(gv) ?? lists.get(gv);
    if (list === undefined || list === 'failed') failed.push(gv);
    else resources.push(...list);
  }
  return { groups: read.groups, resources, crds, ...(failed.length > 0 ? { failed } : {}) };
}

/**
 * The CRDs named `names` (`<plural>.<group>`) as aggregated discovery describes them: the versions that serve each,
 * in Kubernetes version priority order. A CRD it does not describe (not Established, no version served) is left out,
 * as crdInfo leaves out one not Established.
 */
function crdsDescribed(names: string[], read: GroupsRead): CrdInfo[] {
  const byResource = new Map<string, DiscoveredResource[]>();
  for (const list of read.described.values()) {
    for (const r of list) {
      const key = `${r.resource}.${r.group}`;
      const served = byResource.get(key);
      if (served) served.push(r);
      else byResource.set(key, [r]);
    }
  }
  const out: CrdInfo[] = [];
  for (const name of names) {
    const served = byResource.get(name);
    if (!served) continue;
    out.push({ group: served[0]!.group, plural: served[0]!.resource, kind: served[0]!.kind, servedVersions: served.map((r) => r.version).sort(compareVersionPriority) });
  }
  return out;
}

/** Most short names or categories taken of one resource: kubectl's discovery, and the cluster's status, carry them. */
const NAMES_AT_MOST = 32;
const NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/**
 * A resource's short names or categories as a member sent them: the DNS labels of a list (what kube accepts in a CRD),
 * at most NAMES_AT_MOST; nothing of anything else. An aggregated API server's discovery is not validated by kube.
 */
export function nameList(v: unknown): string[] {
  if (!Array.isArray(v)) return [];
  return v.filter((n): n is string => typeof n === 'string' && NAME.test(n)).slice(0, NAMES_AT_MOST);
}

function fromResourceList(group: string, version: string, list: APIResourceList): DiscoveredResource[] {
  const out: DiscoveredResource[] = [];
  for (const r of list.resources ?? []) {
    if (r.name.includes('/')) continue;
    out.push({
      group, version, resource: r.name,
      singular: r.singularName || r.kind.toLowerCase(),
      kind: r.kind, namespaced: r.namespaced ?? false, verbs: r.verbs ?? [], shortNames: nameList(r.shortNames), categories: nameList(r.categories),
    });
  }
  return out;
}

/**
 * Every CRD mapped by `map` (undefined results left out), page by page within `maxPageBytes` (the synchro's list page
 * bound: 100 CRDs of large schemas are tens of MB); undefined when CRDs cannot be read.
 */
async function readCrds<R>(
  client: KubeClient, accept: string, signal: AbortSignal | undefined, map: (crd: CrdObject) => R | undefined, maxPageBytes?: number,
): Promise<R[] | undefined> {
  const out: R[] = [];
  try {
    const pages = pagesOf<CrdObject>(client, CRDS_PATH, { pageSize: CRD_PAGE_SIZE, accept, signal: signal ?? new AbortController().signal, maxPageBytes });
    for await (const { page } of pages) {
      for (const crd of page.items ?? []) {
        const r = map(crd);
        if (r !== undefined) out.push(r);
      }
    }
  } catch (e: unknown) {
    if (e instanceof KubeApiError && (e.status === 403 || e.status === 404 || e.status === 401)) return undefined;
    throw e;
  }
  return out;
}

function crdInfo(crd: CrdObject): CrdInfo | undefined {
  const group = crd.spec?.group;
  const plural = crd.spec?.names?.plural;
  if (!group || !plural) return undefined;
  const established = (crd.status?.conditions ?? []).some((c) => c.type === 'Established' && c.status === 'True');
  if (!established) return undefined;
  const served = (crd.spec?.versions ?? []).filter((v) => v.served !== false).map((v) => v.name);
  return { group, plural, kind: crd.spec?.names?.kind ?? '', servedVersions: served.sort(compareVersionPriority) };
}
