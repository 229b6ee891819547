// Writing whole responses: JSON/YAML documents and Status errors (the one renderer every error goes through).
import type { ServerResponse } from 'node:http';
import { toYaml } from '../../kube/yaml.js';
import { isStatusError, status as makeStatus, type Status } from '../../kube/status.js';
import { isStorageError } from '../../storage/errors.js';
import type { Logger } from '../../lib/log.js';
import { compresses, gzipBody, gzipHeaders } from './compress.js';
import type { Wire } from './negotiate.js';
import { indenterFor } from './pretty.js';
import { ClientGoneError, responseGone, whenGone, type Piece } from './stream-writer.js';

export function sendObject(res: ServerResponse, code: number, body: unknown, wire: Wire = 'json', contentType?: string): Promise<void> {
  return sendText(res, code, wire === 'yaml' ? toYaml(body) : JSON.stringify(body), wire, contentType);
}

/** Sends a document already serialised in the wire format (a stored object served as it is). */
export function sendText(res: ServerResponse, code: number, text: string, wire: Wire = 'json', contentType?: string): Promise<void> {
  const headers = { 'content-type': contentType ?? (wire === 'yaml' ? 'application/yaml' : 'application/json'), 'cache-control': 'no-cache, private' };
  return sendBody(res, code, headers, [text], Buffer.byteLength(text));
}

/**
 * Sends a body held whole, given as the pieces it was rendered in (`length` bytes in all): gzipped off the event loop
 * when the client accepts it and it is large (compress.ts), else all of it in one writev, the buffers by reference.
 * Resolves once the socket took it: whatever the kernel did not take yet stays queued in this process until the
 * client reads it, so the request keeps its slot until then. A page the kernel took whole holds nothing here
 * (waiting for 'close' cost ~0.1 ms of a 24-pod answer).
 */
export async function sendBody(res: ServerResponse, code: number, headers: Record<string, string | number>, given: readonly Piece[], givenLength: number): Promise<void> {
  const { pieces, length } = indented(res, headers['content-type'], given, givenLength);
  if (compresses(res, length)) {
    const gzipped = await gzipBody(pieces);
    // The deadline may have answered while zlib worked; a client may have left.
    if (res.headersSent || res.writableEnded) return;
    if (responseGone(res)) throw new ClientGoneError();
    res.writeHead(code, { ...gzipHeaders(headers), 'content-length': gzipped.length });
    res.end(gzipped);
  } else {
    // Nothing yields from here to the wait below: a client that left is either seen now or reported by whenGone.
    if (responseGone(res)) throw new ClientGoneError();
    res.writeHead(code, { ...headers, 'content-length': length });
    res.cork();
    for (const p of pieces) res.write(p);
    res.end();
    res.uncork();
  }
  if (res.writableLength > 0 || responseGone(res)) {
    await new Promise<void>((resolve, reject) => {
      whenGone(res, () => (res.writableFinished ? resolve() : reject(new ClientGoneError())));
    });
  }
}

/** A whole JSON body as indented for a response marked pretty (pretty.ts); as given otherwise. */
function indented(res: ServerResponse, contentType: string | number | undefined, pieces: readonly Piece[], length: number): { pieces: readonly Piece[]; length: number } {
  const indenter = indenterFor(res, contentType);
  if (!indenter) return { pieces, length };
  const out = [...pieces.map((p) => indenter.push(p)), indenter.end()];
  return { pieces: out, length: out.reduce((n, b) => n + b.length, 0) };
}

/** Maps anything thrown while serving to a Kubernetes Status. Unexpected errors are logged and answered 500 without details. */
export function statusFor(e: unknown, log: Logger): Status {
  const known = knownStatus(e);
  if (known) {
    // The database was emptied or replaced under a running server: loud, but not a bug of ours.
    if (isStorageError(e) && e.code === 'SchemaMismatch') log.warn({ err: e.message }, 'storage schema does not match this server');
    return known;
  }
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
    case 'SchemaMismatch':
      return makeStatus(503, 'ServiceUnavailable', 'storage schema is not migrated, or newer than this server; see the apiserver log', { retryAfterSeconds: 5 });
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
  const { pieces, length } = indented(res, headers['content-type'], [text], Buffer.byteLength(text));
  headers['content-length'] = String(length);
  res.writeHead(st.code, headers);
  for (const p of pieces) res.write(p);
  res.end();
}
