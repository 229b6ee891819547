// Benchmark report helpers: percentiles, the machine description, and replacing one section of BENCHMARKS.md.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';

/** The p-th percentile (0–100) of `xs`, nearest-rank. */
export function percentile(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] as number;
}

export function machine(): string {
  const cpus = os.cpus();
  return `${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${cpus.length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB RAM, Node ${process.version}, ${os.type()} ${os.release()}`;
}

/**
 * Replaces the section starting with the line `heading` (up to the next "## " heading) in `file`, or appends it;
 * creates the file with `title` when absent. Other sections (written by other runs) are kept as they are.
 */
export function replaceSection(file: string, heading: string, body: string, title = '# Benchmarks'): void {
  const text = existsSync(file) ? readFileSync(file, 'utf8') : `${title}\n`;
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

export const fmt = (n: number, digits = 0): string => (Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : 'n/a');
