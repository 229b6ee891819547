// A fixed clock for the printer tests, and timestamps relative to it.

/** The fixed "now" every test prints against. */
export const NOW = new Date('2024-06-01T12:00:00Z');

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** The RFC 3339 timestamp `ms` milliseconds before NOW (negative: in the future). */
export function ago(ms: number): string {
  return new Date(NOW.getTime() - ms).toISOString().replace('.000Z', 'Z');
}
