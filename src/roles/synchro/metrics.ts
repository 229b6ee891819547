// Prometheus metrics of the write path, on a registry passed in (never prom-client's global one).
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** Per (cluster, resource) object counts, read when /metrics is scraped rather than pushed on every event. */
export type ObjectCountSource = () => Iterable<{ cluster: string; resource: string; count: number }>;

/** Every metric the synchro exports. One instance per registry. */
export class SynchroMetrics {
  readonly events: Counter<'cluster' | 'resource' | 'type'>;
  readonly listWatchRestarts: Counter<'cluster' | 'resource' | 'phase'>;
  readonly relists: Counter<'cluster' | 'resource' | 'reason'>;
  readonly writeBatchSize: Histogram;
  readonly writeSeconds: Histogram;
  readonly writeErrors: Counter<'retryable'>;
  readonly rowsWritten: Counter<'outcome'>;
  readonly eventDelaySeconds: Histogram;
  readonly queueEntries: Gauge;
  readonly queueBytes: Gauge;
  readonly clusterHealthy: Gauge<'cluster'>;
  readonly memberProtocol: Gauge<'cluster' | 'protocol'>;
  private objectSources = new Set<ObjectCountSource>();

  constructor(readonly registry: Registry) {
    const registers = [registry];
    this.events = new Counter({ name: 'clusterpedia_synchro_events_total', help: 'Objects received from member clusters (list items and watch events).', labelNames: ['cluster', 'resource', 'type'], registers });
    this.listWatchRestarts = new Counter({ name: 'clusterpedia_synchro_list_watch_failures_total', help: 'List or watch requests that failed and were retried.', labelNames: ['cluster', 'resource', 'phase'], registers });
    this.relists = new Counter({ name: 'clusterpedia_synchro_lists_total', help: 'Full lists of a resource (initial, after 410 Expired, after failures).', labelNames: ['cluster', 'resource', 'reason'], registers });
    this.writeBatchSize = new Histogram({ name: 'clusterpedia_synchro_write_batch_size', help: 'Objects per storage write transaction.', buckets: [1, 10, 50, 100, 250, 500, 1000, 2000], registers });
    this.writeSeconds = new Histogram({ name: 'clusterpedia_synchro_write_duration_seconds', help: 'Duration of one storage write transaction.', buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5], registers });
    this.writeErrors = new Counter({ name: 'clusterpedia_synchro_write_errors_total', help: 'Failed storage write transactions.', labelNames: ['retryable'], registers });
    this.rowsWritten = new Counter({ name: 'clusterpedia_synchro_rows_total', help: 'Rows by outcome of the write: written, skipped (stored row as new), deleted, rejected.', labelNames: ['outcome'], registers });
    this.eventDelaySeconds = new Histogram({ name: 'clusterpedia_synchro_event_delay_seconds', help: 'From receiving an event to its row being committed.', buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30], registers });
    this.queueEntries = new Gauge({ name: 'clusterpedia_synchro_queue_entries', help: 'Distinct objects waiting to be written.', registers });
    this.queueBytes = new Gauge({ name: 'clusterpedia_synchro_queue_bytes', help: 'Bytes of objects waiting to be written.', registers });
    this.clusterHealthy = new Gauge({ name: 'clusterpedia_synchro_cluster_healthy', help: '1 when the member cluster answers its health probe.', labelNames: ['cluster'], registers });
    this.memberProtocol = new Gauge({ name: 'clusterpedia_synchro_member_protocol', help: 'The HTTP version requests to the member use (1 for the one in use): h2 multiplexes every watch on a few connections, http/1.1 holds one per synced type.', labelNames: ['cluster', 'protocol'], registers });
    const sources = this.objectSources;
    new Gauge({
      name: 'clusterpedia_synchro_objects',
      help: 'Objects known per cluster and resource (member state as last seen).',
      labelNames: ['cluster', 'resource'],
      registers,
      collect(this: Gauge<'cluster' | 'resource'>): void {
        this.reset();
        for (const source of sources) for (const o of source()) this.set({ cluster: o.cluster, resource: o.resource }, o.count);
      },
    });
  }

  /** Sets the member's health and protocol series (protocol undefined: not learnt yet, or plain HTTP). */
  setMember(cluster: string, healthy: boolean, protocol: 'h2' | 'http/1.1' | undefined): void {
    this.clusterHealthy.set({ cluster }, healthy ? 1 : 0);
    for (const p of ['h2', 'http/1.1'] as const) {
      if (p === protocol) this.memberProtocol.set({ cluster, protocol: p }, 1);
      else this.memberProtocol.remove({ cluster, protocol: p });
    }
  }

  /** Drops a cluster's series once its synchro has stopped (a removed cluster leaves no stale health). */
  removeMember(cluster: string): void {
    this.clusterHealthy.remove({ cluster });
    for (const protocol of ['h2', 'http/1.1']) this.memberProtocol.remove({ cluster, protocol });
  }

  /** Registers a source of object counts; returns the unregister function. */
  addObjectSource(source: ObjectCountSource): () => void {
    this.objectSources.add(source);
    return () => this.objectSources.delete(source);
  }
}
