// Scaling and disruption policy: ports of printHorizontalPodAutoscaler (formatHPAMetrics) and
// printPodDisruptionBudget.

import type { KubeObject } from '../types.js';
import { AGE_COLUMN, NAME_COLUMN, ageOf, column, nameOf } from './columns.js';
import { DOC } from './descriptions.js';
import { at, int, isObject, objAt, objects, optInt, str, type JsonObject } from './fields.js';
import type { ResourcePrinter } from './types.js';

/** A *resource.Quantity's String(): the stored canonical text, `<nil>` for a nil pointer as in Go. */
function quantityPtr(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  return '<nil>';
}

/** `N%` of an optional int32. */
function percent(v: unknown): string | undefined {
  const n = optInt(v);
  return n === undefined ? undefined : `${n}%`;
}

/** One metric's `current/target`, as formatHPAMetrics writes it for each MetricSourceType. */
function formatMetric(spec: JsonObject, status: JsonObject | undefined): string {
  const unknown = '<unknown>';
  switch (spec.type) {
    case 'External':
    case 'Object': {
      const field = spec.type === 'External' ? 'external' : 'object';
      const target = objAt(spec, field, 'target') ?? {};
      const current = status === undefined ? undefined : objAt(status, field);
      if (target.averageValue !== undefined && target.averageValue !== null) {
        const avg = at(current, 'current', 'averageValue');
        const cur = current !== undefined && avg !== undefined && avg !== null ? quantityPtr(avg) : unknown;
        return `${cur}/${quantityPtr(target.averageValue)} (avg)`;
      }
      const cur = current === undefined ? unknown : quantityPtr(at(current, 'current', 'value'));
      return `${cur}/${quantityPtr(target.value)}`;
    }
    case 'Pods': {
      const current = status === undefined ? undefined : objAt(status, 'pods');
      const cur = current === undefined ? unknown : quantityPtr(at(current, 'current', 'averageValue'));
      return `${cur}/${quantityPtr(at(spec, 'pods', 'target', 'averageValue'))}`;
    }
    case 'Resource':
    case 'ContainerResource': {
      const field = spec.type === 'Resource' ? 'resource' : 'containerResource';
      const source = objAt(spec, field) ?? {};
      const target = objAt(source, 'target') ?? {};
      const current = status === undefined ? undefined : objAt(status, field);
      if (target.averageValue !== undefined && target.averageValue !== null) {
        const cur = current === undefined ? unknown : quantityPtr(at(current, 'current', 'averageValue'));
        return `${str(source.name)}: ${cur}/${quantityPtr(target.averageValue)}`;
      }
      const cur = percent(at(current, 'current', 'averageUtilization')) ?? unknown;
      return `${str(source.name)}: ${cur}/${percent(target.averageUtilization) ?? '<auto>'}`;
    }
    default:
      return '<unknown type>';
  }
}

/**
 * The metrics of autoscaling/v2, or those the autoscaling/v1 → internal conversion derives from
 * targetCPUUtilizationPercentage (v1 objects carry no other metrics outside annotations).
 */
function hpaMetrics(hpa: KubeObject): [specs: JsonObject[], statuses: JsonObject[]] {
  const target = optInt(at(hpa, 'spec', 'targetCPUUtilizationPercentage'));
  if (!Array.isArray(at(hpa, 'spec', 'metrics')) && target !== undefined) {
    const current = optInt(at(hpa, 'status', 'currentCPUUtilizationPercentage'));
    const specs = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: target } } }];
    const statuses =
      current === undefined ? [] : [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: current } } }];
    return [specs, statuses];
  }
  return [objects(at(hpa, 'spec', 'metrics')), arrOfObjects(at(hpa, 'status', 'currentMetrics'))];
}

/** Status entries keep their positions (kube pairs spec i with status i), so nothing is filtered. */
function arrOfObjects(v: unknown): JsonObject[] {
  return Array.isArray(v) ? v.map((x) => (isObject(x) ? x : {})) : [];
}

/** Port of formatHPAMetrics: the first two metrics, then `+ N more...`. */
function formatHPAMetrics(hpa: KubeObject): string {
  const [specs, statuses] = hpaMetrics(hpa);
  if (specs.length === 0) return '<none>';
  const max = 2;
  const list = specs.map((spec, i) => formatMetric(spec, statuses[i]));
  if (list.length > max) return `${list.slice(0, max).join(', ')} + ${list.length - max} more...`;
  return list.join(', ');
}

export const horizontalPodAutoscalerPrinter: ResourcePrinter = {
  columns: [
    NAME_COLUMN,
    column('Reference', 'string', DOC.hpaScaleTargetRef),
    column('Targets', 'string', DOC.hpaMetrics),
    column('MinPods', 'string', DOC.hpaMinReplicas),
    column('MaxPods', 'string', DOC.hpaMaxReplicas),
    column('Replicas', 'string', DOC.hpaCurrentReplicas),
    AGE_COLUMN,
  ],
  cells(o, now) {
    const minReplicas = optInt(at(o, 'spec', 'minReplicas'));
    return [
      nameOf(o),
      `${str(at(o, 'spec', 'scaleTargetRef', 'kind'))}/${str(at(o, 'spec', 'scaleTargetRef', 'name'))}`,
      formatHPAMetrics(o),
      minReplicas === undefined ? '<unset>' : String(minReplicas),
      int(at(o, 'spec', 'maxReplicas')),
      int(at(o, 'status', 'currentReplicas')),
      ageOf(o, now),
    ];
  },
};

/** An IntOrString's String(): the number or the text; `N/A` when unset. */
function intOrString(v: unknown): string {
  if (typeof v === 'number') return String(Math.trunc(v));
  if (typeof v === 'string') return v;
  return 'N/A';
}

export const podDisruptionBudgetPrinter: ResourcePrinter = {
  columns: [
    NAME_COLUMN,
    column('Min Available', 'string', 'The minimum number of pods that must be available.'),
    column('Max Unavailable', 'string', 'The maximum number of pods that may be unavailable.'),
    column('Allowed Disruptions', 'integer', 'Calculated number of pods that may be disrupted at this time.'),
    AGE_COLUMN,
  ],
  cells(o, now) {
    return [
      nameOf(o),
      intOrString(at(o, 'spec', 'minAvailable')),
      intOrString(at(o, 'spec', 'maxUnavailable')),
      int(at(o, 'status', 'disruptionsAllowed')),
      ageOf(o, now),
    ];
  },
};

/** printScale: the autoscaling Scale a `scale` subresource answers (kube registers it beside every printer). */
export const scalePrinter: ResourcePrinter = {
  columns: [
    NAME_COLUMN,
    column('Desired', 'integer', 'replicas is the desired number of instances for the scaled object.'),
    column('Available', 'integer', 'replicas is the actual number of observed instances of the scaled object.'),
    AGE_COLUMN,
  ],
  cells(o, now) {
    return [nameOf(o), int(at(o, 'spec', 'replicas')), int(at(o, 'status', 'replicas')), ageOf(o, now)];
  },
};
