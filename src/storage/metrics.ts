// Prometheus metrics of storage itself, on the registry of the role that opened it (binding: one for both roles).
import { Counter, type Registry } from 'prom-client';
import type { ConnectionClosedReason, StorageOptions } from './types.js';

/** The storage options that feed this registry's storage metrics: spread into openStorage's options. */
export function storageMetrics(registry: Registry): Required<Pick<StorageOptions, 'onConnectionClosed'>> {
  const closed = new Counter({
    name: 'clusterpedia_storage_connections_closed_total',
    help: 'PostgreSQL connections closed because they would not be answered (request or answer lost), by reason.',
    labelNames: ['reason'],
    registers: [registry],
  });
  // Every reason shown from the start, at 0: a rate() over a series that appears only at the first failure misses it.
  for (const reason of ['idle_session', 'no_session', 'answer_lost', 'gave_up'] satisfies ConnectionClosedReason[]) closed.inc({ reason }, 0);
  return { onConnectionClosed: (reason) => closed.inc({ reason }) };
}
