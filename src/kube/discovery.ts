// Member cluster discovery: API groups, their resources, and CustomResourceDefinitions, as plain data.
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
  resources?: { name: string; singularName?: string; namespaced?: boolean; kind: string; verbs?: string[]; shortNames?: string[] }[];
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

/** What the poll sees: the groups, and each CRD's name and resourceVersion (undefined: CRDs not readable). */
export interface GroupsPoll {
  groups: DiscoveredGroup[];
  crds: string[] | undefined;
}

/**
 * The cheap poll: the groups (/api, /apis) and the CRDs' metadata only. A CRD changed, appeared or went changes its
 * result; full discovery (`discover`) is only needed then. The whole CRDs were read here before: with hundreds of
 * CRDs (Crossplane providers) that was tens of megabytes per member every poll.
 */
export async function discoverGroups(client: KubeClient, signal?: AbortSignal): Promise<GroupsPoll> {
  const [groups, crds] = await Promise.all([
    readGroups(client, signal),
    readCrds(client, METADATA_ONLY, signal, (crd) => `${crd.metadata?.name ?? ''}@${crd.metadata?.resourceVersion ?? ''}`),
  ]);
  return { groups, crds };
}

async function readGroups(client: KubeClient, signal?: AbortSignal): Promise<DiscoveredGroup[]> {
  const [core, apis] = await Promise.all([
    client.json<APIVersions>('/api', { signal }),
    client.json<APIGroupList>('/apis', { signal }),
  ]);
  const groups: DiscoveredGroup[] = [];
  const coreVersions = core.versions ?? [];
  if (coreVersions.length > 0) groups.push({ name: '', versions: coreVersions, preferredVersion: coreVersions[0]! });
  for (const g of apis.groups ?? []) {
    const versions = (g.versions ?? []).map((v) => v.version);
    if (versions.length === 0) continue;
    groups.push({ name: g.name, versions, preferredVersion: g.preferredVersion?.version ?? versions[0]! });
  }
  return groups;
}

/**
 * Full discovery: groups, CRDs, and every group version's resources. A group version that fails (an aggregated
 * API that is down answers 503) is left out and named in `failed` rather than failing the whole discovery. `groups`:
 * those a poll just read (discoverGroups), so they are not asked for again and match the poll's fingerprint.
 */
export async function discover(
  client: KubeClient, signal?: AbortSignal, o: { maxPageBytes?: number; groups?: DiscoveredGroup[] } = {},
): Promise<Discovery> {
  const [groups, crds] = await Promise.all([o.groups ?? readGroups(client, signal), readCrds(client, 'application/json', signal, crdInfo, o.maxPageBytes)]);
  const gvs = groups.flatMap((g) => g.versions.map((v) => ({ group: g.name, version: v })));
  const lists: { gv: { group: string; version: string }; list: APIResourceList; failed: boolean }[] = [];
  // Over HTTP/2 every read shares the one connection; over HTTP/1.1 each read in flight holds a connection of its own.
  const inFlight = client.protocol === 'h2' ? gvs.length : HTTP1_DISCOVERY_READS;
  await forEachLimited([...gvs.entries()], inFlight, async ([i, gv]) => {
    const path = gv.group === '' ? `/api/${gv.version}` : `/apis/${gv.group}/${gv.version}`;
    try {
      lists[i] = { gv, list: await client.json<APIResourceList>(path, { signal }), failed: false };
    } catch (e: unknown) {
      if (e instanceof KubeApiError && e.status !== 0 && !signal?.aborted) lists[i] = { gv, list: {} as APIResourceList, failed: true };
      else throw e;
    }
  });
  const resources: DiscoveredResource[] = [];
  const failed = lists.filter((l) => l.failed).map((l) => `${l.gv.group}/${l.gv.version}`);
  for (const { gv, list } of lists) {
    for (const r of list.resources ?? []) {
      if (r.name.includes('/')) continue;
      resources.push({
        group: gv.group, version: gv.version, resource: r.name,
        singular: r.singularName || r.kind.toLowerCase(),
        kind: r.kind, namespaced: r.namespaced ?? false, verbs: r.verbs ?? [], shortNames: r.shortNames ?? [],
      });
    }
  }
  return { groups, resources, crds, ...(failed.length > 0 ? { failed } : {}) };
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
