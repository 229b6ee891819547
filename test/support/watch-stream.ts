// A watch over HTTP read event by event, for the apiserver's watch tests.
import { expect } from 'vitest';

export interface WatchEvent {
  type: string;
  object: {
    kind?: string;
    apiVersion?: string;
    code?: number;
    reason?: string;
    metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string>; resourceVersion: string };
  };
}

export interface WatchStream {
  /** The next event; fails after `ms` without one, and when the server ends the stream. */
  next(ms?: number): Promise<WatchEvent>;
  /** Resolves once the server ends the stream (reading and dropping events), false after `ms`. */
  ended(ms: number): Promise<boolean>;
  close(): void;
}

export async function openWatch(url: string, headers: Record<string, string> = {}): Promise<WatchStream> {
  const ac = new AbortController();
  const res = await fetch(url, { signal: ac.signal, headers });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buf = '';
  /** Reads one chunk within `ms`: false when the stream ended. */
  const more = async (ms: number): Promise<boolean> => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no watch data within ${ms} ms`)), ms);
    });
    try {
      const { value, done } = await Promise.race([reader.read(), timeout]);
      if (done) return false;
      buf += decoder.decode(value, { stream: true });
      return true;
    } finally {
      clearTimeout(timer);
    }
  };
  return {
    next: async (ms = 10_000) => {
      while (!buf.includes('\n')) {
        if (!(await more(ms))) throw new Error('watch ended');
      }
      const i = buf.indexOf('\n');
      const e = JSON.parse(buf.slice(0, i)) as WatchEvent;
      buf = buf.slice(i + 1);
      return e;
    },
    ended: async (ms) => {
      const deadline = Date.now() + ms;
      try {
        while (await more(Math.max(1, deadline - Date.now()))) buf = '';
        return true;
      } catch {
        return false;
      }
    },
    close: () => ac.abort(),
  };
}
