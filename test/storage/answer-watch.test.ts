// The watch for PostgreSQL connections that will not be answered (src/storage/postgres/answer-watch.ts), driven tick
// by tick: sockets are stand-ins whose byte counters the test moves, the server's view is what the test says it is.
// The same watch against a real server: postgres-answer-watch.test.ts.
import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AnswerWatch, DOUBTFUL_ASK_FACTOR, type ServerView } from '../../src/storage/postgres/answer-watch.js';
import { silentLogger } from '../../src/lib/log.js';

const ASK_AFTER = 20_000;
const GIVE_UP = 300_000;
const TICK = 1_000;
/** When one that may wait (a read and a write counted in one tick) is first asked about. */
const ASK_DOUBTFUL = DOUBTFUL_ASK_FACTOR * ASK_AFTER;

class FakeSocket extends EventEmitter {
  bytesRead = 100;
  bytesWritten = 100;
  localAddress = '127.0.0.1';
  remoteAddress = '127.0.0.1';
  remotePort = 5432;
  destroyed = false;
  error: (Error & { code?: string }) | undefined;
  constructor(readonly localPort: number) {
    super();
  }
  destroy(err?: Error): this {
    this.destroyed = true;
    this.error = err;
    this.emit('close');
    return this;
  }
}

type Session = { state: string | null; forMs: number | null };

/** A watch over `sockets` at a clock the test moves, whose server answers with `sessions()` (or fails, or is behind a proxy). */
function setup(opts: { sessions?: () => Map<number, Session>; proxied?: boolean; askFails?: boolean; gate?: () => Promise<void> } = {}) {
  let now = 1_000_000;
  const asked: number[][] = [];
  const closed: string[] = [];
  let idle = 0;
  const watch = new AnswerWatch({
    askAfterMs: ASK_AFTER,
    giveUpMs: GIVE_UP,
    tickMs: 3_600_000, // ticks are the test's: tick() below
    now: () => now,
    logger: silentLogger(),
    idle: () => { idle++; },
    closed: (reason) => { closed.push(reason); },
    ask: async (ports): Promise<ServerView> => {
      asked.push(ports);
      await opts.gate?.();
      if (opts.askFails) throw new Error('connection refused');
      return {
        client: { address: '127.0.0.1', port: opts.proxied ? 40_000 : 50_000 },
        probe: { localAddress: '127.0.0.1', localPort: 50_000, remoteAddress: '127.0.0.1', remotePort: 5432 },
        sessions: opts.sessions?.() ?? new Map(),
      };
    },
  });
  const sockets: FakeSocket[] = [];
  return {
    watch,
    asked,
    closed,
    idleCalls: () => idle,
    add(port: number): FakeSocket {
      const s = new FakeSocket(port);
      sockets.push(s);
      watch.watch(s as unknown as Socket);
      return s;
    },
    /** Moves the clock by `ms` one tick at a time, letting each question to the server be answered. */
    async pass(ms: number): Promise<void> {
      for (let t = 0; t < ms; t += TICK) {
        now += TICK;
        watch.tick();
        await new Promise((r) => setImmediate(r));
      }
    },
    now: () => now,
    close: () => { for (const s of sockets) if (!s.destroyed) s.destroy(); },
  };
}

let current: ReturnType<typeof setup> | undefined;
afterEach(() => current?.close());
function watchWith(opts: Parameters<typeof setup>[0] = {}): ReturnType<typeof setup> {
  current = setup(opts);
  return current;
}

describe('AnswerWatch', () => {
  it('closes a connection that waits for an answer while the server\'s session for it is idle (request or answer lost)', async () => {
    const w = watchWith({ sessions: () => new Map([[1001, { state: 'idle', forMs: 25_000 }]]) });
    const s = w.add(1001);
    await w.pass(2_000);
    s.bytesWritten += 60; // a query written, well after the last answer was read
    await w.pass(ASK_AFTER - TICK);
    expect(s.destroyed).toBe(false);
    await w.pass(2 * TICK);
    expect(w.asked).toEqual([[1001]]);
    expect(s.destroyed).toBe(true);
    expect(s.error?.code).toBe('ETIMEDOUT');
    expect(s.error?.message).toMatch(/no answer from PostgreSQL for \d+ s on the connection from local port 1001: it waits for an answer while the server's session is idle/);
    expect(w.closed).toEqual(['idle_session']);
  });

  it('leaves a waiting connection alone while the server works on its statement, past the give-up time', async () => {
    const w = watchWith({ sessions: () => new Map([[1002, { state: 'active', forMs: 1_000 }]]) });
    const s = w.add(1002);
    await w.pass(2_000);
    s.bytesWritten += 60;
    await w.pass(GIVE_UP + 10 * TICK);
    expect(s.destroyed).toBe(false);
    expect(w.asked.length).toBeGreaterThanOrEqual(Math.floor(GIVE_UP / ASK_AFTER) - 1); // asked again every 20 s
  });

  it('closes a silent connection the server has no session for (its backend gone without a word)', async () => {
    const w = watchWith({ sessions: () => new Map() });
    const s = w.add(1003);
    s.bytesRead += 10; // a read and a write in one tick: it may wait
    s.bytesWritten += 60;
    await w.pass(ASK_DOUBTFUL - TICK);
    expect(w.asked).toEqual([]);
    await w.pass(2 * TICK);
    expect(s.destroyed).toBe(true);
    expect(s.error?.message).toMatch(/the server has no session for it/);
    expect(w.closed).toEqual(['no_session']);
  });

  it('closes a connection whose session went idle after its last read: the server answered and the answer never came', async () => {
    // Last read at the start; the statement (written in that same tick, so not known to wait) ran 30 s on the server.
    const w = watchWith({
      sessions: () => new Map([[1004, w.now() < start + 30_000 ? { state: 'active', forMs: w.now() - start } : { state: 'idle in transaction', forMs: w.now() - start - 30_000 }]]),
    });
    const start = w.now();
    const s = w.add(1004);
    s.bytesRead += 10;
    s.bytesWritten += 60;
    await w.pass(TICK);
    await w.pass(ASK_DOUBTFUL + 2 * TICK);
    expect(s.destroyed).toBe(true);
    expect(s.error?.message).toMatch(/session went idle in transaction \d+ s ago and its answer never arrived/);
    expect(w.closed).toEqual(['answer_lost']);
  });

  it('never asks about a connection whose last bytes were read, nothing written since (an idle pooled connection, a LISTEN)', async () => {
    const w = watchWith({ sessions: () => new Map() });
    const s = w.add(1005);
    s.bytesRead += 500;
    await w.pass(GIVE_UP + 10 * TICK);
    expect(w.asked).toEqual([]);
    expect(s.destroyed).toBe(false);
  });

  it('asks once about one that may wait; caught up with the server, it is not asked again until it reads or writes', async () => {
    let since = 0;
    const w = watchWith({ sessions: () => new Map([[1012, { state: 'idle in transaction', forMs: w.now() - since }]]) });
    const s = w.add(1012);
    s.bytesRead += 500; // an answer read, and a statement written, in one tick
    s.bytesWritten += 60;
    await w.pass(TICK);
    since = w.now() - 200; // the server went idle as it sent that answer: the statement came before it
    await w.pass(GIVE_UP + 10 * TICK);
    expect(w.asked).toHaveLength(1);
    expect(s.destroyed).toBe(false);
    s.bytesRead += 500;
    s.bytesWritten += 60;
    await w.pass(TICK);
    since = w.now() - 200;
    await w.pass(ASK_DOUBTFUL + TICK);
    expect(w.asked).toHaveLength(2);
    expect(s.destroyed).toBe(false);
  });

  it('a statement the server vouched for is not given up on when the server can no longer be asked', async () => {
    let reachable = true;
    const w = watchWith({ sessions: () => new Map([[1013, { state: 'active', forMs: 1_000 }]]), gate: async () => { if (!reachable) throw new Error('too many connections'); } });
    const s = w.add(1013);
    await w.pass(2 * TICK);
    s.bytesWritten += 60;
    await w.pass(ASK_AFTER + 2 * TICK);
    expect(w.asked).toHaveLength(1);
    reachable = false;
    await w.pass(GIVE_UP + 10 * TICK);
    expect(w.asked.length).toBeGreaterThan(5);
    expect(s.destroyed).toBe(false);
  });

  it('counts a write in the same tick as a read as answered: on that doubt, never closed by the give-up time', async () => {
    const w = watchWith({ askFails: true });
    const s = w.add(1006);
    s.bytesRead += 500;
    s.bytesWritten += 60;
    await w.pass(GIVE_UP + 10 * TICK);
    expect(s.destroyed).toBe(false);
  });

  it('where the server cannot be asked (it fails, or a proxy hides the ports) closes a connection that waited the give-up time', async () => {
    for (const opts of [{ askFails: true }, { proxied: true, sessions: () => new Map([[1007, { state: 'idle', forMs: 1 }]]) }]) {
      const w = watchWith(opts);
      const s = w.add(1007);
      await w.pass(2 * TICK);
      s.bytesWritten += 60;
      await w.pass(GIVE_UP - 2 * TICK);
      expect(s.destroyed).toBe(false);
      await w.pass(3 * TICK);
      expect(s.destroyed).toBe(true);
      expect(s.error?.message).toMatch(/waited 30\d s for an answer and the server could not be asked about it/);
      expect(w.closed).toEqual(['gave_up']);
      w.close();
    }
  });

  it('does not ask about a request written moments ago', async () => {
    const idleSince = 0; // the session idle since long before the watch began
    const w = watchWith({ sessions: () => new Map([[1008, { state: 'idle', forMs: w.now() - idleSince }]]) });
    const s = w.add(1008);
    s.bytesRead += 10;
    s.bytesWritten += 60;
    await w.pass(ASK_DOUBTFUL + TICK); // may wait: asked about, found idle since before its last read, left alone
    expect(w.asked).toHaveLength(1);
    expect(s.destroyed).toBe(false);
    await w.pass(ASK_AFTER - 2 * TICK);
    s.bytesWritten += 60; // a request, just before the next question is due
    await w.pass(3 * TICK);
    expect(w.asked).toHaveLength(1); // due, but its request is fresh: its answer may be on the way
    expect(s.destroyed).toBe(false);
    await w.pass(ASK_AFTER);
    expect(w.asked).toHaveLength(2);
    expect(s.destroyed).toBe(true);
  });

  it('decides nothing for a connection heard from while the question was out', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => { release = r; });
    const w = watchWith({ sessions: () => new Map([[1011, { state: 'idle', forMs: 1 }]]), gate: () => gate });
    const s = w.add(1011);
    await w.pass(2 * TICK);
    s.bytesWritten += 60;
    await w.pass(ASK_AFTER + TICK);
    expect(w.asked).toHaveLength(1);
    s.bytesRead += 300; // the answer, late but there
    release();
    await new Promise((r) => setImmediate(r));
    expect(s.destroyed).toBe(false);
  });

  it('lets go of a socket that closed without telling it (postgres.js removes a socket\'s listeners when it wraps it in TLS)', async () => {
    const w = watchWith();
    const s = w.add(1014);
    s.removeAllListeners();
    s.destroy();
    expect(w.watch.size).toBe(1);
    await w.pass(TICK);
    expect(w.watch.size).toBe(0);
    expect(w.idleCalls()).toBe(1);
  });

  it('stops its timer and lets the probe go once no connection is left', () => {
    const w = watchWith();
    const a = w.add(1009);
    const b = w.add(1010);
    a.destroy();
    expect(w.idleCalls()).toBe(0);
    b.destroy();
    expect(w.idleCalls()).toBe(1);
    expect(w.watch.size).toBe(0);
  });
});
