// CustomResourceDefinitions: the friendly SimCrd shape, the CRD object kube stores, and the ResourceDef served from it.
import type { PrinterColumn, ResourceDef, SimObject } from './types.js';

/** A CRD as tests describe it; `crdObject` turns it into the apiextensions.k8s.io/v1 object. */
export interface SimCrd {
  group: string;
  plural: string;
  kind: string;
  singular?: string;
  listKind?: string;
  shortNames?: string[];
  categories?: string[];
  scope: 'Namespaced' | 'Cluster';
  /** Served versions; the one with `storage: true` (default: the first) is where objects are stored. */
  versions: Array<{ name: string; served?: boolean; storage?: boolean; printerColumns?: PrinterColumn[] }>;
  statusSubresource?: boolean;
}

const CR_VERBS = ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'];

/** kube's version priority: GA > beta > alpha, higher numbers first, then non-kube names alphabetically. */
export function compareKubeVersions(a: string, b: string): number {
  const parse = (v: string): [number, number, number, string] => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return [0, 0, 0, v];
    const stage = m[2] === undefined ? 3 : m[2] === 'beta' ? 2 : 1;
    return [stage, Number(m[1]), Number(m[3] ?? 0), v];
  };
  const [sa, ma, na, va] = parse(a);
  const [sb, mb, nb, vb] = parse(b);
  if ((sa === 0) !== (sb === 0)) return sa === 0 ? 1 : -1;
  if (sa === 0) return va < vb ? -1 : va > vb ? 1 : 0;
  if (ma !== mb) return mb - ma;
  if (sa !== sb) return sb - sa;
  return nb - na;
}

/** The CRD object as kube-apiserver would store and serve it (Established, names accepted). */
export function crdObject(crd: SimCrd, creationTimestamp: string): SimObject {
  const singular = crd.singular ?? crd.kind.toLowerCase();
  const names = {
    plural: crd.plural,
    singular,
    kind: crd.kind,
    listKind: crd.listKind ?? `${crd.kind}List`,
    ...(crd.shortNames?.length ? { shortNames: crd.shortNames } : {}),
    ...(crd.categories?.length ? { categories: crd.categories } : {}),
  };
  const storage = crd.versions.find((v) => v.storage)?.name ?? crd.versions[0]?.name ?? 'v1';
  const condition = (type: string, reason: string, message: string): Record<string, string> => ({
    type, status: 'True', lastTransitionTime: creationTimestamp, reason, message,
  });
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${crd.plural}.${crd.group}`, creationTimestamp, generation: 1 },
    spec: {
      group: crd.group,
      names,
      scope: crd.scope,
      versions: crd.versions.map((v) => ({
        name: v.name,
        served: v.served ?? true,
        storage: v.name === storage,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        ...(crd.statusSubresource ? { subresources: { status: {} } } : {}),
        ...(v.printerColumns?.length ? { additionalPrinterColumns: v.printerColumns } : {}),
      })),
      conversion: { strategy: 'None' },
    },
    status: {
      acceptedNames: names,
      conditions: [
        condition('NamesAccepted', 'NoConflicts', 'no conflicts found'),
        condition('Established', 'InitialNamesAccepted', 'the initial names have been accepted'),
      ],
      storedVersions: [storage],
    },
  };
}

interface CrdSpecShape {
  group?: string;
  scope?: string;
  names?: { plural?: string; singular?: string; kind?: string; listKind?: string; shortNames?: string[]; categories?: string[] };
  versions?: Array<{ name?: string; served?: boolean; storage?: boolean; subresources?: { status?: unknown }; additionalPrinterColumns?: PrinterColumn[] }>;
}

/** The resource served for a CRD object, or an error message when the object is not a usable CRD. */
export function defFromCrdObject(obj: SimObject): ResourceDef | string {
  const spec = (obj.spec ?? {}) as CrdSpecShape;
  const names = spec.names ?? {};
  if (!spec.group || !names.plural || !names.kind) return 'spec.group, spec.names.plural and spec.names.kind are required';
  if (obj.metadata.name !== `${names.plural}.${spec.group}`) return `metadata.name must be spec.names.plural+"."+spec.group`;
  const served = (spec.versions ?? []).filter((v) => v.served !== false && typeof v.name === 'string');
  if (served.length === 0) return 'spec.versions must have at least one served version';
  const versions = served.map((v) => v.name as string).sort(compareKubeVersions);
  const preferred = served.find((v) => v.name === versions[0]);
  return {
    group: spec.group,
    versions,
    resource: names.plural,
    kind: names.kind,
    listKind: names.listKind ?? `${names.kind}List`,
    singular: names.singular ?? names.kind.toLowerCase(),
    shortNames: names.shortNames ?? [],
    categories: names.categories ?? [],
    verbs: CR_VERBS,
    namespaced: spec.scope !== 'Cluster',
    statusSubresource: served.some((v) => v.subresources?.status !== undefined),
    selectableFields: {},
    custom: true,
    printerColumns: preferred?.additionalPrinterColumns ?? [],
  };
}

const AGE: PrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };

/** CRDs every member cluster has: one serving two versions, one namespaced, one cluster-scoped. */
export function memberCrds(): SimCrd[] {
  return [
    {
      group: 'stable.example.com', plural: 'crontabs', kind: 'CronTab', shortNames: ['ct'], scope: 'Namespaced', statusSubresource: true,
      versions: [
        { name: 'v1', storage: true, printerColumns: [{ name: 'Spec', type: 'string', jsonPath: '.spec.cronSpec' }, { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' }, AGE] },
        { name: 'v1beta1', printerColumns: [{ name: 'Spec', type: 'string', jsonPath: '.spec.cronSpec' }, AGE] },
      ],
    },
    {
      group: 'cert-manager.io', plural: 'certificates', kind: 'Certificate', shortNames: ['cert', 'certs'], categories: ['cert-manager'], scope: 'Namespaced', statusSubresource: true,
      versions: [{
        name: 'v1', printerColumns: [
          { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
          { name: 'Secret', type: 'string', jsonPath: '.spec.secretName' },
          { name: 'Issuer', type: 'string', jsonPath: '.spec.issuerRef.name', priority: 1 },
          AGE,
        ],
      }],
    },
    {
      group: 'cert-manager.io', plural: 'clusterissuers', kind: 'ClusterIssuer', categories: ['cert-manager'], scope: 'Cluster', statusSubresource: true,
      versions: [{ name: 'v1', printerColumns: [{ name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' }, AGE] }],
    },
  ];
}

/** The clusterpedia CRDs a host cluster has (cluster.clusterpedia.io/v1alpha2, cluster-scoped). */
export function hostCrds(): SimCrd[] {
  const condition = (type: string): string => `.status.conditions[?(@.type == '${type}')]`;
  return [
    {
      group: 'cluster.clusterpedia.io', plural: 'pediaclusters', kind: 'PediaCluster', scope: 'Cluster', statusSubresource: true,
      versions: [{
        name: 'v1alpha2', printerColumns: [
          { name: 'Ready', type: 'string', jsonPath: `${condition('Ready')}.status` },
          { name: 'Version', type: 'string', jsonPath: '.status.version' },
          { name: 'APIServer', type: 'string', jsonPath: '.status.apiserver' },
          { name: 'Validated', type: 'string', jsonPath: `${condition('Validated')}.reason`, priority: 10 },
          { name: 'SynchroRunning', type: 'string', jsonPath: `${condition('SynchroRunning')}.reason`, priority: 10 },
          { name: 'ClusterHealthy', type: 'string', jsonPath: `${condition('ClusterHealthy')}.reason`, priority: 10 },
          { name: 'ShardingName', type: 'string', jsonPath: '.status.shardingName', priority: 10 },
        ],
      }],
    },
    {
      group: 'cluster.clusterpedia.io', plural: 'clustersyncresources', singular: 'clustersyncresources', kind: 'ClusterSyncResources', scope: 'Cluster',
      versions: [{ name: 'v1alpha2' }],
    },
  ];
}
