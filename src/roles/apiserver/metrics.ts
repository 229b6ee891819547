// Prometheus metrics of the read path, on a registry the role owns (binding shares one registry between roles).
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export interface ApiserverMetrics {
  requests: Counter<'verb' | 'code' | 'resource'>;
  duration: Histogram<'verb' | 'resource'>;
  inflight: Gauge<'kind'>;
  listedRows: Counter<'resource'>;
  watchEvents: Counter<'type'>;
}

export function apiserverMetrics(registry: Registry): ApiserverMetrics {
  return {
    requests: new Counter({ name: 'clusterpedia_apiserver_requests_total', help: 'Requests by verb, resource and HTTP code.', labelNames: ['verb', 'code', 'resource'], registers: [registry] }),
    duration: new Histogram({
      name: 'clusterpedia_apiserver_request_duration_seconds', help: 'Duration of non-watch requests.', labelNames: ['verb', 'resource'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30], registers: [registry],
    }),
    inflight: new Gauge({ name: 'clusterpedia_apiserver_inflight_requests', help: 'Requests being served, by kind (request, watch).', labelNames: ['kind'], registers: [registry] }),
    listedRows: new Counter({ name: 'clusterpedia_apiserver_listed_rows_total', help: 'Rows streamed by list requests.', labelNames: ['resource'], registers: [registry] }),
    watchEvents: new Counter({ name: 'clusterpedia_apiserver_watch_events_total', help: 'Watch events sent.', labelNames: ['type'], registers: [registry] }),
  };
}
