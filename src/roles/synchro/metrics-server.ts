// The synchro's own small HTTP endpoint: /metrics (Prometheus), /healthz, /livez, /readyz.
import { createServer } from 'node:http';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { aborted, type Runnable } from '../../lib/lifecycle.js';
import { listen } from '../../lib/listen.js';

export interface MetricsServerOptions {
  host: string;
  port: number;
  registry: Registry;
  /** undefined when ready; otherwise the reason, answered with 503. */
  notReady: () => string | undefined;
  logger: Logger;
  /** Told the bound port (port 0 in tests). */
  listening?: (port: number) => void;
}

export class MetricsServer implements Runnable {
  readonly name = 'synchro metrics server';
  constructor(private readonly o: MetricsServerOptions) {}

  async start(signal: AbortSignal): Promise<void> {
    const server = createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      const text = (code: number, body: string): void => {
        res.writeHead(code, { 'content-type': 'text/plain; charset=utf-8' });
        res.end(body);
      };
      if (req.method !== 'GET' && req.method !== 'HEAD') return text(405, 'method not allowed\n');
      switch (path) {
        case '/metrics':
          this.o.registry.metrics().then(
            (body) => {
              res.writeHead(200, { 'content-type': this.o.registry.contentType });
              res.end(body);
            },
            () => text(500, 'metrics unavailable\n'),
          );
          return;
        case '/healthz':
        case '/livez':
          return text(200, 'ok');
        case '/readyz': {
          const why = this.o.notReady();
          return why === undefined ? text(200, 'ok') : text(503, `${why}\n`);
        }
        default:
          return text(404, 'not found\n');
      }
    });
    const { port } = await listen(server, { port: this.o.port, host: this.o.host, portFlag: '--metrics-port', hostFlag: '--metrics-host' });
    this.o.logger.info({ port }, 'synchro metrics listening');
    this.o.listening?.(port);
    await aborted(signal);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
