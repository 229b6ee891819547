// kube's storage object in-use protection and the PV controller's reclaim, for claims and volumes: every claim carries
// the pvc-protection finalizer and every volume the pv-protection one (the StorageObjectInUseProtection admission plugin
// adds them), so a claim deleted while a pod scheduled to a node names it stays Terminating until the pod is gone (even
// a pod that has ended holds it, as in kube), and a volume deleted while bound stays until its claim is. A claim that goes releases its volume, which the provisioner
// then deletes under reclaim policy Delete (Retain keeps it, Released). Like kube's controllers, this one acts on what
// watchers are told (the store's change events), a moment after the change, never inside it.
import { clone } from './deep-equal.js';
import { iso } from './gen-meta.js';
import type { SimStore } from './store.js';
import { objectKey, rec, recs, splitObjectKey, type ChangeEvent, type SimObject } from './types.js';

export const CLAIM_PROTECTION = 'kubernetes.io/pvc-protection';
export const VOLUME_PROTECTION = 'kubernetes.io/pv-protection';

const CLAIMS = 'persistentvolumeclaims';
const VOLUMES = 'persistentvolumes';

/** The names of the claims `pod` mounts. */
export function claimsOf(pod: SimObject): string[] {
  return recs(rec(pod.spec).volumes).map((v) => rec(v.persistentVolumeClaim).claimName).filter((n): n is string => typeof n === 'string' && n !== '');
}

/** A pod holds the claims it names once scheduled (kube's podUsesPVC: the kubelet starts no pod on a claim being deleted). */
const holds = (pod: SimObject, claim: string): boolean => Boolean(rec(pod.spec).nodeName) && claimsOf(pod).includes(claim);

const deleting = (o: SimObject, finalizer: string): boolean => o.metadata.deletionTimestamp !== undefined && (o.metadata.finalizers ?? []).includes(finalizer);

export class VolumeProtection {
  /** Claims ("namespace/name") and volumes (name) to look at again. */
  private readonly claims = new Set<string>();
  private readonly volumes = new Set<string>();
  /** Claims gone whose volume the PV controller has yet to release, by volume name: the claim's uid. */
  private readonly released = new Map<string, string>();
  /** Namespaces where a claim went since the last look: their StatefulSets may make the pods that waited for it. */
  private readonly gone = new Set<string>();
  private scheduled = false;

  /** `claimGone` is told, a moment after, of each namespace where a claim went. */
  constructor(private readonly store: SimStore, private readonly now: () => number = Date.now, private readonly claimGone: (namespace: string) => void = () => {}) {
    store.onChange((ev) => this.observe(ev));
  }

  private observe(ev: ChangeEvent): void {
    const o = ev.object;
    if (ev.gr === 'pods') {
      // A pod gone no longer holds the claims it names.
      if (ev.type === 'DELETED') for (const claim of claimsOf(o)) this.claims.add(objectKey(o.metadata.namespace, claim));
    } else if (ev.gr === CLAIMS) {
      if (ev.type === 'DELETED') {
        const volume = String(rec(o.spec).volumeName ?? '');
        if (volume) this.released.set(volume, o.metadata.uid ?? '');
        this.gone.add(o.metadata.namespace ?? '');
      } else if (deleting(o, CLAIM_PROTECTION)) this.claims.add(ev.key);
    } else if (ev.gr === VOLUMES && ev.type !== 'DELETED' && deleting(o, VOLUME_PROTECTION)) this.volumes.add(ev.key);
    else return;
    if (this.scheduled || (this.claims.size === 0 && this.volumes.size === 0 && this.gone.size === 0)) return;
    this.scheduled = true;
    setImmediate(() => this.work());
  }

  private work(): void {
    this.scheduled = false;
    for (const [volume, uid] of this.released) this.release(volume, uid);
    this.released.clear();
    for (const key of this.claims) this.unprotectClaim(key);
    this.claims.clear();
    for (const name of this.volumes) this.unprotect(VOLUMES, undefined, name, VOLUME_PROTECTION, (v) => rec(v.status).phase !== 'Bound');
    this.volumes.clear();
    const gone = [...this.gone];
    this.gone.clear();
    for (const ns of gone) this.claimGone(ns);
  }

  /** The claim's finalizer comes off once no scheduled pod names it. */
  private unprotectClaim(key: string): void {
    const [ns, name] = splitObjectKey(key);
    this.unprotect(CLAIMS, ns, name, CLAIM_PROTECTION, () => {
      for (const [, pod] of this.store.table('pods')?.entries('', `${ns}/`) ?? []) if (holds(pod, name)) return false;
      return true;
    });
  }

  private unprotect(gr: string, ns: string | undefined, name: string, finalizer: string, free: (o: SimObject) => boolean): void {
    const o = this.store.get(gr, ns, name);
    if (!o || !deleting(o, finalizer) || !free(o)) return;
    const next = clone(o);
    next.metadata.finalizers = (o.metadata.finalizers ?? []).filter((f) => f !== finalizer);
    this.store.update(gr, next, { namespace: ns, name });
  }

  /**
   * The claim with `uid` is gone: the PV controller finds its volume Released, and under reclaim policy Delete the
   * provisioner deletes it.
   */
  private release(name: string, uid: string): void {
    const volume = this.store.get(VOLUMES, undefined, name);
    if (!volume || rec(rec(volume.spec).claimRef).uid !== uid || rec(volume.status).phase === 'Released') return;
    const next = this.store.update(VOLUMES, { ...clone(volume), status: { ...rec(volume.status), phase: 'Released', lastPhaseTransitionTime: iso(this.now()) } }, { subresource: 'status' });
    if (rec(volume.spec).persistentVolumeReclaimPolicy === 'Delete') this.store.delete(VOLUMES, undefined, next.metadata.name ?? '');
  }
}
