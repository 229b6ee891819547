// Writing whole responses: JSON/YAML documents and Status errors (the one renderer every error goes through).
import type { ServerResponse } from 'node:http';
import { toYaml } from '../../kube/yaml.js';
import { isStatusError, status as makeStatus, type Status } from '../../kube/status.js';
import { isStorageError } from '../../storage/errors.js';
import type { Logger } from '../../lib/log.js';
import type { Wire } from './negotiate.js';

export function sendObject(res: ServerResponse, code: number, body: unknown, wire: Wire = 'json', contentType?: string): void {
  sendText(res, code, wire === 'yaml' ? toYaml(body) : JSON.stringify(body), wire, contentType);
}

/** Sends a document already serialised in the wire format (a stored object served as it is). */
export function sendText(res: ServerResponse, code: number, text: string, wire: Wire = 'json', contentType?: string): void {
  res.writeHead(code, {
    'content-type': contentType ?? (wire === 'yaml' ? 'application/yaml' : 'application/json'),
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-cache, private',
  });
  res.end(text);
}

/** Maps anything thrown while serving to a Kubernetes Status. Unexpected errors are logged and answered 500 without details. */
export function statusFor(e: unknown, log: Logger): Status {
  const known = knownStatus(e);
  if (known) return known;
  log.error({ err: e }, 'internal error while serving a request');
  return makeStatus(500, 'InternalError', 'an internal error occurred; see the apiserver log');
}

/** The Status of an error we know how to answer; undefined for anything else (an internal error). */
function knownStatus(e: unknown): Status | undefined {
  if (isStatusError(e)) return e.status;
  if (!isStorageError(e)) return undefined;
  switch (e.code) {
    case 'Invalid':
      return makeStatus(400, 'BadRequest', e.message);
    case 'NotFound':
      return makeStatus(404, 'NotFound', e.message);
    case 'Unavailable':
      return makeStatus(503, 'ServiceUnavailable', 'storage is unavailable; retry later', { retryAfterSeconds: 1 });
    case 'Conflict':
      return makeStatus(409, 'Conflict', e.message);
    default:
      return undefined;
  }
}

/**
 * The HTTP code a client gets for a request that ended with `e` (undefined: it did not throw): what the response
 * already sent, else the code sendError will answer with. For counting requests before the error is written.
 */
export function answeredCode(res: ServerResponse, e?: unknown): number {
  if (e === undefined || res.headersSent) return res.statusCode;
  return knownStatus(e)?.code ?? 500;
}

/** Sends a Status (or, when the body already started, cuts the connection so the client sees a failure, not a short list). */
export function sendError(res: ServerResponse, e: unknown, log: Logger): void {
  const st = statusFor(e, log);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const headers: Record<string, string> = { 'content-type': 'application/json', 'cache-control': 'no-cache, private' };
  const retry = st.details?.retryAfterSeconds;
  if (retry) headers['retry-after'] = String(retry);
  const text = JSON.stringify(st);
  headers['content-length'] = String(Buffer.byteLength(text));
  res.writeHead(st.code, headers);
  res.end(text);
}
