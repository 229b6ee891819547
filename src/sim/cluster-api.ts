// The module API over one cluster's store: typed-by-name create/update/patch/delete/get/list, returning copies.
import { clone } from './deep-equal.js';
import { mergePatch } from './patch.js';
import { errors } from './status.js';
import type { DeleteOptions, SimStore } from './store.js';
import { grKey, type SimObject } from './types.js';

/** A resource by name: "pods", "deployments.apps", "crontabs.stable.example.com", or {group, resource}. */
export type ResourceRef = string | { group: string; resource: string; version?: string };

export function refToGr(ref: ResourceRef): string {
  return typeof ref === 'string' ? ref : grKey(ref.group, ref.resource);
}

/** What tests and benchmarks call to change a cluster directly; every change produces the same watch events as HTTP would. */
export class ClusterStoreApi {
  constructor(private readonly store: SimStore) {}

  /** Where a resource's objects are stored, and how they read and write there (another's, for events.k8s.io's Events). */
  private at(ref: ResourceRef): { gr: string; read: (o: SimObject) => SimObject; write: (o: SimObject) => SimObject } {
    const gr = refToGr(ref);
    const view = this.store.def(gr)?.storedAs;
    return view ? { gr: view.gr, read: (o) => view.read(clone(o)), write: view.write } : { gr, read: clone, write: (o) => o };
  }

  get revision(): number {
    return this.store.revision;
  }

  get(ref: ResourceRef, namespace: string | undefined, name: string): SimObject | undefined {
    const { gr, read } = this.at(ref);
    const o = this.store.get(gr, namespace, name);
    return o ? read(o) : undefined;
  }

  /** Every current object of the resource (in `namespace` when given), in key order. */
  list(ref: ResourceRef, namespace?: string): SimObject[] {
    const { gr, read } = this.at(ref);
    const table = this.store.table(gr);
    if (!table) throw errors.noRoute();
    const prefix = namespace && table.def.namespaced ? `${namespace}/` : '';
    return [...table.entries('', prefix)].map(([, o]) => read(o));
  }

  /** Calls `fn` after each change, as watchers are told of it; returns what stops that. */
  onChange(fn: () => void): () => void {
    return this.store.onChange(() => fn());
  }

  /** The newest revision watchers have been given (below `revision` while delivery is held). */
  get deliveredRevision(): number {
    return this.store.deliveredRevision;
  }

  /**
   * Holds watch delivery: changes still commit (lists and gets see them at once) but watchers get them only through
   * releaseDelivery(), in order — a watch cache lagging etcd. Benchmarks use it to make changes ahead and let watchers
   * see them at a steady rate, so the simulator's own CPU does not cap the rate a watcher is measured at.
   */
  holdDelivery(): void {
    this.store.holdDelivery();
  }

  /** Gives the `n` oldest held changes to watchers; returns their revisions, resources, keys and types. */
  releaseDelivery(n: number): { rev: number; resource: string; key: string; type: string }[] {
    return this.store.releaseDelivery(n).map((ev) => ({ rev: ev.rev, resource: ev.gr, key: ev.key, type: ev.type }));
  }

  /** Changes committed and not yet given to watchers. */
  get heldChanges(): number {
    return this.store.heldChanges;
  }

  /** Releases everything held and delivers live again. */
  resumeDelivery(): void {
    this.store.resumeDelivery();
  }

  count(ref: ResourceRef): number {
    return this.store.table(this.at(ref).gr)?.count ?? 0;
  }

  create(ref: ResourceRef, obj: SimObject): SimObject {
    const { gr, read, write } = this.at(ref);
    return read(this.store.create(gr, write(obj), obj.metadata?.namespace));
  }

  /** PUT semantics: a stale metadata.resourceVersion → 409 Conflict; status is ignored for resources with a status subresource. */
  update(ref: ResourceRef, obj: SimObject): SimObject {
    const { gr, read, write } = this.at(ref);
    return read(this.store.update(gr, write(obj)));
  }

  /** PUT to /status: only status changes. */
  updateStatus(ref: ResourceRef, obj: SimObject): SimObject {
    return clone(this.store.update(refToGr(ref), obj, { subresource: 'status' }));
  }

  /** A JSON merge patch; `status: true` patches the status subresource. */
  patch(ref: ResourceRef, namespace: string | undefined, name: string, patch: Record<string, unknown>, opts: { status?: boolean } = {}): SimObject {
    const { gr, read, write } = this.at(ref);
    const stored = this.store.get(gr, namespace, name);
    if (!stored) throw errors.notFound(refToGr(ref), name);
    const current = read(stored);
    const next = mergePatch(current, patch) as SimObject;
    const rv = (patch.metadata as { resourceVersion?: unknown } | undefined)?.resourceVersion;
    next.metadata.resourceVersion = typeof rv === 'string' ? rv : stored.metadata.resourceVersion;
    return read(this.store.update(gr, write(next), { namespace, name, ...(opts.status ? { subresource: 'status' as const } : {}) }));
  }

  /** DELETE semantics: finalizers → deletionTimestamp; dependents are garbage-collected unless propagationPolicy is Orphan. */
  delete(ref: ResourceRef, namespace: string | undefined, name: string, opts: DeleteOptions = {}): SimObject {
    const { gr, read } = this.at(ref);
    return read(this.store.delete(gr, namespace, name, opts));
  }
}
