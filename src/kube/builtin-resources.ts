// What kube-apiserver's discovery says about built-in resources (kind, singular, short names, categories, scope),
// so our discovery lets `kubectl get po,deploy` resolve short names even before a CRD or object is seen.

export interface BuiltinResource {
  group: string;
  resource: string;
  kind: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
}

const ALL = ['all'];

// [group, resource, kind, namespaced, shortNames, categories]
type Row = [string, string, string, boolean, string[]?, string[]?];
const ROWS: Row[] = [
  ['', 'bindings', 'Binding', true],
  ['', 'componentstatuses', 'ComponentStatus', false, ['cs']],
  ['', 'configmaps', 'ConfigMap', true, ['cm']],
  ['', 'endpoints', 'Endpoints', true, ['ep']],
  ['', 'events', 'Event', true, ['ev']],
  ['', 'limitranges', 'LimitRange', true, ['limits']],
  ['', 'namespaces', 'Namespace', false, ['ns']],
  ['', 'nodes', 'Node', false, ['no']],
  ['', 'persistentvolumeclaims', 'PersistentVolumeClaim', true, ['pvc']],
  ['', 'persistentvolumes', 'PersistentVolume', false, ['pv']],
  ['', 'pods', 'Pod', true, ['po'], ALL],
  ['', 'podtemplates', 'PodTemplate', true],
  ['', 'replicationcontrollers', 'ReplicationController', true, ['rc'], ALL],
  ['', 'resourcequotas', 'ResourceQuota', true, ['quota']],
  ['', 'secrets', 'Secret', true],
  ['', 'serviceaccounts', 'ServiceAccount', true, ['sa']],
  ['', 'services', 'Service', true, ['svc'], ALL],
  ['admissionregistration.k8s.io', 'mutatingwebhookconfigurations', 'MutatingWebhookConfiguration', false, [], ['api-extensions']],
  ['admissionregistration.k8s.io', 'validatingwebhookconfigurations', 'ValidatingWebhookConfiguration', false, [], ['api-extensions']],
  ['admissionregistration.k8s.io', 'validatingadmissionpolicies', 'ValidatingAdmissionPolicy', false, [], ['api-extensions']],
  ['admissionregistration.k8s.io', 'validatingadmissionpolicybindings', 'ValidatingAdmissionPolicyBinding', false, [], ['api-extensions']],
  ['admissionregistration.k8s.io', 'mutatingadmissionpolicies', 'MutatingAdmissionPolicy', false, [], ['api-extensions']],
  ['admissionregistration.k8s.io', 'mutatingadmissionpolicybindings', 'MutatingAdmissionPolicyBinding', false, [], ['api-extensions']],
  ['apiextensions.k8s.io', 'customresourcedefinitions', 'CustomResourceDefinition', false, ['crd', 'crds'], ['api-extensions']],
  ['apiregistration.k8s.io', 'apiservices', 'APIService', false, [], ['api-extensions']],
  ['apps', 'controllerrevisions', 'ControllerRevision', true],
  ['apps', 'daemonsets', 'DaemonSet', true, ['ds'], ALL],
  ['apps', 'deployments', 'Deployment', true, ['deploy'], ALL],
  ['apps', 'replicasets', 'ReplicaSet', true, ['rs'], ALL],
  ['apps', 'statefulsets', 'StatefulSet', true, ['sts'], ALL],
  ['autoscaling', 'horizontalpodautoscalers', 'HorizontalPodAutoscaler', true, ['hpa'], ALL],
  ['batch', 'cronjobs', 'CronJob', true, ['cj'], ALL],
  ['batch', 'jobs', 'Job', true, [], ALL],
  ['certificates.k8s.io', 'certificatesigningrequests', 'CertificateSigningRequest', false, ['csr']],
  ['certificates.k8s.io', 'clustertrustbundles', 'ClusterTrustBundle', false],
  ['coordination.k8s.io', 'leases', 'Lease', true],
  ['coordination.k8s.io', 'leasecandidates', 'LeaseCandidate', true],
  ['discovery.k8s.io', 'endpointslices', 'EndpointSlice', true],
  ['events.k8s.io', 'events', 'Event', true, ['ev']],
  ['flowcontrol.apiserver.k8s.io', 'flowschemas', 'FlowSchema', false],
  ['flowcontrol.apiserver.k8s.io', 'prioritylevelconfigurations', 'PriorityLevelConfiguration', false],
  ['internal.apiserver.k8s.io', 'storageversions', 'StorageVersion', false],
  ['networking.k8s.io', 'ingressclasses', 'IngressClass', false],
  ['networking.k8s.io', 'ingresses', 'Ingress', true, ['ing']],
  ['networking.k8s.io', 'ipaddresses', 'IPAddress', false, ['ip']],
  ['networking.k8s.io', 'networkpolicies', 'NetworkPolicy', true, ['netpol']],
  ['networking.k8s.io', 'servicecidrs', 'ServiceCIDR', false],
  ['node.k8s.io', 'runtimeclasses', 'RuntimeClass', false],
  ['policy', 'poddisruptionbudgets', 'PodDisruptionBudget', true, ['pdb']],
  ['rbac.authorization.k8s.io', 'clusterrolebindings', 'ClusterRoleBinding', false],
  ['rbac.authorization.k8s.io', 'clusterroles', 'ClusterRole', false],
  ['rbac.authorization.k8s.io', 'rolebindings', 'RoleBinding', true],
  ['rbac.authorization.k8s.io', 'roles', 'Role', true],
  ['resource.k8s.io', 'deviceclasses', 'DeviceClass', false],
  ['resource.k8s.io', 'resourceclaims', 'ResourceClaim', true],
  ['resource.k8s.io', 'resourceclaimtemplates', 'ResourceClaimTemplate', true],
  ['resource.k8s.io', 'resourceslices', 'ResourceSlice', false],
  ['scheduling.k8s.io', 'priorityclasses', 'PriorityClass', false, ['pc']],
  ['storage.k8s.io', 'csidrivers', 'CSIDriver', false],
  ['storage.k8s.io', 'csinodes', 'CSINode', false],
  ['storage.k8s.io', 'csistoragecapacities', 'CSIStorageCapacity', true],
  ['storage.k8s.io', 'storageclasses', 'StorageClass', false, ['sc']],
  ['storage.k8s.io', 'volumeattachments', 'VolumeAttachment', false],
  ['storage.k8s.io', 'volumeattributesclasses', 'VolumeAttributesClass', false, ['vac']],
  ['storagemigration.k8s.io', 'storageversionmigrations', 'StorageVersionMigration', false],
];

const BY_KEY = new Map<string, BuiltinResource>(
  ROWS.map(([group, resource, kind, namespaced, shortNames, categories]) => {
    const r: BuiltinResource = { group, resource, kind, namespaced };
    if (shortNames && shortNames.length > 0) r.shortNames = shortNames;
    if (categories && categories.length > 0) r.categories = categories;
    return [`${group}/${resource}`, r];
  }),
);

/** Built-in metadata for (group, resource), or undefined for CRDs and unknown resources. */
export function builtinResource(group: string, resource: string): BuiltinResource | undefined {
  return BY_KEY.get(`${group}/${resource}`);
}

/** True when the group belongs to Kubernetes itself (built-in printers apply). */
export function isBuiltinGroup(group: string): boolean {
  return group === '' || BUILTIN_GROUPS.has(group);
}

const BUILTIN_GROUPS = new Set(ROWS.map((r) => r[0]).filter((g) => g !== '').concat(['autoscaling', 'extensions', 'resource.k8s.io', 'storagemigration.k8s.io', 'internal.apiserver.k8s.io', 'authentication.k8s.io', 'authorization.k8s.io']));

/** Singular name as kube derives it for built-ins: the lower-cased kind. */
export function singularOf(kind: string): string {
  return kind.toLowerCase();
}

/** Every built-in in the catalog (for the `kuberesources` collection). */
export function builtinGroups(): string[] {
  return [...new Set(['', ...BUILTIN_GROUPS])].sort();
}
