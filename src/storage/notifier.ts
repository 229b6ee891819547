// In-process revision notifications for subscribe(): listeners hear each new head revision once, in order.

export class RevisionNotifier {
  private readonly listeners = new Set<(revision: string) => void>();
  private last = 0;

  subscribe(listener: (revision: string) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /**
   * Announces `revision` if it is newer than the last one announced (a write of this process and its own NOTIFY
   * echo arrive twice). A throwing listener must not break the writer or the other listeners.
   */
  notify(revision: number): void {
    if (!(revision > this.last)) return;
    this.last = revision;
    const r = String(revision);
    for (const l of [...this.listeners]) {
      try {
        l(r);
      } catch {
        // listeners are watchers waking up; their errors are theirs to handle
      }
    }
  }

  clear(): void {
    this.listeners.clear();
  }
}
