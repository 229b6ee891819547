// kube-apiserver's table printers (pkg/printers/internalversion) for the built-in kinds the simulator serves most:
// the columns `kubectl get` prints from a member, wide ones at priority 1.
import { rec, recs, type Rec, type SimObject } from './types.js';

export interface ColumnDef {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface Printer {
  defs: ColumnDef[];
  cells: (o: SimObject, now: number) => unknown[];
}

export const col = (name: string, type = 'string', priority = 0, format = ''): ColumnDef => ({ name, type, format, description: `${name} column`, priority });
const nameCol = col('Name', 'string', 0, 'name');

/** kube's duration.HumanDuration, used for AGE cells. */
export function humanDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return s % 60 === 0 ? `${m}m` : `${m}m${s % 60}s`;
  if (m < 180) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 8) return m % 60 === 0 ? `${h}h` : `${h}h${m % 60}m`;
  if (h < 48) return `${h}h`;
  const d = Math.floor(h / 24);
  if (h < 24 * 8) return h % 24 === 0 ? `${d}d` : `${d}d${h % 24}h`;
  if (d < 365 * 2) return `${d}d`;
  return `${Math.floor(d / 365)}y`;
}

/** How long ago `time` was (translateTimestampSince), `<unknown>` for none. */
function since(time: unknown, now: number): string {
  const t = typeof time === 'string' ? Date.parse(time) : NaN;
  return Number.isNaN(t) ? '<unknown>' : humanDuration(now - t);
}

export function age(o: SimObject, now: number): string {
  return since(o.metadata.creationTimestamp, now);
}

const num = (v: unknown): number => Number(v ?? 0);
/** kube's GetAccessModesAsString: each mode once, abbreviated, in kube's order. */
function accessModes(modes: unknown): string {
  const has = new Set(Array.isArray(modes) ? modes : []);
  return [['ReadWriteOnce', 'RWO'], ['ReadOnlyMany', 'ROX'], ['ReadWriteMany', 'RWX'], ['ReadWriteOncePod', 'RWOP']].filter(([m]) => has.has(m)).map(([, a]) => a).join(',');
}
/** A claim's or volume's class: the beta annotation's, else spec.storageClassName (kube's GetPersistentVolume[Claim]Class). */
const storageClassOf = (o: SimObject): string => o.metadata.annotations?.['volume.beta.kubernetes.io/storage-class'] ?? String(rec(o.spec).storageClassName ?? '');
const orNone = (s: string): string => (s === '' ? '<none>' : s);
/** labels.FormatLabels: `k=v,…` sorted by key, `<none>` for none. */
const formatLabels = (m: unknown): string => orNone(Object.entries(rec(m)).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => `${k}=${String(v)}`).join(','));
/** A workload's wide columns: its template's containers and images, and its selector. */
function templateCells(o: Rec, selector = true): unknown[] {
  const containers = recs(rec(rec(rec(o.spec).template).spec).containers);
  return [containers.map((c) => c.name).join(','), containers.map((c) => c.image).join(','), ...(selector ? [formatLabels(rec(rec(o.spec).selector).matchLabels)] : [])];
}
const templateCols = (selector = true): ColumnDef[] => [col('Containers', 'string', 1), col('Images', 'string', 1), ...(selector ? [col('Selector', 'string', 1)] : [])];

/**
 * kube's printPod: the status of the first container (in order) that waits or ended, `Running` again where one still
 * runs after a container completed; restarts with how long ago the last one ended; Terminating once marked.
 */
function podCells(o: SimObject, now: number): unknown[] {
  const status = rec(o.status);
  const statuses = recs(status.containerStatuses);
  const containers = recs(rec(o.spec).containers);
  // The phase (empty when there is none, as kube prints it), or the pod's own reason (Evicted, NodeLost).
  let reason = String(status.reason || (status.phase ?? ''));
  let ready = 0;
  let restarts = 0;
  let lastRestart = NaN;
  let running = false;
  for (const s of [...statuses].reverse()) {
    restarts += num(s.restartCount);
    const finished = Date.parse(String(rec(rec(s.lastState).terminated).finishedAt ?? ''));
    if (!Number.isNaN(finished) && !(lastRestart >= finished)) lastRestart = finished;
    const st = rec(s.state);
    const waiting = rec(st.waiting);
    const term = rec(st.terminated);
    if (typeof waiting.reason === 'string' && waiting.reason !== '') reason = waiting.reason;
    else if (typeof term.reason === 'string' && term.reason !== '') reason = term.reason;
    else if (st.terminated !== undefined) reason = term.signal ? `Signal:${String(term.signal)}` : `ExitCode:${String(term.exitCode ?? 0)}`;
    else if (s.ready === true && st.running !== undefined) {
      running = true;
      ready++;
    }
  }
  if (reason === 'Completed' && running) reason = recs(status.conditions).some((c) => c.type === 'Ready' && c.status === 'True') ? 'Running' : 'NotReady';
  if (o.metadata.deletionTimestamp) reason = 'Terminating';
  const spec = rec(o.spec);
  const gates = recs(spec.readinessGates);
  const restartCell = restarts !== 0 && !Number.isNaN(lastRestart) ? `${restarts} (${humanDuration(now - lastRestart)} ago)` : String(restarts);
  return [o.metadata.name, `${ready}/${containers.length}`, reason, restartCell, age(o, now), status.podIP ?? '<none>', spec.nodeName ?? '<none>', status.nominatedNodeName ?? '<none>', gates.length ? `0/${gates.length}` : '<none>'];
}

/** kube's printIngress: class, hosts (three at most), the load balancer's addresses, 80 (and 443 with TLS). */
function ingressCells(o: SimObject, now: number): unknown[] {
  const spec = rec(o.spec);
  const hosts = recs(spec.rules).map((r) => String(r.host ?? '*'));
  const shown = hosts.length === 0 ? '*' : hosts.length > 3 ? `${hosts.slice(0, 3).join(',')} + ${hosts.length - 3} more...` : hosts.join(',');
  const address = recs(rec(rec(o.status).loadBalancer).ingress).map((i) => String(i.ip ?? i.hostname ?? '')).join(',');
  return [o.metadata.name, spec.ingressClassName ?? '<none>', shown, address, recs(spec.tls).length > 0 ? '80, 443' : '80', age(o, now)];
}

function nodeCells(o: SimObject, now: number): unknown[] {
  const status = rec(o.status);
  const ready = recs(status.conditions).find((c) => c.type === 'Ready');
  const state = [ready?.status === 'True' ? 'Ready' : ready?.status === 'False' ? 'NotReady' : 'Unknown', ...(rec(o.spec).unschedulable === true ? ['SchedulingDisabled'] : [])].join(',');
  const labels = o.metadata.labels ?? {};
  const roles = Object.keys(labels).filter((k) => k.startsWith('node-role.kubernetes.io/')).map((k) => k.slice('node-role.kubernetes.io/'.length)).filter(Boolean);
  if (labels['kubernetes.io/role']) roles.push(labels['kubernetes.io/role']);
  const address = (type: string): string => String(recs(status.addresses).find((a) => a.type === type)?.address ?? '<none>');
  const info = rec(status.nodeInfo);
  return [o.metadata.name, state, orNone(roles.sort().join(',')), age(o, now), info.kubeletVersion ?? '', address('InternalIP'), address('ExternalIP'), info.osImage ?? '<unknown>', info.kernelVersion ?? '<unknown>', info.containerRuntimeVersion ?? '<unknown>'];
}

function servicePorts(spec: Rec): string {
  return orNone(recs(spec.ports).map((p) => `${String(p.port)}${p.nodePort ? `:${String(p.nodePort)}` : ''}/${String(p.protocol ?? 'TCP')}`).join(','));
}

function serviceExternal(o: SimObject): string {
  const spec = rec(o.spec);
  const external = (spec.externalIPs as string[] | undefined) ?? [];
  switch (spec.type) {
    case 'ExternalName': return String(spec.externalName ?? '');
    case 'LoadBalancer': {
      const ingress = recs(rec(rec(o.status).loadBalancer).ingress).map((i) => String(i.ip ?? i.hostname ?? ''));
      const all = [...ingress, ...external];
      return all.length > 0 ? all.join(',') : '<pending>';
    }
    default: return orNone(external.join(','));
  }
}

function jobStatus(status: Rec): string {
  const has = (type: string): boolean => recs(status.conditions).some((c) => c.type === type && c.status === 'True');
  if (has('Complete')) return 'Complete';
  if (has('Failed')) return 'Failed';
  if (has('Suspended')) return 'Suspended';
  return 'Running';
}

function jobCells(o: SimObject, now: number): unknown[] {
  const spec = rec(o.spec);
  const status = rec(o.status);
  const completions = spec.completions === undefined || spec.completions === null ? `${num(status.succeeded)}/1 of ${num(spec.parallelism ?? 1)}` : `${num(status.succeeded)}/${num(spec.completions)}`;
  const start = Date.parse(String(status.startTime ?? ''));
  const end = Date.parse(String(status.completionTime ?? ''));
  const duration = Number.isNaN(start) ? '' : humanDuration((Number.isNaN(end) ? now : end) - start);
  return [o.metadata.name, jobStatus(status), completions, duration, age(o, now), ...templateCells(o)];
}

/** kubectl get events' row: the last time seen (a series' for events.k8s.io ones), type, reason, object, message. */
function eventCells(o: SimObject, now: number): unknown[] {
  const series = rec(o.series);
  const first = o.firstTimestamp ? since(o.firstTimestamp, now) : since(o.eventTime, now);
  const last = series.lastObservedTime ? since(series.lastObservedTime, now) : o.lastTimestamp ? since(o.lastTimestamp, now) : first;
  const count = series.count !== undefined ? num(series.count) : num(o.count) || 1;
  const involved = rec(o.involvedObject);
  const source = rec(o.source);
  const from = String(source.component ?? o.reportingComponent ?? '');
  const host = String(source.host ?? o.reportingInstance ?? '');
  return [last, o.type ?? '', o.reason ?? '', `${String(involved.kind ?? '').toLowerCase()}/${String(involved.name ?? '')}`, involved.fieldPath ?? '', from && host ? `${from}, ${host}` : from, o.message ?? '', first, count, o.metadata.name];
}

/** The printers by group-resource. */
export const PRINTERS: Record<string, Printer> = {
  pods: { defs: [nameCol, col('Ready'), col('Status'), col('Restarts', 'string'), col('Age'), col('IP', 'string', 1), col('Node', 'string', 1), col('Nominated Node', 'string', 1), col('Readiness Gates', 'string', 1)], cells: podCells },
  namespaces: { defs: [nameCol, col('Status'), col('Age')], cells: (o, now) => [o.metadata.name, rec(o.status).phase ?? '', age(o, now)] },
  nodes: {
    defs: [nameCol, col('Status'), col('Roles'), col('Age'), col('Version'), col('Internal-IP', 'string', 1), col('External-IP', 'string', 1), col('OS-Image', 'string', 1), col('Kernel-Version', 'string', 1), col('Container-Runtime', 'string', 1)],
    cells: nodeCells,
  },
  services: {
    defs: [nameCol, col('Type'), col('Cluster-IP'), col('External-IP'), col('Port(s)'), col('Age'), col('Selector', 'string', 1)],
    cells: (o, now) => { const spec = rec(o.spec); return [o.metadata.name, spec.type ?? 'ClusterIP', spec.clusterIP ?? '<none>', serviceExternal(o), servicePorts(spec), age(o, now), formatLabels(spec.selector)]; },
  },
  configmaps: { defs: [nameCol, col('Data', 'integer'), col('Age')], cells: (o, now) => [o.metadata.name, Object.keys(rec(o.data)).length + Object.keys(rec(o.binaryData)).length, age(o, now)] },
  secrets: { defs: [nameCol, col('Type'), col('Data', 'integer'), col('Age')], cells: (o, now) => [o.metadata.name, o.type ?? '', Object.keys(rec(o.data)).length, age(o, now)] },
  serviceaccounts: { defs: [nameCol, col('Secrets', 'integer'), col('Age')], cells: (o, now) => [o.metadata.name, recs(o.secrets).length, age(o, now)] },
  events: {
    defs: [col('Last Seen'), col('Type'), col('Reason'), col('Object'), col('Subobject', 'string', 1), col('Source', 'string', 1), col('Message'), col('First Seen', 'string', 1), col('Count', 'string', 1), col('Name', 'string', 1)],
    cells: eventCells,
  },
  // Served from the core Events' store (events-v1.ts), printed by the same printer, as in kube.
  'events.events.k8s.io': {
    defs: [col('Last Seen'), col('Type'), col('Reason'), col('Object'), col('Subobject', 'string', 1), col('Source', 'string', 1), col('Message'), col('First Seen', 'string', 1), col('Count', 'string', 1), col('Name', 'string', 1)],
    cells: eventCells,
  },
  'ingresses.networking.k8s.io': { defs: [nameCol, col('Class'), col('Hosts'), col('Address'), col('Ports'), col('Age')], cells: ingressCells },
  // kube's printPersistentVolumeClaim / printPersistentVolume: capacity and access modes are the bound volume's.
  persistentvolumeclaims: {
    defs: [nameCol, col('Status'), col('Volume'), col('Capacity'), col('Access Modes'), col('StorageClass'), col('VolumeAttributesClass'), col('Age'), col('VolumeMode', 'string', 1)],
    cells: (o, now) => {
      const spec = rec(o.spec);
      const bound = String(spec.volumeName ?? '') !== '';
      return [o.metadata.name, o.metadata.deletionTimestamp ? 'Terminating' : String(rec(o.status).phase ?? ''), String(spec.volumeName ?? ''), bound ? String(rec(rec(o.status).capacity).storage ?? '') : '',
        bound ? accessModes(rec(o.status).accessModes) : '', storageClassOf(o), String(spec.volumeAttributesClassName ?? '') || '<unset>', age(o, now), String(spec.volumeMode ?? '') || '<unset>'];
    },
  },
  persistentvolumes: {
    defs: [nameCol, col('Capacity'), col('Access Modes'), col('Reclaim Policy'), col('Status'), col('Claim'), col('StorageClass'), col('VolumeAttributesClass'), col('Reason'), col('Age'), col('VolumeMode', 'string', 1)],
    cells: (o, now) => {
      const spec = rec(o.spec);
      const claim = spec.claimRef === undefined ? '' : `${String(rec(spec.claimRef).namespace ?? '')}/${String(rec(spec.claimRef).name ?? '')}`;
      return [o.metadata.name, String(rec(spec.capacity).storage ?? ''), accessModes(spec.accessModes), String(spec.persistentVolumeReclaimPolicy ?? ''),
        o.metadata.deletionTimestamp ? 'Terminating' : String(rec(o.status).phase ?? ''), claim, storageClassOf(o), String(spec.volumeAttributesClassName ?? '') || '<unset>', String(rec(o.status).reason ?? ''), age(o, now), String(spec.volumeMode ?? '') || '<unset>'];
    },
  },
  'leases.coordination.k8s.io': { defs: [nameCol, col('Holder'), col('Age')], cells: (o, now) => [o.metadata.name, rec(o.spec).holderIdentity ?? '', age(o, now)] },
  // No printer of its own: the API server's default table convertor, its creation time as written.
  'customresourcedefinitions.apiextensions.k8s.io': { defs: [nameCol, col('Created At', 'date')], cells: (o) => [o.metadata.name, o.metadata.creationTimestamp ?? ''] },
  'deployments.apps': {
    defs: [nameCol, col('Ready'), col('Up-to-date', 'integer'), col('Available', 'integer'), col('Age'), ...templateCols()],
    cells: (o, now) => { const s = rec(o.status); return [o.metadata.name, `${num(s.readyReplicas)}/${num(rec(o.spec).replicas)}`, num(s.updatedReplicas), num(s.availableReplicas), age(o, now), ...templateCells(o)]; },
  },
  'replicasets.apps': {
    defs: [nameCol, col('Desired', 'integer'), col('Current', 'integer'), col('Ready', 'integer'), col('Age'), ...templateCols()],
    cells: (o, now) => { const s = rec(o.status); return [o.metadata.name, num(rec(o.spec).replicas), num(s.replicas), num(s.readyReplicas), age(o, now), ...templateCells(o)]; },
  },
  'statefulsets.apps': {
    defs: [nameCol, col('Ready'), col('Age'), ...templateCols(false)],
    cells: (o, now) => [o.metadata.name, `${num(rec(o.status).readyReplicas)}/${num(rec(o.spec).replicas)}`, age(o, now), ...templateCells(o, false)],
  },
  // kube's printer: the controller as <kind>.<group>/<name>.
  'controllerrevisions.apps': {
    defs: [nameCol, col('Controller'), col('Revision', 'integer'), col('Age')],
    cells: (o, now) => {
      const ref = o.metadata.ownerReferences?.find((r) => r.controller === true);
      const group = ref?.apiVersion.includes('/') ? `.${ref.apiVersion.split('/')[0] ?? ''}` : '';
      return [o.metadata.name, ref ? `${ref.kind.toLowerCase()}${group}/${ref.name}` : '<none>', num(o.revision), age(o, now)];
    },
  },
  'daemonsets.apps': {
    defs: [nameCol, col('Desired', 'integer'), col('Current', 'integer'), col('Ready', 'integer'), col('Up-to-date', 'integer'), col('Available', 'integer'), col('Node Selector'), col('Age'), ...templateCols()],
    cells: (o, now) => {
      const s = rec(o.status);
      return [o.metadata.name, num(s.desiredNumberScheduled), num(s.currentNumberScheduled), num(s.numberReady), num(s.updatedNumberScheduled), num(s.numberAvailable), formatLabels(rec(rec(rec(o.spec).template).spec).nodeSelector), age(o, now), ...templateCells(o)];
    },
  },
  'jobs.batch': { defs: [nameCol, col('Status'), col('Completions'), col('Duration'), col('Age'), ...templateCols()], cells: jobCells },
  'cronjobs.batch': {
    defs: [nameCol, col('Schedule'), col('Timezone'), col('Suspend', 'boolean'), col('Active', 'integer'), col('Last Schedule'), col('Age'), ...templateCols()],
    cells: (o, now) => {
      const spec = rec(o.spec);
      const status = rec(o.status);
      return [o.metadata.name, spec.schedule ?? '', spec.timeZone ?? '<none>', typeof spec.suspend === 'boolean' ? (spec.suspend ? 'True' : 'False') : '<unset>', recs(status.active).length, status.lastScheduleTime ? since(status.lastScheduleTime, now) : '<none>', age(o, now),
        ...templateCells(rec(spec.jobTemplate))];
    },
  },
};
