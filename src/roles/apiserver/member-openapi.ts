// The members' OpenAPI v3 (what `kubectl explain` reads since 1.27) through clusterpedia (--forward-openapi):
// `…/resources[/clusters/<c>]/openapi/v3[/<group version>]`. Through a cluster's path it is that member's; through
// the all-clusters path, that of the first ready cluster by name the caller may read. The index's serverRelativeURLs
// point into the chosen cluster's path here (kubectl follows them from the server's root), so the documents come
// from the member whose index was read. `/openapi/v2` (kubectl's fallback) is passed through as the member gives it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { matchesSet } from '../../kube/match.js';
import { serviceUnavailable } from '../../kube/status.js';
import { RESOURCES_PREFIX } from './request-info.js';
import { scopedClusters } from './authz-gate.js';
import type { HandlerDeps } from './handler.js';
import { forwardGet, unreachable, withMemberClient, type MemberConnections } from './member-forward.js';
import { sendObject } from './respond.js';
import type { RequestContext } from './server.js';

const INDEX = '/openapi/v3';
/** The index lists a few hundred group versions at most; a member's answer longer than this is refused. */
const MAX_INDEX_BYTES = 4 * 1024 * 1024;

/** A body as text, or undefined past MAX_INDEX_BYTES (the rest is not read). */
async function boundedText(body: AsyncIterable<unknown> & { destroy(): unknown }): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > MAX_INDEX_BYTES) {
      body.destroy();
      return undefined;
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The cluster whose schemas the all-clusters path shows: the first ready one by name the caller may read. */
async function schemaCluster(ctx: RequestContext, d: HandlerDeps): Promise<string> {
  const allowed = await scopedClusters(ctx.access, undefined);
  const clusters = [...(await d.catalog.get()).clusters.values()].filter((c) => matchesSet(c.name, allowed)).sort((a, b) => (a.name < b.name ? -1 : 1));
  const chosen = clusters.find((c) => c.healthy?.status === 'True') ?? clusters[0];
  if (!chosen) throw serviceUnavailable('no member cluster to take the OpenAPI schemas from');
  return chosen.name;
}

export async function serveOpenApi(req: IncomingMessage, res: ServerResponse, ctx: RequestContext, url: URL, target: { cluster?: string; path: string },
  d: HandlerDeps, members: MemberConnections): Promise<void> {
  const cluster = target.cluster ?? (await schemaCluster(ctx, d));
  if (target.path !== INDEX) return forwardGet(req, res, ctx, cluster, target.path, url.search, members);
  return withMemberClient(req, members, cluster, async (client) => {
    let answer: Awaited<ReturnType<typeof client.raw>>;
    try {
      answer = await client.raw(INDEX, { signal: ctx.signal });
    } catch (e: unknown) {
      if (ctx.signal.aborted) return;
      throw unreachable(cluster, e);
    }
    const text = await boundedText(answer.body);
    if (text === undefined) throw serviceUnavailable(`cluster ${cluster} answered ${INDEX} with more than ${MAX_INDEX_BYTES / 1024 / 1024} MiB`);
    if (answer.statusCode !== 200) {
      const type = answer.headers['content-type'];
      res.writeHead(answer.statusCode, { 'content-type': typeof type === 'string' ? type : 'application/json' });
      res.end(text);
      return;
    }
    let index: unknown;
    try {
      index = JSON.parse(text);
    } catch {
      throw serviceUnavailable(`cluster ${cluster} answered ${INDEX} with something that is not JSON`);
    }
    const base = `${RESOURCES_PREFIX}/clusters/${encodeURIComponent(cluster)}`;
    const paths = (index as { paths?: unknown } | null)?.paths;
    for (const entry of typeof paths === 'object' && paths !== null ? Object.values(paths) : []) {
      if (typeof entry !== 'object' || entry === null) continue;
      const e = entry as { serverRelativeURL?: unknown };
      if (typeof e.serverRelativeURL === 'string' && e.serverRelativeURL.startsWith(`${INDEX}/`)) e.serverRelativeURL = `${base}${e.serverRelativeURL}`;
    }
    await sendObject(res, 200, index);
  });
}
