// A LeaseLock on a coordination.k8s.io/v1 Lease, with kube's optimistic concurrency (a stale update → 409).
import type { LeaseLock } from '../lib/leader-election.js';
import { KubeApiError, type KubeClient } from './client.js';

interface Lease {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace: string; resourceVersion?: string };
  spec?: { holderIdentity?: string; leaseDurationSeconds?: number; acquireTime?: string; renewTime?: string; leaseTransitions?: number };
}

/** kube's MicroTime format: RFC 3339 with microseconds. */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export class KubeLeaseLock implements LeaseLock {
  readonly description: string;
  private readonly path: string;

  constructor(private readonly client: KubeClient, readonly namespace: string, readonly name: string, private readonly now: () => number = Date.now) {
    this.description = `Lease ${namespace}/${name}`;
    this.path = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases`;
  }

  async tryAcquireOrRenew(identity: string, leaseDurationMs: number): Promise<boolean> {
    const now = this.now();
    const seconds = Math.ceil(leaseDurationMs / 1000);
    let current: Lease | undefined;
    try {
      current = await this.client.json<Lease>(`${this.path}/${encodeURIComponent(this.name)}`);
    } catch (e: unknown) {
      if (!(e instanceof KubeApiError) || e.status !== 404) throw e;
    }
    if (!current) {
      const lease: Lease = {
        apiVersion: 'coordination.k8s.io/v1', kind: 'Lease',
        metadata: { name: this.name, namespace: this.namespace },
        spec: { holderIdentity: identity, leaseDurationSeconds: seconds, acquireTime: microTime(now), renewTime: microTime(now), leaseTransitions: 0 },
      };
      return this.write('POST', this.path, lease);
    }
    const spec = current.spec ?? {};
    const held = spec.holderIdentity ?? '';
    const renewed = spec.renewTime ? Date.parse(spec.renewTime) : 0;
    const expired = renewed + (spec.leaseDurationSeconds ?? seconds) * 1000 <= now;
    if (held !== '' && held !== identity && !expired) return false;
    const next: Lease = {
      ...current,
      spec: {
        ...spec,
        holderIdentity: identity,
        leaseDurationSeconds: seconds,
        renewTime: microTime(now),
        ...(held === identity ? {} : { acquireTime: microTime(now), leaseTransitions: (spec.leaseTransitions ?? 0) + 1 }),
      },
    };
    return this.write('PUT', `${this.path}/${encodeURIComponent(this.name)}`, next);
  }

  async release(identity: string): Promise<void> {
    const current = await this.client.json<Lease>(`${this.path}/${encodeURIComponent(this.name)}`);
    if (current.spec?.holderIdentity !== identity) return;
    // An empty holder lets the next candidate take over at once (client-go's ReleaseOnCancel does the same).
    await this.write('PUT', `${this.path}/${encodeURIComponent(this.name)}`, {
      ...current, spec: { ...current.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: microTime(this.now()) },
    });
  }

  /** A create or update; a conflict (someone else won the race) is a plain false. */
  private async write(method: 'POST' | 'PUT', path: string, body: Lease): Promise<boolean> {
    try {
      await this.client.json(path, { method, body });
      return true;
    } catch (e: unknown) {
      if (e instanceof KubeApiError && (e.status === 409 || e.status === 422)) return false;
      throw e;
    }
  }
}
