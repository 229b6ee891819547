// RELIABILITY.md sections written by `npm run fuzz` and `npm run overload`: only their own "## …" section is replaced.
import { replaceSection } from './storage-report.js';

export { fmt } from './storage-report.js';

export const RELIABILITY_MD = new URL('../RELIABILITY.md', import.meta.url).pathname;

/** Replaces (or appends) one "## …" section of RELIABILITY.md, keeping the sections other runs wrote. */
export function replaceReliabilitySection(heading: string, body: string, file = RELIABILITY_MD): void {
  replaceSection(file, heading, body, '# Reliability');
}
