// Errors identified by a stable `code` (not instanceof: a bundle may hold two copies of a class).

/** A failure whose cause is the user's input or configuration: the CLI exits 2, HTTP answers 4xx. */
export class ConfigError extends Error {
  readonly code = 'ConfigError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ConfigError';
  }
}

/** True when `e` carries the given code. */
export function hasCode(e: unknown, code: string): boolean {
  return typeof e === 'object' && e !== null && (e as { code?: unknown }).code === code;
}

/** The message of anything thrown. */
export function messageOf(e: unknown): string {
  if (e instanceof Error) return e.message;
  return String(e);
}
