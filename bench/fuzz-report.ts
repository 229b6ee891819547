// RELIABILITY.md sections written by `npm run fuzz` and `npm run overload`: only their own "## …" section is replaced.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

export const RELIABILITY_MD = new URL('../RELIABILITY.md', import.meta.url).pathname;

/**
 * Replaces the section starting with `heading` (up to the next "## " heading) in RELIABILITY.md, or appends it;
 * creates the file with its top heading when absent. Other sections (written by other runs) are kept as they are.
 */
export function replaceReliabilitySection(heading: string, body: string, file = RELIABILITY_MD): void {
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '# Reliability\n';
  const section = `${heading}\n\n${body.trim()}\n`;
  const start = text.search(new RegExp(`^${heading.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\n`, 'm'));
  if (start < 0) {
    writeFileSync(file, `${text.trimEnd()}\n\n${section}`);
    return;
  }
  const rest = text.slice(start + heading.length + 1);
  const next = rest.search(/^## /m);
  const end = next < 0 ? text.length : start + heading.length + 1 + next;
  writeFileSync(file, `${text.slice(0, start)}${section}${next < 0 ? '' : '\n'}${text.slice(end)}`);
}

export const fmt = (n: number, digits = 0): string =>
  (Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : 'n/a');
