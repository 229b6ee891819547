// Read-only PediaCluster API for clusters registered from a file: `kubectl get pediaclusters` shows their state.
import type { ClusterStatusRecord } from '../../storage/types.js';
import { notFound } from '../../kube/status.js';
import { buildTable, customResourcePrinter, rowObject, type IncludeObject, type PrinterColumn, type Table } from '../../kube/printers/index.js';
import { kubeTime, type KubeObject } from '../../kube/types.js';
import { stringMap } from '../../kube/printers/fields.js';
import { parseFieldSelector } from '../../kube/field-selector.js';
import { parseLabelSelector } from '../../kube/label-selector.js';
import { matchesFields, matchesLabels } from '../../kube/match.js';
import type { FieldRequirement, LabelRequirement } from '../../kube/requirement.js';
import { selector } from './list-options.js';

export const PEDIACLUSTER_API_VERSION = 'cluster.clusterpedia.io/v1alpha2';

/** The CRD's printer columns (reference §4.1), evaluated by the same JSONPath printer as member CRDs. */
export const PEDIACLUSTER_COLUMNS: PrinterColumn[] = [
  { name: 'Ready', type: 'string', jsonPath: ".status.conditions[?(@.type == 'Ready')].status" },
  { name: 'Version', type: 'string', jsonPath: '.status.version' },
  { name: 'APIServer', type: 'string', jsonPath: '.status.apiserver' },
  { name: 'Validated', type: 'string', priority: 10, jsonPath: ".status.conditions[?(@.type == 'Validated')].reason" },
  { name: 'SynchroRunning', type: 'string', priority: 10, jsonPath: ".status.conditions[?(@.type == 'SynchroRunning')].reason" },
  { name: 'ClusterHealthy', type: 'string', priority: 10, jsonPath: ".status.conditions[?(@.type == 'ClusterHealthy')].reason" },
  { name: 'ShardingName', type: 'string', priority: 10, jsonPath: '.status.shardingName' },
];

/** Spec fields that carry credentials: never served, whatever the record holds. */
const SECRET_SPEC_FIELDS = ['kubeconfig', 'caData', 'tokenData', 'certData', 'keyData'];

export function pediaClusterObject(name: string, rec: ClusterStatusRecord): KubeObject {
  // The stored summary keeps the PediaCluster's labels beside its spec (cluster-manager.ts specSummary).
  // creationTimestamp rides in the summary to become metadata's; labels are shown apart.
  const { labels, creationTimestamp: _created, ...spec } = rec.spec;
  for (const f of SECRET_SPEC_FIELDS) delete spec[f];
  const metadata: KubeObject['metadata'] = { name, uid: uidFor(name), resourceVersion: String(Date.parse(rec.updatedAt) || 0), creationTimestamp: creationOf(rec) };
  const shown = stringMap(labels);
  if (Object.keys(shown).length > 0) metadata.labels = shown;
  return { apiVersion: PEDIACLUSTER_API_VERSION, kind: 'PediaCluster', metadata, spec, status: rec.status };
}

/** What a list of PediaClusters is narrowed by: labelSelector on metadata.labels, fieldSelector on any field path. */
export interface PediaClusterFilter {
  labels: readonly LabelRequirement[];
  fields: readonly FieldRequirement[];
}

/** The list's selectors; a malformed one is a 400 naming the parameter, as for resources. */
export function pediaClusterFilter(query: URLSearchParams): PediaClusterFilter {
  return {
    labels: selector('labelSelector', query.get('labelSelector') ?? '', (s) => parseLabelSelector(s)),
    fields: selector('fieldSelector', query.get('fieldSelector') ?? '', parseFieldSelector),
  };
}

/** The PediaClusters `filter` selects, by name. */
export function pediaClusterObjects(statuses: Map<string, ClusterStatusRecord>, filter: PediaClusterFilter): KubeObject[] {
  const names = [...statuses.keys()].sort();
  return names.map((n) => pediaClusterObject(n, statuses.get(n) as ClusterStatusRecord))
    .filter((o) => matchesLabels(o.metadata?.labels, filter.labels) && matchesFields(o, filter.fields));
}

/**
 * The list's resourceVersion is its newest record's (an object's is its record's write time in milliseconds), so
 * `kubectl get -w` watches from it and is sent only what was written after the list.
 */
export function pediaClusterList(statuses: Map<string, ClusterStatusRecord>, filter: PediaClusterFilter = { labels: [], fields: [] }): Record<string, unknown> {
  const items = pediaClusterObjects(statuses, filter);
  let newest = 0;
  for (const o of items) newest = Math.max(newest, Number(o.metadata?.resourceVersion ?? 0) || 0);
  return { apiVersion: PEDIACLUSTER_API_VERSION, kind: 'PediaClusterList', metadata: { resourceVersion: String(newest) }, items };
}

export function pediaClusterGet(statuses: Map<string, ClusterStatusRecord>, name: string): Record<string, unknown> {
  const rec = statuses.get(name);
  if (!rec) throw notFound(`pediaclusters.cluster.clusterpedia.io "${name}" not found`, { name, group: 'cluster.clusterpedia.io', kind: 'pediaclusters' });
  return pediaClusterObject(name, rec);
}

function creationOf(rec: ClusterStatusRecord): string {
  const c = rec.spec.creationTimestamp;
  const at = Date.parse(typeof c === 'string' ? c : rec.updatedAt);
  // metav1.Time's form (records written before it carried milliseconds); an unreadable one is shown as it is.
  return Number.isNaN(at) ? String(c ?? rec.updatedAt) : kubeTime(at);
}

/** A stable pseudo-UID per name (clusters from a file have no UID of their own). */
function uidFor(name: string): string {
  let h = 2166136261;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 16777619) >>> 0;
  const hex = h.toString(16).padStart(8, '0');
  return `${hex}-0000-4000-8000-${hex}${hex.slice(0, 4)}`;
}

/** The Table kubectl asks for: the CRD's printer columns (no Cluster column: a PediaCluster is one). */
export function pediaClusterTable(body: Record<string, unknown>, includeObject: IncludeObject = 'Metadata'): Table {
  const items = (Array.isArray(body.items) ? body.items : [body]) as KubeObject[];
  const p = customResourcePrinter(PEDIACLUSTER_COLUMNS);
  const now = new Date();
  // kubectl --sort-by and -o custom-columns ask for includeObject=Object and read the rows' objects.
  const printer = { columns: p.columns, row: (obj: KubeObject) => ({ cells: p.cells(obj, now), object: rowObject(obj, includeObject) }) };
  // The list's resourceVersion: kubectl get -w watches from it (with none, every cluster would be printed twice).
  const meta = body.metadata as { resourceVersion?: string } | undefined;
  return buildTable(printer, items, { resourceVersion: meta?.resourceVersion ?? '' }, { now });
}
