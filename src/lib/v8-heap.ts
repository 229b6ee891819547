// V8's old-generation growing factor, set at run time (V8 reads it at each GC, unlike the young generation's size).
import { setFlagsFromString } from 'node:v8';

/**
 * Measured (BENCHMARKS.md): 50 cut the synchro's peak RSS by ~25 % at no throughput cost (20 saves more but slows), and
 * left the apiserver at 204 MB instead of 244 MB after 300 limit-500 pages. V8's own lets the heap reach 2–4× the
 * live set, and both roles turn over megabytes of short-lived objects per second (member pages, list pages).
 */
export const DEFAULT_HEAP_GROWING_PERCENT = 50;

/**
 * Lets the old generation grow `percent` % over the live heap before a full GC (V8's --heap-growing-percent); 0 keeps
 * V8's own. Set by each command (apiserver, synchro, binding) from its --heap-growing-percent, before the role starts.
 */
export function setHeapGrowingPercent(percent: number): void {
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${Math.round(percent)}`);
}
