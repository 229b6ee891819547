// Exponential back-off with jitter, for anything that retries.

export interface BackoffOptions {
  /** First delay, milliseconds. */
  initialMs: number;
  /** Upper bound on any delay, milliseconds. */
  maxMs: number;
  /** Multiplier per attempt. */
  factor?: number;
  /** Fraction of the delay added at random (0..1). */
  jitter?: number;
  /** Source of randomness in [0,1); injectable for tests. */
  random?: () => number;
}

/** Stateful back-off: `next()` gives the next delay, `reset()` after a success. */
export class Backoff {
  private attempt = 0;
  constructor(private readonly opts: BackoffOptions) {}

  next(): number {
    const { initialMs, maxMs, factor = 2, jitter = 0.2, random = Math.random } = this.opts;
    const base = Math.min(maxMs, initialMs * factor ** this.attempt);
    this.attempt++;
    return Math.min(maxMs, Math.round(base * (1 + jitter * random())));
  }

  reset(): void {
    this.attempt = 0;
  }

  get attempts(): number {
    return this.attempt;
  }
}
