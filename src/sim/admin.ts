// The /_sim/ admin endpoints: the same fault, churn and inspection controls as the module API, for tests that speak HTTP.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from './handlers.js';
import type { RequestLog } from './request-log.js';
import { errors } from './status.js';

export interface AdminTarget {
  dropWatches(abort: boolean): number;
  failNext(count: number, code: number, retryAfterSeconds?: number): void;
  slow(ms: number): void;
  clearFaults(): void;
  downFor(ms: number): void;
  compact(): number;
  startChurn(rate: number): void;
  stopChurn(): void;
  state(): Record<string, unknown>;
  requestLog: RequestLog;
}

/**
 * POST /_sim/faults/drop-watches[?abort=true], /_sim/faults/fail?count=N&code=503[&retryAfter=S], /_sim/faults/delay?ms=M,
 * /_sim/faults/down?forMs=M, /_sim/faults/clear, /_sim/compact, /_sim/churn/start?rate=R, /_sim/churn/stop;
 * GET /_sim/requests, DELETE /_sim/requests, GET /_sim/state.
 */
export function adminHandler(target: AdminTarget): (parts: string[], req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void> {
  return async (parts, req, res, url) => {
    const q = url.searchParams;
    const num = (name: string, fallback: number): number => {
      const v = q.get(name);
      if (v === null || v === '') return fallback;
      const n = Number(v);
      if (!Number.isFinite(n) || n < 0) throw errors.badRequest(`${name} must be a non-negative number`);
      return n;
    };
    const path = parts.join('/');
    const method = req.method ?? 'GET';
    if (method === 'GET' && path === 'requests') return sendJson(res, 200, target.requestLog.entries());
    if (method === 'DELETE' && path === 'requests') { target.requestLog.clear(); return sendJson(res, 200, {}); }
    if (method === 'GET' && path === 'state') return sendJson(res, 200, target.state());
    if (method !== 'POST') throw errors.methodNotAllowed();
    switch (path) {
      case 'faults/drop-watches': return sendJson(res, 200, { dropped: target.dropWatches(q.get('abort') === 'true') });
      case 'faults/fail': {
        const retry = q.get('retryAfter');
        target.failNext(num('count', 1), num('code', 500), retry === null ? undefined : num('retryAfter', 1));
        return sendJson(res, 200, {});
      }
      case 'faults/delay': target.slow(num('ms', 0)); return sendJson(res, 200, {});
      case 'faults/clear': target.clearFaults(); return sendJson(res, 200, {});
      case 'faults/down': {
        // Answer first, then go down: the caller learns the request was taken.
        const forMs = num('forMs', 1000);
        res.on('finish', () => target.downFor(forMs));
        return sendJson(res, 200, { downForMs: forMs });
      }
      case 'compact': return sendJson(res, 200, { compactedRevision: target.compact() });
      case 'churn/start': target.startChurn(num('rate', 10)); return sendJson(res, 200, {});
      case 'churn/stop': target.stopChurn(); return sendJson(res, 200, {});
      default: throw errors.noRoute();
    }
  };
}
