// Errors of the Kubernetes client, classified where they are born: retryable or not (STYLE §11).
import type { IncomingHttpHeaders } from 'node:http';

export class KubeApiError extends Error {
  readonly code = 'KubeApiError';
  constructor(
    message: string,
    /** HTTP status, or 0 for a network failure. */
    readonly status: number,
    /** Status.reason from the server, or a local reason such as 'NetworkError'. */
    readonly reason: string,
    readonly retryable: boolean,
    options?: { cause?: unknown; retryAfterSeconds?: number },
  ) {
    super(message, options);
    this.name = 'KubeApiError';
    this.retryAfterSeconds = options?.retryAfterSeconds;
  }
  readonly retryAfterSeconds: number | undefined;

  /**
   * The request's HTTP/2 connection was closed gracefully by the server (GOAWAY, NO_ERROR) while it ran, or the
   * server refused its stream as the GOAWAY crossed it (REFUSED_STREAM): not a failure of the request or the member,
   * and safe to send again when idempotent.
   */
  get goAway(): boolean {
    return this.reason === 'GoAway';
  }

  /** True for 410 Gone/Expired: the resourceVersion or continue token is too old; relist. */
  get expired(): boolean {
    return this.status === 410 || this.reason === 'Expired' || this.reason === 'Gone';
  }

  static fromResponse(status: number, body: string, method: string, path: string, headers?: IncomingHttpHeaders): KubeApiError {
    let reason = '';
    let message = '';
    try {
      const s = JSON.parse(body) as { kind?: string; reason?: string; message?: string };
      if (s && s.kind === 'Status') {
        reason = s.reason ?? '';
        message = s.message ?? '';
      }
    } catch {
      // Not a Status (a proxy's HTML page, say): keep a short excerpt.
      message = body.slice(0, 200);
    }
    const ra = headers?.['retry-after'];
    const retryAfter = typeof ra === 'string' && /^\d+$/.test(ra) ? Number(ra) : undefined;
    const retryable = status >= 500 || status === 429 || status === 408;
    return new KubeApiError(`${method} ${path}: ${status}${reason ? ` ${reason}` : ''}${message ? `: ${message}` : ''}`, status, reason || String(status), retryable, { retryAfterSeconds: retryAfter });
  }
}

/** Wraps a transport failure (refused, reset, TLS, timeout) as a retryable KubeApiError. */
export function networkError(e: unknown, method: string, path: string): KubeApiError {
  if (e instanceof KubeApiError) return e;
  // A DOMException's code is a legacy number (23 for a TimeoutError of AbortSignal.timeout): its name says more.
  const raw = typeof e === 'object' && e !== null ? (e as { code?: unknown }).code : undefined;
  const code = typeof raw === 'number' && e instanceof Error ? e.name : String(raw ?? '');
  const msg = e instanceof Error ? e.message : String(e);
  // TLS verification failures will not heal by retrying soon, but the operator may fix the config: retry slowly.
  const tls = /certificate|self[- ]signed|SSL|TLS/i.test(msg) || code.startsWith('ERR_TLS') || code.includes('CERT');
  // Out of file descriptors: say which limit, since "connect EMFILE 10.0.0.1:6443 - Local" does not.
  const hint = code === 'EMFILE'
    ? ' (this process has as many files and connections open as its open-files limit allows, and each synced resource'
      + ' type holds a connection to a member that speaks only HTTP/1.1: raise the limit, ulimit -n, or sync fewer types)'
    : code === 'ENFILE' ? ' (the system has as many files open as its limit allows: fs.file-max)' : '';
  // A graceful GOAWAY (NO_ERROR): the server closes the connection to new streams, as kube-apiserver's --goaway-chance
  // does to spread clients over the servers behind a load balancer. undici 7 then fails every request on it, even
  // those the server goes on serving (undici 8 does not, but needs Node 22): nothing went wrong, ask again. So for a
  // request sent on the connection as the GOAWAY crossed it: the server refuses the stream (REFUSED_STREAM: not
  // processed, safe to send again, RFC 9113 §8.7), or Node will not open it.
  const goAway = (code === 'UND_ERR_SOCKET' && /"GOAWAY" frame received with code 0\b/.test(msg))
    || (code === 'ERR_HTTP2_STREAM_ERROR' && /\bNGHTTP2_REFUSED_STREAM\b/.test(msg))
    || code === 'ERR_HTTP2_GOAWAY_SESSION';
  return new KubeApiError(`${method} ${path}: ${code ? `${code} ` : ''}${msg}${hint}`, 0, tls ? 'TLSError' : goAway ? 'GoAway' : 'NetworkError', true, { cause: e });
}
