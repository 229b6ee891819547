// Connections that wait for an answer PostgreSQL will never send, found and closed.
//
// A connection that lost data in flight (a route that flapped, a server gone without a word while a statement was
// under way, a proxy whose other side died) waits on TCP's retransmissions, about a quarter of an hour, and behind a
// proxy that still answers TCP for the server, for ever: keepalive probes are not sent while data is unacknowledged,
// and Node cannot set TCP_USER_TIMEOUT. The query fails only then, and its pool slot is taken until it does.
//
// Silence alone does not tell a dead connection from a slow statement (a cluster's rows deleted, a lock waited for),
// so a connection that has heard nothing for a while is asked about, on a connection of its own, from the server's
// side: pg_stat_activity knows each session by the client's address and port. A session the server is working for
// ('active') is alive; no session, or an idle one while this side waits for an answer — the request or its answer was
// lost — is dead, and the socket is destroyed, which postgres.js reports as the connection failing (ETIMEDOUT, as the
// kernel would). Where the server cannot be asked (a proxy or NAT between, so ports do not match; the probe failing),
// a connection that has definitely waited `giveUpMs` for an answer is closed.
//
// Order of reads and writes is known only to a tick (byte counters sampled every `tickMs`; with TLS there is no event
// to hook). A connection whose last bytes were read, nothing written since, waits for nothing and is never asked
// about (an idle pooled connection, a LISTEN); one that read and wrote within one tick may wait, and is asked about
// until the server's answer shows it does not. Doubt is always resolved towards "alive": a connection is closed only
// on evidence that it waits, or that its backend is gone.
import type { Socket } from 'node:net';
import type { Logger } from '../../lib/log.js';
import type { AnswerWatchTimes, ConnectionClosedReason } from '../types.js';

export type { AnswerWatchTimes };

/** What the server says of this process's connections, asked on a connection of its own (the probe). */
export interface ServerView {
  /** The address and port the server sees the probe connect from. */
  client: { address: string; port: number };
  /** The probe's own socket: where it connected from and to. */
  probe: { localAddress: string; localPort: number; remoteAddress: string; remotePort: number };
  /** Local port → the server's session for that client port (from the probe's address): its state, in it for how long (ms). */
  sessions: Map<number, { state: string | null; forMs: number | null }>;
}

export const DEFAULT_ANSWER_WATCH: AnswerWatchTimes = { askAfterMs: 20_000, giveUpMs: 300_000, tickMs: 1_000 };

/**
 * Time allowed between the server sending its last answer and this side reading it. A session that went idle more
 * than this after the connection last read anything sent an answer (its ReadyForQuery) that never arrived.
 */
const DELIVERY_SLACK_MS = 2_000;

/** A connection that may wait (it read and wrote within one tick) is asked about after this many times `askAfterMs`. */
export const DOUBTFUL_ASK_FACTOR = 3;

interface Watched {
  read: number;
  written: number;
  /** When its last bytes were seen arriving (the tick they were counted on: never earlier than they came). */
  readAt: number;
  /** The tick a write was first counted after the last read's tick: this side waits for an answer since then. */
  waitingSince: number | undefined;
  /**
   * The last read's tick also counted a write, which may have come before or after it: a connection that may wait.
   * It is asked about once it has been silent a while; `cleared` once the server's answer shows it waits for nothing.
   */
  doubtful: boolean;
  cleared: boolean;
  /** When the server was last asked about it, and whether it vouched for it then. */
  askedAt: number | undefined;
  vouched: boolean;
}

/** Each connection's address as the probe compares it: IPv4-mapped IPv6 as plain IPv4. */
function plainAddress(a: string | undefined): string | undefined {
  return a?.startsWith('::ffff:') && a.includes('.') ? a.slice('::ffff:'.length) : a;
}

export class AnswerWatch {
  private readonly sockets = new Map<Socket, Watched>();
  private timer: NodeJS.Timeout | undefined;
  private asking = false;
  private readonly now: () => number;

  constructor(
    private readonly o: AnswerWatchTimes & {
      /** Asks the server about these local ports. */
      ask(ports: number[]): Promise<ServerView>;
      /** Called when nothing is left to watch (the pool closed its connections): the probe can go. */
      idle(): void;
      /** Told of each connection closed. */
      closed?: (reason: ConnectionClosedReason) => void;
      logger: Logger;
      now?: () => number;
    },
  ) {
    this.now = o.now ?? Date.now;
  }

  /**
   * Watches `socket` until it closes; returns it. Its 'close' is not relied on: postgres.js removes every listener of
   * a socket it wraps in TLS, so a closed socket is also let go of at the next tick.
   */
  watch(socket: Socket): Socket {
    this.sockets.set(socket, { read: socket.bytesRead, written: socket.bytesWritten, readAt: this.now(), waitingSince: undefined, doubtful: false, cleared: false, askedAt: undefined, vouched: false });
    socket.once('close', () => this.forget(socket));
    if (!this.timer) {
      this.timer = setInterval(() => this.tick(), this.o.tickMs);
      this.timer.unref();
    }
    return socket;
  }

  /** Connections watched now. */
  get size(): number {
    return this.sockets.size;
  }

  private forget(socket: Socket): void {
    if (this.sockets.delete(socket) && this.sockets.size === 0) this.stop();
  }

  private stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.o.idle();
  }

  /** Reads the counters, closes what waited past giving up, and asks about what has been silent long enough. */
  tick(): void {
    const now = this.now();
    const ask: Socket[] = [];
    for (const [s, w] of this.sockets) {
      if (s.destroyed) {
        this.forget(s);
        continue;
      }
      if (s.bytesRead !== w.read) {
        // Bytes written in this same tick may have been written before these arrived: not counted as waiting, a doubt.
        const doubtful = s.bytesWritten !== w.written;
        Object.assign(w, { read: s.bytesRead, written: s.bytesWritten, readAt: now, waitingSince: undefined, doubtful, cleared: false, askedAt: undefined, vouched: false });
        continue;
      }
      if (s.bytesWritten !== w.written) {
        w.written = s.bytesWritten;
        w.waitingSince ??= now;
        w.cleared = false;
      }
      if (s.localPort === undefined) continue;
      if (w.waitingSince !== undefined && !w.vouched && now - w.waitingSince >= this.o.giveUpMs) {
        this.close(s, w, now, 'gave_up', `waited ${Math.round((now - w.waitingSince) / 1000)} s for an answer and the server could not be asked about it`);
        continue;
      }
      // Asked about: one that waits, once its request is not a fresh one (its answer may be on the way); one that may
      // wait, after three times as long (most are idle pooled connections, closed after a minute unused) and until the
      // server shows it does not. One whose last bytes were read, with nothing written since, waits for nothing (an
      // idle pooled connection, a LISTEN): never asked about.
      const silent = now - w.readAt;
      const due = w.waitingSince !== undefined
        ? now - w.waitingSince >= this.o.askAfterMs && silent >= this.o.askAfterMs
        : w.doubtful && !w.cleared && silent >= DOUBTFUL_ASK_FACTOR * this.o.askAfterMs;
      if (due && (w.askedAt === undefined || now - w.askedAt >= this.o.askAfterMs)) ask.push(s);
    }
    if (ask.length > 0 && !this.asking) void this.askAbout(ask, now);
  }

  private async askAbout(sockets: Socket[], started: number): Promise<void> {
    this.asking = true;
    const before = new Map(sockets.map((s) => [s, { read: s.bytesRead, written: s.bytesWritten }]));
    let view: ServerView | undefined;
    try {
      view = await this.o.ask([...new Set(sockets.map((s) => s.localPort ?? 0))]);
    } catch (e: unknown) {
      this.o.logger.debug({ err: e instanceof Error ? e.message : String(e) }, 'could not ask PostgreSQL about silent connections');
    } finally {
      this.asking = false;
    }
    const direct = view !== undefined
      && plainAddress(view.client.address) === plainAddress(view.probe.localAddress) && view.client.port === view.probe.localPort;
    for (const s of sockets) {
      const w = this.sockets.get(s);
      // Closed meanwhile, or it read or wrote since the question was asked (the counters, not the last tick): the
      // server's answer may predate that; decided another time.
      const then = before.get(s);
      if (!w || !then || s.destroyed || s.bytesRead !== then.read || s.bytesWritten !== then.written) continue;
      w.askedAt = started;
      // No answer about it (the probe failed, a proxy between): what the server last said of it stands.
      if (!view || !direct || plainAddress(s.localAddress) !== plainAddress(view.probe.localAddress)
        || plainAddress(s.remoteAddress) !== plainAddress(view.probe.remoteAddress) || s.remotePort !== view.probe.remotePort) continue;
      w.vouched = false;
      const session = view.sessions.get(s.localPort ?? 0);
      if (!session) {
        this.close(s, w, this.now(), 'no_session', 'the server has no session for it');
        continue;
      }
      const idle = session.state !== null && session.state.startsWith('idle') && session.forMs !== null;
      if (!idle) {
        w.vouched = true; // working on a statement of ours (or starting up): a slow statement is not a dead connection
        continue;
      }
      if (w.waitingSince !== undefined) {
        this.close(s, w, this.now(), 'idle_session', `it waits for an answer while the server's session is ${session.state}`);
      } else if (w.readAt < started - (session.forMs ?? 0) - DELIVERY_SLACK_MS) {
        this.close(s, w, this.now(), 'answer_lost', `the server's session went ${session.state} ${Math.round((session.forMs ?? 0) / 1000)} s ago and its answer never arrived`);
      } else {
        // Read what the server last sent: waits for nothing (an idle pooled connection, a transaction whose reader is
        // busy elsewhere). Not asked about again until it reads or writes.
        w.cleared = true;
      }
    }
  }

  private close(s: Socket, w: Watched, now: number, reason: ConnectionClosedReason, why: string): void {
    const silentS = Math.round((now - w.readAt) / 1000);
    const err = Object.assign(new Error(`no answer from PostgreSQL for ${silentS} s on the connection from local port ${s.localPort ?? '?'}: ${why}; closing it`), { code: 'ETIMEDOUT' });
    this.o.logger.warn({ localPort: s.localPort, silentS, reason: why }, 'closing a PostgreSQL connection that will not be answered');
    s.destroy(err);
    this.o.closed?.(reason);
  }
}
