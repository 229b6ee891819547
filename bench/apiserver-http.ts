// The benchmark's HTTP client: one undici request read to its last byte, timed, with cheap checks on the body
// (status, complete list envelope, items counted by a marker) that do not parse megabytes of JSON.
import { createGunzip } from 'node:zlib';
import { Agent, request } from 'undici';

/** One per pod object as served: SQLite keeps the synchro's JSON text, PostgreSQL renders jsonb with `": "`. */
export const POD_MARKERS = ['"kind":"Pod"', '"kind": "Pod"'];

/** kubectl's Accept for `get`: a server-side Table, JSON otherwise. */
export const TABLE_ACCEPT = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';

/** Characters of the body's end kept for the completeness check. */
const TAIL = 4096;

export interface Fetched {
  status: number;
  /** Bytes received: compressed ones when the answer was gzipped. */
  bytes: number;
  /** The answer came gzipped (Content-Encoding); what is counted and checked is the decoded body. */
  gzipped: boolean;
  /** Request start to the first body byte, and to the last one, milliseconds. */
  ttfbMs: number;
  ms: number;
  /** Occurrences of `count` in the body, when asked. */
  count: number;
  /** The body, when asked to keep it (small responses only). */
  body?: string;
  /** The body ended as a whole object (a list: with its list metadata, which comes last). */
  complete: boolean;
}

export interface FetchOptions {
  accept?: string;
  userAgent: string;
  /** Count these substrings across the streamed body (e.g. `"kind":"Pod"` per pod object). */
  count?: string[];
  keepBody?: boolean;
  /** A list: complete only when the body ends with the list metadata. */
  list?: boolean;
  /** Accept gzip, as kubectl and client-go do (the server compresses answers over 128 KiB). */
  gzip?: boolean;
}

/** A keep-alive agent on loopback with room for `connections` parallel requests; 2-minute body timeouts. */
export function newAgent(connections: number): Agent {
  return new Agent({ connections, pipelining: 1, keepAliveTimeout: 60_000, headersTimeout: 120_000, bodyTimeout: 120_000 });
}

export async function fetchBody(agent: Agent, url: string, o: FetchOptions): Promise<Fetched> {
  const t0 = performance.now();
  const headers: Record<string, string> = { accept: o.accept ?? 'application/json', 'user-agent': o.userAgent };
  if (o.gzip) headers['accept-encoding'] = 'gzip';
  const res = await request(url, { dispatcher: agent, headers });
  const gzipped = res.headers['content-encoding'] === 'gzip';
  let ttfb = 0;
  let bytes = 0;
  // A gzipped body is counted as it arrives (bytes, first byte) and read decoded (markers, completeness).
  let body: AsyncIterable<Buffer> = res.body as AsyncIterable<Buffer>;
  if (gzipped) {
    res.body.on('data', (chunk: Buffer) => {
      if (bytes === 0) ttfb = performance.now() - t0;
      bytes += chunk.length;
    });
    body = res.body.pipe(createGunzip());
  }
  let count = 0;
  const markers = (o.count ?? []).map((m) => Buffer.from(m));
  const keep = Math.max(0, ...markers.map((m) => m.length - 1));
  let carry = Buffer.alloc(0);
  let tail = '';
  const parts: Buffer[] = [];
  for await (const chunk of body) {
    if (!gzipped) {
      if (bytes === 0) ttfb = performance.now() - t0;
      bytes += chunk.length;
    }
    if (o.keepBody) parts.push(chunk);
    if (markers.length > 0) {
      // The last bytes are carried over so a marker split between two chunks is found; a match lying wholly in the
      // carried bytes was counted with the previous chunk, so only matches ending past them count.
      const buf = carry.length ? Buffer.concat([carry, chunk]) : chunk;
      for (const m of markers) {
        for (let at = buf.indexOf(m); at >= 0; at = buf.indexOf(m, at + m.length)) if (at + m.length > carry.length) count++;
      }
      carry = Buffer.from(buf.subarray(Math.max(0, buf.length - keep)));
    }
    // The list metadata comes last and holds the continue token (hundreds of characters): keep enough to see it whole.
    tail = (tail + chunk.subarray(Math.max(0, chunk.length - TAIL)).toString('latin1')).slice(-TAIL);
  }
  const ms = performance.now() - t0;
  // undici already rejects a cut chunked body; this also catches a list that ended without its metadata.
  const complete = o.list ? /"metadata":\{[^{}]*\}\}$/.test(tail) : tail.endsWith('}');
  const out: Fetched = { status: res.statusCode, bytes, gzipped, ttfbMs: ttfb, ms, count, complete };
  if (o.keepBody) out.body = Buffer.concat(parts).toString('utf8');
  return out;
}
