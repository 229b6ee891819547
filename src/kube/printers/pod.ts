// Pods and pod templates: ports of printPod (READY, STATUS reason rules, RESTARTS) and printPodTemplate.

import type { KubeObject } from '../types.js';
import { AGE_COLUMN, NAME_COLUMN, ageOf, column, containerCells, nameOf, wide } from './columns.js';
import { DOC } from './descriptions.js';
import { humanDuration } from './duration.js';
import { at, bool, int, obj, objAt, objects, optBool, optStr, parseTime, str, stringMap, type JsonObject } from './fields.js';
import { formatLabels } from './labels.js';
import type { ResourcePrinter, TableRowCondition } from './types.js';

/** node.NodeUnreachablePodReason: the pod's node stopped reporting. */
const NODE_UNREACHABLE_REASON = 'NodeLost';
/** v1.PodReasonSchedulingGated. */
const SCHEDULING_GATED = 'SchedulingGated';

const POD_SUCCEEDED: TableRowCondition[] = [
  { type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' },
];
const POD_FAILED: TableRowCondition[] = [
  { type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' },
];

/** Port of podutil.IsRestartableInitContainer: a sidecar (restartPolicy Always); nil is not one. */
function isRestartable(container: JsonObject | undefined): boolean {
  return container !== undefined && container.restartPolicy === 'Always';
}

/** lastState.terminated.finishedAt as ms, when set. */
function lastFinishedAt(status: JsonObject): number | undefined {
  return parseTime(objAt(status, 'lastState', 'terminated')?.finishedAt);
}

function later(a: number | undefined, b: number | undefined): number | undefined {
  if (b === undefined) return a;
  return a === undefined || a < b ? b : a;
}

function conditionStatus(conditions: JsonObject[], type: string): string | undefined {
  return optStr(conditions.find((c) => c.type === type)?.status);
}

/** The first five cells of printPod plus the wide ones; reason and restart rules as in kube 1.32. */
function podCells(pod: KubeObject, now: Date): unknown[] {
  const spec = obj(pod.spec);
  const status = obj(pod.status);
  const conditions = objects(status.conditions);
  const initSpecs = objects(spec.initContainers);
  const initStatuses = objects(status.initContainerStatuses);
  const containerStatuses = objects(status.containerStatuses);

  let restarts = 0;
  let sidecarRestarts = 0;
  let readyContainers = 0;
  let lastRestart: number | undefined;
  let lastSidecarRestart: number | undefined;
  // Sidecars count in READY's denominator next to the regular containers.
  const totalContainers = objects(spec.containers).length + initSpecs.filter(isRestartable).length;

  const phase = str(status.phase);
  let reason = str(status.reason) !== '' ? str(status.reason) : phase;
  for (const c of conditions) {
    if (c.type === 'PodScheduled' && c.reason === SCHEDULING_GATED) reason = SCHEDULING_GATED;
  }

  const initByName = new Map<string, JsonObject>();
  for (const c of initSpecs) initByName.set(str(c.name), c);

  let initializing = false;
  for (const [i, cs] of initStatuses.entries()) {
    const sidecar = isRestartable(initByName.get(str(cs.name)));
    restarts += int(cs.restartCount);
    lastRestart = later(lastRestart, lastFinishedAt(cs));
    if (sidecar) {
      sidecarRestarts += int(cs.restartCount);
      lastSidecarRestart = later(lastSidecarRestart, lastFinishedAt(cs));
    }
    const terminated = objAt(cs, 'state', 'terminated');
    const waiting = objAt(cs, 'state', 'waiting');
    if (terminated !== undefined && int(terminated.exitCode) === 0) continue;
    if (sidecar && optBool(cs.started) === true) {
      if (bool(cs.ready)) readyContainers++;
      continue;
    }
    if (terminated !== undefined) {
      // Initialization failed: the container's reason, else its signal or exit code.
      const r = str(terminated.reason);
      if (r !== '') reason = `Init:${r}`;
      else if (int(terminated.signal) !== 0) reason = `Init:Signal:${int(terminated.signal)}`;
      else reason = `Init:ExitCode:${int(terminated.exitCode)}`;
    } else if (waiting !== undefined && str(waiting.reason) !== '' && waiting.reason !== 'PodInitializing') {
      reason = `Init:${str(waiting.reason)}`;
    } else {
      reason = `Init:${i}/${initSpecs.length}`;
    }
    initializing = true;
    break;
  }

  if (!initializing || conditionStatus(conditions, 'Initialized') === 'True') {
    // Regular containers run: their restarts replace the (finished) init containers', sidecars kept.
    restarts = sidecarRestarts;
    lastRestart = lastSidecarRestart;
    let hasRunning = false;
    for (let i = containerStatuses.length - 1; i >= 0; i--) {
      const cs = containerStatuses[i] ?? {};
      restarts += int(cs.restartCount);
      lastRestart = later(lastRestart, lastFinishedAt(cs));
      const waiting = objAt(cs, 'state', 'waiting');
      const terminated = objAt(cs, 'state', 'terminated');
      if (waiting !== undefined && str(waiting.reason) !== '') {
        reason = str(waiting.reason);
      } else if (terminated !== undefined && str(terminated.reason) !== '') {
        reason = str(terminated.reason);
      } else if (terminated !== undefined) {
        const signal = int(terminated.signal);
        reason = signal !== 0 ? `Signal:${signal}` : `ExitCode:${int(terminated.exitCode)}`;
      } else if (bool(cs.ready) && objAt(cs, 'state', 'running') !== undefined) {
        hasRunning = true;
        readyContainers++;
      }
    }
    // A container still running means the pod is not Completed, whatever another one reported.
    if (reason === 'Completed' && hasRunning) {
      // hasPodReadyCondition: any Ready=True condition, not only the first.
      const ready = conditions.some((c) => c.type === 'Ready' && c.status === 'True');
      reason = ready ? 'Running' : 'NotReady';
    }
  }

  const deleting = parseTime(pod.metadata?.deletionTimestamp) !== undefined;
  if (deleting && str(status.reason) === NODE_UNREACHABLE_REASON) reason = 'Unknown';
  else if (deleting && phase !== 'Succeeded' && phase !== 'Failed') reason = 'Terminating';

  let restartsCell = String(restarts);
  if (restarts !== 0 && lastRestart !== undefined) {
    restartsCell = `${restarts} (${humanDuration(now.getTime() - lastRestart)} ago)`;
  }

  const podIPs = objects(status.podIPs);
  const readinessGates = objects(spec.readinessGates);
  let gates = '<none>';
  if (readinessGates.length > 0) {
    let trueConditions = 0;
    for (const gate of readinessGates) {
      // Only the first condition of the gate's type counts, as in kube.
      if (conditionStatus(conditions, str(gate.conditionType)) === 'True') trueConditions++;
    }
    gates = `${trueConditions}/${readinessGates.length}`;
  }
  return [
    nameOf(pod),
    `${readyContainers}/${totalContainers}`,
    reason,
    restartsCell,
    ageOf(pod, now),
    // Pods written before dual-stack carry only podIP, which the v1 conversion turns into podIPs[0].
    str(podIPs[0]?.ip ?? status.podIP) || '<none>',
    str(spec.nodeName) || '<none>',
    str(status.nominatedNodeName) || '<none>',
    gates,
  ];
}

export const podPrinter: ResourcePrinter = {
  columns: [
    NAME_COLUMN,
    column('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
    column('Status', 'string', 'The aggregate status of the containers in this pod.'),
    column(
      'Restarts',
      'string',
      'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
    ),
    AGE_COLUMN,
    wide('IP', 'string', DOC.podIP),
    wide('Node', 'string', DOC.nodeName),
    wide('Nominated Node', 'string', DOC.nominatedNodeName),
    wide('Readiness Gates', 'string', DOC.readinessGates),
  ],
  cells: podCells,
  conditions(pod) {
    const phase = at(pod, 'status', 'phase');
    if (phase === 'Succeeded') return POD_SUCCEEDED;
    if (phase === 'Failed') return POD_FAILED;
    return undefined;
  },
};

/** Port of printPodTemplate. */
export const podTemplatePrinter: ResourcePrinter = {
  columns: [
    NAME_COLUMN,
    column('Containers', 'string', 'Names of each container in the template.'),
    column('Images', 'string', 'Images referenced by each container in the template.'),
    column('Pod Labels', 'string', 'The labels for the pod template.'),
  ],
  cells(o) {
    const [names, images] = containerCells(at(o, 'template', 'spec', 'containers'));
    return [nameOf(o), names, images, formatLabels(stringMap(at(o, 'template', 'metadata', 'labels')))];
  },
};
