// Watch streams: events split across chunks (multi-byte characters included) come out whole, and a consumer that
// stops taking events stops the reading — nothing is read ahead without bound.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { KubeConfig } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { KubeClient, MAX_WATCH_EVENT_CHARS } from '../../src/kube/client.js';
import { LineTooLongError, nonBlankLines } from '../../src/kube/lines.js';

async function collect(body: AsyncIterable<Buffer | string>): Promise<string[]> {
  const out: string[] = [];
  for await (const l of nonBlankLines(body)) out.push(l);
  return out;
}

describe('nonBlankLines', () => {
  it('joins lines cut anywhere, a character cut in two included; CRLF, blank lines and a last line without newline', async () => {
    const text = 'first 🚀 line\r\n\n  \nsecond ü line\nthird';
    const bytes = Buffer.from(text);
    // Every split point, one byte at a time and in two pieces.
    expect(await collect(Readable.from([...bytes].map((b) => Buffer.from([b]))))).toEqual(['first 🚀 line', 'second ü line', 'third']);
    for (let cut = 1; cut < bytes.length; cut++) {
      expect(await collect(Readable.from([bytes.subarray(0, cut), bytes.subarray(cut)])), `cut at ${cut}`).toEqual(['first 🚀 line', 'second ü line', 'third']);
    }
  });

  it('waiting for its next chunk, it holds the start of the line it carries, not the chunk that came before', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const heapUsed = (): number => {
      gc();
      gc();
      return process.memoryUsage().heapUsed;
    };
    const WATCHES = 40;
    const MB = 1 << 20;
    const before = heapUsed();
    const opened: { release: () => void; pending: Promise<IteratorResult<string>> }[] = [];
    for (let i = 0; i < WATCHES; i++) {
      // A member's stream: a 1 MB event and the start of the next, then (later) its end. The source lets go of what it
      // has handed out, so whatever still holds a chunk afterwards is the reader.
      const chunks: (string | undefined)[] = [`${'x'.repeat(MB)}\n{"partial":"${'p'.repeat(40)}",`, `"i":${i}}\n`];
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let k = 0;
      const body: AsyncIterable<string> = {
        [Symbol.asyncIterator]: () => ({
          next: async (): Promise<IteratorResult<string>> => {
            if (k === 1) await gate;
            if (k === chunks.length) return { value: undefined, done: true };
            const value = chunks[k]!;
            chunks[k++] = undefined;
            return { value, done: false };
          },
        }),
      };
      const lines = nonBlankLines(body);
      expect((await lines.next()).value).toHaveLength(MB);
      // The consumer asks for the next line: the reader carries '{"partial":"ppp…",' and waits for the member.
      const pending = lines.next();
      await new Promise((r) => setImmediate(r));
      opened.push({ release, pending });
    }
    // 40 MB if each reader kept its first chunk alive through the slice it carries.
    expect(heapUsed() - before).toBeLessThan(8 * MB);
    for (const o of opened) o.release();
    expect((await Promise.all(opened.map((o) => o.pending))).map((r) => r.value)).toEqual(opened.map((_, i) => `{"partial":"${'p'.repeat(40)}","i":${i}}`));
  });

  it('a consumer that stops early, or a line too long, ends the body it reads', async () => {
    const source = (): { body: AsyncIterable<string>; ended: () => boolean } => {
      let returned = false;
      let k = 0;
      return {
        ended: () => returned,
        body: {
          [Symbol.asyncIterator]: () => ({
            next: async (): Promise<IteratorResult<string>> => ({ value: k++ % 2 === 0 ? 'a line\n' : 'x'.repeat(100), done: false }),
            return: async (): Promise<IteratorResult<string>> => {
              returned = true;
              return { value: undefined, done: true };
            },
          }),
        },
      };
    };
    const early = source();
    for await (const line of nonBlankLines(early.body)) if (line === 'a line') break;
    expect(early.ended()).toBe(true);
    const long = source();
    const taken: string[] = [];
    await expect((async () => {
      for await (const line of nonBlankLines(long.body, 50)) taken.push(line);
    })()).rejects.toBeInstanceOf(LineTooLongError);
    expect(taken).toEqual(['a line']);
    expect(long.ended()).toBe(true);
  });

  it('reads no further than the consumer takes (readline read 1,024 lines ahead)', async () => {
    const line = `${JSON.stringify({ type: 'MODIFIED', object: { pad: 'x'.repeat(5000) } })}\n`;
    let produced = 0;
    const source = new Readable({
      read() {
        produced++;
        this.push(produced > 100_000 ? null : line);
      },
    });
    let taken = 0;
    for await (const _ of nonBlankLines(source)) {
      if (++taken === 5) break;
    }
    await new Promise((r) => setTimeout(r, 100));
    // What the stream's own buffer holds ahead (16–64 KB), and nothing more.
    expect(produced).toBeLessThan(30);
  });

  it('gives up on a line longer than allowed, ended or not, having read no more than the limit and a chunk', async () => {
    let produced = 0;
    const endless = new Readable({
      read() {
        produced++;
        this.push(produced > 10_000 ? null : 'x'.repeat(1000));
      },
    });
    await expect(collect2(endless, 50_000)).rejects.toBeInstanceOf(LineTooLongError);
    expect(produced).toBeLessThan(100);
    // A long line that does end is refused too; lines up to the limit pass.
    await expect(collect2(Readable.from([`${'y'.repeat(60)}\nok\n`]), 50)).rejects.toBeInstanceOf(LineTooLongError);
    expect(await collect2(Readable.from([`${'y'.repeat(50)}\nok\n`]), 50)).toEqual(['y'.repeat(50), 'ok']);
  });
});

async function collect2(body: AsyncIterable<Buffer | string>, max: number): Promise<string[]> {
  const out: string[] = [];
  for await (const l of nonBlankLines(body, max)) out.push(l);
  return out;
}

/**
 * Writes `chunk` to `res` as fast as the client reads, up to `total` characters, then ends with `last`; stops when the
 * client goes. Returns how much was handed to the socket so far (bounded, so a test never floods memory).
 */
function flood(res: ServerResponse, chunk: string, total: number, last = ''): () => number {
  let sent = 0;
  const pump = (): void => {
    while (sent < total) {
      if (res.destroyed) return;
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    res.end(last);
  };
  pump();
  return () => sent;
}

describe('KubeClient: watch streams and bounded bodies', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((r) => server?.close(r));
    server = undefined;
  });

  async function client(handler: Parameters<typeof createServer>[1]): Promise<KubeClient> {
    server = createServer(handler);
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'm', server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, skipTLSVerify: true }], users: [{ name: 'u', token: 't' }],
      contexts: [{ name: 'm', cluster: 'm', user: 'u' }], currentContext: 'm',
    });
    return KubeClient.create(kc);
  }

  it('yields events written in pieces, then fails a line that is not JSON with InvalidResponse', async () => {
    const ev = (name: string): string => JSON.stringify({ type: 'ADDED', object: { metadata: { name, resourceVersion: '1' } } });
    const c = await client((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const text = `${ev('ä-one')}\n${ev('two')}\nnot json\n`;
      const bytes = Buffer.from(text);
      // Three writes, one in the middle of the two-byte ä.
      res.write(bytes.subarray(0, 45));
      setTimeout(() => res.write(bytes.subarray(45, 70)), 20);
      setTimeout(() => res.end(bytes.subarray(70)), 40);
    });
    try {
      const names: string[] = [];
      let error: unknown;
      try {
        for await (const e of c.watch('/api/v1/pods', {})) names.push(String(e.object?.metadata?.name));
      } catch (e: unknown) {
        error = e;
      }
      expect(names).toEqual(['ä-one', 'two']);
      expect(error).toMatchObject({ reason: 'InvalidResponse' });
    } finally {
      await c.close();
    }
  });

  it('ends a watch whose event never ends with InvalidResponse, before holding more than 16 Mi characters of it', async () => {
    const c = await client((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      // Bounded: twice the limit at most, then the server gives up by itself.
      flood(res, `{"type":"ADDED","object":{"pad":"${'z'.repeat(64 * 1024)}`, 2 * MAX_WATCH_EVENT_CHARS);
    });
    try {
      let error: unknown;
      try {
        for await (const _ of c.watch('/api/v1/pods', {})) { /* none comes */ }
      } catch (e: unknown) {
        error = e;
      }
      expect(error).toMatchObject({ reason: 'InvalidResponse' });
      expect(String((error as Error).message)).toMatch(/longer than 16 Mi characters/);
    } finally {
      await c.close();
    }
  });

  it('refuses a body past maxBytes with ResponseTooLarge, having read no more than the bound and a chunk', async () => {
    let sent = (): number => 0;
    const c = await client((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      if (req.url === '/api/v1/configmaps') res.end('{"items":[]}');
      else sent = flood(res, `{"items":[${'"x",'.repeat(16 * 1024)}`, 64 * 1024 * 1024, '"x"]}');
    });
    try {
      await expect(c.json('/api/v1/secrets', { maxBytes: 256 * 1024 })).rejects.toMatchObject({
        reason: 'ResponseTooLarge', message: 'GET /api/v1/secrets: response larger than 256 KiB',
      });
      // The server stopped being read: far less than its 64 MiB went out (loopback socket buffers take a few MiB).
      await new Promise((r) => setTimeout(r, 100));
      expect(sent()).toBeLessThan(16 * 1024 * 1024);
      // Within the bound, the same client still answers (the connection given up is not reused).
      await expect(c.json('/api/v1/configmaps', { maxBytes: 256 * 1024 })).resolves.toEqual({ items: [] });
    } finally {
      await c.close();
    }
  });

  it('reads no more than 64 KiB of an error answer, and still reports its status', async () => {
    let sent = (): number => 0;
    const c = await client((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      sent = flood(res, `<p>${'bad gateway '.repeat(5000)}</p>`, 64 * 1024 * 1024);
    });
    try {
      const err: unknown = await c.json('/api/v1/pods').catch((e: unknown) => e);
      expect(err).toMatchObject({ status: 502, retryable: true, message: expect.stringMatching(/^GET \/api\/v1\/pods: 502: <p>bad gateway/) });
      expect((err as Error).message.length).toBeLessThan(300);
      await new Promise((r) => setTimeout(r, 100));
      expect(sent()).toBeLessThan(16 * 1024 * 1024);
    } finally {
      await c.close();
    }
  });
});
