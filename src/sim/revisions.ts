// The controller history of StatefulSets and DaemonSets (kube's ControllerRevisions, pkg/controller/history): each pod
// template an owner has run is kept as a revision, numbered in the order it last became the owner's, so that
// `kubectl rollout history` lists them and `kubectl rollout undo` patches one back. A revision keeps its template as the
// strategic merge patch that restores it (kube's getPatch), and the owner's annotations.
import { clone, deepEqual } from './deep-equal.js';
import type { SimStore } from './store.js';
import { rec, type Rec, type SimObject } from './types.js';

export const REVISIONS = 'controllerrevisions.apps';
/** A StatefulSet's revision carries its hash in this label (kube's ControllerRevisionHashLabel). */
const HASH_LABEL = 'controller.kubernetes.io/hash';
/** A DaemonSet's revision, as its pods, in this one (DefaultDaemonSetUniqueLabelKey). */
export const POD_REVISION_LABEL = 'controller-revision-hash';
/** kube's default revisionHistoryLimit: the revisions kept besides those in use. */
const DEFAULT_HISTORY = 10;

/** The template a revision restores (its data without the patch directive). */
function templateOf(revision: SimObject): Rec {
  const { $patch: _, ...template } = rec(rec(rec(revision.data).spec).template);
  return template;
}

/** A revision's number. */
export const revisionNumber = (o: SimObject): number => Number(o.revision ?? 0);

/**
 * A revision of `owner` (a StatefulSet or DaemonSet) at its current template: named `<owner>-<hash>`, labelled with the
 * template's labels and the hash (a StatefulSet's under HASH_LABEL, a DaemonSet's under its pods' label), annotated with
 * the owner's annotations, controlled by it. `meta` adds to its metadata (a generated one's uid and creation time).
 */
export function controllerRevision(owner: SimObject, hash: string, revision: number, meta: Partial<SimObject['metadata']> = {}): SimObject {
  const template = rec(rec(owner.spec).template);
  const labels = { ...(rec(rec(template.metadata).labels) as Record<string, string>), [owner.kind === 'DaemonSet' ? POD_REVISION_LABEL : HASH_LABEL]: hash };
  const annotations = owner.metadata.annotations;
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: `${owner.metadata.name ?? ''}-${hash}`,
      namespace: owner.metadata.namespace,
      labels,
      ...(annotations && Object.keys(annotations).length > 0 ? { annotations: { ...annotations } } : {}),
      ownerReferences: [{ apiVersion: owner.apiVersion ?? 'apps/v1', kind: owner.kind ?? '', name: owner.metadata.name ?? '', uid: owner.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }],
      ...meta,
    },
    data: { spec: { template: { ...clone(template), $patch: 'replace' } } },
    revision,
  };
}

/** What a StatefulSet's or DaemonSet's controller keeps of its history in a cluster's store. */
export class ControllerHistory {
  constructor(private readonly store: SimStore) {}

  /** The revisions `owner` controls, oldest first (they are named after it). */
  revisions(owner: SimObject): SimObject[] {
    const table = this.store.table(REVISIONS);
    const out: SimObject[] = [];
    for (const key of table?.keys(`${owner.metadata.namespace ?? ''}/${owner.metadata.name ?? ''}-`) ?? []) {
      const o = table?.get(key);
      if (o?.metadata.ownerReferences?.some((r) => r.controller === true && r.uid === owner.metadata.uid)) out.push(o);
    }
    return out.sort((a, b) => revisionNumber(a) - revisionNumber(b));
  }

  /**
   * Records `owner`'s template as its newest revision, and returns that revision: the one whose template it is again
   * (a rollback) is renumbered after the newest; else one is made, named by `hash` — `hash(1)`, `hash(2)`… while that
   * name is another template's (kube's collision count). A revision left without its controller (an orphaning delete
   * of the owner, made again) is adopted when its template is this one.
   */
  record(owner: SimObject, hash: (collision: number) => string): SimObject {
    const ns = owner.metadata.namespace ?? '';
    const template = rec(rec(owner.spec).template);
    const mine = this.revisions(owner);
    const newest = mine.reduce((n, r) => Math.max(n, revisionNumber(r)), 0);
    const same = mine.find((r) => deepEqual(templateOf(r), template));
    if (same) return revisionNumber(same) === newest ? same : this.store.update(REVISIONS, { ...clone(same), revision: newest + 1 });
    for (let collision = 0; ; collision++) {
      const h = hash(collision);
      const taken = this.store.get(REVISIONS, ns, `${owner.metadata.name ?? ''}-${h}`);
      if (!taken) return this.store.create(REVISIONS, controllerRevision(owner, h, newest + 1), ns);
      if (taken.metadata.ownerReferences?.some((r) => r.controller === true) || !deepEqual(templateOf(taken), template)) continue;
      const adopted = clone(taken);
      adopted.metadata.ownerReferences = [...(taken.metadata.ownerReferences ?? []), ...(controllerRevision(owner, h, 0).metadata.ownerReferences ?? [])];
      return this.store.update(REVISIONS, { ...adopted, revision: newest + 1 });
    }
  }

  /**
   * Deletes `owner`'s oldest revisions beyond its revisionHistoryLimit, not counting those `live` names (its current
   * and update revisions, those its pods run): kube's truncateHistory / cleanupHistory.
   */
  trim(owner: SimObject, live: ReadonlySet<string>): void {
    const limit = Number(rec(owner.spec).revisionHistoryLimit ?? DEFAULT_HISTORY);
    const old = this.revisions(owner).filter((r) => !live.has(r.metadata.name ?? ''));
    for (const r of old.slice(0, Math.max(0, old.length - limit))) this.store.delete(REVISIONS, r.metadata.namespace, r.metadata.name ?? '');
  }
}
