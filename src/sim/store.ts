// The object store of one simulated cluster: an etcd-like revision counter, kube's write semantics, and change notification.
import { builtinResources } from './catalog.js';
import { defFromCrdObject } from './crds.js';
import { clone, deepEqual } from './deep-equal.js';
import { EventWindow } from './event-window.js';
import { generatedSets } from './generated.js';
import { iso } from './gen-meta.js';
import { uidFor } from './prng.js';
import { ResourceTable } from './resource-table.js';
import { errors } from './status.js';
import type { Topology } from './topology.js';
import { apiVersionOf, grKey, objectKey, type ChangeEvent, type ResourceDef, type SimObject, type WatchType } from './types.js';

export const CRD_GR = 'customresourcedefinitions.apiextensions.k8s.io';

export interface StoreOptions {
  topology: Topology;
  host: boolean;
  /** Events kept for watch resume and consistent paging. */
  windowSize: number;
  now?: () => number;
}

export interface DeleteOptions {
  preconditions?: { resourceVersion?: string; uid?: string };
  /** "Orphan" keeps dependents; anything else deletes them (kube's background garbage collection, done at once). */
  propagationPolicy?: string;
  /**
   * Pods on a node only (kube's graceful deletion): above 0 marks the pod — a deletionTimestamp that many seconds
   * ahead, MODIFIED — and leaves it to its kubelet, which removes it with a delete of 0. Absent or 0: gone at once.
   */
  gracePeriodSeconds?: number;
}

export class SimStore {
  private rev: number;
  readonly window: EventWindow;
  private readonly tables = new Map<string, ResourceTable>();
  private readonly defs = new Map<string, ResourceDef>();
  private readonly listeners = new Set<(ev: ChangeEvent) => void>();
  /** Changes committed but not yet given to watchers (holdDelivery), oldest first; undefined when delivery is live. */
  private held: ChangeEvent[] | undefined;
  private delivered: number;
  private readonly defListeners = new Set<(removed: string[]) => void>();
  /** Namespaces whose contents the namespace controller is deleting (deleteNamespace): no orphaning there. */
  private readonly finishing = new Set<string>();
  /** Inside dryRun: writes are worked out and answered, never committed. */
  private dry = false;
  private readonly now: () => number;
  private readonly seed: number;
  private readonly cluster: string;

  constructor(opts: StoreOptions) {
    this.now = opts.now ?? Date.now;
    this.seed = opts.topology.opts.seed;
    this.cluster = opts.topology.opts.cluster;
    const sets = generatedSets(opts.topology, opts.host);
    let offset = 0;
    const register = (def: ResourceDef): void => {
      const gr = grKey(def.group, def.resource);
      this.defs.set(gr, def);
      if (def.review || def.metrics || def.storedAs) return;
      const set = sets.get(gr);
      this.tables.set(gr, new ResourceTable(def, set, offset));
      offset += set?.size ?? 0;
    };
    for (const def of builtinResources()) register(def);
    for (const [, crd] of this.tables.get(CRD_GR)?.entries() ?? []) {
      const def = defFromCrdObject(crd);
      if (typeof def !== 'string') register(def);
    }
    this.rev = offset + 1;
    this.delivered = this.rev;
    this.window = new EventWindow(opts.windowSize, this.rev);
  }

  /** The cluster's current revision (etcd's): the resourceVersion of the newest change. */
  get revision(): number {
    return this.rev;
  }

  def(gr: string): ResourceDef | undefined {
    return this.defs.get(gr);
  }

  allDefs(): ResourceDef[] {
    return [...this.defs.values()];
  }

  table(gr: string): ResourceTable | undefined {
    return this.tables.get(gr);
  }

  /**
   * The newest revision given to watchers: the current one, unless delivery is held. Like a kube-apiserver whose watch
   * cache lags etcd: lists see every commit, watches see them later and in order, bookmarks never run ahead.
   */
  get deliveredRevision(): number {
    return this.delivered;
  }

  /** From now on commits wait for releaseDelivery() before watchers see them (a lagging watch cache). */
  holdDelivery(): void {
    this.held ??= [];
  }

  /** Gives the `n` oldest held changes to watchers, in order; returns them. */
  releaseDelivery(n: number): ChangeEvent[] {
    const out = this.held?.splice(0, Math.max(0, n)) ?? [];
    for (const ev of out) this.deliver(ev);
    return out;
  }

  /** Changes committed and not yet delivered. */
  get heldChanges(): number {
    return this.held?.length ?? 0;
  }

  /** Delivers what is held and goes back to live delivery. */
  resumeDelivery(): void {
    this.releaseDelivery(this.heldChanges);
    this.held = undefined;
  }

  onChange(fn: (ev: ChangeEvent) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Called after the served resources change (a CRD added or removed), with the group-resources removed. */
  onDefsChange(fn: (removed: string[]) => void): () => void {
    this.defListeners.add(fn);
    return () => this.defListeners.delete(fn);
  }

  get(gr: string, namespace: string | undefined, name: string): SimObject | undefined {
    return this.tables.get(gr)?.get(objectKey(namespace, name));
  }

  create(gr: string, input: SimObject, namespace?: string): SimObject {
    const { def, table } = this.require(gr);
    const obj = clone(input);
    const meta = obj.metadata ?? {};
    obj.metadata = meta;
    if (def.namespaced) {
      meta.namespace = namespace ?? meta.namespace ?? 'default';
      if (!this.tables.get('namespaces')?.get(meta.namespace)) throw errors.notFound('namespaces', meta.namespace);
    } else delete meta.namespace;
    if (!meta.name && meta.generateName) meta.name = `${meta.generateName}${uidFor(this.seed, this.cluster, 'generate-name', this.rev).replace(/[^a-z0-9]/g, '').slice(0, 5)}`;
    if (!meta.name) throw errors.invalid(def.kind, '', 'metadata.name', 'Required value: name or generateName is required', def.group);
    const key = objectKey(meta.namespace, meta.name);
    if (table.get(key)) throw errors.alreadyExists(gr, meta.name);
    if (gr === CRD_GR) {
      const crdDef = defFromCrdObject(obj);
      if (typeof crdDef === 'string') throw errors.invalid(def.kind, meta.name, 'spec', crdDef, def.group);
    }
    obj.apiVersion = apiVersionOf(def.group, def.versions[0] ?? 'v1');
    obj.kind = def.kind;
    meta.uid = uidFor(this.seed, this.cluster, 'runtime', gr, key, this.rev);
    if (gr === 'jobs.batch') selectJobPods(obj);
    // The label kube-apiserver sets on every namespace (1.21+), for selecting namespaces by name.
    if (gr === 'namespaces') meta.labels = { ...meta.labels, 'kubernetes.io/metadata.name': meta.name };
    meta.creationTimestamp = iso(this.now());
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    if (usesGeneration(def)) meta.generation = 1;
    this.commit(gr, 'ADDED', key, obj, null);
    return obj;
  }

  /** Replaces an object (PUT). `subresource: 'status'` changes only status; otherwise status is kept when the resource has a status subresource. */
  update(gr: string, input: SimObject, opts: { namespace?: string; name?: string; subresource?: 'status' } = {}): SimObject {
    const { def, table } = this.require(gr);
    const name = opts.name ?? input.metadata?.name ?? '';
    const namespace = def.namespaced ? opts.namespace ?? input.metadata?.namespace : undefined;
    const key = objectKey(namespace, name);
    const old = table.get(key);
    if (!old) throw errors.notFound(gr, name);
    const wantRv = input.metadata?.resourceVersion;
    if (wantRv && wantRv !== old.metadata.resourceVersion) throw errors.conflict(gr, name);
    let next: SimObject;
    if (opts.subresource === 'status') {
      next = clone(old);
      if (input.status === undefined) delete next.status;
      else next.status = clone(input.status);
    } else {
      next = clone(input);
      next.metadata = { ...(next.metadata ?? {}) };
      if (def.statusSubresource) {
        if (old.status === undefined) delete next.status;
        else next.status = clone(old.status);
      }
      const m = next.metadata;
      for (const f of ['name', 'namespace', 'uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'generation']) {
        if (old.metadata[f] === undefined) delete m[f];
        else m[f] = old.metadata[f];
      }
      if (m.managedFields === undefined && old.metadata.managedFields) m.managedFields = old.metadata.managedFields;
      if (old.metadata.deletionTimestamp) {
        const added = (m.finalizers ?? []).filter((f) => !(old.metadata.finalizers ?? []).includes(f));
        if (added.length) throw errors.invalid(def.kind, name, 'metadata.finalizers', `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}`, def.group);
      }
      if (usesGeneration(def) && !deepEqual(specOf(next), specOf(old))) m.generation = (old.metadata.generation ?? 0) + 1;
    }
    next.apiVersion = old.apiVersion;
    next.kind = old.kind;
    next.metadata.resourceVersion = old.metadata.resourceVersion;
    if (deepEqual(next, old)) return clone(old);
    if (gr === CRD_GR && typeof defFromCrdObject(next) === 'string') throw errors.invalid(def.kind, name, 'spec', String(defFromCrdObject(next)), def.group);
    // The last finalizer removed from an object being deleted lets it go. (A pod in its grace period has none to remove:
    // it stays until its kubelet deletes it.)
    if (next.metadata.deletionTimestamp && !(next.metadata.finalizers ?? []).length && (old.metadata.finalizers ?? []).length > 0) {
      this.commit(gr, 'DELETED', key, next, old);
      if (!this.dry) this.afterDelete(gr, next, undefined);
    } else this.commit(gr, 'MODIFIED', key, next, old);
    return next;
  }

  delete(gr: string, namespace: string | undefined, name: string, opts: DeleteOptions = {}): SimObject {
    const { def, table } = this.require(gr);
    const key = objectKey(def.namespaced ? namespace : undefined, name);
    const old = table.get(key);
    if (!old) throw errors.notFound(gr, name);
    const pre = opts.preconditions ?? {};
    if ((pre.resourceVersion && pre.resourceVersion !== old.metadata.resourceVersion) || (pre.uid && pre.uid !== old.metadata.uid)) throw errors.conflict(gr, name);
    if (gr === 'namespaces') return this.deleteNamespace(old);
    const grace = opts.gracePeriodSeconds ?? 0;
    if (gr === 'pods' && grace > 0 && (old.spec as { nodeName?: string } | undefined)?.nodeName) {
      // Marked once; a second graceful delete leaves the mark as it is (kube lets it only shorten the grace).
      if (old.metadata.deletionTimestamp) return clone(old);
      const next = clone(old);
      next.metadata.deletionTimestamp = iso(this.now() + grace * 1000);
      next.metadata.deletionGracePeriodSeconds = grace;
      this.commit(gr, 'MODIFIED', key, next, old);
      return next;
    }
    if ((old.metadata.finalizers ?? []).length > 0) {
      if (old.metadata.deletionTimestamp) return clone(old);
      const next = clone(old);
      next.metadata.deletionTimestamp = iso(this.now());
      next.metadata.deletionGracePeriodSeconds = 0;
      if (usesGeneration(def)) next.metadata.generation = (old.metadata.generation ?? 0) + 1;
      this.commit(gr, 'MODIFIED', key, next, old);
      return next;
    }
    // kube's garbage collector takes the owner's reference off each dependent before the owner goes (its orphan
    // finalizer); inside a namespace being deleted they all go anyway.
    if (opts.propagationPolicy === 'Orphan' && !this.finishing.has(old.metadata.namespace ?? '') && !this.dry) this.orphanDependents(gr, old);
    const gone = clone(old);
    this.commit(gr, 'DELETED', key, gone, old);
    if (!this.dry) this.afterDelete(gr, gone, opts.propagationPolicy);
    return gone;
  }

  /** Drops retained history: watches and continue tokens older than the current revision get 410. */
  compact(): void {
    this.window.compact(this.rev);
  }

  private require(gr: string): { def: ResourceDef; table: ResourceTable } {
    const def = this.defs.get(gr);
    const table = this.tables.get(gr);
    if (!def || !table) throw errors.noRoute();
    return { def, table };
  }

  /**
   * Runs `write` (create, update, delete) as kube's `dryRun=All` does: everything it would check and make is, and its
   * answer is what the write would give, but nothing is stored, no revision taken, no watcher told, nothing collected.
   */
  dryRun<T>(write: () => T): T {
    this.dry = true;
    try {
      return write();
    } finally {
      this.dry = false;
    }
  }

  private commit(gr: string, type: WatchType, key: string, obj: SimObject, prev: SimObject | null): void {
    if (this.dry) return;
    this.rev++;
    obj.metadata.resourceVersion = String(this.rev);
    const table = this.tables.get(gr) as ResourceTable;
    if (type === 'DELETED') table.remove(key);
    else table.set(key, obj);
    const ev: ChangeEvent = { rev: this.rev, gr, key, type, object: obj, prev };
    this.window.push(ev);
    if (this.held) this.held.push(ev);
    else this.deliver(ev);
    if (gr === CRD_GR) this.crdChanged(obj, type);
  }

  private deliver(ev: ChangeEvent): void {
    this.delivered = ev.rev;
    for (const l of [...this.listeners]) l(ev);
  }

  private crdChanged(crd: SimObject, type: WatchType): void {
    const def = defFromCrdObject(crd);
    if (typeof def === 'string') return;
    const gr = grKey(def.group, def.resource);
    const existing = this.defs.get(gr);
    if (existing && !existing.custom) return;
    if (type === 'DELETED') {
      const table = this.tables.get(gr);
      for (const [key, obj] of [...(table?.entries() ?? [])]) this.commit(gr, 'DELETED', key, clone(obj), obj);
      this.defs.delete(gr);
      this.tables.delete(gr);
      for (const l of [...this.defListeners]) l([gr]);
      return;
    }
    this.defs.set(gr, def);
    const table = this.tables.get(gr);
    if (table) table.def = def;
    else this.tables.set(gr, new ResourceTable(def, undefined, 0));
    for (const l of [...this.defListeners]) l([]);
  }

  /**
   * Garbage collection of dependents (done at once, where kube's collector does it in the background), a cluster-scoped
   * owner's in any namespace (a Node's Lease in kube-node-lease).
   */
  private afterDelete(gr: string, owner: SimObject, propagationPolicy: string | undefined): void {
    const ns = owner.metadata.namespace;
    if (ns) this.maybeFinishNamespace(ns);
    if (propagationPolicy === 'Orphan') return;
    for (const [depGr, depNs, name] of this.dependents(gr, owner)) {
      if (this.tables.get(depGr)?.get(objectKey(depNs, name))) this.delete(depGr, depNs, name, { ...(propagationPolicy ? { propagationPolicy } : {}) });
    }
  }

  /** Each dependent of `owner` loses its reference to it (kube's orphaning): it stays, with no owner or another. */
  private orphanDependents(gr: string, owner: SimObject): void {
    for (const [depGr, ns, name] of this.dependents(gr, owner)) {
      const key = objectKey(ns, name);
      const was = this.tables.get(depGr)?.get(key);
      if (!was) continue;
      const next = clone(was);
      const refs = (was.metadata.ownerReferences ?? []).filter((r) => r.uid !== owner.metadata.uid);
      if (refs.length > 0) next.metadata.ownerReferences = refs;
      else delete next.metadata.ownerReferences;
      this.commit(depGr, 'MODIFIED', key, next, was);
    }
  }

  /**
   * The namespaced objects that name `owner` (of `gr`) among their owners, as [group-resource, namespace, name]: in its
   * namespace, or in any for a cluster-scoped owner.
   */
  private dependents(gr: string, owner: SimObject): Array<[string, string, string]> {
    const ns = owner.metadata.namespace;
    if (!owner.metadata.uid) return [];
    const targets = DEPENDENTS[owner.kind ?? ''] ?? (this.defs.get(gr)?.custom ? [...this.tables.keys()] : []);
    const out: Array<[string, string, string]> = [];
    for (const depGr of targets) {
      const table = this.tables.get(depGr);
      if (!table?.def.namespaced) continue;
      // Controllers name their pods and revisions after themselves; scanning that prefix avoids building the whole
      // namespace.
      const named = (depGr === 'pods' && owner.kind !== 'Job') || depGr === 'controllerrevisions.apps';
      const prefix = !ns ? '' : named ? `${ns}/${owner.metadata.name ?? ''}-` : `${ns}/`;
      for (const [, o] of table.entries('', prefix)) if (o.metadata.ownerReferences?.some((r) => r.uid === owner.metadata.uid)) out.push([depGr, o.metadata.namespace ?? '', o.metadata.name ?? '']);
    }
    return out;
  }

  private deleteNamespace(old: SimObject): SimObject {
    const name = old.metadata.name ?? '';
    let ns = old;
    if (!old.metadata.deletionTimestamp) {
      ns = clone(old);
      ns.metadata.deletionTimestamp = iso(this.now());
      ns.metadata.deletionGracePeriodSeconds = 0;
      ns.status = { ...(ns.status as Record<string, unknown> | undefined), phase: 'Terminating' };
      this.commit('namespaces', 'MODIFIED', name, ns, old);
    }
    if (this.dry) return ns;
    // The namespace controller's work, done at once: delete everything in it, then the namespace when empty.
    this.finishing.add(name);
    try {
      for (const [gr, table] of this.tables) {
        if (!table.def.namespaced) continue;
        for (const key of [...table.keys(`${name}/`)]) {
          const o = table.get(key);
          if (o && !o.metadata.deletionTimestamp) this.delete(gr, name, o.metadata.name ?? '', { propagationPolicy: 'Orphan' });
        }
      }
    } finally {
      this.finishing.delete(name);
    }
    this.maybeFinishNamespace(name);
    return clone(this.tables.get('namespaces')?.get(name) ?? ns);
  }

  private maybeFinishNamespace(name: string): void {
    const ns = this.tables.get('namespaces')?.get(name);
    if (!ns?.metadata.deletionTimestamp) return;
    for (const table of this.tables.values()) if (table.def.namespaced && !table.keys(`${name}/`).next().done) return;
    this.commit('namespaces', 'DELETED', name, clone(ns), ns);
  }
}

/** Which group-resources can hold dependents of each owner kind (the generated world's ownership graph). */
const DEPENDENTS: Record<string, string[]> = {
  Deployment: ['replicasets.apps'],
  ReplicaSet: ['pods'],
  StatefulSet: ['pods', 'controllerrevisions.apps'],
  DaemonSet: ['pods', 'controllerrevisions.apps'],
  Job: ['pods'],
  CronJob: ['jobs.batch'],
  Ingress: ['certificates.cert-manager.io'],
  // A kubelet's Lease names its Node as owner.
  Node: ['leases.coordination.k8s.io'],
  Pod: [],
  Event: [],
};

/** kube sets metadata.generation on objects whose spec is tracked (workloads, CRs); not on pods, config or core objects. */
function usesGeneration(def: ResourceDef): boolean {
  return def.custom || (def.statusSubresource && def.group !== '');
}

function specOf(o: SimObject): Record<string, unknown> {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = o;
  return rest;
}

/**
 * kube's Job PrepareForCreate (generateSelector): unless the Job picks its own (manualSelector), its pods are selected
 * by its uid, and its template (and its own labels, where it has none) carry the labels that name it.
 */
function selectJobPods(job: SimObject): void {
  const spec = (job.spec ?? {}) as Record<string, unknown>;
  if (spec.manualSelector === true) return;
  const uid = job.metadata.uid ?? '';
  const name = job.metadata.name ?? '';
  const labels = { 'batch.kubernetes.io/controller-uid': uid, 'batch.kubernetes.io/job-name': name, 'controller-uid': uid, 'job-name': name };
  const template = (spec.template ?? {}) as { metadata?: { labels?: Record<string, string> } };
  template.metadata = { ...(template.metadata ?? {}), labels: { ...(template.metadata?.labels ?? {}), ...labels } };
  job.spec = { ...spec, selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } }, template };
  if (!job.metadata.labels || Object.keys(job.metadata.labels).length === 0) job.metadata.labels = { ...labels };
}
