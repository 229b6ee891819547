// Go-style durations of Clusterpedia's config file ("90s", "1h30m", "500ms").

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Milliseconds of a Go-style duration, or undefined when `v` is not one. A bare number is seconds. */
export function parseDuration(v: string): number | undefined {
  const s = v.trim();
  if (/^\d+(\.\d+)?$/.test(s)) return Number(s) * 1000;
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy;
  let total = 0;
  let end = 0;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    total += Number(m[1]) * (UNITS[m[2] as string] ?? 0);
    end = re.lastIndex;
  }
  return s !== '' && end === s.length ? Math.round(total) : undefined;
}
