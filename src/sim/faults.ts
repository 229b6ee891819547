// Injected request faults (fail the next N requests, slow every request); connection-level faults live on the cluster.

export interface FailSpec {
  /** HTTP status to answer with (500, 503, 429, ...). */
  code: number;
  /** Sets Retry-After (and details.retryAfterSeconds), as kube does for 429/503. */
  retryAfterSeconds?: number;
}

export class RequestFaults {
  private failures: FailSpec[] = [];
  /** Delay before every response, ms. */
  delayMs = 0;

  /** The next `count` requests (admin endpoints excepted) fail with `spec`. */
  failNext(count: number, spec: FailSpec): void {
    for (let i = 0; i < count; i++) this.failures.push(spec);
  }

  /** The failure for this request, if one is pending. */
  take(): FailSpec | undefined {
    return this.failures.shift();
  }

  get pendingFailures(): number {
    return this.failures.length;
  }

  clear(): void {
    this.failures = [];
    this.delayMs = 0;
  }
}
