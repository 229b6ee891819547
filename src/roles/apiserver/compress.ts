// Response compression as kube-apiserver does it (APIResponseCompression, on by default since 1.16): a get or list
// whose body is over 128 KiB goes out gzipped, at level 1, when the client accepts gzip. kubectl and client-go ask for
// it without being told (Go's transport adds Accept-Encoding and decompresses), so a 500-pod JSON page crosses a
// WAN as ~4 % of its bytes (BENCHMARKS.md). Watches are never compressed: their events must reach the client as they happen.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createGzip, type ZlibOptions } from 'node:zlib';
import { parseAccept } from './negotiate.js';

/** kube-apiserver's defaultGzipThresholdBytes: smaller answers are not worth compressing. */
export const GZIP_THRESHOLD_BYTES = 128 * 1024;
/** kube-apiserver's defaultGzipContentEncodingLevel: far less CPU than the default level for a similar ratio. */
export const GZIP_OPTIONS: ZlibOptions = { level: 1 };

/** Responses whose client accepts gzip, marked when the request is routed (allowCompression). */
const accepting = new WeakSet<ServerResponse>();

/**
 * True when Accept-Encoding names gzip (or `*`) with a non-zero quality. It has Accept's grammar (codings with
 * parameters and q-values), read by the same parser; no header means no compression. kube-apiserver looks for the bare
 * token `gzip`; a client that says `gzip;q=0` means "not gzip", which it would take as a different token too.
 */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header?.trim()) return false;
  return parseAccept(header).some((r) => (r.type === 'gzip' || r.type === '*') && r.q > 0);
}

/** Marks `res` as one that may be compressed: a non-watch request whose client accepts gzip. */
export function allowCompression(req: IncomingMessage, res: ServerResponse): void {
  const header = req.headers['accept-encoding'];
  if (acceptsGzip(Array.isArray(header) ? header.join(',') : header)) accepting.add(res);
}

/** Whether a body of `bytes` for `res` goes out gzipped. */
export function compresses(res: ServerResponse, bytes: number): boolean {
  return bytes > GZIP_THRESHOLD_BYTES && mayCompress(res);
}

/** Whether `res` may be compressed once its body turns out large enough (bodies whose size is not known up front). */
export function mayCompress(res: ServerResponse): boolean {
  return accepting.has(res);
}

/** The headers of a gzipped answer: its encoding, and that it depends on what the client accepts (caches). */
export function gzipHeaders(headers: Record<string, string | number>): Record<string, string | number> {
  const { 'content-length': _length, ...rest } = headers;
  return { ...rest, 'content-encoding': 'gzip', vary: 'Accept-Encoding' };
}

/**
 * Compresses a whole body off the event loop (zlib runs on libuv's thread pool). The body is taken as the pieces it
 * was rendered in, by reference: a joined page's buffers are not copied into one first (200 clients asking for 2 MB
 * pages would hold each page twice).
 */
export function gzipBody(pieces: readonly (string | Buffer)[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const zip = createGzip(GZIP_OPTIONS);
    const out: Buffer[] = [];
    zip.on('data', (chunk: Buffer) => out.push(chunk));
    zip.once('end', () => resolve(Buffer.concat(out)));
    zip.once('error', reject);
    for (const p of pieces) zip.write(p);
    zip.end();
  });
}
