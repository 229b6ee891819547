// The simulated kube-apiserver's public module API (see README.md): clusters, fleets, kubeconfigs, manifests, types.
export { SimCluster, startSimulatedCluster, type SimClusterOptions, type SimFaults } from './cluster.js';
export { startSimulatedFleet, kubeconfigFor, kubeconfigForAll, pediaClusterFor, pediaClustersYaml, defaultSyncResources, type SimFleet, type SimFleetOptions, type SyncGroup } from './fleet.js';
export { ClusterStoreApi, type ResourceRef } from './cluster-api.js';
export { memberCrds, hostCrds, type SimCrd } from './crds.js';
export type { RequestRecord, RequestLog } from './request-log.js';
export type { Reviews, ReviewUser, TokenReviewAnswer, SubjectAccessReviewAnswer, SubjectAccessReviewSpec } from './reviews.js';
export { CHURN_TIER_LABEL, type Churn } from './churn.js';
export type { SimCertificates } from './tls.js';
export type { SimObject, SimMeta, PrinterColumn } from './types.js';
export { isStatusError, type KubeStatus } from './status.js';
export { isSingleContainerRunning } from './logs.js';
