// Sends one generated case and reports what came back: a status code, a dropped connection, or a hang.
import { connect } from 'node:net';
import { gunzipSync } from 'node:zlib';
import type { Agent } from 'undici';
import { acceptsGzip } from '../../../src/roles/apiserver/compress.js';
import type { HttpCase, RawCase, SlowReadCase } from './generate.js';

export interface Outcome {
  /** HTTP status, when one arrived. */
  status?: number;
  /** Why no status: 'hang' (nothing within the hang deadline), 'dropped' (connection closed without an answer), 'client' (undici refused to send it). */
  error?: 'hang' | 'dropped' | 'client';
  detail?: string;
  /** Problems with an answer that did arrive (error body not a Status, 429 without Retry-After, injection matched rows). */
  violations: string[];
  /** A continue token from a list answer. */
  continueToken?: string;
  bytes: number;
}

/** No request may take longer than this to produce its status line (the server's own deadline is far shorter in the runs). */
export const HANG_MS = 30_000;
/** Bodies are kept (for checks) up to this size; the rest is counted and dropped. */
const KEEP_BYTES = 8 * 1024 * 1024;

function checkBody(c: HttpCase, status: number, headers: Record<string, string | string[] | undefined>, text: string | undefined, out: Outcome): void {
  if (status === 429 && !headers['retry-after']) out.violations.push('429 without Retry-After');
  if (c.method === 'HEAD' || text === undefined) return;
  const json = (): Record<string, unknown> | undefined => {
    try {
      return JSON.parse(text) as Record<string, unknown>;
    } catch {
      return undefined;
    }
  };
  if (status >= 400) {
    const body = json();
    if (!body || body.kind !== 'Status' || body.code !== status) out.violations.push(`error ${status} is not a Status: ${text.slice(0, 120)}`);
    return;
  }
  const ct = String(headers['content-type'] ?? '');
  if (status !== 200 || !ct.startsWith('application/json')) return;
  if (c.expectEmpty || c.harvest) {
    const body = json();
    if (!body) {
      out.violations.push(`200 ${ct} body is not JSON`);
      return;
    }
    const items = Array.isArray(body.items) ? body.items : Array.isArray(body.rows) ? body.rows : undefined;
    if (c.expectEmpty && items && items.length > 0) out.violations.push(`injection matched ${items.length} rows (${c.expectEmpty})`);
    const token = (body.metadata as { continue?: unknown } | undefined)?.continue;
    if (typeof token === 'string' && token) out.continueToken = token;
  }
}

/**
 * The body as text, gunzipped when it came gzip-encoded: a case that asked for gzip (or for any encoding) gets it on a
 * large enough answer. gzip where the case did not accept it, or any other encoding, is a violation.
 */
function decoded(c: HttpCase, headers: Record<string, string | string[] | undefined>, body: Buffer, out: Outcome): string | undefined {
  const encoding = String(headers['content-encoding'] ?? 'identity').toLowerCase();
  if (encoding === 'identity') return body.toString('utf8');
  const asked = c.headers['accept-encoding'];
  if (encoding !== 'gzip' || !acceptsGzip(asked)) {
    out.violations.push(`${encoding} body the request did not accept (accept-encoding: ${String(asked)})`);
    return undefined;
  }
  try {
    return gunzipSync(body).toString('utf8');
  } catch (e: unknown) {
    out.violations.push(`gzip body that does not decode: ${(e as Error).message}`);
    return undefined;
  }
}

export async function sendHttp(agent: Agent, origin: string, c: HttpCase): Promise<Outcome> {
  const out: Outcome = { violations: [], bytes: 0 };
  const ac = new AbortController();
  let hung = false;
  const hang = setTimeout(() => {
    hung = true;
    ac.abort();
  }, HANG_MS);
  let watchTimer: NodeJS.Timeout | undefined;
  try {
    const r = await agent.request({ origin, path: c.path, method: c.method, headers: c.headers, body: c.body ?? null, signal: ac.signal });
    out.status = r.statusCode;
    // A watch streams until its client hangs up: ours does, a little after the headers.
    if (c.watchMs !== undefined && r.statusCode === 200) watchTimer = setTimeout(() => ac.abort(), c.watchMs);
    const keep = c.watchMs === undefined && (r.statusCode >= 400 || c.expectEmpty !== undefined || c.harvest === true);
    const parts: Buffer[] = [];
    try {
      for await (const chunk of r.body as AsyncIterable<Buffer>) {
        out.bytes += chunk.length;
        if (keep && out.bytes <= KEEP_BYTES) parts.push(chunk);
      }
    } catch (e: unknown) {
      // Our own hang-up of a watch ends its body; anything else after the headers is a cut connection.
      if (!(c.watchMs !== undefined && ac.signal.aborted && !hung)) {
        out.violations.push(`body cut after ${out.bytes} bytes: ${(e as Error).message}`);
      }
    }
    if (hung) out.violations.push('body did not finish within the hang deadline');
    checkBody(c, r.statusCode, r.headers, keep && out.bytes <= KEEP_BYTES ? decoded(c, r.headers, Buffer.concat(parts), out) : undefined, out);
  } catch (e: unknown) {
    const err = e as { code?: string; name?: string; message?: string };
    if (hung) out.error = 'hang';
    else if (err.code === 'UND_ERR_INVALID_ARG' || err.code === 'UND_ERR_NOT_SUPPORTED' || err.name === 'InvalidArgumentError') out.error = 'client';
    else out.error = 'dropped';
    out.detail = `${err.code ?? err.name}: ${err.message ?? ''}`.slice(0, 200);
  } finally {
    clearTimeout(hang);
    clearTimeout(watchTimer);
  }
  return out;
}

/** Writes the chunks (with pauses), then reads the first status line; abandons when the case says so. */
export function sendRaw(port: number, c: RawCase): Promise<Outcome> {
  return new Promise((resolve) => {
    const out: Outcome = { violations: [], bytes: 0 };
    const socket = connect(port, '127.0.0.1');
    let head = '';
    let finished = false;
    const finish = (): void => {
      if (finished) return;
      finished = true;
      clearTimeout(hang);
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(head);
      if (m) out.status = Number(m[1]);
      else if (!c.abandon && !c.mayDrop) {
        out.error = 'dropped';
        out.detail = `no status line (${head.length} bytes: ${JSON.stringify(head.slice(0, 60))})`;
      }
      socket.destroy();
      resolve(out);
    };
    const hang = setTimeout(() => {
      if (!c.abandon && !/^HTTP\/1\.[01] \d{3}/.test(head)) {
        out.error = 'hang';
        finished = true;
        socket.destroy();
        resolve(out);
      } else finish();
    }, HANG_MS);
    socket.on('error', () => finish());
    socket.on('close', () => finish());
    socket.on('data', (d: Buffer) => {
      out.bytes += d.length;
      if (head.length < 4096) head += d.toString('latin1');
      // One status line is all we judge; pipelined answers may follow, the connection is ours to close.
      if (/^HTTP\/1\.[01] \d{3}/.test(head) && head.includes('\r\n\r\n')) setTimeout(finish, 20);
    });
    socket.on('connect', async () => {
      for (const chunk of c.chunks) {
        if (socket.destroyed) return;
        socket.write(chunk);
        if (c.delayMs > 0) await new Promise((r) => setTimeout(r, c.delayMs));
      }
      if (c.abandon) finish();
    });
  });
}

/** Opens a big list and reads it slowly or not at all, then hangs up. The status line, if it came, is recorded. */
export function sendSlowRead(port: number, c: SlowReadCase): Promise<Outcome> {
  return new Promise((resolve) => {
    const out: Outcome = { violations: [], bytes: 0 };
    const socket = connect(port, '127.0.0.1');
    let head = '';
    let trickle: NodeJS.Timeout | undefined;
    socket.on('error', () => {});
    socket.on('connect', () => {
      socket.write(`GET ${c.path} HTTP/1.1\r\nHost: slow\r\n\r\n`);
      if (c.mode === 'stalled') {
        // Read the status line only, then stop reading altogether.
        socket.once('data', (d: Buffer) => {
          head += d.toString('latin1');
          out.bytes += d.length;
          socket.pause();
        });
      } else {
        socket.on('data', (d: Buffer) => {
          if (head.length < 256) head += d.toString('latin1');
          out.bytes += d.length;
          socket.pause();
          trickle = setTimeout(() => socket.resume(), 100);
        });
      }
    });
    setTimeout(() => {
      clearTimeout(trickle);
      socket.destroy();
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(head);
      if (m) out.status = Number(m[1]);
      resolve(out);
    }, c.holdMs);
  });
}
