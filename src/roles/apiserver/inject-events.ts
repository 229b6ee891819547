// search.clusterpedia.io/inject-events (reference §2.11): each object of a built-in list gets the annotation
// shadow.clusterpedia.io/events, the JSON array of its stored core/v1 Events. Looked up per chunk of rows, so a
// streamed list stays streamed.
import type { StoredRow, StorageReader } from '../../storage/types.js';

export const EVENTS_ANNOTATION = 'shadow.clusterpedia.io/events';
/** Rows whose Events are looked up together. */
const CHUNK = 500;

type Lookup = Pick<StorageReader, 'involvedEvents'>;

/** `rows` with each object's Events in its annotation (an object without Events is left as it is). */
export async function* withInvolvedEvents(rows: AsyncIterable<StoredRow>, storage: Lookup): AsyncGenerator<StoredRow> {
  let chunk: StoredRow[] = [];
  for await (const row of rows) {
    chunk.push(row);
    if (chunk.length < CHUNK) continue;
    yield* await annotate(chunk, storage);
    chunk = [];
  }
  if (chunk.length > 0) yield* await annotate(chunk, storage);
}

async function annotate(rows: StoredRow[], storage: Lookup): Promise<StoredRow[]> {
  const uidsByCluster = new Map<string, string[]>();
  for (const r of rows) {
    if (r.uid === '') continue;
    const list = uidsByCluster.get(r.cluster);
    if (list) list.push(r.uid);
    else uidsByCluster.set(r.cluster, [r.uid]);
  }
  const found = new Map<string, Map<string, string[]>>();
  for (const [cluster, uids] of uidsByCluster) found.set(cluster, await storage.involvedEvents(cluster, uids));
  return rows.map((r) => {
    const events = r.uid === '' ? undefined : found.get(r.cluster)?.get(r.uid);
    if (!events) return r;
    const obj = JSON.parse(r.object) as { metadata?: { annotations?: Record<string, string> } };
    const metadata = (obj.metadata ??= {});
    metadata.annotations = { ...(metadata.annotations ?? {}), [EVENTS_ANNOTATION]: `[${events.join(',')}]` };
    // The row as read, with the annotated object; bytes read for the object as stored would be stale.
    const { bytes: _stale, ...row } = r;
    return { ...row, object: JSON.stringify(obj) };
  });
}
