// PodMetrics and NodeMetrics (metrics.k8s.io) as kubectl top prints them: CPU in millicores rounded up, memory in
// whole MiB (a pod's summed over its containers), and the window the figures were taken over.

import type { KubeObject } from '../types.js';
import { AGE_COLUMN, NAME_COLUMN, ageOf, column, nameOf } from './columns.js';
import type { ResourcePrinter } from './types.js';

const SUFFIX: Readonly<Record<string, number>> = {
  n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, Ti: 1024 ** 4,
};

/** A resource.Quantity's value (the suffixes metrics-server writes, and the rest of the common ones); NaN otherwise. */
export function quantityValue(q: unknown): number {
  const m = /^([+-]?\d+(?:\.\d+)?)(n|u|m|k|M|G|T|Ki|Mi|Gi|Ti)?$/.exec(typeof q === 'string' ? q.trim() : '');
  return m ? Number(m[1]) * (SUFFIX[m[2] ?? ''] ?? NaN) : NaN;
}

type Usage = Record<string, unknown> | undefined;

function usageOf(obj: KubeObject): { cpu: number; memory: number } {
  const o = obj as KubeObject & { usage?: Usage; containers?: { usage?: Usage }[] };
  const usages = Array.isArray(o.containers) ? o.containers.map((c: { usage?: Usage } | null) => c?.usage) : [o.usage];
  let cpu = 0;
  let memory = 0;
  for (const u of usages) {
    cpu += quantityValue(u?.cpu);
    memory += quantityValue(u?.memory);
  }
  return { cpu, memory };
}

/** CPU as Quantity.MilliValue() (rounded up, as kubectl top prints it), in integer nanocores to stay exact. */
const millicores = (cores: number): string => (Number.isFinite(cores) ? `${Math.ceil(Math.round(cores * 1e9) / 1e6)}m` : '<unknown>');
/** Memory as kubectl top prints it: whole MiB, rounded down. */
const mebibytes = (bytes: number): string => (Number.isFinite(bytes) ? `${Math.floor(Math.round(bytes) / 1024 ** 2)}Mi` : '<unknown>');

/** The columns `kubectl top` shows, for `kubectl get` of PodMetrics and NodeMetrics. */
export const metricsPrinter: ResourcePrinter = {
  columns: [
    NAME_COLUMN,
    column('CPU(cores)', 'string', 'CPU in use, millicores (a pod\'s containers summed).'),
    column('MEMORY(bytes)', 'string', 'Memory in use, MiB (a pod\'s containers summed).'),
    column('Window', 'string', 'The interval the figures were measured over.'),
    AGE_COLUMN,
  ],
  cells(obj: KubeObject, now: Date): unknown[] {
    const { cpu, memory } = usageOf(obj);
    return [nameOf(obj), millicores(cpu), mebibytes(memory), String((obj as { window?: unknown }).window ?? ''), ageOf(obj, now)];
  },
};
