// Injected request faults (fail the next N requests, slow every request); connection-level faults live on the cluster.

export interface FailSpec {
  /** HTTP status to answer with (500, 503, 429, ...). */
  code: number;
  /** Sets Retry-After (and details.retryAfterSeconds), as kube does for 429/503. */
  retryAfterSeconds?: number;
  /** Only requests for this path (no query) fail, e.g. one group version's discovery; others pass. */
  path?: string;
}

export class RequestFaults {
  private failures: FailSpec[] = [];
  /** Delay before every response, ms. */
  delayMs = 0;
  /**
   * The chance (0–1) that a request other than a watch ends its HTTP/2 connection after it, gracefully (GOAWAY; the
   * connection's other streams, watches included, go on to their end), as kube-apiserver's --goaway-chance does to
   * spread clients over the servers behind a load balancer. HTTP/1.1 connections are left alone, as kube does.
   */
  goawayChance = 0;
  /** Paths whose server takes no field selector at all (refuseFieldSelectors). */
  private selectorless = new Set<string>();
  /** Group versions (`group/version`) whose aggregated API server is down (unavailable). */
  private down = new Set<string>();

  /**
   * The aggregated API server of `groupVersion` (`group/version`) is down from now on, as when an APIService's backend
   * (metrics-server, a webhook-backed API) is gone: its discovery answers 503, aggregated discovery lists it Stale.
   */
  unavailable(groupVersion: string): void {
    this.down.add(groupVersion);
  }

  /** Whether `groupVersion` (`group/version`, core `/v1`) is served by an aggregated API server that is down. */
  isUnavailable(groupVersion: string): boolean {
    return this.down.has(groupVersion);
  }

  /**
   * Requests for `path` (no query) that carry a field selector are answered 400 from now on, as by an aggregated API
   * server whose storage was written without field-selector support (kube's own, and CRDs, take metadata.namespace).
   */
  refuseFieldSelectors(path: string): void {
    this.selectorless.add(path);
  }

  /** Whether a request for `path` with field selector `selector` is refused (refuseFieldSelectors). */
  refusesFieldSelector(path: string, selector: string | null): boolean {
    return selector !== null && selector !== '' && this.selectorless.has(path);
  }

  /** The next `count` requests (admin endpoints excepted) fail with `spec`. */
  failNext(count: number, spec: FailSpec): void {
    for (let i = 0; i < count; i++) this.failures.push(spec);
  }

  /** The failure for a request to `path`, if one is pending for it (or for any path). */
  take(path: string): FailSpec | undefined {
    const i = this.failures.findIndex((f) => f.path === undefined || f.path === path);
    return i < 0 ? undefined : this.failures.splice(i, 1)[0];
  }

  get pendingFailures(): number {
    return this.failures.length;
  }

  clear(): void {
    this.failures = [];
    this.selectorless.clear();
    this.down.clear();
    this.delayMs = 0;
    this.goawayChance = 0;
  }
}
