// Member health probe (reference §5.5): GET /readyz, falling back to /healthz on 404, with a timeout.
import { messageOf } from '../../lib/errors.js';
import { withChildSignal } from '../../lib/lifecycle.js';
import { KubeApiError, type KubeClient } from '../../kube/client.js';
import type { HealthState } from './conditions.js';
import { MESSAGES } from './conditions.js';

/** Probes once. Never throws: every failure is a state with a message for the ClusterHealthy condition. */
export async function probeHealth(client: KubeClient, timeoutMs: number, parent?: AbortSignal): Promise<HealthState> {
  // One deadline for connect, headers and body: an unroutable member must not hold the monitor past its timeout.
  return withChildSignal(parent, (signal) => probe(client, timeoutMs, signal), timeoutMs);
}

async function probe(client: KubeClient, timeoutMs: number, signal: AbortSignal): Promise<HealthState> {
  try {
    let res = await client.raw('/readyz', { timeoutMs, signal, accept: 'text/plain, */*' });
    if (res.statusCode === 404) {
      await res.body.dump();
      res = await client.raw('/healthz', { timeoutMs, signal, accept: 'text/plain, */*' });
    }
    const body = (await res.body.text()).trim();
    // Like client-go's DoRaw: a non-2xx answer (401 for bad credentials, 5xx) is an error, so NotReachable.
    if (res.statusCode < 200 || res.statusCode >= 300) {
      return { status: 'False', reason: 'NotReachable', message: KubeApiError.fromResponse(res.statusCode, body, 'GET', '/readyz', res.headers).message };
    }
    if (body === 'ok') return { status: 'True', message: MESSAGES.healthy };
    return { status: 'False', reason: 'Unhealthy', message: 'cluster health responded without ok' };
  } catch (e: unknown) {
    return { status: 'False', reason: 'NotReachable', message: messageOf(e) };
  }
}

/** The member's gitVersion, for status.version; undefined when /version cannot be read. */
export async function serverVersion(client: KubeClient, signal?: AbortSignal): Promise<string | undefined> {
  try {
    const v = await client.json<{ gitVersion?: string }>('/version', { signal });
    return v.gitVersion;
  } catch {
    return undefined;
  }
}
