// URL query of a list/watch request → the parsed query model (ListQuery) plus kube's list options (API.md §4).
import { parseWhereSql } from './where-sql.js';
import { badRequest } from '../../kube/status.js';
import { isSelectorError, parseInt64 } from '../../kube/selector-syntax.js';
import { parseLabelSelector } from '../../kube/label-selector.js';
import { parseFieldSelector } from '../../kube/field-selector.js';
import { withFieldLabels } from '../../kube/field-labels.js';
import { isSearchTimeError, parseSearchTime } from '../../kube/search-time.js';
import type { ListQuery, OwnerFilter, SetFilter, TypeFilter, WatchFilter } from '../../storage/types.js';
import { firstParam, invalidParam, parseBool, parseKubeListOptions } from './list-options-kube.js';
import { revisionWanted, type RevisionWanted } from './read-revision.js';
import { splitSearchLabels, type SearchLabels } from './list-options-search-labels.js';
import { parseOrderByLabel, parseOrderByParam } from './list-options-orderby.js';
import { parseAnyCollectionTypes } from './list-options-collection.js';

interface InputBase {
  query: URLSearchParams;
  /**
   * The negotiated response carries only metadata (PartialObjectMetadataList, or a Table of a collection
   * resource): onlyMetadata is forced on.
   */
  metadataOnly?: boolean;
  /** --allow-parameterized-sql-query: whereSQLStatement is honoured (else every whereSQL key is ignored). */
  allowSql?: boolean;
}

/** A list/watch under `/apis/clusterpedia.io/v1beta1/resources[/clusters/<c>]/…`: one GVR. */
export interface ResourcesListInput extends InputBase {
  mode: 'resources';
  group: string;
  version: string;
  resource: string;
  /** `…/resources/clusters/<c>/…`: replaces `clusters` with in [c]. */
  pathCluster?: string;
  /** `…/namespaces/<ns>/<resource>`: replaces `namespaces` with in [ns]. */
  pathNamespace?: string;
}

/** A get of `/apis/clusterpedia.io/v1beta1/collectionresources/<name>`. */
export interface CollectionListInput extends InputBase {
  mode: 'collection';
  /** `any` takes its types from the `groups`/`resources` query; the others bring `types`. */
  collection: string;
  /** The fixed types of a named collection; ignored for `any`. Default: every type. */
  types?: TypeFilter;
}

export type ListOptionsInput = ResourcesListInput | CollectionListInput;

/** What the watch loop needs; present only for `watch=true`. */
export interface WatchOptions {
  filter: WatchFilter;
  resourceVersion: string | undefined;
  allowWatchBookmarks: boolean;
  /** undefined when absent or 0: the server picks. */
  timeoutSeconds: number | undefined;
  /** WatchList's initial events; validated as kube does (requires resourceVersionMatch=NotOlderThan). */
  sendInitialEvents: boolean | undefined;
}

export interface ParsedListOptions {
  query: ListQuery;
  watch: WatchOptions | undefined;
  /** What the list's resourceVersion asks of its answer (read-revision.ts). */
  revision: RevisionWanted;
  timeoutSeconds: number | undefined;
  /**
   * Clusterpedia's withContinue, when given. Our lists always emit a continue token for a full page
   * (API.md §4); a handler may honour an explicit false by leaving it out.
   */
  withContinue: boolean | undefined;
  /** `search.clusterpedia.io/inject-events` (also the URL `injectEvents`, which Clusterpedia forgot to decode). */
  injectEvents: boolean;
}

const OWNER_NEEDS_CLUSTER = 'If searching by owner uid or name, then the cluster must be specified';

/**
 * Label and field requirements one list may ask. Each is a term of the query's WHERE: SQLite refuses past ~990 of them
 * (its expression depth of 1,000), and tens of thousands (a 1 MiB request line) overflowed the query builder's stack
 * (a 500). The same bound on both dialects, checked before any query is built.
 */
export const MAX_SELECTOR_REQUIREMENTS = 900;

/** Parses a selector parameter; a grammar error becomes a 400 naming the parameter, with the parser's message. */
export function selector<T>(param: string, raw: string, parse: (s: string) => T): T {
  try {
    return parse(raw);
  } catch (e: unknown) {
    if (isSelectorError(e)) throw invalidParam(param, raw, e.message);
    throw e;
  }
}

/**
 * `a, b,,c` → in [a, b, c]: trimmed items, empty and duplicate items dropped; a parameter with no item counts as
 * absent. (Go's strings.Split keeps the empty item, and in Clusterpedia `namespaces=a,,b` then also matches every
 * cluster-scoped object, whose namespace is ''; nobody asks for that on purpose.)
 */
export function urlSet(query: URLSearchParams, key: string): SetFilter | undefined {
  const values = [...new Set((firstParam(query, key) ?? '').split(',').map((v) => v.trim()).filter((v) => v !== ''))];
  return values.length > 0 ? { op: 'in', values } : undefined;
}

/** The URL value when non-blank, else the search label's (reference §2.1 step 4: the URL wins). */
function pick(query: URLSearchParams, param: string, labelValue: string | undefined): string | undefined {
  const v = firstParam(query, param)?.trim();
  return v ? v : labelValue;
}

function parseTime(what: 'Since' | 'Before', value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  try {
    return parseSearchTime(value);
  } catch (e: unknown) {
    if (isSearchTimeError(e)) throw badRequest(`Invalid Query ${what}(${value}): ${e.message}`);
    throw e;
  }
}

/** A non-negative integer search value (owner seniority, offset), or a 400 in Clusterpedia's words. */
function nonNegative(what: string, value: string): number {
  const n = parseInt64(value);
  if (n === undefined || n < 0n || n > BigInt(Number.MAX_SAFE_INTEGER)) throw badRequest(`Invalid Query ${what}(${value}): must be a non-negative integer`);
  return Number(n);
}

/**
 * Generations below the owner. Each is one more nested subquery, and storage's SQL parsers give out in the twenties
 * (SQLite: "Expression tree is too large"); real owner chains are a few deep (Deployment → ReplicaSet → Pod is 1,
 * CronJob → Job → Pod too). Past the bound: a 400 saying so, not a storage error.
 */
export const MAX_OWNER_SENIORITY = 16;

function ownerSeniority(value: string): number {
  const n = nonNegative('OwnerSeniority', value);
  if (n > MAX_OWNER_SENIORITY) throw badRequest(`Invalid Query OwnerSeniority(${value}): must be at most ${MAX_OWNER_SENIORITY}`);
  return n;
}

/** `deployments.apps` → {group:'apps', resource:'deployments'}; `pods` → core (schema.ParseGroupResource). */
function parseGroupResource(value: string): { group: string; resource: string } {
  const dot = value.indexOf('.');
  const gr = dot < 0 ? { group: '', resource: value } : { group: value.slice(dot + 1), resource: value.slice(0, dot) };
  if (gr.resource === '') throw badRequest(`Invalid Query OwnerGR(${value}): expected <resource>[.<group>], e.g. deployments.apps or pods`);
  return gr;
}

function parseOwner(query: URLSearchParams, labels: SearchLabels): OwnerFilter | undefined {
  const uid = pick(query, 'ownerUID', labels.scalars['owner-uid']);
  const name = pick(query, 'ownerName', labels.scalars['owner-name']);
  // ownerGR and ownerSeniority mean nothing without a uid or a name (reference §2.8): no owner filter.
  if (!uid && !name) return undefined;
  const urlSeniority = firstParam(query, 'ownerSeniority')?.trim();
  let seniority = urlSeniority ? ownerSeniority(urlSeniority) : 0;
  const labelSeniority = labels.scalars['owner-seniority'];
  if (seniority === 0 && labelSeniority !== undefined) seniority = ownerSeniority(labelSeniority);
  // The UID wins over the name (reference §2.8), and the group/resource only narrows a search by name.
  if (uid) return { uid, seniority };
  const owner: OwnerFilter = { name, seniority };
  const gr = pick(query, 'ownerGR', labels.scalars['owner-gr']);
  if (gr) owner.groupResource = parseGroupResource(gr);
  return owner;
}

function parseContinue(raw: string | undefined, labelOffset: string | undefined, resourceVersion: string | undefined): ListQuery['continue'] {
  if (raw !== undefined) {
    if (/^\d+$/.test(raw)) return { offset: nonNegative('Offset', raw) };
    // Kube's storage rule for continue tokens: the token already pins the version.
    if (resourceVersion !== undefined && resourceVersion !== '0') throw badRequest('specifying resource version is not allowed when using continue');
    return { token: raw };
  }
  if (labelOffset === undefined) return undefined;
  if (!/^\d+$/.test(labelOffset)) throw badRequest(`Invalid Query Offset(${labelOffset}): must be a non-negative integer`);
  return { offset: nonNegative('Offset', labelOffset) };
}

function labelLimit(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = parseInt64(value);
  if (n === undefined) throw badRequest(`Invalid Query Limit(${value}): must be an integer`);
  // ≤ 0 is "no limit", as for the URL parameter.
  return n > 0n ? Number(n > BigInt(Number.MAX_SAFE_INTEGER) ? BigInt(Number.MAX_SAFE_INTEGER) : n) : undefined;
}

function labelBool(value: string | undefined): boolean | undefined {
  return value === undefined ? undefined : parseBool(value);
}

/**
 * Decodes and validates everything a list/watch URL says (reference §2.1–§2.10 with API.md §4's deliberate
 * differences). Throws only StatusError (400 BadRequest naming the parameter); never SQL text in the result.
 */
export function parseListOptions(input: ListOptionsInput): ParsedListOptions {
  const { query } = input;
  const kube = parseKubeListOptions(query);

  const rawLabels = firstParam(query, 'labelSelector') ?? '';
  const labels = splitSearchLabels(selector('labelSelector', rawLabels, (s) => parseLabelSelector(s, { sourceOrder: true })));
  const rawFields = firstParam(query, 'fieldSelector') ?? '';
  const fields = selector('fieldSelector', rawFields, parseFieldSelector);
  const requirements = labels.labels.length + fields.length;
  if (requirements > MAX_SELECTOR_REQUIREMENTS) {
    throw badRequest(`the query has too many filter values or requirements for storage: ${requirements} label and field selector requirements, at most ${MAX_SELECTOR_REQUIREMENTS}`);
  }

  const q: ListQuery = { types: resolveTypes(input) };
  const clusters = urlSet(query, 'clusters') ?? labels.sets.clusters;
  const namespaces = urlSet(query, 'namespaces') ?? labels.sets.namespaces;
  const names = urlSet(query, 'names') ?? labels.sets.names;
  if (clusters) q.clusters = clusters;
  if (namespaces) q.namespaces = namespaces;
  if (names) q.names = names;
  if (input.mode === 'resources') {
    if (input.pathCluster !== undefined) q.clusters = { op: 'in', values: [input.pathCluster] };
    if (input.pathNamespace !== undefined) q.namespaces = { op: 'in', values: [input.pathNamespace] };
  }
  if (labels.labels.length) q.labels = labels.labels;
  // Kubernetes' field labels of the one resource asked for keep kube's meaning (field-labels.ts).
  if (fields.length) q.fields = input.mode === 'resources' ? withFieldLabels(input.group, input.resource, fields) : fields;

  const since = parseTime('Since', pick(query, 'since', labels.scalars.since));
  const before = parseTime('Before', pick(query, 'before', labels.scalars.before));
  if (since && before && before.getTime() < since.getTime()) throw badRequest('Invalid Query, Since is after Before');
  if (since) q.since = since;
  if (before) q.before = before;

  // Owner filters exist only in the resources API; collections ignore them (reference §1.6).
  if (input.mode === 'resources') {
    const owner = parseOwner(query, labels);
    if (owner) {
      if (q.clusters?.op !== 'in' || q.clusters.values.length !== 1) throw badRequest(OWNER_NEEDS_CLUSTER);
      // A watch filter cannot follow ownership, so a watch would stream unrelated objects.
      if (kube.watch) throw badRequest('watch: owner search (ownerUID, ownerName) is not supported with watch=true');
      q.owner = owner;
    }
  }
  if (labels.fuzzyNames?.length) q.fuzzyNames = labels.fuzzyNames;
  const where = parseWhereSql(query, input.allowSql === true);
  if (where) {
    // Live changes are matched in JS, where SQL cannot be evaluated.
    if (kube.watch) throw badRequest('watch: whereSQLStatement is not supported with watch=true');
    q.where = where;
  }

  const orderbyParam = firstParam(query, 'orderby')?.trim();
  const orderBy = orderbyParam ? parseOrderByParam(orderbyParam) : labels.orderby ? parseOrderByLabel(labels.orderby) : undefined;
  if (orderBy?.length) q.orderBy = orderBy;

  const limit = kube.limit ?? labelLimit(labels.scalars.limit);
  if (limit !== undefined) q.limit = limit;
  const cont = parseContinue(kube.continue, labels.scalars.offset, kube.resourceVersion);
  if (cont) q.continue = cont;
  const withRemainingCount = parseBool(firstParam(query, 'withRemainingCount')) ?? labelBool(labels.scalars['with-remaining-count']);
  if (withRemainingCount !== undefined) q.withRemainingCount = withRemainingCount;
  if (parseBool(firstParam(query, 'onlyMetadata')) || input.metadataOnly) q.onlyMetadata = true;

  return {
    query: q,
    watch: kube.watch ? {
      filter: watchFilter(q),
      resourceVersion: kube.resourceVersion,
      allowWatchBookmarks: kube.allowWatchBookmarks,
      timeoutSeconds: kube.timeoutSeconds,
      sendInitialEvents: kube.sendInitialEvents,
    } : undefined,
    revision: revisionWanted({ resourceVersion: kube.resourceVersion, resourceVersionMatch: kube.resourceVersionMatch, limit, continued: cont !== undefined }),
    timeoutSeconds: kube.timeoutSeconds,
    withContinue: parseBool(firstParam(query, 'withContinue')) ?? labelBool(labels.scalars['with-continue']),
    injectEvents: parseBool(firstParam(query, 'injectEvents')) ?? labelBool(labels.scalars['inject-events']) ?? false,
  };
}

function resolveTypes(input: ListOptionsInput): TypeFilter {
  if (input.mode === 'resources') return { kind: 'one', group: input.group, version: input.version, resource: input.resource };
  // `groups`/`resources` are read only for `any`; the fixed collections ignore them (reference §1.6).
  if (input.collection === 'any') return parseAnyCollectionTypes(input.query);
  return input.types ?? { kind: 'all' };
}

/** The part of a ListQuery a change can be matched against (owner, order and paging do not apply to watches). */
function watchFilter(q: ListQuery): WatchFilter {
  const f: WatchFilter = { types: q.types };
  for (const k of ['clusters', 'namespaces', 'names', 'labels', 'fields', 'fuzzyNames', 'since', 'before'] as const) {
    if (q[k] !== undefined) Object.assign(f, { [k]: q[k] });
  }
  return f;
}
