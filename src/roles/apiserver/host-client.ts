// The apiserver's client of the host cluster (TokenReview, SubjectAccessReview): --kubeconfig, else in-cluster config.
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '../../kube/client.js';
import { kubeConfigFromFile } from '../../kube/kubeconfig.js';
import { serviceUnavailable } from '../../kube/status.js';
import { ConfigError } from '../../lib/errors.js';
import type { Logger } from '../../lib/log.js';

/** Posts review objects (create-only APIs) to the host cluster and returns their status. */
export interface ReviewPoster {
  post<S>(path: string, body: Record<string, unknown>): Promise<{ status?: S }>;
}

/** Loads the host cluster's credentials; a missing or broken config is a configuration error (exit 2). */
export async function newHostClient(kubeconfig: string | undefined, why: string): Promise<KubeClient> {
  try {
    let kc: KubeConfig;
    if (kubeconfig) kc = kubeConfigFromFile(kubeconfig);
    else {
      if (!process.env.KUBERNETES_SERVICE_HOST) throw new Error('this process does not run in a Pod (KUBERNETES_SERVICE_HOST is not set)');
      kc = new KubeConfig();
      kc.loadFromCluster();
    }
    return await KubeClient.create(kc, { userAgent: 'clusterpedia-apiserver', requestTimeoutMs: 10_000 });
  } catch (e: unknown) {
    const where = kubeconfig ? `--kubeconfig ${kubeconfig}` : 'the in-cluster config (no --kubeconfig given)';
    throw new ConfigError(`${why} needs the host cluster, but ${where} is not usable: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/**
 * Wraps a KubeClient for reviews. A failure to reach the host becomes 503 ServiceUnavailable with Retry-After:
 * the caller did nothing wrong and may retry (kube-apiserver answers 401 or 500 here, which sends kubectl
 * users chasing their credentials). The request body is never logged: a TokenReview carries the token.
 */
export function reviewPoster(client: KubeClient, logger: Logger): ReviewPoster {
  return {
    async post<S>(path: string, body: Record<string, unknown>): Promise<{ status?: S }> {
      try {
        return await client.json<{ status?: S }>(path, { method: 'POST', body });
      } catch (e: unknown) {
        const status = typeof e === 'object' && e !== null ? (e as { status?: unknown }).status : undefined;
        logger.warn({ path, status, reason: (e as { reason?: unknown } | null)?.reason }, 'host cluster review failed');
        throw serviceUnavailable('the host cluster could not review this request; retry later', 1);
      }
    },
  };
}
