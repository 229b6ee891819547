// Which printer kube-apiserver uses for a group/resource: its own printers.go handler, the CRD's
// columns, or the default convertor.

import { groupResourceString, type GroupResource } from '../types.js';
import {
  admissionPolicyBindingPrinter, mutatingAdmissionPolicyPrinter, validatingAdmissionPolicyPrinter,
} from './admission-policy.js';
import {
  apiServicePrinter, certificateSigningRequestPrinter, clusterRoleBindingPrinter, clusterTrustBundlePrinter, leasePrinter,
  priorityClassPrinter, roleBindingPrinter, runtimeClassPrinter, webhookConfigurationPrinter,
} from './admin.js';
import { cronJobPrinter, jobPrinter } from './batch.js';
import {
  configMapPrinter, namespacePrinter, resourceQuotaPrinter, secretPrinter, serviceAccountPrinter,
} from './config.js';
import {
  componentStatusPrinter, leaseCandidatePrinter, storageVersionMigrationPrinter, storageVersionPrinter,
} from './control-plane.js';
import { customResourcePrinter, defaultPrinter } from './custom-resource.js';
import { nameAgePrinter, resourceClaimPrinter, resourceSlicePrinter } from './dynamic-resources.js';
import { eventPrinter, eventsGroupEventPrinter } from './event.js';
import { flowSchemaPrinter, priorityLevelConfigurationPrinter } from './flowcontrol.js';
import {
  endpointSlicePrinter, endpointsPrinter, ingressClassPrinter, ingressPrinter, ipAddressPrinter, networkPolicyPrinter,
  serviceCIDRPrinter, servicePrinter,
} from './network.js';
import { nodePrinter } from './node.js';
import { podPrinter, podTemplatePrinter } from './pod.js';
import { horizontalPodAutoscalerPrinter, podDisruptionBudgetPrinter } from './scaling.js';
import {
  csiDriverPrinter, csiNodePrinter, csiStorageCapacityPrinter, persistentVolumeClaimPrinter, persistentVolumePrinter,
  storageClassPrinter, volumeAttachmentPrinter, volumeAttributesClassPrinter,
} from './storage.js';
import type { PrinterColumn, ResourcePrinter } from './types.js';
import {
  controllerRevisionPrinter, daemonSetPrinter, deploymentPrinter, replicaSetPrinter, replicationControllerPrinter,
  statefulSetPrinter,
} from './workloads.js';

/** Printers keyed by groupResourceString (`pods`, `deployments.apps`). */
const PRINTERS: ReadonlyMap<string, ResourcePrinter> = new Map([
  ['pods', podPrinter],
  ['podtemplates', podTemplatePrinter],
  ['replicationcontrollers', replicationControllerPrinter],
  ['services', servicePrinter],
  ['endpoints', endpointsPrinter],
  ['nodes', nodePrinter],
  ['events', eventPrinter],
  ['namespaces', namespacePrinter],
  ['secrets', secretPrinter],
  ['serviceaccounts', serviceAccountPrinter],
  ['configmaps', configMapPrinter],
  ['resourcequotas', resourceQuotaPrinter],
  ['persistentvolumes', persistentVolumePrinter],
  ['persistentvolumeclaims', persistentVolumeClaimPrinter],
  ['componentstatuses', componentStatusPrinter],
  ['deployments.apps', deploymentPrinter],
  ['replicasets.apps', replicaSetPrinter],
  ['statefulsets.apps', statefulSetPrinter],
  ['daemonsets.apps', daemonSetPrinter],
  ['controllerrevisions.apps', controllerRevisionPrinter],
  ['jobs.batch', jobPrinter],
  ['cronjobs.batch', cronJobPrinter],
  ['horizontalpodautoscalers.autoscaling', horizontalPodAutoscalerPrinter],
  ['poddisruptionbudgets.policy', podDisruptionBudgetPrinter],
  ['ingresses.networking.k8s.io', ingressPrinter],
  ['ingressclasses.networking.k8s.io', ingressClassPrinter],
  ['networkpolicies.networking.k8s.io', networkPolicyPrinter],
  ['servicecidrs.networking.k8s.io', serviceCIDRPrinter],
  ['ipaddresses.networking.k8s.io', ipAddressPrinter],
  ['endpointslices.discovery.k8s.io', endpointSlicePrinter],
  // kube serves events.k8s.io Events from the core Event storage, hence with the core printer.
  ['events.events.k8s.io', eventsGroupEventPrinter],
  ['rolebindings.rbac.authorization.k8s.io', roleBindingPrinter],
  ['clusterrolebindings.rbac.authorization.k8s.io', clusterRoleBindingPrinter],
  ['storageclasses.storage.k8s.io', storageClassPrinter],
  ['csidrivers.storage.k8s.io', csiDriverPrinter],
  ['csinodes.storage.k8s.io', csiNodePrinter],
  ['volumeattachments.storage.k8s.io', volumeAttachmentPrinter],
  ['csistoragecapacities.storage.k8s.io', csiStorageCapacityPrinter],
  ['volumeattributesclasses.storage.k8s.io', volumeAttributesClassPrinter],
  ['priorityclasses.scheduling.k8s.io', priorityClassPrinter],
  ['runtimeclasses.node.k8s.io', runtimeClassPrinter],
  ['leases.coordination.k8s.io', leasePrinter],
  ['leasecandidates.coordination.k8s.io', leaseCandidatePrinter],
  ['mutatingwebhookconfigurations.admissionregistration.k8s.io', webhookConfigurationPrinter],
  ['validatingwebhookconfigurations.admissionregistration.k8s.io', webhookConfigurationPrinter],
  ['validatingadmissionpolicies.admissionregistration.k8s.io', validatingAdmissionPolicyPrinter],
  ['validatingadmissionpolicybindings.admissionregistration.k8s.io', admissionPolicyBindingPrinter],
  ['mutatingadmissionpolicies.admissionregistration.k8s.io', mutatingAdmissionPolicyPrinter],
  ['mutatingadmissionpolicybindings.admissionregistration.k8s.io', admissionPolicyBindingPrinter],
  ['certificatesigningrequests.certificates.k8s.io', certificateSigningRequestPrinter],
  ['clustertrustbundles.certificates.k8s.io', clusterTrustBundlePrinter],
  ['apiservices.apiregistration.k8s.io', apiServicePrinter],
  ['flowschemas.flowcontrol.apiserver.k8s.io', flowSchemaPrinter],
  ['prioritylevelconfigurations.flowcontrol.apiserver.k8s.io', priorityLevelConfigurationPrinter],
  ['storageversions.internal.apiserver.k8s.io', storageVersionPrinter],
  ['storageversionmigrations.storagemigration.k8s.io', storageVersionMigrationPrinter],
  // resource.k8s.io as 1.32 serves it (v1beta1): classes and templates show Name and Age only.
  ['deviceclasses.resource.k8s.io', nameAgePrinter],
  ['resourceclaims.resource.k8s.io', resourceClaimPrinter],
  ['resourceclaimtemplates.resource.k8s.io', nameAgePrinter],
  ['resourceslices.resource.k8s.io', resourceSlicePrinter],
]);

/** API groups served by kube-apiserver itself: their unprinted resources get the default convertor. */
const BUILTIN_GROUPS: ReadonlySet<string> = new Set([
  '', 'admissionregistration.k8s.io', 'apiextensions.k8s.io', 'apiregistration.k8s.io', 'apps',
  'authentication.k8s.io', 'authorization.k8s.io', 'autoscaling', 'batch', 'certificates.k8s.io',
  'coordination.k8s.io', 'discovery.k8s.io', 'events.k8s.io', 'extensions', 'flowcontrol.apiserver.k8s.io',
  'internal.apiserver.k8s.io', 'networking.k8s.io', 'node.k8s.io', 'policy', 'rbac.authorization.k8s.io',
  'resource.k8s.io', 'scheduling.k8s.io', 'storage.k8s.io', 'storagemigration.k8s.io',
]);

/**
 * The printer kube would use for `gr`: the CRD's columns when given; else kube's printer for a
 * built-in; else the default convertor (Name, Created At) for other built-ins; else — a custom
 * resource whose CRD we do not know — what a CRD without printer columns shows (Name, Age).
 */
export function resourcePrinterFor(gr: GroupResource, crdColumns?: readonly PrinterColumn[]): ResourcePrinter {
  if (crdColumns !== undefined) return customResourcePrinter(crdColumns);
  const printer = PRINTERS.get(groupResourceString(gr));
  if (printer !== undefined) return printer;
  if (BUILTIN_GROUPS.has(gr.group)) return defaultPrinter;
  return customResourcePrinter([]);
}
