// Plain-text tables for `show`: kubectl-style columns (three spaces apart), optional colour on a terminal.

export type Colour = 'green' | 'red' | 'yellow' | 'dim' | undefined;

export interface Cell {
  text: string;
  colour?: Colour;
}

const CODES: Record<Exclude<Colour, undefined>, string> = { green: '\u001b[32m', red: '\u001b[31m', yellow: '\u001b[33m', dim: '\u001b[2m' };
const RESET = '\u001b[0m';

/** Renders rows under upper-case headers; colour codes are added after padding so columns stay aligned. */
export function renderTable(headers: string[], rows: (Cell | string)[][], colour: boolean): string {
  const cells = rows.map((r) => r.map((c) => (typeof c === 'string' ? { text: c } : c)));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]?.text.length ?? 0)));
  const line = (r: Cell[]): string => r.map((c, i) => {
    const padded = i === r.length - 1 ? c.text : c.text.padEnd(widths[i] ?? 0);
    return colour && c.colour ? `${CODES[c.colour]}${padded}${RESET}` : padded;
  }).join('   ').trimEnd();
  return [line(headers.map((h) => ({ text: h.toUpperCase() }))), ...cells.map(line)].join('\n') + '\n';
}

/** kubectl-style short age: 45s, 12m, 5h, 3d. */
export function shortAge(fromIso: string | undefined, now: number): string {
  if (!fromIso) return '<none>';
  const t = Date.parse(fromIso);
  if (Number.isNaN(t)) return '<unknown>';
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 120) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h`;
  return `${Math.floor(h / 24)}d`;
}

export function humanBytes(n: number): string {
  if (n < 1024) return `${n}B`;
  const units = ['Ki', 'Mi', 'Gi', 'Ti'];
  let v = n;
  let u = -1;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)}${units[u]}`;
}
