// The protobuf schemas of the built-in kinds whose bodies protobuf.ts reads, by message: `name number type` per field,
// `[]` after a repeated field's type, `map<key,value>` for a map. Field numbers are kube's own (the generated.proto files
// of k8s.io/api and k8s.io/apimachinery, 1.33 and the fields added since); a name is the field's JSON name. Packages:
// meta (apimachinery's meta/v1), runtime, intstr, resource (api/resource), and each built-in group's v1 by its first
// label (core for the core group). A field left out (the cloud providers' volume sources, most of a pod's status) is
// refused when it arrives, never dropped.

export const MESSAGES: Record<string, string> = {
  'meta.Condition': 'type 1 string, status 2 string, observedGeneration 3 int64, lastTransitionTime 4 meta.Time, reason 5 string, message 6 string',
  'meta.DeleteOptions': 'gracePeriodSeconds 1 int64, preconditions 2 meta.Preconditions, orphanDependents 3 bool, propagationPolicy 4 string, '
    + 'dryRun 5 string[], ignoreStoreReadErrorWithClusterBreakingPotential 6 bool',
  'meta.Duration': 'duration 1 int64',
  'meta.FieldsV1': 'Raw 1 bytes',
  'meta.LabelSelector': 'matchLabels 1 map<string,string>, matchExpressions 2 meta.LabelSelectorRequirement[]',
  'meta.LabelSelectorRequirement': 'key 1 string, operator 2 string, values 3 string[]',
  'meta.ManagedFieldsEntry': 'manager 1 string, operation 2 string, apiVersion 3 string, time 4 meta.Time, fieldsType 6 string, '
    + 'fieldsV1 7 meta.FieldsV1, subresource 8 string',
  'meta.MicroTime': 'seconds 1 int64, nanos 2 int32',
  'meta.ObjectMeta': 'name 1 string, generateName 2 string, namespace 3 string, selfLink 4 string, uid 5 string, resourceVersion 6 string, '
    + 'generation 7 int64, creationTimestamp 8 meta.Time, deletionTimestamp 9 meta.Time, deletionGracePeriodSeconds 10 int64, '
    + 'labels 11 map<string,string>, annotations 12 map<string,string>, ownerReferences 13 meta.OwnerReference[], '
    + 'finalizers 14 string[], managedFields 17 meta.ManagedFieldsEntry[]',
  'meta.OwnerReference': 'apiVersion 5 string, kind 1 string, name 3 string, uid 4 string, controller 6 bool, blockOwnerDeletion 7 bool',
  'meta.Preconditions': 'uid 1 string, resourceVersion 2 string',
  'meta.Time': 'seconds 1 int64, nanos 2 int32',
  'runtime.RawExtension': 'raw 1 bytes',
  'runtime.TypeMeta': 'apiVersion 1 string, kind 2 string',
  'runtime.Unknown': 'typeMeta 1 runtime.TypeMeta, raw 2 bytes, contentEncoding 3 string, contentType 4 string',
  'intstr.IntOrString': 'type 1 int64, intVal 2 int32, strVal 3 string',
  'resource.Quantity': 'string 1 string',
  'core.Affinity': 'nodeAffinity 1 core.NodeAffinity, podAffinity 2 core.PodAffinity, podAntiAffinity 3 core.PodAntiAffinity',
  'core.AppArmorProfile': 'type 1 string, localhostProfile 2 string',
  'core.CSIVolumeSource': 'driver 1 string, readOnly 2 bool, fsType 3 string, volumeAttributes 4 map<string,string>, '
    + 'nodePublishSecretRef 5 core.LocalObjectReference',
  'core.Capabilities': 'add 1 string[], drop 2 string[]',
  'core.ClientIPConfig': 'timeoutSeconds 1 int32',
  'core.ClusterTrustBundleProjection': 'name 1 string, signerName 2 string, labelSelector 3 meta.LabelSelector, optional 5 bool, path 4 string',
  'core.ConfigMap': 'metadata 1 meta.ObjectMeta, immutable 4 bool, data 2 map<string,string>, binaryData 3 map<string,bytes>',
  'core.ConfigMapEnvSource': 'localObjectReference 1 core.LocalObjectReference, optional 2 bool',
  'core.ConfigMapKeySelector': 'localObjectReference 1 core.LocalObjectReference, key 2 string, optional 3 bool',
  'core.ConfigMapProjection': 'localObjectReference 1 core.LocalObjectReference, items 2 core.KeyToPath[], optional 4 bool',
  'core.ConfigMapVolumeSource': 'localObjectReference 1 core.LocalObjectReference, items 2 core.KeyToPath[], defaultMode 3 int32, optional 4 bool',
  'core.Container': 'name 1 string, image 2 string, command 3 string[], args 4 string[], workingDir 5 string, ports 6 core.ContainerPort[], '
    + 'envFrom 19 core.EnvFromSource[], env 7 core.EnvVar[], resources 8 core.ResourceRequirements, '
    + 'resizePolicy 23 core.ContainerResizePolicy[], restartPolicy 24 string, restartPolicyRules 25 core.ContainerRestartRule[], '
    + 'volumeMounts 9 core.VolumeMount[], volumeDevices 21 core.VolumeDevice[], livenessProbe 10 core.Probe, '
    + 'readinessProbe 11 core.Probe, startupProbe 22 core.Probe, lifecycle 12 core.Lifecycle, terminationMessagePath 13 string, '
    + 'terminationMessagePolicy 20 string, imagePullPolicy 14 string, securityContext 15 core.SecurityContext, stdin 16 bool, '
    + 'stdinOnce 17 bool, tty 18 bool',
  'core.ContainerPort': 'name 1 string, hostPort 2 int32, containerPort 3 int32, protocol 4 string, hostIP 5 string',
  'core.ContainerResizePolicy': 'resourceName 1 string, restartPolicy 2 string',
  'core.ContainerRestartRule': 'action 1 string, exitCodes 2 core.ContainerRestartRuleOnExitCodes',
  'core.ContainerRestartRuleOnExitCodes': 'operator 1 string, values 2 int32[]',
  'core.DownwardAPIProjection': 'items 1 core.DownwardAPIVolumeFile[]',
  'core.DownwardAPIVolumeFile': 'path 1 string, fieldRef 2 core.ObjectFieldSelector, resourceFieldRef 3 core.ResourceFieldSelector, mode 4 int32',
  'core.DownwardAPIVolumeSource': 'items 1 core.DownwardAPIVolumeFile[], defaultMode 2 int32',
  'core.EmptyDirVolumeSource': 'medium 1 string, sizeLimit 2 resource.Quantity',
  'core.EnvFromSource': 'prefix 1 string, configMapRef 2 core.ConfigMapEnvSource, secretRef 3 core.SecretEnvSource',
  'core.EnvVar': 'name 1 string, value 2 string, valueFrom 3 core.EnvVarSource',
  'core.EnvVarSource': 'fieldRef 1 core.ObjectFieldSelector, resourceFieldRef 2 core.ResourceFieldSelector, '
    + 'configMapKeyRef 3 core.ConfigMapKeySelector, secretKeyRef 4 core.SecretKeySelector, fileKeyRef 5 core.FileKeySelector',
  'core.EphemeralContainer': 'ephemeralContainerCommon 1 core.EphemeralContainerCommon, targetContainerName 2 string',
  'core.EphemeralContainerCommon': 'name 1 string, image 2 string, command 3 string[], args 4 string[], workingDir 5 string, '
    + 'ports 6 core.ContainerPort[], envFrom 19 core.EnvFromSource[], env 7 core.EnvVar[], '
    + 'resources 8 core.ResourceRequirements, resizePolicy 23 core.ContainerResizePolicy[], restartPolicy 24 string, '
    + 'restartPolicyRules 25 core.ContainerRestartRule[], volumeMounts 9 core.VolumeMount[], '
    + 'volumeDevices 21 core.VolumeDevice[], livenessProbe 10 core.Probe, readinessProbe 11 core.Probe, '
    + 'startupProbe 22 core.Probe, lifecycle 12 core.Lifecycle, terminationMessagePath 13 string, '
    + 'terminationMessagePolicy 20 string, imagePullPolicy 14 string, securityContext 15 core.SecurityContext, '
    + 'stdin 16 bool, stdinOnce 17 bool, tty 18 bool',
  'core.EphemeralVolumeSource': 'volumeClaimTemplate 1 core.PersistentVolumeClaimTemplate',
  'core.Event': 'metadata 1 meta.ObjectMeta, involvedObject 2 core.ObjectReference, reason 3 string, message 4 string, source 5 core.EventSource, '
    + 'firstTimestamp 6 meta.Time, lastTimestamp 7 meta.Time, count 8 int32, type 9 string, eventTime 10 meta.MicroTime, '
    + 'series 11 core.EventSeries, action 12 string, related 13 core.ObjectReference, reportingComponent 14 string, '
    + 'reportingInstance 15 string',
  'core.EventSeries': 'count 1 int32, lastObservedTime 2 meta.MicroTime',
  'core.EventSource': 'component 1 string, host 2 string',
  'core.ExecAction': 'command 1 string[]',
  'core.FileKeySelector': 'volumeName 1 string, path 2 string, key 3 string, optional 4 bool',
  'core.GRPCAction': 'port 1 int32, service 2 string',
  'core.GitRepoVolumeSource': 'repository 1 string, revision 2 string, directory 3 string',
  'core.HTTPGetAction': 'path 1 string, port 2 intstr.IntOrString, host 3 string, scheme 4 string, httpHeaders 5 core.HTTPHeader[]',
  'core.HTTPHeader': 'name 1 string, value 2 string',
  'core.HostAlias': 'ip 1 string, hostnames 2 string[]',
  'core.HostPathVolumeSource': 'path 1 string, type 2 string',
  'core.ImageVolumeSource': 'reference 1 string, pullPolicy 2 string',
  'core.KeyToPath': 'key 1 string, path 2 string, mode 3 int32',
  'core.Lifecycle': 'postStart 1 core.LifecycleHandler, preStop 2 core.LifecycleHandler, stopSignal 3 string',
  'core.LifecycleHandler': 'exec 1 core.ExecAction, httpGet 2 core.HTTPGetAction, tcpSocket 3 core.TCPSocketAction, sleep 4 core.SleepAction',
  'core.LoadBalancerIngress': 'ip 1 string, hostname 2 string, ipMode 3 string, ports 4 core.PortStatus[]',
  'core.LoadBalancerStatus': 'ingress 1 core.LoadBalancerIngress[]',
  'core.LocalObjectReference': 'name 1 string',
  'core.ModifyVolumeStatus': 'targetVolumeAttributesClassName 1 string, status 2 string',
  'core.NFSVolumeSource': 'server 1 string, path 2 string, readOnly 3 bool',
  'core.Namespace': 'metadata 1 meta.ObjectMeta, spec 2 core.NamespaceSpec, status 3 core.NamespaceStatus',
  'core.NamespaceCondition': 'type 1 string, status 2 string, lastTransitionTime 4 meta.Time, reason 5 string, message 6 string',
  'core.NamespaceSpec': 'finalizers 1 string[]',
  'core.NamespaceStatus': 'phase 1 string, conditions 2 core.NamespaceCondition[]',
  'core.NodeAffinity': 'requiredDuringSchedulingIgnoredDuringExecution 1 core.NodeSelector, '
    + 'preferredDuringSchedulingIgnoredDuringExecution 2 core.PreferredSchedulingTerm[]',
  'core.NodeSelector': 'nodeSelectorTerms 1 core.NodeSelectorTerm[]',
  'core.NodeSelectorRequirement': 'key 1 string, operator 2 string, values 3 string[]',
  'core.NodeSelectorTerm': 'matchExpressions 1 core.NodeSelectorRequirement[], matchFields 2 core.NodeSelectorRequirement[]',
  'core.ObjectFieldSelector': 'apiVersion 1 string, fieldPath 2 string',
  'core.ObjectReference': 'kind 1 string, namespace 2 string, name 3 string, uid 4 string, apiVersion 5 string, resourceVersion 6 string, '
    + 'fieldPath 7 string',
  'core.PersistentVolumeClaim': 'metadata 1 meta.ObjectMeta, spec 2 core.PersistentVolumeClaimSpec, status 3 core.PersistentVolumeClaimStatus',
  'core.PersistentVolumeClaimCondition': 'type 1 string, status 2 string, lastProbeTime 3 meta.Time, lastTransitionTime 4 meta.Time, reason 5 string, '
    + 'message 6 string',
  'core.PersistentVolumeClaimSpec': 'accessModes 1 string[], selector 4 meta.LabelSelector, resources 2 core.VolumeResourceRequirements, '
    + 'volumeName 3 string, storageClassName 5 string, volumeMode 6 string, dataSource 7 core.TypedLocalObjectReference, '
    + 'dataSourceRef 8 core.TypedObjectReference, volumeAttributesClassName 9 string',
  'core.PersistentVolumeClaimStatus': 'phase 1 string, accessModes 2 string[], capacity 3 map<string,resource.Quantity>, '
    + 'conditions 4 core.PersistentVolumeClaimCondition[], allocatedResources 5 map<string,resource.Quantity>, '
    + 'allocatedResourceStatuses 7 map<string,string>, currentVolumeAttributesClassName 8 string, '
    + 'modifyVolumeStatus 9 core.ModifyVolumeStatus',
  'core.PersistentVolumeClaimTemplate': 'metadata 1 meta.ObjectMeta, spec 2 core.PersistentVolumeClaimSpec',
  'core.PersistentVolumeClaimVolumeSource': 'claimName 1 string, readOnly 2 bool',
  'core.Pod': 'metadata 1 meta.ObjectMeta, spec 2 core.PodSpec, status 3 core.PodStatus',
  'core.PodAffinity': 'requiredDuringSchedulingIgnoredDuringExecution 1 core.PodAffinityTerm[], '
    + 'preferredDuringSchedulingIgnoredDuringExecution 2 core.WeightedPodAffinityTerm[]',
  'core.PodAffinityTerm': 'labelSelector 1 meta.LabelSelector, namespaces 2 string[], topologyKey 3 string, namespaceSelector 4 meta.LabelSelector, '
    + 'matchLabelKeys 5 string[], mismatchLabelKeys 6 string[]',
  'core.PodAntiAffinity': 'requiredDuringSchedulingIgnoredDuringExecution 1 core.PodAffinityTerm[], '
    + 'preferredDuringSchedulingIgnoredDuringExecution 2 core.WeightedPodAffinityTerm[]',
  'core.PodCertificateProjection': 'signerName 1 string, keyType 2 string, maxExpirationSeconds 3 int32, credentialBundlePath 4 string, '
    + 'keyPath 5 string, certificateChainPath 6 string, userAnnotations 7 map<string,string>',
  'core.PodDNSConfig': 'nameservers 1 string[], searches 2 string[], options 3 core.PodDNSConfigOption[]',
  'core.PodDNSConfigOption': 'name 1 string, value 2 string',
  'core.PodOS': 'name 1 string',
  'core.PodReadinessGate': 'conditionType 1 string',
  'core.PodResourceClaim': 'name 1 string, resourceClaimName 3 string, resourceClaimTemplateName 4 string',
  'core.PodSchedulingGate': 'name 1 string',
  'core.PodSecurityContext': 'seLinuxOptions 1 core.SELinuxOptions, windowsOptions 8 core.WindowsSecurityContextOptions, runAsUser 2 int64, '
    + 'runAsGroup 6 int64, runAsNonRoot 3 bool, supplementalGroups 4 int64[], supplementalGroupsPolicy 12 string, '
    + 'fsGroup 5 int64, sysctls 7 core.Sysctl[], fsGroupChangePolicy 9 string, seccompProfile 10 core.SeccompProfile, '
    + 'appArmorProfile 11 core.AppArmorProfile, seLinuxChangePolicy 13 string',
  'core.PodSpec': 'volumes 1 core.Volume[], initContainers 20 core.Container[], containers 2 core.Container[], '
    + 'ephemeralContainers 34 core.EphemeralContainer[], restartPolicy 3 string, terminationGracePeriodSeconds 4 int64, '
    + 'activeDeadlineSeconds 5 int64, dnsPolicy 6 string, nodeSelector 7 map<string,string>, serviceAccountName 8 string, '
    + 'serviceAccount 9 string, automountServiceAccountToken 21 bool, nodeName 10 string, hostNetwork 11 bool, hostPID 12 bool, '
    + 'hostIPC 13 bool, shareProcessNamespace 27 bool, securityContext 14 core.PodSecurityContext, '
    + 'imagePullSecrets 15 core.LocalObjectReference[], hostname 16 string, subdomain 17 string, affinity 18 core.Affinity, '
    + 'schedulerName 19 string, tolerations 22 core.Toleration[], hostAliases 23 core.HostAlias[], priorityClassName 24 string, '
    + 'priority 25 int32, dnsConfig 26 core.PodDNSConfig, readinessGates 28 core.PodReadinessGate[], runtimeClassName 29 string, '
    + 'enableServiceLinks 30 bool, preemptionPolicy 31 string, overhead 32 map<string,resource.Quantity>, '
    + 'topologySpreadConstraints 33 core.TopologySpreadConstraint[], setHostnameAsFQDN 35 bool, os 36 core.PodOS, hostUsers 37 bool, '
    + 'schedulingGates 38 core.PodSchedulingGate[], resourceClaims 39 core.PodResourceClaim[], resources 40 core.ResourceRequirements, '
    + 'hostnameOverride 41 string, workloadRef 42 core.WorkloadReference',
  'core.PodStatus': 'observedGeneration 17 int64, phase 1 string, message 3 string, reason 4 string, nominatedNodeName 11 string, hostIP 5 string, '
    + 'podIP 6 string, startTime 7 meta.Time, qosClass 9 string, resize 14 string, allocatedResources 19 map<string,resource.Quantity>, '
    + 'resources 20 core.ResourceRequirements',
  'core.PodTemplateSpec': 'metadata 1 meta.ObjectMeta, spec 2 core.PodSpec',
  'core.PortStatus': 'port 1 int32, protocol 2 string, error 3 string',
  'core.PreferredSchedulingTerm': 'weight 1 int32, preference 2 core.NodeSelectorTerm',
  'core.Probe': 'handler 1 core.ProbeHandler, initialDelaySeconds 2 int32, timeoutSeconds 3 int32, periodSeconds 4 int32, successThreshold 5 int32, '
    + 'failureThreshold 6 int32, terminationGracePeriodSeconds 7 int64',
  'core.ProbeHandler': 'exec 1 core.ExecAction, httpGet 2 core.HTTPGetAction, tcpSocket 3 core.TCPSocketAction, grpc 4 core.GRPCAction',
  'core.ProjectedVolumeSource': 'sources 1 core.VolumeProjection[], defaultMode 2 int32',
  'core.ResourceClaim': 'name 1 string, request 2 string',
  'core.ResourceFieldSelector': 'containerName 1 string, resource 2 string, divisor 3 resource.Quantity',
  'core.ResourceRequirements': 'limits 1 map<string,resource.Quantity>, requests 2 map<string,resource.Quantity>, claims 3 core.ResourceClaim[]',
  'core.SELinuxOptions': 'user 1 string, role 2 string, type 3 string, level 4 string',
  'core.SeccompProfile': 'type 1 string, localhostProfile 2 string',
  'core.Secret': 'metadata 1 meta.ObjectMeta, immutable 5 bool, data 2 map<string,bytes>, stringData 4 map<string,string>, type 3 string',
  'core.SecretEnvSource': 'localObjectReference 1 core.LocalObjectReference, optional 2 bool',
  'core.SecretKeySelector': 'localObjectReference 1 core.LocalObjectReference, key 2 string, optional 3 bool',
  'core.SecretProjection': 'localObjectReference 1 core.LocalObjectReference, items 2 core.KeyToPath[], optional 4 bool',
  'core.SecretVolumeSource': 'secretName 1 string, items 2 core.KeyToPath[], defaultMode 3 int32, optional 4 bool',
  'core.SecurityContext': 'capabilities 1 core.Capabilities, privileged 2 bool, seLinuxOptions 3 core.SELinuxOptions, '
    + 'windowsOptions 10 core.WindowsSecurityContextOptions, runAsUser 4 int64, runAsGroup 8 int64, runAsNonRoot 5 bool, '
    + 'readOnlyRootFilesystem 6 bool, allowPrivilegeEscalation 7 bool, procMount 9 string, seccompProfile 11 core.SeccompProfile, '
    + 'appArmorProfile 12 core.AppArmorProfile, ulimits 13 core.Ulimit[]',
  'core.Service': 'metadata 1 meta.ObjectMeta, spec 2 core.ServiceSpec, status 3 core.ServiceStatus',
  'core.ServiceAccount': 'metadata 1 meta.ObjectMeta, secrets 2 core.ObjectReference[], imagePullSecrets 3 core.LocalObjectReference[], '
    + 'automountServiceAccountToken 4 bool',
  'core.ServiceAccountTokenProjection': 'audience 1 string, expirationSeconds 2 int64, path 3 string',
  'core.ServicePort': 'name 1 string, protocol 2 string, appProtocol 6 string, port 3 int32, targetPort 4 intstr.IntOrString, nodePort 5 int32',
  'core.ServiceSpec': 'ports 1 core.ServicePort[], selector 2 map<string,string>, clusterIP 3 string, clusterIPs 18 string[], type 4 string, '
    + 'externalIPs 5 string[], sessionAffinity 7 string, loadBalancerIP 8 string, loadBalancerSourceRanges 9 string[], '
    + 'externalName 10 string, externalTrafficPolicy 11 string, healthCheckNodePort 12 int32, publishNotReadyAddresses 13 bool, '
    + 'sessionAffinityConfig 14 core.SessionAffinityConfig, ipFamilies 19 string[], ipFamilyPolicy 17 string, '
    + 'allocateLoadBalancerNodePorts 20 bool, loadBalancerClass 21 string, internalTrafficPolicy 22 string, '
    + 'trafficDistribution 23 string',
  'core.ServiceStatus': 'loadBalancer 1 core.LoadBalancerStatus, conditions 2 meta.Condition[]',
  'core.SessionAffinityConfig': 'clientIP 1 core.ClientIPConfig',
  'core.SleepAction': 'seconds 1 int64',
  'core.Sysctl': 'name 1 string, value 2 string',
  'core.TCPSocketAction': 'port 1 intstr.IntOrString, host 2 string',
  'core.Toleration': 'key 1 string, operator 2 string, value 3 string, effect 4 string, tolerationSeconds 5 int64',
  'core.TopologySpreadConstraint': 'maxSkew 1 int32, topologyKey 2 string, whenUnsatisfiable 3 string, labelSelector 4 meta.LabelSelector, '
    + 'minDomains 5 int32, nodeAffinityPolicy 6 string, nodeTaintsPolicy 7 string, matchLabelKeys 8 string[]',
  'core.TypedLocalObjectReference': 'apiGroup 1 string, kind 2 string, name 3 string',
  'core.TypedObjectReference': 'apiGroup 1 string, kind 2 string, name 3 string, namespace 4 string',
  'core.Ulimit': 'name 1 string, hard 2 int64, soft 3 int64',
  'core.Volume': 'name 1 string, volumeSource 2 core.VolumeSource',
  'core.VolumeDevice': 'name 1 string, devicePath 2 string',
  'core.VolumeMount': 'name 1 string, readOnly 2 bool, recursiveReadOnly 7 string, mountPath 3 string, subPath 4 string, mountPropagation 5 string, '
    + 'subPathExpr 6 string',
  'core.VolumeProjection': 'secret 1 core.SecretProjection, downwardAPI 2 core.DownwardAPIProjection, configMap 3 core.ConfigMapProjection, '
    + 'serviceAccountToken 4 core.ServiceAccountTokenProjection, clusterTrustBundle 5 core.ClusterTrustBundleProjection, '
    + 'podCertificate 6 core.PodCertificateProjection',
  'core.VolumeResourceRequirements': 'limits 1 map<string,resource.Quantity>, requests 2 map<string,resource.Quantity>',
  'core.VolumeSource': 'hostPath 1 core.HostPathVolumeSource, emptyDir 2 core.EmptyDirVolumeSource, gitRepo 5 core.GitRepoVolumeSource, '
    + 'secret 6 core.SecretVolumeSource, nfs 7 core.NFSVolumeSource, persistentVolumeClaim 10 core.PersistentVolumeClaimVolumeSource, '
    + 'downwardAPI 16 core.DownwardAPIVolumeSource, configMap 19 core.ConfigMapVolumeSource, projected 26 core.ProjectedVolumeSource, '
    + 'csi 28 core.CSIVolumeSource, ephemeral 29 core.EphemeralVolumeSource, image 30 core.ImageVolumeSource',
  'core.WeightedPodAffinityTerm': 'weight 1 int32, podAffinityTerm 2 core.PodAffinityTerm',
  'core.WindowsSecurityContextOptions': 'gmsaCredentialSpecName 1 string, gmsaCredentialSpec 2 string, runAsUserName 3 string, hostProcess 4 bool',
  'core.WorkloadReference': 'name 1 string, podGroup 2 string, podGroupReplicaKey 3 string',
  'apps.ControllerRevision': 'metadata 1 meta.ObjectMeta, data 2 runtime.RawExtension, revision 3 int64',
  'apps.DaemonSet': 'metadata 1 meta.ObjectMeta, spec 2 apps.DaemonSetSpec, status 3 apps.DaemonSetStatus',
  'apps.DaemonSetCondition': 'type 1 string, status 2 string, lastTransitionTime 3 meta.Time, reason 4 string, message 5 string',
  'apps.DaemonSetSpec': 'selector 1 meta.LabelSelector, template 2 core.PodTemplateSpec, updateStrategy 3 apps.DaemonSetUpdateStrategy, '
    + 'minReadySeconds 4 int32, revisionHistoryLimit 6 int32',
  'apps.DaemonSetStatus': 'currentNumberScheduled 1 int32, numberMisscheduled 2 int32, desiredNumberScheduled 3 int32, numberReady 4 int32, '
    + 'observedGeneration 5 int64, updatedNumberScheduled 6 int32, numberAvailable 7 int32, numberUnavailable 8 int32, '
    + 'collisionCount 9 int32, conditions 10 apps.DaemonSetCondition[]',
  'apps.DaemonSetUpdateStrategy': 'type 1 string, rollingUpdate 2 apps.RollingUpdateDaemonSet',
  'apps.Deployment': 'metadata 1 meta.ObjectMeta, spec 2 apps.DeploymentSpec, status 3 apps.DeploymentStatus',
  'apps.DeploymentCondition': 'type 1 string, status 2 string, lastUpdateTime 6 meta.Time, lastTransitionTime 7 meta.Time, reason 4 string, '
    + 'message 5 string',
  'apps.DeploymentSpec': 'replicas 1 int32, selector 2 meta.LabelSelector, template 3 core.PodTemplateSpec, strategy 4 apps.DeploymentStrategy, '
    + 'minReadySeconds 5 int32, revisionHistoryLimit 6 int32, paused 7 bool, progressDeadlineSeconds 9 int32, '
    + 'podReplacementPolicy 10 string',
  'apps.DeploymentStatus': 'observedGeneration 1 int64, replicas 2 int32, updatedReplicas 3 int32, readyReplicas 7 int32, availableReplicas 4 int32, '
    + 'unavailableReplicas 5 int32, terminatingReplicas 9 int32, conditions 6 apps.DeploymentCondition[], collisionCount 8 int32',
  'apps.DeploymentStrategy': 'type 1 string, rollingUpdate 2 apps.RollingUpdateDeployment',
  'apps.ReplicaSet': 'metadata 1 meta.ObjectMeta, spec 2 apps.ReplicaSetSpec, status 3 apps.ReplicaSetStatus',
  'apps.ReplicaSetCondition': 'type 1 string, status 2 string, lastTransitionTime 3 meta.Time, reason 4 string, message 5 string',
  'apps.ReplicaSetSpec': 'replicas 1 int32, minReadySeconds 4 int32, selector 2 meta.LabelSelector, template 3 core.PodTemplateSpec',
  'apps.ReplicaSetStatus': 'replicas 1 int32, fullyLabeledReplicas 2 int32, readyReplicas 4 int32, availableReplicas 5 int32, '
    + 'terminatingReplicas 7 int32, observedGeneration 3 int64, conditions 6 apps.ReplicaSetCondition[]',
  'apps.RollingUpdateDaemonSet': 'maxUnavailable 1 intstr.IntOrString, maxSurge 2 intstr.IntOrString',
  'apps.RollingUpdateDeployment': 'maxUnavailable 1 intstr.IntOrString, maxSurge 2 intstr.IntOrString',
  'apps.RollingUpdateStatefulSetStrategy': 'partition 1 int32, maxUnavailable 2 intstr.IntOrString',
  'apps.StatefulSet': 'metadata 1 meta.ObjectMeta, spec 2 apps.StatefulSetSpec, status 3 apps.StatefulSetStatus',
  'apps.StatefulSetCondition': 'type 1 string, status 2 string, lastTransitionTime 3 meta.Time, reason 4 string, message 5 string',
  'apps.StatefulSetOrdinals': 'start 1 int32',
  'apps.StatefulSetPersistentVolumeClaimRetentionPolicy': 'whenDeleted 1 string, whenScaled 2 string',
  'apps.StatefulSetSpec': 'replicas 1 int32, selector 2 meta.LabelSelector, template 3 core.PodTemplateSpec, '
    + 'volumeClaimTemplates 4 core.PersistentVolumeClaim[], serviceName 5 string, podManagementPolicy 6 string, '
    + 'updateStrategy 7 apps.StatefulSetUpdateStrategy, revisionHistoryLimit 8 int32, minReadySeconds 9 int32, '
    + 'persistentVolumeClaimRetentionPolicy 10 apps.StatefulSetPersistentVolumeClaimRetentionPolicy, '
    + 'ordinals 11 apps.StatefulSetOrdinals',
  'apps.StatefulSetStatus': 'observedGeneration 1 int64, replicas 2 int32, readyReplicas 3 int32, currentReplicas 4 int32, updatedReplicas 5 int32, '
    + 'currentRevision 6 string, updateRevision 7 string, collisionCount 9 int32, conditions 10 apps.StatefulSetCondition[], '
    + 'availableReplicas 11 int32',
  'apps.StatefulSetUpdateStrategy': 'type 1 string, rollingUpdate 2 apps.RollingUpdateStatefulSetStrategy',
  'batch.CronJob': 'metadata 1 meta.ObjectMeta, spec 2 batch.CronJobSpec, status 3 batch.CronJobStatus',
  'batch.CronJobSpec': 'schedule 1 string, timeZone 8 string, startingDeadlineSeconds 2 int64, concurrencyPolicy 3 string, suspend 4 bool, '
    + 'jobTemplate 5 batch.JobTemplateSpec, successfulJobsHistoryLimit 6 int32, failedJobsHistoryLimit 7 int32',
  'batch.CronJobStatus': 'active 1 core.ObjectReference[], lastScheduleTime 4 meta.Time, lastSuccessfulTime 5 meta.Time',
  'batch.Job': 'metadata 1 meta.ObjectMeta, spec 2 batch.JobSpec, status 3 batch.JobStatus',
  'batch.JobCondition': 'type 1 string, status 2 string, lastProbeTime 3 meta.Time, lastTransitionTime 4 meta.Time, reason 5 string, message 6 string',
  'batch.JobSpec': 'parallelism 1 int32, completions 2 int32, activeDeadlineSeconds 3 int64, podFailurePolicy 11 batch.PodFailurePolicy, '
    + 'successPolicy 16 batch.SuccessPolicy, backoffLimit 7 int32, backoffLimitPerIndex 12 int32, maxFailedIndexes 13 int32, '
    + 'selector 4 meta.LabelSelector, manualSelector 5 bool, template 6 core.PodTemplateSpec, ttlSecondsAfterFinished 8 int32, '
    + 'completionMode 9 string, suspend 10 bool, podReplacementPolicy 14 string, managedBy 15 string',
  'batch.JobStatus': 'conditions 1 batch.JobCondition[], startTime 2 meta.Time, completionTime 3 meta.Time, active 4 int32, succeeded 5 int32, '
    + 'failed 6 int32, terminating 11 int32, completedIndexes 7 string, failedIndexes 10 string, '
    + 'uncountedTerminatedPods 8 batch.UncountedTerminatedPods, ready 9 int32',
  'batch.JobTemplateSpec': 'metadata 1 meta.ObjectMeta, spec 2 batch.JobSpec',
  'batch.PodFailurePolicy': 'rules 1 batch.PodFailurePolicyRule[]',
  'batch.PodFailurePolicyOnExitCodesRequirement': 'containerName 1 string, operator 2 string, values 3 int32[]',
  'batch.PodFailurePolicyOnPodConditionsPattern': 'type 1 string, status 2 string',
  'batch.PodFailurePolicyRule': 'action 1 string, onExitCodes 2 batch.PodFailurePolicyOnExitCodesRequirement, '
    + 'onPodConditions 3 batch.PodFailurePolicyOnPodConditionsPattern[]',
  'batch.SuccessPolicy': 'rules 1 batch.SuccessPolicyRule[]',
  'batch.SuccessPolicyRule': 'succeededIndexes 1 string, succeededCount 2 int32',
  'batch.UncountedTerminatedPods': 'succeeded 1 string[], failed 2 string[]',
  'networking.HTTPIngressPath': 'path 1 string, pathType 3 string, backend 2 networking.IngressBackend',
  'networking.HTTPIngressRuleValue': 'paths 1 networking.HTTPIngressPath[]',
  'networking.Ingress': 'metadata 1 meta.ObjectMeta, spec 2 networking.IngressSpec, status 3 networking.IngressStatus',
  'networking.IngressBackend': 'service 4 networking.IngressServiceBackend, resource 3 core.TypedLocalObjectReference',
  'networking.IngressLoadBalancerIngress': 'ip 1 string, hostname 2 string, ports 4 networking.IngressPortStatus[]',
  'networking.IngressLoadBalancerStatus': 'ingress 1 networking.IngressLoadBalancerIngress[]',
  'networking.IngressPortStatus': 'port 1 int32, protocol 2 string, error 3 string',
  'networking.IngressRule': 'host 1 string, ingressRuleValue 2 networking.IngressRuleValue',
  'networking.IngressRuleValue': 'http 1 networking.HTTPIngressRuleValue',
  'networking.IngressServiceBackend': 'name 1 string, port 2 networking.ServiceBackendPort',
  'networking.IngressSpec': 'ingressClassName 4 string, defaultBackend 1 networking.IngressBackend, tls 2 networking.IngressTLS[], '
    + 'rules 3 networking.IngressRule[]',
  'networking.IngressStatus': 'loadBalancer 1 networking.IngressLoadBalancerStatus',
  'networking.IngressTLS': 'hosts 1 string[], secretName 2 string',
  'networking.ServiceBackendPort': 'name 1 string, number 2 int32',
  'coordination.Lease': 'metadata 1 meta.ObjectMeta, spec 2 coordination.LeaseSpec',
  'coordination.LeaseSpec': 'holderIdentity 1 string, leaseDurationSeconds 2 int32, acquireTime 3 meta.MicroTime, renewTime 4 meta.MicroTime, '
    + 'leaseTransitions 5 int32, strategy 6 string, preferredHolder 7 string',
  'policy.Eviction': 'metadata 1 meta.ObjectMeta, deleteOptions 2 meta.DeleteOptions',
  'authorization.SelfSubjectAccessReview': 'metadata 1 meta.ObjectMeta, spec 2 authorization.SelfSubjectAccessReviewSpec, '
    + 'status 3 authorization.SubjectAccessReviewStatus',
  'authorization.SelfSubjectAccessReviewSpec': 'resourceAttributes 1 authorization.ResourceAttributes, '
    + 'nonResourceAttributes 2 authorization.NonResourceAttributes',
  'authorization.ResourceAttributes': 'namespace 1 string, verb 2 string, group 3 string, version 4 string, resource 5 string, subresource 6 string, '
    + 'name 7 string, fieldSelector 8 authorization.FieldSelectorAttributes, '
    + 'labelSelector 9 authorization.LabelSelectorAttributes',
  'authorization.FieldSelectorAttributes': 'rawSelector 1 string, requirements 2 meta.FieldSelectorRequirement[]',
  'authorization.LabelSelectorAttributes': 'rawSelector 1 string, requirements 2 meta.LabelSelectorRequirement[]',
  'authorization.NonResourceAttributes': 'path 1 string, verb 2 string',
  'authorization.SubjectAccessReviewStatus': 'allowed 1 bool, denied 4 bool, reason 2 string, evaluationError 3 string',
  'authorization.SelfSubjectRulesReview': 'metadata 1 meta.ObjectMeta, spec 2 authorization.SelfSubjectRulesReviewSpec, '
    + 'status 3 authorization.SubjectRulesReviewStatus',
  'authorization.SelfSubjectRulesReviewSpec': 'namespace 1 string',
  'authorization.SubjectRulesReviewStatus': 'resourceRules 1 authorization.ResourceRule[], nonResourceRules 2 authorization.NonResourceRule[], '
    + 'incomplete 3 bool, evaluationError 4 string',
  'authorization.ResourceRule': 'verbs 1 string[], apiGroups 2 string[], resources 3 string[], resourceNames 4 string[]',
  'authorization.NonResourceRule': 'verbs 1 string[], nonResourceURLs 2 string[]',
  'authentication.SelfSubjectReview': 'metadata 1 meta.ObjectMeta, status 2 authentication.SelfSubjectReviewStatus',
  'authentication.SelfSubjectReviewStatus': 'userInfo 1 authentication.UserInfo',
  'authentication.UserInfo': 'username 1 string, uid 2 string, groups 3 string[], extra 4 map<string,authentication.ExtraValue>',
  'authentication.ExtraValue': 'items 1 string[]',
  'meta.FieldSelectorRequirement': 'key 1 string, operator 2 string, values 3 string[]',
};

/**
 * Pointer fields (Go `*int32`, `*bool`, `*string`) whose zero means something other than unset. The wire cannot tell
 * them from a plain field's zero, which Go's JSON omits; JSON keeps these.
 */
export const KEEP_ZERO: ReadonlySet<string> = new Set(Object.entries({
  'core.PodSpec': ['terminationGracePeriodSeconds', 'activeDeadlineSeconds', 'automountServiceAccountToken', 'shareProcessNamespace', 'priority', 'enableServiceLinks', 'setHostnameAsFQDN', 'hostUsers'],
  'core.SecurityContext': ['privileged', 'runAsUser', 'runAsGroup', 'runAsNonRoot', 'readOnlyRootFilesystem', 'allowPrivilegeEscalation'],
  'core.PodSecurityContext': ['runAsUser', 'runAsGroup', 'runAsNonRoot', 'fsGroup'],
  'core.Probe': ['terminationGracePeriodSeconds'],
  'core.Toleration': ['tolerationSeconds'],
  'core.SecretVolumeSource': ['defaultMode', 'optional'],
  'core.ConfigMapVolumeSource': ['defaultMode', 'optional'],
  'core.ProjectedVolumeSource': ['defaultMode'],
  'core.DownwardAPIVolumeSource': ['defaultMode'],
  'core.SecretProjection': ['optional'],
  'core.ConfigMapProjection': ['optional'],
  'core.KeyToPath': ['mode'],
  'core.DownwardAPIVolumeFile': ['mode'],
  'core.ConfigMapKeySelector': ['optional'],
  'core.SecretKeySelector': ['optional'],
  'core.ConfigMapEnvSource': ['optional'],
  'core.SecretEnvSource': ['optional'],
  'core.ServiceAccountTokenProjection': ['expirationSeconds'],
  'core.ServiceAccount': ['automountServiceAccountToken'],
  'core.ConfigMap': ['immutable'],
  'core.Secret': ['immutable'],
  'core.ServiceSpec': ['allocateLoadBalancerNodePorts'],
  'core.ClientIPConfig': ['timeoutSeconds'],
  'core.PersistentVolumeClaimSpec': ['storageClassName'],
  'apps.DeploymentSpec': ['replicas', 'revisionHistoryLimit', 'progressDeadlineSeconds'],
  'apps.ReplicaSetSpec': ['replicas'],
  'apps.ControllerRevision': ['revision'],
  'apps.StatefulSetSpec': ['replicas', 'revisionHistoryLimit'],
  'apps.StatefulSetStatus': ['replicas'],
  'apps.RollingUpdateStatefulSetStrategy': ['partition'],
  'apps.DaemonSetSpec': ['revisionHistoryLimit'],
  'batch.JobSpec': ['parallelism', 'completions', 'activeDeadlineSeconds', 'backoffLimit', 'backoffLimitPerIndex', 'maxFailedIndexes', 'ttlSecondsAfterFinished', 'manualSelector', 'suspend'],
  'batch.CronJobSpec': ['startingDeadlineSeconds', 'suspend', 'successfulJobsHistoryLimit', 'failedJobsHistoryLimit'],
  'coordination.LeaseSpec': ['leaseDurationSeconds', 'leaseTransitions'],
  'meta.OwnerReference': ['controller', 'blockOwnerDeletion'],
  'meta.ObjectMeta': ['deletionGracePeriodSeconds'],
  'meta.DeleteOptions': ['gracePeriodSeconds', 'orphanDependents'],
  'authorization.SubjectAccessReviewStatus': ['allowed'],
}).flatMap(([message, fields]) => fields.map((f) => `${message}.${f}`)));

/**
 * Go's embedded structs: the field's own fields are the JSON's, at the level of the message holding it (a Volume's
 * source, a key selector's `name`, a Probe's handler).
 */
export const INLINE: ReadonlySet<string> = new Set([
  'core.Volume.volumeSource', 'core.Probe.handler', 'core.EphemeralContainer.ephemeralContainerCommon', 'networking.IngressRule.ingressRuleValue',
  ...['ConfigMapEnvSource', 'ConfigMapKeySelector', 'ConfigMapProjection', 'ConfigMapVolumeSource', 'SecretEnvSource', 'SecretKeySelector', 'SecretProjection'].map((m) => `core.${m}.localObjectReference`),
]);
