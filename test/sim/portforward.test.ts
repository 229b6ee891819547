// The simulator's pod port-forward, driven by real kubectl: SPDY tunnelled in WebSocket (kubectl 1.31+) and plain SPDY
// (kubectl 1.27); and its SPDY session at the frame level, with header blocks compressed as Go's framer compresses them.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants, createDeflate, inflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulatedCluster, type SimCluster } from '../../src/sim/index.js';
import { SPDY_DICTIONARY, SpdySession, type SpdyStream } from '../../src/sim/spdy.js';
import { kubectlPath, oldestKubectl } from '../support/kubectl.js';

let c: SimCluster;
let dir: string;

beforeAll(async () => {
  c = await startSimulatedCluster({ pods: 1, tls: true });
  dir = await mkdtemp(join(tmpdir(), 'sim-pf-'));
  await writeFile(join(dir, 'ca.crt'), c.caData ?? '');
  c.store.create('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'pf' } });
  c.store.create('pods', {
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'pf' },
    spec: { containers: [{ name: 'nginx', image: 'nginx', ports: [{ containerPort: 8080 }] }, { name: 'metrics', image: 'exporter', ports: [{ containerPort: 9100 }] }] },
    status: { phase: 'Running' },
  });
});
afterAll(async () => {
  await c?.stop();
  await rm(dir, { recursive: true, force: true });
});

const flags = (): string[] => [`--server=${c.url}`, `--token=${c.token ?? ''}`, `--certificate-authority=${join(dir, 'ca.crt')}`, '--kubeconfig=/dev/null'];

describe('kubectl port-forward against the simulator', () => {
  for (const [transport, binary] of [['SPDY in WebSocket', kubectlPath()], ['SPDY', oldestKubectl()]] as const) {
    it(`forwards each declared port, several connections each, and reports a closed one as the kubelet does (${transport})`, async () => {
      const before = c.requestLog.entries((r) => r.path.endsWith('/pods/web/portforward')).length;
      const child = spawn(binary, [...flags(), 'port-forward', '-n', 'pf', 'pod/web', ':8080', ':9100', ':7']);
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
      try {
        await expect.poll(() => out, { timeout: 20_000 }).toMatch(/-> 7\n/);
        const local = (remote: number): number => Number(new RegExp(`Forwarding from 127\\.0\\.0\\.1:(\\d+) -> ${remote}\\n`).exec(out)?.[1]);
        expect(await (await fetch(`http://127.0.0.1:${local(8080)}/index.html`)).text()).toBe('pf/web port 8080: GET /index.html\n');
        expect(await (await fetch(`http://127.0.0.1:${local(9100)}/metrics`, { method: 'POST', body: 'x'.repeat(5000) })).text()).toBe('pf/web port 9100: POST /metrics\n');
        // A second connection while the first may still be open (undici keeps it alive).
        const again = await fetch(`http://127.0.0.1:${local(8080)}/again`, { headers: { connection: 'close' } });
        expect(await again.text()).toBe('pf/web port 8080: GET /again\n');
        expect(c.requestLog.entries((r) => r.path.endsWith('/pods/web/portforward')).length).toBe(before + 1);
        await expect(fetch(`http://127.0.0.1:${local(7)}/`)).rejects.toThrow();
        await exited;
        expect(err).toMatch(/an error occurred forwarding \d+ -> 7: error forwarding port 7 to pod [0-9a-f]+, uid : .*failed to connect to localhost:7 inside namespace .*connection refused/);
        expect(err).toMatch(/error: lost connection to pod/);
      } finally {
        child.kill('SIGKILL');
      }
    });
  }
});

// ---- frame level ----

/** A client side as Go's framer writes: one deflate stream with SPDY's dictionary, sync-flushed after each block. */
function clientCompressor(): (headers: Record<string, string>) => Promise<Buffer> {
  const z = createDeflate({ dictionary: SPDY_DICTIONARY });
  const chunks: Buffer[] = [];
  z.on('data', (d: Buffer) => chunks.push(d));
  return (headers) => new Promise((resolve) => {
    const pairs = Object.entries(headers);
    const parts: Buffer[] = [u32(pairs.length)];
    for (const [k, v] of pairs) parts.push(u32(k.length), Buffer.from(k), u32(v.length), Buffer.from(v));
    z.write(Buffer.concat(parts));
    z.flush(constants.Z_SYNC_FLUSH, () => resolve(Buffer.concat(chunks.splice(0))));
  });
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n, 0);
  return b;
}

function controlFrame(type: number, flags: number, body: Buffer): Buffer {
  const head = Buffer.from([0x80, 0x03, 0, type, flags, 0, 0, 0]);
  head.writeUIntBE(body.length, 5, 3);
  return Buffer.concat([head, body]);
}

const synStream = (id: number, block: Buffer, flags = 0): Buffer => controlFrame(1, flags, Buffer.concat([u32(id), u32(0), Buffer.from([0, 0]), block]));
const dataFrame = (id: number, data: string, flags = 0): Buffer => {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(id, 0);
  head[4] = flags;
  head.writeUIntBE(data.length, 5, 3);
  return Buffer.concat([head, Buffer.from(data)]);
};

/** Splits what the session sent into frames: control frames as { type, body }, data frames as { stream, flags, data }. */
function frames(out: Buffer[]): { type?: number; stream?: number; flags: number; body: Buffer }[] {
  let buf = Buffer.concat(out);
  const list = [];
  while (buf.length >= 8) {
    const len = buf.readUIntBE(5, 3);
    const f = buf.subarray(0, 8 + len);
    buf = buf.subarray(8 + len);
    if ((f[0] as number) & 0x80) list.push({ type: f.readUInt16BE(2), flags: f[4] as number, body: f.subarray(8) });
    else list.push({ stream: f.readUInt32BE(0), flags: f[4] as number, body: f.subarray(8) });
  }
  return list;
}

describe('SPDY session', () => {
  it('reads header blocks across frames of one compression stream, replies in a block any inflater reads, and serves data both ways', async () => {
    const out: Buffer[] = [];
    const opened: SpdyStream[] = [];
    const session = new SpdySession((b) => out.push(b), (s) => {
      opened.push(s);
      s.onData = (d) => s.write(`echo:${d.toString()}`);
      s.onEnd = () => s.end();
    }, (why) => {
      throw new Error(why);
    });
    const compress = clientCompressor();
    // Byte by byte, as a slow connection would deliver it.
    for (const b of synStream(1, await compress({ streamtype: 'error', port: '80', requestid: '0' }))) session.feed(Buffer.from([b]));
    session.feed(Buffer.concat([synStream(3, await compress({ streamtype: 'data', port: '80', requestid: '0' })), dataFrame(3, 'hi'), dataFrame(3, '', 1)]));
    expect(opened.map((s) => [s.id, Object.fromEntries(s.headers)])).toEqual([
      [1, { streamtype: 'error', port: '80', requestid: '0' }],
      [3, { streamtype: 'data', port: '80', requestid: '0' }],
    ]);
    const sent = frames(out);
    // Two SYN_REPLYs, whose header blocks inflate (as one stream, with the dictionary) to zero headers each.
    const replies = sent.filter((f) => f.type === 2);
    expect(replies.map((f) => f.body.readUInt32BE(0))).toEqual([1, 3]);
    const inflated = inflateSync(Buffer.concat(replies.map((f) => f.body.subarray(4))), { dictionary: SPDY_DICTIONARY, finishFlush: constants.Z_SYNC_FLUSH });
    expect([...inflated]).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(sent.filter((f) => f.stream === 3).map((f) => [f.body.toString(), f.flags])).toEqual([['echo:hi', 0], ['', 1]]);
  });

  it('echoes PING, refuses server-side stream ids and streams after GOAWAY, and ends streams on RST_STREAM and close', async () => {
    const out: Buffer[] = [];
    const ended: number[] = [];
    const session = new SpdySession((b) => out.push(b), (s) => {
      s.onEnd = () => ended.push(s.id);
    }, () => undefined);
    const compress = clientCompressor();
    const ping = controlFrame(6, 0, u32(7));
    session.feed(ping);
    session.feed(synStream(2, await compress({ streamtype: 'data' })));
    session.feed(synStream(5, await compress({ streamtype: 'data' })));
    session.feed(controlFrame(3, 0, Buffer.concat([u32(5), u32(5)])));
    session.feed(synStream(7, await compress({ streamtype: 'data' })));
    session.goAway();
    session.feed(synStream(9, await compress({ streamtype: 'data' })));
    session.close();
    const sent = frames(out);
    expect(Buffer.concat(out).subarray(0, ping.length)).toEqual(ping);
    // RST_STREAM (type 3) for the even id and for the stream opened after GOAWAY (type 7, last stream 7).
    expect(sent.filter((f) => f.type === 3).map((f) => f.body.readUInt32BE(0))).toEqual([2, 9]);
    expect(sent.filter((f) => f.type === 7).map((f) => f.body.readUInt32BE(0))).toEqual([7]);
    expect(ended).toEqual([5, 7]);
  });

  it('ends the session on a frame that is not SPDY/3 or too large', () => {
    const why: string[] = [];
    const s1 = new SpdySession(() => undefined, () => undefined, (w) => why.push(w));
    s1.feed(Buffer.from([0x80, 0x02, 0, 6, 0, 0, 0, 4, 0, 0, 0, 1]));
    const s2 = new SpdySession(() => undefined, () => undefined, (w) => why.push(w));
    s2.feed(Buffer.from([0, 0, 0, 1, 0, 0x7f, 0xff, 0xff]));
    expect(why).toEqual(['SPDY version 2', 'frame of 8388607 bytes']);
  });
});
