// Requests start in the order they arrived, one per event-loop turn.
//
// better-sqlite3 answers on the event loop's own thread, so a SQLite list is one synchronous stretch of several
// milliseconds. Started straight from the HTTP parser, a busy server ran such stretches back to back inside one poll
// phase and read the sockets unevenly: under 200 clients some were served 40 times in 20 s and most once (client p99
// ~20 s). Letting one request start per turn puts a poll between any two of them, so every request is read as it
// arrives and starts after those read before it, and `--max-requests-inflight` sees the real backlog.

export class TurnQueue {
  private readonly waiting: (() => void)[] = [];
  private head = 0;
  /** A request started during this turn, and the turn's end is scheduled. */
  private busy = false;

  /** Resolves when it is this caller's turn: at once when no other request started this turn, else FIFO. */
  wait(): Promise<void> | undefined {
    if (!this.busy) {
      this.busy = true;
      setImmediate(this.next);
      return undefined;
    }
    return new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  /** Requests waiting for their turn. */
  get length(): number {
    return this.waiting.length - this.head;
  }

  // An immediate scheduled from an immediate runs on the next turn, after that turn's poll phase.
  private readonly next = (): void => {
    const resolve = this.waiting[this.head];
    if (resolve === undefined) {
      this.busy = false;
      this.waiting.length = 0;
      this.head = 0;
      return;
    }
    this.waiting[this.head] = noop;
    this.head++;
    if (this.head > 1024 && this.head * 2 > this.waiting.length) {
      this.waiting.splice(0, this.head);
      this.head = 0;
    }
    resolve();
    setImmediate(this.next);
  };
}

function noop(): void {}
