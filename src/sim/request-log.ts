// A bounded log of the requests a simulated cluster served, so tests can assert how a client behaved.

export interface RequestRecord {
  method: string;
  path: string;
  /** The raw query string without "?", "" when absent. */
  query: string;
  /** Parsed query parameters (last value wins). */
  params: Record<string, string>;
  userAgent: string;
  /** The Accept header, "" when absent. */
  accept: string;
  /** The Content-Type header (what a body was sent as: JSON, kube's protobuf, a patch type), "" when absent. */
  contentType: string;
  /** The Audit-ID header (what kube-apiserver's audit log records the request under), "" when absent. */
  auditId: string;
  /** HTTP status; 0 while the response has not started. */
  status: number;
  /** Wall-clock start, ms since the epoch. */
  startedAt: number;
  /** Duration until the response ended (a watch: until it closed); undefined while in flight. */
  durationMs?: number;
  watch: boolean;
}

export class RequestLog {
  private records: RequestRecord[] = [];

  constructor(private capacity: number) {}

  add(r: RequestRecord): void {
    this.records.push(r);
    if (this.records.length > this.capacity) this.records.splice(0, this.records.length - this.capacity);
  }

  /** The retained records, oldest first (a copy of the list; records themselves update while in flight). */
  entries(filter?: (r: RequestRecord) => boolean): RequestRecord[] {
    return filter ? this.records.filter(filter) : [...this.records];
  }

  clear(): void {
    this.records = [];
  }

  setCapacity(n: number): void {
    this.capacity = Math.max(1, n);
    if (this.records.length > this.capacity) this.records.splice(0, this.records.length - this.capacity);
  }
}
