// V8's old-generation growing factor, set at run time (V8 reads it at each GC, unlike the young generation's size).
import { setFlagsFromString } from 'node:v8';

/**
 * Lets the old generation grow `percent` % over the live heap before a full GC (V8's --heap-growing-percent); 0 keeps
 * V8's own, which lets it reach 2–4× the live set. Both roles turn over megabytes of short-lived objects per second
 * (member pages, list pages), and with V8's default that garbage is what RSS measures. Process-wide.
 */
export function setHeapGrowingPercent(percent: number): void {
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${Math.round(percent)}`);
}
