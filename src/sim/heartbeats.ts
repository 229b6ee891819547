// What a running cluster writes by the clock, whatever else happens: each kubelet renews its node's Lease every 10 s
// and reports its node's status every 5 minutes (nodeStatusReportFrequency: only the conditions' lastHeartbeatTime
// moves), and the controller-manager and the scheduler renew their leader Leases every 2 s. kubectl shows it:
// `get leases -n kube-node-lease -w`, the Heartbeat of `describe node`.
import { clone } from './deep-equal.js';
import { iso, microIso } from './gen-meta.js';
import type { SimStore } from './store.js';
import { rec, recs } from './types.js';

const LEASES = 'leases.coordination.k8s.io';
const NODE_LEASE_MS = 10_000;
const LEADER_LEASE_MS = 2_000;
const NODE_STATUS_MS = 300_000;
/** How often the schedule is looked at: the writes are seconds apart. */
const CHECK_MS = 1_000;

export class Heartbeats {
  /** Off for a benchmark that counts only churn's own changes. */
  enabled = true;
  /** When each lease ("namespace/name") or node is next due, once first seen. */
  private readonly due = new Map<string, number>();
  private nextCheck = 0;
  private writes = 0;

  constructor(private readonly store: SimStore) {}

  /** Writes made so far. */
  get written(): number {
    return this.writes;
  }

  /** Writes what is due at `now` (ms); returns how many. A late call writes each once, not once per period missed. */
  tick(now: number): number {
    if (!this.enabled || now < this.nextCheck) return 0;
    this.nextCheck = now + CHECK_MS;
    const before = this.writes;
    const leases = this.store.table(LEASES);
    for (const [key, lease] of leases?.entries() ?? []) {
      const spec = rec(lease.spec);
      const period = lease.metadata.namespace === 'kube-node-lease' ? NODE_LEASE_MS : LEADER_LEASE_MS;
      if (!this.isDue(`lease ${key}`, now, Date.parse(String(spec.renewTime ?? '')) + period, period)) continue;
      const next = clone(lease);
      next.spec = { ...spec, renewTime: microIso(now) };
      this.store.update(LEASES, next);
      this.writes++;
    }
    let i = 0;
    for (const [name, node] of this.store.table('nodes')?.entries() ?? []) {
      const conditions = recs(rec(node.status).conditions);
      const last = Date.parse(String(conditions[0]?.lastHeartbeatTime ?? ''));
      // Kubelets started at different times: their reports are spread over the period.
      const first = last + NODE_STATUS_MS - ((i++ * 37_000) % NODE_STATUS_MS);
      if (!this.isDue(`node ${name}`, now, first, NODE_STATUS_MS)) continue;
      const next = clone(node);
      next.status = { ...rec(node.status), conditions: conditions.map((c) => ({ ...c, lastHeartbeatTime: iso(now) })) };
      this.store.update('nodes', next, { subresource: 'status' });
      this.writes++;
    }
    return this.writes - before;
  }

  /** Whether `what` is due at `now` (first at `first`, unparsable: at once); if so, its next time is a period on. */
  private isDue(what: string, now: number, first: number, period: number): boolean {
    const at = this.due.get(what) ?? (Number.isFinite(first) ? first : now);
    if (now < at) {
      this.due.set(what, at);
      return false;
    }
    this.due.set(what, now + period);
    return true;
  }
}
