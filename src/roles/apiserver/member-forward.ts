// Subresources forwarded to the member cluster (Clusterpedia's proxy subresources, reference §1.5): `kubectl logs`
// through one cluster's path. The request goes out with clusterpedia's credentials for the member (the synchro's
// connection in binding, the PediaCluster's credentials in a standalone apiserver), never the caller's.
import type { ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import type { KubeClient } from '../../kube/client.js';
import { badRequest, serviceUnavailable } from '../../kube/status.js';
import { messageOf } from '../../lib/errors.js';
import type { ResourceRequest } from './request-info.js';
import type { RequestContext } from './server.js';

/**
 * The members' connections: the synchro's while it runs (binding), or made from the PediaCluster's credentials
 * (member-connections.ts). A cluster that has none is a StatusError (503) saying why, without Retry-After: client-go
 * would retry ten times on it, and kubectl logs would hang for most of a minute before showing the message.
 */
export interface MemberConnections {
  client(cluster: string): Promise<KubeClient>;
}

// PodLogOptions as the member reads them; anything else in the query stays here.
const LOG_PARAMS = ['container', 'follow', 'previous', 'sinceSeconds', 'sinceTime', 'timestamps', 'tailLines', 'limitBytes', 'insecureSkipTLSVerifyBackend', 'stream'];

/** True when `t` names a subresource forwarded under `allowed` (`pods/log`). */
export function isForwarded(t: ResourceRequest, allowed: readonly string[]): boolean {
  return t.group === '' && t.subresource !== undefined && allowed.includes(`${t.resource}/${t.subresource}`);
}

/**
 * Sends the request to the member and streams its answer back as it comes: the body (a log, followed for as long as
 * the client stays) or the member's own Status. Long-running, as kube-apiserver treats `log` (server.ts).
 */
export async function forwardToMember(res: ServerResponse, ctx: RequestContext, url: URL, t: ResourceRequest, members: MemberConnections): Promise<void> {
  // Clusterpedia's words for a proxied request without a cluster.
  if (t.cluster === undefined) throw badRequest('please specify the cluster name when using proxy model.');
  const client = await members.client(t.cluster);
  const path = `/api/v1/namespaces/${encodeURIComponent(t.namespace ?? '')}/pods/${encodeURIComponent(t.name ?? '')}/${t.subresource ?? ''}`;
  const query: Record<string, string> = {};
  for (const k of LOG_PARAMS) {
    const v = url.searchParams.get(k);
    if (v !== null) query[k] = v;
  }
  let answer: Awaited<ReturnType<KubeClient['raw']>>;
  try {
    // No body timeout: a followed log is quiet for as long as the container is.
    answer = await client.raw(path, { query, accept: '*/*', signal: ctx.signal, bodyTimeoutMs: 0 });
  } catch (e: unknown) {
    if (ctx.signal.aborted) return;
    throw serviceUnavailable(`cluster ${t.cluster} could not be reached: ${messageOf(e)}`);
  }
  const type = answer.headers['content-type'];
  res.writeHead(answer.statusCode, { 'content-type': typeof type === 'string' ? type : 'text/plain', 'cache-control': 'no-cache, private' });
  res.flushHeaders();
  try {
    await pipeline(answer.body, res);
  } catch {
    // The client or the member went away; the response ends with what was sent.
    if (!res.destroyed) res.destroy();
  }
}
