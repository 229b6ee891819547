// postgres.js (3.4.x) starts every new connection by reading the array types of the catalog (`fetch_types`, which
// our array parameters need) and drops that query's promise (porsager/postgres#1192, #1205, #1223, open): when the
// query fails — the server going down or restarting while a connection starts, a statement_timeout — the rejection
// is unhandled and Node ends the process. The query waiting behind it fails or succeeds on its own, and the storage
// layer's retries take it from there: that one rejection is no reason to stop an apiserver or a synchro.

/** The catalog query postgres.js runs to read array types; we never run it ourselves. */
function isTypeFetchQuery(query: unknown): boolean {
  return typeof query === 'string' && query.includes('b.typarray') && query.includes('pg_catalog.pg_type');
}

/** True for the failure of postgres.js's own array-type query (its errors carry the query's text). */
export function isPostgresTypeFetchFailure(e: unknown): boolean {
  return typeof e === 'object' && e !== null && isTypeFetchQuery((e as { query?: unknown }).query);
}

let installed = false;

/**
 * Keeps that rejection from ending the process (it becomes a process warning, which the roles log); any other
 * unhandled rejection is thrown as an uncaught exception, which is what Node does without a listener.
 */
export function guardPostgresTypeFetch(): void {
  if (installed) return;
  installed = true;
  process.on('unhandledRejection', (reason: unknown) => {
    if (!isPostgresTypeFetchFailure(reason)) throw reason;
    const message = reason instanceof Error ? reason.message : String(reason);
    process.emitWarning(`PostgreSQL: a new connection could not read the array types (${message}); it will be retried`, { code: 'CLUSTERPEDIA_PG_TYPE_FETCH' });
  });
}
