// Watch of the PediaCluster read API (`kubectl get pediaclusters -w`). Cluster statuses are not in the change log:
// the stored records are read again every poll, and what changed since the last read is sent. As the synchro writes
// a host cluster's PediaCluster, a change of counts or event times alone is sent at most every STATUS_REFRESH_MS:
// under churn every record is rewritten every few seconds, and kubectl prints a row for each event.
import type { ServerResponse } from 'node:http';
import { significantStatus, STATUS_REFRESH_MS, type PediaClusterStatus } from '../../kube/pediacluster.js';
import type { KubeObject } from '../../kube/types.js';
import { sleep } from '../../lib/lifecycle.js';
import type { ClusterStatusRecord } from '../../storage/types.js';
import { pediaClusterObjects, type PediaClusterFilter } from './pediaclusters.js';
import { StreamWriter } from './stream-writer.js';
import { cutAfterMs, END_GRACE_MS } from './watch.js';

export type PediaClusterEvent = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface PediaClusterWatchParams {
  statuses: () => Promise<Map<string, ClusterStatusRecord>>;
  filter: PediaClusterFilter;
  /** `/pediaclusters/<name>?watch=true`: only that one. */
  name?: string;
  /** From the list the client holds (its resourceVersion): only what changed after it is sent first. */
  resourceVersion?: string;
  timeoutMs: number;
  pollMs: number;
  /** One event's JSON (a Table for kubectl: render.ts watchTables). */
  encode: (type: PediaClusterEvent, object: KubeObject) => string;
  contentType: string;
}

/** What a client has been shown of one PediaCluster. */
interface Shown {
  /** The latest state read (a DELETED event carries it). */
  object: KubeObject;
  /** Spec, labels and the significant part of the status when last sent. */
  fingerprint: string;
  resourceVersion: string;
  at: number;
}

function fingerprintOf(o: KubeObject & { spec?: unknown; status?: unknown }): string {
  return JSON.stringify([o.spec, o.metadata?.labels, significantStatus((o.status ?? {}) as PediaClusterStatus)]);
}

function shown(object: KubeObject, at: number): Shown {
  return { object, fingerprint: fingerprintOf(object), resourceVersion: object.metadata?.resourceVersion ?? '', at };
}

export async function servePediaClusterWatch(res: ServerResponse, signal: AbortSignal, p: PediaClusterWatchParams): Promise<void> {
  const read = async (): Promise<Map<string, KubeObject>> => {
    const objects = pediaClusterObjects(await p.statuses(), p.filter).filter((o) => p.name === undefined || o.metadata?.name === p.name);
    return new Map(objects.map((o) => [o.metadata?.name ?? '', o]));
  };
  // Read before the headers: a storage that cannot answer is still a Status, not an empty stream.
  const initial = await read();
  res.writeHead(200, { 'content-type': p.contentType, 'cache-control': 'no-cache, private', 'transfer-encoding': 'chunked' });
  res.flushHeaders();
  const out = new StreamWriter(res, { chunkBytes: 16 * 1024 });
  // No cut past setTimeout's range (a timeoutSeconds of years): it would fire at once and end the watch.
  const cut = cutAfterMs(res, p.timeoutMs + END_GRACE_MS);
  const send = async (type: PediaClusterEvent, o: KubeObject): Promise<void> => {
    await out.write(`${p.encode(type, o)}\n`);
  };
  try {
    // kube semantics: without a resourceVersion (or "0") the current state comes first as ADDED events; from a
    // list's, what was written after it, as MODIFIED (whether the client had it is not known here).
    const since = p.resourceVersion === undefined || p.resourceVersion === '0' ? undefined : Number(p.resourceVersion);
    const seen = new Map<string, Shown>();
    for (const [name, o] of initial) {
      if (since === undefined) await send('ADDED', o);
      else if (Number(o.metadata?.resourceVersion ?? 0) > since) await send('MODIFIED', o);
      seen.set(name, shown(o, Date.now()));
    }
    await out.flush();
    const deadline = Date.now() + p.timeoutMs;
    while (!signal.aborted && Date.now() < deadline) {
      await sleep(Math.min(p.pollMs, deadline - Date.now()), signal);
      if (signal.aborted || Date.now() >= deadline) break;
      let now: Map<string, KubeObject>;
      try {
        now = await read();
      } catch {
        break; // storage went away: the client watches again, and gets a Status then
      }
      // An object that stops matching the selector leaves as DELETED, one that starts matching arrives as ADDED.
      const at = Date.now();
      for (const [name, o] of now) {
        const was = seen.get(name);
        if (!was) {
          await send('ADDED', o);
          seen.set(name, shown(o, at));
          continue;
        }
        was.object = o;
        const rv = o.metadata?.resourceVersion ?? '';
        if (rv === was.resourceVersion) continue;
        const fingerprint = fingerprintOf(o);
        if (fingerprint === was.fingerprint && at - was.at < STATUS_REFRESH_MS) continue;
        await send('MODIFIED', o);
        seen.set(name, { object: o, fingerprint, resourceVersion: rv, at });
      }
      for (const [name, was] of seen) {
        if (now.has(name)) continue;
        await send('DELETED', was.object);
        seen.delete(name);
      }
      await out.flush();
    }
    await out.end();
  } finally {
    clearTimeout(cut);
  }
}
