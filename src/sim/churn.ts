// A deterministic churn generator: pod status flips, scale up/down, rollouts, pod replacement and the events they
// cause (churn-events.ts), at a target rate.
import { ChurnEvents } from './churn-events.js';
import { deploymentStatus, ownerStatus, podIsReady, progressDeadlineMs } from './controller-status.js';
import { clone, deepEqual } from './deep-equal.js';
import { iso } from './gen-meta.js';
import { imageDigest, POD_ADDRESSES, podAddress } from './gen-pods.js';
import { Batch } from './batch.js';
import { Heartbeats } from './heartbeats.js';
import { matchLabels, parseLabelSelector, type LabelSelector } from './label-selector.js';
import { selectorString } from './scale.js';
import { crashLooping, exitedWithError, finishPod, Kubelets, setReadiness } from './kubelet.js';
import { containerId, hexFor, kubeSuffix, Rng, rngFor, templateHash } from './prng.js';
import { boundClaim, claimName, claimTemplates, newClaim, volumeFor } from './gen-storage.js';
import { ControllerHistory, POD_REVISION_LABEL } from './revisions.js';
import { claimsOf, VolumeProtection } from './volume-protection.js';
import { daemonSetDeletions, resolveIntOrPercent, rollingBounds, rollingStep, statefulSetScaleStep, statefulSetStep } from './rollouts.js';
import type { SimStore } from './store.js';
import { keyOf, rec, recs, splitObjectKey, type Rec, type SimObject } from './types.js';

/** The most replicas churn scales a Deployment to: churn stays bounded however long it runs. */
const MAX_REPLICAS = 8;

/** A deleted pod's grace period, and how many operations later its kubelet has stopped it and removes it. */
const GRACE_SECONDS = 30;
const TERMINATION_OPS = 3;

/** The taint a cordoned node gets (kube's TaintNodeUnschedulable). */
const UNSCHEDULABLE_TAINT = 'node.kubernetes.io/unschedulable';
/** The group-resource of each kind that owns pods churn changes. */
const OWNER_GR: Record<string, string> = { ReplicaSet: 'replicasets.apps', StatefulSet: 'statefulsets.apps', DaemonSet: 'daemonsets.apps' };

/** The label a relabel operation flips between "a" and "b" (Churn.relabelShare). */
export const CHURN_TIER_LABEL = 'churn.sim.clusterpedia.io/tier';

export class Churn {
  private readonly rng: Rng;
  /** Draws what the controllers make in answer to requests over HTTP, apart from `rng` (answerDeletion). */
  private readonly answerRng: Rng;
  /** The kubelets' part in answering requests over HTTP: they go on while churn is stopped. */
  readonly kubelets: Kubelets;
  /** Deployments with a rollout under way, by key: when their progress deadline passes (progressDeadlines). */
  private readonly deadlines = new Map<string, number>();
  /** The revision of each DaemonSet whose template was set over HTTP, by key (its generated pods are all current). */
  private readonly dsRevision = new Map<string, string>();
  /** StatefulSets with pods to make, delete or roll to their update revision (stsStep), by key. */
  private readonly stsPending = new Set<string>();
  /** Deployments whose RollingUpdate, asked for over HTTP, is under way (rollStep), by key. */
  private readonly rolling = new Set<string>();
  /** StatefulSet pods deleted over HTTP, by key: what their controller makes once the old pod is gone. */
  private readonly awaitingName = new Map<string, SimObject>();
  /** Draws the relabel operations, apart from `rng`: the other operations' sequence is the same with them or without. */
  private readonly relabelRng: Rng;
  /**
   * The share of operations that flip a pod's CHURN_TIER_LABEL (0 by default): a label selector's watchers then see
   * pods leave and enter it without being deleted, as a controller's relabel does.
   */
  relabelShare = 0;
  private relabelOps = 0;
  private timer: NodeJS.Timeout | undefined;
  private budget = 0;
  private ops = 0;
  /** Pod addresses handed out so far (create). */
  private podAddresses = 0;
  /** Records the events its changes cause (churn-events.ts). */
  readonly events: ChurnEvents;
  /** While it runs, the kubelets' and the leaders' periodic writes (heartbeats.ts). */
  readonly heartbeats: Heartbeats;
  /** The Job and CronJob controllers (batch.ts): they answer requests over HTTP, and the CronJobs run by the clock. */
  readonly batch: Batch;
  /** Owners (kind, namespace, name) whose pods or spec the current operation changed: their status is written after it. */
  private readonly unsettled = new Map<string, [kind: string, namespace: string, name: string]>();
  /**
   * Pods being deleted (oldest first): their kubelet removes each once `due` (a count of operations other than
   * relabels) is reached, and a StatefulSet's replacement, which must wait for its name, is made then.
   */
  private readonly terminating: Array<{ key: string; uid: string; due: number; then?: SimObject }> = [];
  /** Pods this churn created that wait for their containers (keys, oldest first): the kubelet starts them next. */
  private readonly starting: string[] = [];
  /** The StatefulSets' and DaemonSets' ControllerRevisions. */
  private readonly history: ControllerHistory;
  /** Claims and volumes in use kept from deletion, and volumes released when their claim goes. */
  readonly volumeProtection: VolumeProtection;

  constructor(private readonly store: SimStore, seed: number, private readonly cluster: string, private readonly now: () => number = Date.now) {
    this.rng = rngFor('churn', seed, cluster);
    this.relabelRng = rngFor('churn-relabel', seed, cluster);
    this.answerRng = rngFor('churn-answer', seed, cluster);
    this.kubelets = new Kubelets(store, now);
    this.events = new ChurnEvents(store, seed, cluster, now);
    this.heartbeats = new Heartbeats(store);
    this.history = new ControllerHistory(store);
    this.volumeProtection = new VolumeProtection(store, now, (ns) => this.claimsGone(ns));
    this.batch = new Batch({
      store, events: this.events, kubelets: this.kubelets, rng: this.answerRng, outcomes: rngFor('job-outcome', seed, cluster), now,
      clockRuns: () => this.heartbeats.enabled,
      makePod: (owner, name, generateName, started) => {
        const pod = this.create(this.podFromTemplate(owner, name, generateName), false);
        this.startSoon(pod, started);
        return pod;
      },
      deletePod: (pod) => this.deleteByController(keyOf(pod)),
      owned: (gr, owner) => this.owned(gr, owner),
    });
  }

  get running(): boolean {
    return this.timer !== undefined;
  }

  /** Operations applied so far. */
  get operations(): number {
    return this.ops;
  }

  /** Of them, relabels (relabelShare). */
  get relabels(): number {
    return this.relabelOps;
  }

  /** Applies changes at about `eventsPerSecond` (watch events, not operations) until stop(). */
  start(eventsPerSecond: number): void {
    this.stop();
    if (eventsPerSecond <= 0) return;
    const tickMs = 50;
    // The budget grows with the time that really passed, not with the nominal tick: a busy process fires its timers
    // late, and counting ticks would quietly slow the churn to whatever rate the event loop allows. At most one
    // second's worth is carried over.
    let last = performance.now();
    this.timer = setInterval(() => {
      const now = performance.now();
      this.budget = Math.min(this.budget + (eventsPerSecond * (now - last)) / 1000, Math.max(1, eventsPerSecond));
      last = now;
      while (this.budget >= 1) this.budget -= Math.max(1, this.step(1));
      // By the clock, beside the budget: a cluster's heartbeats and its controllers' deadlines do not wait for its changes.
      this.heartbeats.tick(this.now());
      this.progressDeadlines(this.now());
      this.batch.cronTick(this.now());
    }, tickMs);
    this.timer.unref();
  }

  /** Stops; the pods being deleted go now, so that none stays Terminating for good. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.budget = 0;
    this.finishTerminations(Infinity);
    this.settle();
  }

  /** Stops, and forgets what the kubelets were to do (the cluster is stopping). */
  close(): void {
    this.stop();
    this.kubelets.stop();
    this.batch.close();
    this.awaitingName.clear();
  }

  /**
   * Someone deleted `pod` over HTTP (`kubectl delete pod`): the cluster answers as kube's controllers do. A pod marked
   * for its grace period is stopped by its kubelet a moment later and removed. Its controller counts it no more and
   * makes its replacement: a ReplicaSet or a DaemonSet at once, a StatefulSet under the same name once the old pod is
   * gone; the kubelet starts the new pod a moment after. A Job's pod is counted failed by the Job controller, which
   * replaces it while under its backoff limit (batch.ts); a bare pod, or one whose owner is gone or being deleted, is
   * not replaced. Deleting a pod already marked (say with a grace period of 0) only finishes it sooner.
   */
  answerDeletion(pod: SimObject): void {
    const key = keyOf(pod);
    const uid = pod.metadata.uid ?? '';
    const first = !pod.metadata.deletionTimestamp;
    if (first) {
      if (rec(pod.spec).nodeName) this.events.podDeleted(pod, false);
      this.batch.podDeleted(pod);
      const next = this.replacementOf(pod, this.answerRng);
      if (next?.afterGone) this.awaitingName.set(key, next.pod);
      else if (next) this.startSoon(this.create(next.pod, false));
    }
    if (this.store.table('pods')?.get(key)?.metadata.uid === uid) {
      if (first) this.kubelets.terminate(key, uid, (last) => this.answerRemoval(key, last));
      this.changed(pod);
      this.settle();
    } else this.answerRemoval(key, pod);
  }

  /**
   * A pod deleted over HTTP is gone: its owner counts its pods again, and a StatefulSet makes the pod's name again
   * (once none of its claims is being deleted: claimsGone).
   */
  private answerRemoval(key: string, pod: SimObject): void {
    this.changed(pod);
    const then = this.awaitingName.get(key);
    if (!then || !this.claimBeingDeleted(then)) {
      this.awaitingName.delete(key);
      if (then && this.activeOwner(then)) this.startSoon(this.create(then, false));
    }
    this.settle();
  }

  /**
   * Whether one of the claims `pod` names is being deleted. kube's StatefulSet controller makes no pod then ("pvc … is
   * being deleted"): the pod waits under its name, in awaitingName, until the claim is gone, and is made with a new one.
   */
  private claimBeingDeleted(pod: SimObject): boolean {
    return claimsOf(pod).some((c) => this.store.get('persistentvolumeclaims', pod.metadata.namespace, c)?.metadata.deletionTimestamp !== undefined);
  }

  /** A StatefulSet's pod made now, or left to wait in awaitingName while one of its claims is being deleted. */
  private makeStatefulSetPod(pod: SimObject): void {
    if (this.claimBeingDeleted(pod)) this.awaitingName.set(keyOf(pod), pod);
    else this.startSoon(this.create(pod, false));
  }

  /**
   * A claim in `ns` went: each StatefulSet pod waiting for its claims, whose name is free, gets a new claim from its
   * owner's templates (and a volume) and is made.
   */
  private claimsGone(ns: string): void {
    for (const [key, pod] of [...this.awaitingName]) {
      if (pod.metadata.namespace !== ns || this.store.table('pods')?.get(key) || this.claimBeingDeleted(pod)) continue;
      this.awaitingName.delete(key);
      const owner = this.activeOwner(pod);
      if (owner?.kind !== 'StatefulSet') continue;
      this.ensureClaims(owner, ordinalOf(owner, pod));
      this.startSoon(this.create(pod, false));
    }
    this.settle();
  }

  /** The kubelet starts a pod made in answer to a request a moment from now (churn's own pods wait for its operations). */
  private startSoon(pod: SimObject | undefined, started?: (pod: SimObject) => void): void {
    if (!pod || !rec(pod.spec).nodeName) return;
    const key = keyOf(pod);
    this.kubelets.start(key, pod.metadata.uid ?? '', (p) => {
      if (rec(p.status).phase !== 'Pending' || p.metadata.deletionTimestamp) return;
      this.podStatus(p, this.answerRng);
      this.settle();
      const now = this.store.table('pods')?.get(key);
      if (now && started) started(now);
    });
  }

  /**
   * Someone changed a workload's spec over HTTP (`kubectl scale`, `rollout restart`, `set image`, `apply`): its
   * controller answers as kube's do, at once rather than step by step. A Deployment whose pod template changed rolls
   * out: a new ReplicaSet (or the old one whose template it is again, for a rollback) gets every replica, the others
   * none; one whose replicas changed scales its current ReplicaSet. A ReplicaSet makes or deletes pods to match its
   * replicas, a StatefulSet its highest ordinals. Each writes its status with the generation it has now seen.
   */
  answerUpdate(gr: string, before: SimObject, after: SimObject): void {
    if (gr === 'jobs.batch') return this.batch.syncJob(after.metadata.namespace ?? '', after.metadata.name ?? '');
    if (gr === 'nodes') return this.answerNode(after);
    if (JSON.stringify(before.spec) !== JSON.stringify(after.spec)) this.answerSpec(gr, after, before);
  }

  /**
   * A node cordoned or uncordoned (`kubectl cordon`, `drain`): the node lifecycle controller gives it the
   * unschedulable NoSchedule taint, or takes it away, and the scheduler places no pod there while it has it.
   */
  private answerNode(node: SimObject): void {
    const taints = recs(rec(node.spec).taints);
    const tainted = taints.some((t) => t.key === UNSCHEDULABLE_TAINT);
    const cordoned = rec(node.spec).unschedulable === true;
    if (tainted === cordoned) return;
    const next = clone(node);
    const rest = taints.filter((t) => t.key !== UNSCHEDULABLE_TAINT);
    const kept = cordoned ? [...rest, { key: UNSCHEDULABLE_TAINT, effect: 'NoSchedule', timeAdded: iso(this.now()) }] : rest;
    next.spec = { ...rec(next.spec), taints: kept };
    if (kept.length === 0) delete (next.spec as Rec).taints;
    this.store.update('nodes', next);
  }

  /**
   * Someone created a pod or a workload over HTTP (`kubectl run`, `create deployment`, `apply -f`): the scheduler
   * places a pod on a worker (a Scheduled event) and its kubelet starts it a moment later; a workload's controller
   * makes its pods as for a change (a Deployment its ReplicaSet first), a DaemonSet one on each node it may run on.
   */
  answerCreate(gr: string, o: SimObject): void {
    if (gr === 'pods') this.schedule(o);
    else if (gr === 'jobs.batch') this.batch.syncJob(o.metadata.namespace ?? '', o.metadata.name ?? '');
    else this.answerSpec(gr, o);
  }

  /** A workload's controller makes its pods what its spec (changed from `before`'s, or new) asks. */
  private answerSpec(gr: string, after: SimObject, before?: SimObject): void {
    const kind = after.kind ?? '';
    const ns = after.metadata.namespace ?? '';
    const name = after.metadata.name ?? '';
    if ((!OWNER_GR[kind] && kind !== 'Deployment') || after.metadata.deletionTimestamp) return;
    this.adopt(kind === 'Deployment' ? 'replicasets.apps' : 'pods', after);
    const replicas = Number(rec(after.spec).replicas ?? 1);
    // A Deployment's ReplicaSet answers to it, not to whoever scaled it: its controller sets the replicas back.
    const deploy = gr === 'replicasets.apps' ? this.controllingDeployment(after) : undefined;
    if (gr === 'deployments.apps') this.answerDeployment(after, replicas);
    else if (deploy) this.answerSpec('deployments.apps', deploy);
    else if (gr === 'replicasets.apps') this.scaleReplicaSetPods(after, replicas);
    else if (gr === 'statefulsets.apps') this.answerStatefulSet(after, replicas, before);
    else if (gr === 'daemonsets.apps') this.answerDaemonSet(after, before === undefined || !deepEqual(rec(before.spec).template, rec(after.spec).template));
    this.unsettle(kind, ns, name);
    this.settle();
    if (gr === 'deployments.apps') this.syncDeployment(ns, name, this.now());
  }

  /**
   * Someone deleted an object other than a pod over HTTP: the controller that owned it answers as kube's does. A
   * Deployment's ReplicaSet deleted alone (`kubectl delete rs`) is made again from the Deployment's template, under the
   * same name (the same template hash), and takes the pods an orphaning delete left. (A claim's volume is released by
   * volumeProtection once the claim is gone.)
   */
  answerOwnedDeletion(gr: string, o: SimObject): void {
    const deploy = gr === 'replicasets.apps' ? this.controllingDeployment(o) : undefined;
    if (deploy) this.answerSpec('deployments.apps', deploy);
  }

  /** The Deployment, not being deleted, that controls a ReplicaSet. */
  private controllingDeployment(rs: SimObject): SimObject | undefined {
    const ref = rs.metadata.ownerReferences?.find((r) => r.controller === true && r.kind === 'Deployment');
    const deploy = ref && this.store.get('deployments.apps', rs.metadata.namespace, ref.name);
    return deploy && deploy.metadata.uid === ref.uid && !deploy.metadata.deletionTimestamp ? deploy : undefined;
  }

  /**
   * kube's controllers adopt the orphans their selector matches (ControllerRefManager): an object of `gr` in the
   * owner's namespace with no controller gets the owner as its controller. Those looked at are named after the owner,
   * as it would have made them: a Deployment's ReplicaSets left by `kubectl delete --cascade=orphan` and the
   * Deployment applied again, their pods with a ReplicaSet's.
   */
  private adopt(gr: string, owner: SimObject): void {
    let selector: LabelSelector;
    try {
      selector = parseLabelSelector(selectorString(rec(rec(owner.spec).selector)));
    } catch {
      return;
    }
    const table = this.store.table(gr);
    // An empty selector adopts nothing (kube refuses one for these kinds).
    if (selector.length === 0 || !table) return;
    const ref = { apiVersion: owner.apiVersion ?? 'apps/v1', kind: owner.kind ?? '', name: owner.metadata.name ?? '', uid: owner.metadata.uid ?? '', controller: true, blockOwnerDeletion: true };
    for (const key of [...table.keys(`${owner.metadata.namespace ?? ''}/${owner.metadata.name ?? ''}-`)]) {
      const o = table.get(key);
      if (!o || o.metadata.deletionTimestamp || o.metadata.ownerReferences?.some((r) => r.controller === true) || !matchLabels(selector, o.metadata.labels)) continue;
      const next = clone(o);
      next.metadata.ownerReferences = [...(o.metadata.ownerReferences ?? []), ref];
      this.store.update(gr, next);
    }
  }

  /**
   * A DaemonSet runs one pod on each node it may (a worker, or any node where its pods tolerate the control-plane
   * taint). A new template is a new revision (the pods' `controller-revision-hash`): a RollingUpdate replaces the
   * pods node by node (dsStep), OnDelete only those deleted.
   */
  private answerDaemonSet(ds: SimObject, newTemplate: boolean): void {
    const key = keyOf(ds);
    if (newTemplate) {
      const template = JSON.stringify(rec(rec(ds.spec).template));
      const revision = this.history.record(ds, (collision) => templateHash(this.cluster, key, template, ...(collision ? [collision] : [])).slice(0, 8));
      this.dsRevision.set(key, revision.metadata.labels?.[POD_REVISION_LABEL] ?? '');
      this.trimDaemonSet(ds, this.owned('pods', ds));
    }
    this.dsStep(ds);
  }

  /** A DaemonSet's history past its limit goes, but for its current revision and those its pods run. */
  private trimDaemonSet(ds: SimObject, pods: SimObject[]): void {
    const hashes = [this.dsRevision.get(keyOf(ds)), ...pods.map((p) => p.metadata.labels?.[POD_REVISION_LABEL])];
    this.history.trim(ds, new Set(hashes.map((h) => `${ds.metadata.name ?? ''}-${h ?? ''}`)));
  }

  /**
   * One step of a DaemonSet's rollout (kube's rollingUpdate with maxSurge 0): a node it may run on with no pod gets
   * one at the current revision; old pods are deleted while fewer than maxUnavailable of its nodes lack an available
   * pod, those not ready first. Each pod that starts or goes takes it a step on (settle).
   */
  private dsStep(ds: SimObject): void {
    const key = keyOf(ds);
    const name = ds.metadata.name ?? '';
    const revision = this.dsRevision.get(key);
    const all = this.owned('pods', ds);
    const placed = new Set(all.map((p) => rec(p.spec).nodeName));
    const nodes = this.eligibleNodes(ds);
    for (const node of nodes) {
      if (!placed.has(node.metadata.name)) this.startSoon(this.create(this.daemonPod(ds, `${name}-${kubeSuffix(this.answerRng)}`, node), false));
    }
    const strategy = rec(rec(ds.spec).updateStrategy);
    const old = all.filter((p) => !p.metadata.deletionTimestamp && revision !== undefined && p.metadata.labels?.['controller-revision-hash'] !== revision);
    // Rolled out: the revisions its pods ran until now may go (kube's cleanupHistory, each sync).
    if (old.length === 0 && revision !== undefined && all.every((p) => !p.metadata.deletionTimestamp)) this.trimDaemonSet(ds, all);
    if (old.length === 0 || strategy.type === 'OnDelete') return;
    const maxSurge = resolveIntOrPercent(rec(strategy.rollingUpdate).maxSurge, '0', nodes.length, Math.ceil);
    if (maxSurge > 0) return this.dsSurge(ds, nodes, all.filter((p) => !p.metadata.deletionTimestamp), old, maxSurge);
    // Ready pods (not being deleted): the ones just made are not, yet.
    const ready = all.filter(podIsReady).length;
    const maxUnavailable = Math.max(1, resolveIntOrPercent(rec(strategy.rollingUpdate).maxUnavailable, '1', nodes.length, Math.floor));
    for (const i of daemonSetDeletions(nodes.length, maxUnavailable, ready, old.map(podIsReady))) this.deleteByController(keyOf(old[i] as SimObject));
  }

  /**
   * A DaemonSet's RollingUpdate with maxSurge (kube's surging rollout): on a node whose old pod is ready, the new pod
   * starts beside it, on at most `maxSurge` nodes at a time, and the old one goes once the new one is ready; an old pod
   * not ready goes at once (its node has none available anyway), its new one made once it is gone.
   */
  private dsSurge(ds: SimObject, nodes: SimObject[], live: SimObject[], old: SimObject[], maxSurge: number): void {
    const name = ds.metadata.name ?? '';
    const oldUids = new Set(old.map((p) => p.metadata.uid));
    // Each node's old pod and new one, read once.
    const byNode = new Map<unknown, { was?: SimObject; next?: SimObject }>();
    for (const p of live) {
      const at = byNode.get(rec(p.spec).nodeName) ?? {};
      if (oldUids.has(p.metadata.uid)) at.was ??= p;
      else at.next ??= p;
      byNode.set(rec(p.spec).nodeName, at);
    }
    let surging = nodes.filter((n) => {
      const at = byNode.get(n.metadata.name);
      return at?.was && at.next;
    }).length;
    for (const node of nodes) {
      const { was, next } = byNode.get(node.metadata.name) ?? {};
      if (!was) continue;
      if (next) {
        if (podIsReady(next)) this.deleteByController(keyOf(was));
      } else if (!podIsReady(was)) this.deleteByController(keyOf(was));
      else if (surging < maxSurge) {
        surging++;
        this.startSoon(this.create(this.daemonPod(ds, `${name}-${kubeSuffix(this.answerRng)}`, node), false));
      }
    }
  }

  /**
   * The nodes a DaemonSet may run on: workers, and those whose NoSchedule taints its pods tolerate (a cordoned node's
   * always: kube's DaemonSet controller gives its pods that toleration).
   */
  private eligibleNodes(ds: SimObject): SimObject[] {
    const tolerations = recs(rec(rec(rec(ds.spec).template).spec).tolerations);
    return this.nodes((taint) => taint.key === UNSCHEDULABLE_TAINT || tolerations.some((t) => t.operator === 'Exists' && (t.key === undefined || t.key === taint.key)));
  }

  /** A DaemonSet's pod on `node`, from its template at its current revision. */
  private daemonPod(ds: SimObject, name: string, node: SimObject): SimObject {
    const pod = this.podFromTemplate(ds, name, `${ds.metadata.name ?? ''}-`, node);
    const revision = this.dsRevision.get(keyOf(ds));
    if (revision) pod.metadata.labels = { ...(pod.metadata.labels ?? {}), 'controller-revision-hash': revision, 'pod-template-generation': String(ds.metadata.generation ?? 1) };
    return pod;
  }

  /**
   * The scheduler binds a pod made over HTTP to a worker (unless it names its node); the kubelet writes it Pending,
   * its containers being created, and starts it a moment later.
   */
  private schedule(pod: SimObject): void {
    if (pod.metadata.deletionTimestamp) return;
    const bound = clone(pod);
    let node = this.store.get('nodes', undefined, String(rec(pod.spec).nodeName ?? ''));
    if (!rec(pod.spec).nodeName) {
      const workers = this.nodes();
      node = workers[this.answerRng.int(Math.max(1, workers.length))];
      if (!node) return;
      bound.spec = { ...rec(bound.spec), nodeName: node.metadata.name };
      this.store.update('pods', bound);
    }
    bound.status = { ...rec(bound.status), ...(node ? hostStatus(node) : {}) };
    const placed = this.store.update('pods', { ...bound, metadata: { ...bound.metadata, resourceVersion: undefined }, status: pendingStatus(bound, iso(this.now())) }, { subresource: 'status' });
    this.events.podCreated(placed);
    this.startSoon(placed);
  }

  /** The nodes a pod may be placed on: no NoSchedule taint, but those `tolerates` (none, by default). */
  private nodes(tolerates: (taint: Rec) => boolean = () => false): SimObject[] {
    return [...(this.store.table('nodes')?.entries() ?? [])].map(([, n]) => n).filter((n) => recs(rec(n.spec).taints).every((t) => t.effect !== 'NoSchedule' || tolerates(t)));
  }

  /** The deployment controller sets `rs`'s replicas (saying so as ScalingReplicaSet), and its pods follow. */
  private answerScale(rs: SimObject, replicas: number, deploy: SimObject): void {
    const from = Number(rec(rs.spec).replicas ?? 0);
    if (from !== replicas) {
      this.setReplicas('replicasets.apps', rs, replicas);
      this.events.scaled(deploy, rs.metadata.name ?? '', from, replicas);
    }
    this.scaleReplicaSetPods(this.store.get('replicasets.apps', rs.metadata.namespace, rs.metadata.name ?? '') ?? rs, replicas);
  }

  /**
   * The deployment controller's answer to a Deployment changed: the ReplicaSet whose template is the Deployment's
   * (kube's EqualIgnoreHash) gets every replica, the others none. Where that is not the newest one, the template
   * changed and it rolls out: a rollback takes the old ReplicaSet up to a new revision, a new template gets a new one.
   */
  private answerDeployment(deploy: SimObject, replicas: number): void {
    const ns = deploy.metadata.namespace ?? '';
    const sets = this.owned('replicasets.apps', deploy);
    const template = rec(rec(deploy.spec).template);
    const revisionOf = (o: SimObject): number => Number(o.metadata.annotations?.['deployment.kubernetes.io/revision'] ?? 0);
    const newest = Math.max(0, ...sets.map(revisionOf));
    const revision = String(newest + 1);
    let target = sets.find((rs) => deepEqual(semantic(withoutHash(rec(rec(rs.spec).template))), semantic(withoutHash(template))));
    // A paused Deployment (kubectl rollout pause) scales, but does not roll out its new template until resumed.
    const current = this.currentReplicaSet(deploy);
    if (rec(deploy.spec).paused === true && target?.metadata.uid !== current?.metadata.uid) {
      if (current) this.answerScale(current, replicas, deploy);
      return;
    }
    if (target && revisionOf(target) !== newest) target = this.store.update('replicasets.apps', withRevision(target, revision));
    else if (!target) {
      const hash = templateHash(this.cluster, ns, deploy.metadata.name ?? '', JSON.stringify(template));
      const name = `${deploy.metadata.name ?? ''}-${hash}`;
      if (this.store.get('replicasets.apps', ns, name)) return;
      const selector = rec(rec(deploy.spec).selector);
      const meta = rec(template.metadata);
      const labels = { ...rec(meta.labels), 'pod-template-hash': hash } as Record<string, string>;
      target = this.store.create('replicasets.apps', {
        apiVersion: 'apps/v1', kind: 'ReplicaSet',
        metadata: {
          name, namespace: ns, labels,
          annotations: { 'deployment.kubernetes.io/desired-replicas': String(replicas), 'deployment.kubernetes.io/max-replicas': String(replicas + Math.ceil(replicas / 4)), 'deployment.kubernetes.io/revision': revision },
          ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: deploy.metadata.name ?? '', uid: deploy.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }],
        },
        spec: { replicas: 0, selector: { ...selector, matchLabels: { ...rec(selector.matchLabels), 'pod-template-hash': hash } }, template: { ...template, metadata: { ...meta, labels } } },
        status: { replicas: 0 },
      }, ns);
    }
    const now = this.store.get('deployments.apps', ns, deploy.metadata.name ?? '') ?? deploy;
    const latest = String(revisionOf(target));
    if (now.metadata.annotations?.['deployment.kubernetes.io/revision'] !== latest) this.store.update('deployments.apps', withRevision(now, latest));
    // Old ReplicaSets with replicas (a new template, or a rollout under way): the rollout goes step by step.
    const key = `${ns}/${deploy.metadata.name ?? ''}`;
    if (this.rolling.has(key) || sets.some((rs) => rs.metadata.uid !== target.metadata.uid && specReplicas(rs) > 0)) {
      this.rolling.add(key);
      this.rollStep(ns, deploy.metadata.name ?? '');
      return;
    }
    this.answerScale(target, replicas, deploy);
    for (const rs of sets) if (rs.metadata.uid !== target.metadata.uid) this.answerScale(rs, 0, deploy);
  }

  /**
   * One step of a Deployment's rollout. A RollingUpdate, as kube's rolloutRolling takes it: the newest ReplicaSet up
   * by what maxSurge leaves room for, then the old ones (oldest first) down by what maxUnavailable allows with the new
   * pods not yet available. A Recreate, as rolloutRecreate: the old ones down to none, and the new one up once their
   * pods are gone. Each pod that starts or goes takes it a step on (settle), until the newest ReplicaSet has every
   * replica and the old ones none. A paused Deployment waits.
   */
  private rollStep(ns: string, name: string): void {
    const key = `${ns}/${name}`;
    const deploy = this.store.get('deployments.apps', ns, name);
    const target = deploy && !deploy.metadata.deletionTimestamp ? this.currentReplicaSet(deploy) : undefined;
    if (!deploy || !target) {
      this.rolling.delete(key);
      return;
    }
    if (rec(deploy.spec).paused === true) return;
    const replicas = Number(rec(deploy.spec).replicas ?? 1);
    if (rec(rec(deploy.spec).strategy).type === 'Recreate') {
      const olds = this.owned('replicasets.apps', deploy).filter((rs) => rs.metadata.uid !== target.metadata.uid);
      for (const rs of olds) if (specReplicas(rs) > 0) this.answerScale(rs, 0, deploy);
      // Pods being deleted count too: the new ones wait until none of the old ones runs.
      if (olds.some((rs) => this.owned('pods', rs).length > 0)) return;
      if (specReplicas(target) !== replicas) this.answerScale(target, replicas, deploy);
      this.rolling.delete(key);
      return;
    }
    const revisionOf = (o: SimObject): number => Number(o.metadata.annotations?.['deployment.kubernetes.io/revision'] ?? 0);
    const olds = this.owned('replicasets.apps', deploy).filter((rs) => rs.metadata.uid !== target.metadata.uid && specReplicas(rs) > 0).sort((a, b) => revisionOf(a) - revisionOf(b));
    const next = rollingStep({
      replicas, ...rollingBounds(rec(rec(rec(deploy.spec).strategy).rollingUpdate), replicas),
      current: specReplicas(target), available: Number(rec(target.status).availableReplicas ?? 0), olds: olds.map(specReplicas),
    });
    // Up first: the pods the new one makes are not available yet, and the old ones go down only as far as that allows.
    if (next.current !== specReplicas(target)) this.answerScale(target, next.current, deploy);
    olds.forEach((rs, i) => {
      const to = next.olds[i] ?? 0;
      if (to !== specReplicas(rs)) this.answerScale(rs, to, deploy);
    });
    if (next.current === replicas && next.olds.every((n) => n === 0)) this.rolling.delete(key);
  }

  /**
   * A ReplicaSet makes pods (like one of its own, else from its template) or deletes its newest, to `replicas`; the
   * orphans it matches it adopts first (those a ReplicaSet deleted with --cascade=orphan left, made again).
   */
  private scaleReplicaSetPods(rs: SimObject, replicas: number): void {
    this.adopt('pods', rs);
    // Its status is counted again after the operation, pods made or not (those adopted count).
    this.unsettle('ReplicaSet', rs.metadata.namespace ?? '', rs.metadata.name ?? '');
    const pods = this.podKeys(rs);
    const name = rs.metadata.name ?? '';
    for (let n = pods.length; n < replicas; n++) {
      const like = pods[0] ? this.store.table('pods')?.get(pods[0]) : undefined;
      const made = like ? podFrom(like, `${name}-${kubeSuffix(this.answerRng)}`, `${name}-`) : this.podFromTemplate(rs, `${name}-${kubeSuffix(this.answerRng)}`, `${name}-`);
      this.startSoon(this.create(made, false));
    }
    for (const key of pods.slice(replicas).reverse()) this.deleteByController(key);
  }

  /** A StatefulSet makes its missing ordinals below `replicas` and deletes those at or above it. */
  private scaleStatefulSetPods(sts: SimObject, replicas: number): void {
    const ns = sts.metadata.namespace ?? '';
    const name = sts.metadata.name ?? '';
    // OrderedReady: one pod at a time (stsStep).
    if (rec(sts.spec).podManagementPolicy !== 'Parallel') return;
    const mine = this.owned('pods', sts).filter((p) => !p.metadata.deletionTimestamp);
    for (const p of mine) if (ordinalOf(sts, p) >= replicas) this.deleteByController(keyOf(p));
    for (let i = 0; i < replicas; i++) {
      const podName = `${name}-${i}`;
      if (this.store.get('pods', ns, podName) || this.awaitingName.has(`${ns}/${podName}`)) continue;
      this.makeStatefulSetPod(this.statefulSetPod(sts, i, mine));
    }
  }

  /**
   * A StatefulSet's pod at `ordinal`, at its update revision (like a sibling already there, else from its template),
   * or, below a RollingUpdate's partition, like a sibling at its current revision.
   */
  private statefulSetPod(sts: SimObject, ordinal: number, siblings: SimObject[]): SimObject {
    this.ensureClaims(sts, ordinal);
    const podName = `${sts.metadata.name ?? ''}-${ordinal}`;
    const status = rec(sts.status);
    const partition = Number(rec(rec(rec(sts.spec).updateStrategy).rollingUpdate).partition ?? 0);
    const revision = String((ordinal < partition ? status.currentRevision : status.updateRevision) ?? '');
    const like = siblings.find((p) => revision === '' || p.metadata.labels?.['controller-revision-hash'] === revision);
    const made = like ? podFrom(like, podName) : this.podFromTemplate(sts, podName);
    made.metadata.labels = {
      ...(made.metadata.labels ?? {}), ...(revision ? { 'controller-revision-hash': revision } : {}),
      'apps.kubernetes.io/pod-index': String(ordinal), 'statefulset.kubernetes.io/pod-name': podName,
    };
    const serviceName = rec(sts.spec).serviceName;
    // Its claims first among its volumes, in place of any of the same name (kube's updateStorage).
    const claims = claimTemplates(sts).map((t) => ({ name: String(rec(t.metadata).name ?? ''), persistentVolumeClaim: { claimName: claimName(String(rec(t.metadata).name ?? ''), sts.metadata.name ?? '', ordinal) } }));
    const volumes = [...claims, ...recs(rec(made.spec).volumes).filter((v) => !claims.some((c) => c.name === v.name))];
    made.spec = { ...rec(made.spec), hostname: podName, ...(typeof serviceName === 'string' && serviceName !== '' ? { subdomain: serviceName } : {}), ...(volumes.length > 0 ? { volumes } : {}) };
    return made;
  }

  /**
   * Before it makes an ordinal's pod, the StatefulSet controller makes the claims its volumeClaimTemplates ask for that
   * are not there yet (kept ones are used again); the EBS provisioner makes a volume for each, in a worker's zone, and
   * the binder binds them.
   */
  private ensureClaims(sts: SimObject, ordinal: number): void {
    const ns = sts.metadata.namespace ?? '';
    for (const template of claimTemplates(sts)) {
      const wanted = newClaim(sts, template, ordinal);
      if (this.store.get('persistentvolumeclaims', ns, wanted.metadata.name ?? '')) continue;
      const claim = this.store.create('persistentvolumeclaims', wanted, ns);
      const zone = this.nodes()[0]?.metadata.labels?.['topology.kubernetes.io/zone'] ?? 'us-east-1a';
      const volume = this.store.create('persistentvolumes', volumeFor(claim, zone, iso(this.now()), `vol-0${hexFor(16, 'ebs', claim.metadata.uid ?? '')}`));
      const bound = boundClaim(claim, volume);
      const updated = this.store.update('persistentvolumeclaims', { ...bound, status: claim.status });
      this.store.update('persistentvolumeclaims', { ...updated, status: bound.status }, { subresource: 'status' });
    }
  }

  /**
   * The StatefulSet controller's answer to its spec made or changed: a new template is a new update revision (its
   * name and the template's hash; the current one stays until every pod is at it); pods made or deleted to match
   * the replicas; and with pods at another revision, a RollingUpdate goes pod by pod (stsStep).
   */
  private answerStatefulSet(sts: SimObject, replicas: number, before?: SimObject): void {
    const ns = sts.metadata.namespace ?? '';
    const name = sts.metadata.name ?? '';
    const template = rec(rec(sts.spec).template);
    let now = sts;
    if (before === undefined || !deepEqual(rec(before.spec).template, template)) {
      const text = JSON.stringify(template);
      const revision = this.history.record(sts, (collision) => templateHash(this.cluster, ns, name, text, ...(collision ? [collision] : []))).metadata.name ?? '';
      const status = rec(sts.status);
      // kube's controller starts collisionCount at 0 (it counts template-hash collisions of the revisions it names).
      const next = { ...status, collisionCount: status.collisionCount ?? 0, updateRevision: revision, currentRevision: status.currentRevision ?? revision };
      now = this.store.update('statefulsets.apps', { ...clone(sts), status: next }, { subresource: 'status' });
      this.trimStatefulSet(now);
    }
    this.scaleStatefulSetPods(now, replicas);
    // What is left (pods to make or delete one by one, a rollout) goes step by step; stsStep lets go once done.
    this.stsPending.add(`${ns}/${name}`);
    this.stsStep(ns, name);
  }

  /**
   * One step of a StatefulSet's RollingUpdate (kube's OrderedReady update): once every pod is there, running and ready,
   * the highest ordinal at or above the partition that is not at the update revision is deleted, and made again at
   * it once its name is free; when none is left (and no partition holds any back) the update revision becomes the
   * current one. OnDelete leaves the pods alone: each is made at the update revision when deleted.
   */
  private stsStep(ns: string, name: string): void {
    const key = `${ns}/${name}`;
    const sts = this.store.get('statefulsets.apps', ns, name);
    if (!sts || sts.metadata.deletionTimestamp) {
      this.stsPending.delete(key);
      return;
    }
    const pods = this.owned('pods', sts);
    const ordered = pods.map((p) => ({
      ordinal: ordinalOf(sts, p), revision: p.metadata.labels?.['controller-revision-hash'], ready: podIsReady(p), deleting: p.metadata.deletionTimestamp !== undefined,
    }));
    // OrderedReady (the default): its pods come one at a time, each once those before it are ready, and go the same way.
    if (rec(sts.spec).podManagementPolicy !== 'Parallel') {
      const pending = new Set([...this.awaitingName.keys()].filter((k) => k.startsWith(`${key}-`)).map((k) => Number(k.slice(key.length + 1))));
      const scale = statefulSetScaleStep(specReplicas(sts), ordered, pending);
      if (scale === 'wait') return;
      if (scale !== 'done') {
        if ('remove' in scale) this.deleteByController(`${key}-${scale.remove}`);
        else this.makeStatefulSetPod(this.statefulSetPod(sts, scale.create, pods));
        return;
      }
    }
    const strategy = rec(rec(sts.spec).updateStrategy);
    if (strategy.type === 'OnDelete') {
      this.stsPending.delete(key);
      return;
    }
    const partition = Number(rec(strategy.rollingUpdate).partition ?? 0);
    const status = rec(sts.status);
    const update = String(status.updateRevision ?? '');
    const step = statefulSetStep(specReplicas(sts), partition, update, ordered);
    if (step === 'wait') return;
    if (step !== 'done') {
      const replaced = `${ns}/${name}-${step}`;
      this.awaitingName.set(replaced, this.statefulSetPod(sts, step, pods));
      this.deleteByController(replaced);
      return;
    }
    this.stsPending.delete(key);
    if (partition === 0 && status.currentRevision !== update) {
      this.trimStatefulSet(this.store.update('statefulsets.apps', { ...clone(sts), status: { ...status, currentRevision: update, currentReplicas: status.updatedReplicas ?? pods.length } }, { subresource: 'status' }));
    }
  }

  /** A StatefulSet's history past its limit goes, but for its current and update revisions and those its pods run. */
  private trimStatefulSet(sts: SimObject): void {
    const status = rec(sts.status);
    const live = [status.currentRevision, status.updateRevision, ...this.owned('pods', sts).map((p) => p.metadata.labels?.[POD_REVISION_LABEL])];
    this.history.trim(sts, new Set(live.filter((x): x is string => typeof x === 'string')));
  }

  /** A controller deletes one of its pods in answer to a request: marked, then finished by its kubelet a moment later. */
  private deleteByController(key: string): void {
    const deleted = this.markDeleted(key, true);
    if (deleted?.marked) this.kubelets.terminate(key, deleted.pod.metadata.uid ?? '', (last) => this.answerRemoval(key, last));
  }

  /** A pod of `owner` from its pod template, placed on `node` or by the scheduler on a worker (status comes with create). */
  private podFromTemplate(owner: SimObject, name: string, generateName?: string, on?: SimObject): SimObject {
    const template = rec(rec(owner.spec).template);
    const meta = rec(template.metadata);
    const workers = on ? [on] : this.nodes();
    const node = workers.length > 0 ? workers[this.answerRng.int(workers.length)] : undefined;
    return {
      apiVersion: 'v1', kind: 'Pod',
      metadata: {
        name, ...(generateName !== undefined ? { generateName } : {}), namespace: owner.metadata.namespace,
        labels: { ...(meta.labels as Record<string, string> | undefined) }, ...(meta.annotations ? { annotations: { ...(meta.annotations as Record<string, string>) } } : {}),
        ownerReferences: [{ apiVersion: owner.apiVersion ?? 'apps/v1', kind: owner.kind ?? '', name: owner.metadata.name ?? '', uid: owner.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }],
      },
      spec: { ...clone(rec(template.spec)), ...(node ? { nodeName: node.metadata.name } : {}) },
      status: node ? hostStatus(node) : {},
    };
  }

  /** Applies `n` operations now; returns the number of watch events they produced. Same seed → same sequence. */
  step(n = 1): number {
    const before = this.store.revision;
    for (let i = 0; i < n; i++) {
      this.ops++;
      if (this.relabelShare > 0 && this.relabelRng.next() < this.relabelShare) {
        this.relabelOps++;
        this.relabel();
        continue;
      }
      this.finishTerminations();
      const roll = this.rng.next();
      if (roll < 0.5) this.podStatus();
      else if (roll < 0.7) this.scale();
      else if (roll < 0.75) this.rollout();
      else if (roll < 0.9) this.replacePod();
      else this.kubeletWarning();
      this.settle();
    }
    return this.store.revision - before;
  }

  private pick(gr: string, rng = this.rng): SimObject | undefined {
    const table = this.store.table(gr);
    const key = table?.keyNear(rng.int(1 << 30));
    return key === undefined ? undefined : table?.get(key);
  }

  /** Flips a pod's CHURN_TIER_LABEL: absent or "b" becomes "a", "a" becomes "b". */
  private relabel(): void {
    const pod = this.pick('pods', this.relabelRng);
    if (!pod || pod.metadata.deletionTimestamp) return;
    const next = clone(pod);
    const tier = next.metadata.labels?.[CHURN_TIER_LABEL] === 'a' ? 'b' : 'a';
    next.metadata.labels = { ...next.metadata.labels, [CHURN_TIER_LABEL]: tier };
    this.store.update('pods', next);
  }

  /** The pod that waited longest for its containers, if any still does; else any pod. */
  private podToChange(): SimObject | undefined {
    for (let key = this.starting.shift(); key !== undefined; key = this.starting.shift()) {
      const pod = this.store.table('pods')?.get(key);
      if (pod && rec(pod.status).phase === 'Pending') return pod;
    }
    return this.pick('pods');
  }

  /**
   * A pod just made by a controller: Pending, its containers being created, not ready, no address yet (a host-network
   * pod has its node's); the kubelet starts it soon. Made from a pod the scheduler could not place, it cannot be
   * placed either, and waits unscheduled.
   */
  private create(pod: SimObject, queue = true): SimObject | undefined {
    const ns = pod.metadata.namespace ?? '';
    const name = pod.metadata.name ?? '';
    if (this.store.get('pods', ns, name)) return undefined;
    const status = rec(pod.status);
    if (!rec(pod.spec).nodeName) {
      const unschedulable = recs(status.conditions).find((c) => c.type === 'PodScheduled');
      const at = iso(this.now());
      pod.status = { phase: 'Pending', conditions: unschedulable ? [{ ...unschedulable, lastTransitionTime: at }] : [], qosClass: status.qosClass ?? 'Burstable' };
      const created = this.store.create('pods', pod, ns);
      this.events.podCreated(created, String(unschedulable?.message ?? ''));
      this.changed(created);
      return created;
    }
    // The scheduler places no pod on a cordoned node: one made like a sibling there goes to a worker that takes pods.
    const node = this.store.get('nodes', undefined, String(rec(pod.spec).nodeName));
    const workers = rec(node?.spec).unschedulable === true && !pod.metadata.ownerReferences?.some((r) => r.kind === 'DaemonSet') ? this.nodes() : [];
    const to = workers.length > 0 ? workers[this.answerRng.int(workers.length)] : undefined;
    if (to) {
      pod.spec = { ...rec(pod.spec), nodeName: to.metadata.name };
      pod.status = { ...rec(pod.status), ...hostStatus(to) };
    }
    pod.status = pendingStatus(pod, iso(this.now()));
    const created = this.store.create('pods', pod, ns);
    this.events.podCreated(created);
    this.changed(pod);
    if (queue) this.starting.push(`${ns}/${name}`);
    return created;
  }

  /** The kubelet starts `pod`'s containers, restarts its first, or finds it ready again (ids drawn from `rng`). */
  private podStatus(pod = this.podToChange(), rng = this.rng): void {
    // The kubelet leaves a pod that ended (Succeeded, Failed) alone: its containers do not start again.
    const phase = rec(pod?.status).phase;
    // Nor does it start a pod no node has been found for.
    if (!pod || pod.metadata.deletionTimestamp || phase === 'Succeeded' || phase === 'Failed' || !rec(pod.spec).nodeName) return;
    const next = clone(pod);
    const status = rec(next.status);
    const statuses = recs(status.containerStatuses);
    const first = statuses[0];
    const at = iso(this.now());
    let started: 'all' | 'first' | undefined;
    if (status.phase === 'Pending' || !first) {
      started = 'all';
      status.phase = 'Running';
      // Its sandbox has an address of its own now: from the upper half of the pod range, above the generated pods'.
      if (!rec(next.spec).hostNetwork && status.podIP === undefined) {
        const ip = podAddress(POD_ADDRESSES / 2 + (this.podAddresses++ % (POD_ADDRESSES / 2)));
        Object.assign(status, { podIP: ip, podIPs: [{ ip }] });
      }
      for (const s of statuses) Object.assign(s, { ready: true, started: true, ...(s.imageID ? {} : { imageID: imageDigest(String(s.image)) }), containerID: containerId(rng), state: { running: { startedAt: at } } });
    } else if (first.ready === true && Number(first.restartCount ?? 0) > 0) {
      // The container exited again: the kubelet backs off before it starts it (kube's crash back-off), and says so.
      const updated = this.store.update('pods', crashLooping(pod, this.now()), { subresource: 'status' });
      this.changed(updated);
      this.events.kubeletWarning(updated);
      return;
    } else if (first.ready === true) {
      // The container exited and the kubelet started it again at once (the first time); it is not ready until its
      // probe passes.
      const was = rec(rec(first.state).running).startedAt ?? iso(this.now() - 60_000);
      started = 'first';
      Object.assign(first, { ready: false, restartCount: Number(first.restartCount ?? 0) + 1, lastState: exitedWithError(first, was, at), containerID: containerId(rng), state: { running: { startedAt: at } } });
    } else if (rec(rec(first.state).waiting).reason === 'CrashLoopBackOff') {
      // Its back-off over, the kubelet starts it again.
      started = 'first';
      Object.assign(first, { ready: false, started: true, restartCount: Number(first.restartCount ?? 0) + 1, containerID: containerId(rng), state: { running: { startedAt: at } } });
    } else {
      Object.assign(first, { ready: true, started: true, state: { running: { startedAt: at } } });
    }
    const ready = statuses.every((s) => s.ready === true);
    for (const c of recs(status.conditions)) {
      if (c.type === 'PodReadyToStartContainers' && c.status !== 'True') Object.assign(c, { status: 'True', lastTransitionTime: at });
    }
    setReadiness(status, ready, at);
    next.status = status;
    const updated = this.store.update('pods', next, { subresource: 'status' });
    this.changed(updated);
    if (started) this.events.containersStarted(updated, started === 'first' ? String(first?.name ?? '') : undefined);
  }

  /** The newest ReplicaSet of a Deployment. */
  private currentReplicaSet(deploy: SimObject): SimObject | undefined {
    let best: SimObject | undefined;
    for (const rs of this.owned('replicasets.apps', deploy)) {
      const rev = Number(rs.metadata.annotations?.['deployment.kubernetes.io/revision'] ?? 0);
      if (!best || rev > Number(best.metadata.annotations?.['deployment.kubernetes.io/revision'] ?? 0)) best = rs;
    }
    return best;
  }

  /** The keys of a ReplicaSet's pods not being deleted (pod names start with the ReplicaSet name). */
  private podKeys(rs: SimObject): string[] {
    const table = this.store.table('pods');
    return [...(table?.keys(`${rs.metadata.namespace ?? ''}/${rs.metadata.name ?? ''}-`) ?? [])].filter((key) => !table?.get(key)?.metadata.deletionTimestamp);
  }

  private newPod(rs: SimObject, template: SimObject): void {
    this.create(podFrom(template, `${rs.metadata.name ?? ''}-${kubeSuffix(this.rng)}`, `${rs.metadata.name ?? ''}-`));
  }

  /**
   * Deletes a pod (given by key) as kube does: marked with a deletionTimestamp its grace period ahead, then removed by
   * its kubelet a few operations later (finishTerminations), `then` made in its place after that. Its controller
   * deleted it, or someone else did (an eviction, a user).
   */
  private deletePod(key: string, byController: boolean, then?: SimObject): void {
    const deleted = this.markDeleted(key, byController);
    if (deleted?.marked) this.terminating.push({ key, uid: deleted.pod.metadata.uid ?? '', due: this.ops - this.relabelOps + TERMINATION_OPS, ...(then ? { then } : {}) });
    else if (deleted && then && this.claimBeingDeleted(then)) this.awaitingName.set(key, then);
    else if (deleted && then) this.create(then);
  }

  /**
   * The delete itself, for churn's deletions and the controllers' answers alike: the pod at `key` (not already being
   * deleted) marked for GRACE_SECONDS, or gone at once where no node runs it; its events; its owner to count again.
   * Returns the pod as it was and whether it is still there, marked; undefined when there was nothing to delete.
   */
  private markDeleted(key: string, byController: boolean): { pod: SimObject; marked: boolean } | undefined {
    const pod = this.store.table('pods')?.get(key);
    if (!pod || pod.metadata.deletionTimestamp) return undefined;
    this.events.podDeleted(pod, byController);
    const done = this.store.delete('pods', pod.metadata.namespace, pod.metadata.name ?? '', { gracePeriodSeconds: GRACE_SECONDS });
    this.changed(pod);
    return { pod, marked: done.metadata.deletionTimestamp !== undefined };
  }

  /** The kubelet has stopped the containers of pods whose time came (all of them: `until` Infinity): it writes their last status and removes them. */
  private finishTerminations(until = this.ops - this.relabelOps): void {
    while (this.terminating[0] && this.terminating[0].due <= until) {
      const { key, uid, then } = this.terminating.shift() as (typeof this.terminating)[number];
      const pod = this.store.table('pods')?.get(key);
      if (pod?.metadata.uid === uid) {
        finishPod(this.store, pod, this.now());
        this.changed(pod);
      }
      if (then && this.claimBeingDeleted(then)) this.awaitingName.set(key, then);
      else if (then) this.create(then);
    }
  }

  private setReplicas(gr: string, o: SimObject, replicas: number): void {
    const next = clone(o);
    next.spec = { ...rec(next.spec), replicas };
    this.store.update(gr, next);
  }

  /** A pod changed, came or went: its owner counts its pods again once the operation is done. */
  private changed(pod: SimObject): void {
    const ref = pod.metadata.ownerReferences?.[0];
    if (ref) this.unsettle(ref.kind, pod.metadata.namespace ?? '', ref.name);
  }

  /** An owner (a ReplicaSet, StatefulSet or DaemonSet) writes its status once the operation is done. */
  private unsettle(kind: string | undefined, namespace: string, name: string): void {
    if (kind && OWNER_GR[kind]) this.unsettled.set(`${kind}/${namespace}/${name}`, [kind, namespace, name]);
  }

  /**
   * The controllers' status writes after an operation: each owner of pods that changed counts them, then each
   * Deployment above a ReplicaSet sums its ReplicaSets; each with the generation it has now seen, and none where
   * nothing changed.
   */
  private settle(depth = 0): void {
    const deployments = new Map<string, [namespace: string, name: string]>();
    const statefulSets = new Set<string>();
    const daemonSets: SimObject[] = [];
    for (const [kind, ns, name] of this.unsettled.values()) {
      const gr = OWNER_GR[kind] as string;
      const owner = this.store.get(gr, ns, name);
      if (!owner) continue;
      // Pods being deleted no longer count (kube's FilterActivePods).
      const pods = this.owned('pods', owner).filter((p) => !p.metadata.deletionTimestamp);
      if (kind === 'DaemonSet') this.writeStatus(gr, owner, this.daemonSetStatus(owner, pods));
      else this.writeStatus(gr, owner, ownerStatus(kind, rec(owner.status), pods.length, pods.filter(podIsReady).length, this.rolloutCounts(kind, owner, pods)));
      if (kind === 'StatefulSet' && this.stsPending.has(`${ns}/${name}`)) statefulSets.add(`${ns}/${name}`);
      if (kind === 'DaemonSet' && this.dsRevision.has(`${ns}/${name}`)) daemonSets.push(owner);
      const deploy = owner.metadata.ownerReferences?.find((r) => r.kind === 'Deployment');
      if (deploy) deployments.set(`${ns}/${deploy.name}`, [ns, deploy.name]);
    }
    this.unsettled.clear();
    for (const [ns, name] of deployments.values()) this.syncDeployment(ns, name, this.now());
    // A rollout under way takes its next step with the counts just written; what that step changed is settled in turn
    // (a few passes at most: the pods it makes are not available yet, so the next step waits for them).
    const rolling = [...deployments.keys()].filter((key) => this.rolling.has(key));
    if ((rolling.length === 0 && statefulSets.size === 0 && daemonSets.length === 0) || depth >= 3) return;
    for (const key of rolling) this.rollStep(...splitObjectKey(key));
    for (const key of statefulSets) this.stsStep(...splitObjectKey(key));
    for (const ds of daemonSets) {
      const now = this.store.get('daemonsets.apps', ds.metadata.namespace, ds.metadata.name ?? '');
      if (now) this.dsStep(now);
    }
    if (this.unsettled.size > 0) this.settle(depth + 1);
  }

  /**
   * The deployment controller's sync of one Deployment: its status from its ReplicaSets; a rollout under way is looked
   * at again once its progress deadline has passed (progressDeadlines).
   */
  private syncDeployment(ns: string, name: string, now: number): void {
    const key = `${ns}/${name}`;
    const deploy = this.store.get('deployments.apps', ns, name);
    if (!deploy) {
      this.deadlines.delete(key);
      return;
    }
    const status = deploymentStatus(deploy, this.owned('replicasets.apps', deploy), this.currentReplicaSet(deploy), now);
    this.writeStatus('deployments.apps', deploy, status);
    const progressing = recs(status.conditions).find((c) => c.type === 'Progressing');
    const deadline = progressDeadlineMs(deploy);
    if (progressing?.reason === 'ReplicaSetUpdated' && deadline !== undefined) this.deadlines.set(key, Date.parse(String(progressing.lastUpdateTime)) + deadline);
    else this.deadlines.delete(key);
  }

  /**
   * Syncs again each Deployment whose rollout made no progress for its progressDeadlineSeconds by `now` (kube's
   * requeueStuckDeployment): its Progressing condition turns False, ProgressDeadlineExceeded. Runs on churn's timer;
   * returns how many were due.
   */
  progressDeadlines(now: number): number {
    let due = 0;
    for (const [key, at] of [...this.deadlines]) {
      if (at >= now) continue;
      due++;
      this.syncDeployment(...splitObjectKey(key), now);
    }
    return due;
  }

  /**
   * What a rollout changes in an owner's status counts: a StatefulSet's pods at its current and update revisions; a
   * DaemonSet's, once a template was set over HTTP, its pods at that revision and the nodes it may run on.
   */
  private rolloutCounts(kind: string, owner: SimObject, pods: SimObject[]): { current?: number; updated?: number; desired?: number } {
    const at = (revision: unknown): number => pods.filter((p) => p.metadata.labels?.['controller-revision-hash'] === revision).length;
    if (kind === 'StatefulSet') return { current: at(rec(owner.status).currentRevision), updated: at(rec(owner.status).updateRevision) };
    return {};
  }

  /**
   * A DaemonSet's status as its controller counts it, by node (kube's storeDaemonSetStatus): the nodes with a pod, with
   * a ready one, with one at its current revision. A node with two (the new one surging beside the old) counts once.
   */
  private daemonSetStatus(ds: SimObject, pods: SimObject[]): Rec {
    const revision = this.dsRevision.get(keyOf(ds));
    const nodes = (keep: (p: SimObject) => boolean): number => new Set(pods.filter(keep).map((p) => rec(p.spec).nodeName)).size;
    const rollout = revision === undefined ? {} : { updated: nodes((p) => p.metadata.labels?.['controller-revision-hash'] === revision), desired: this.eligibleNodes(ds).length };
    return ownerStatus('DaemonSet', rec(ds.status), nodes(() => true), nodes(podIsReady), rollout);
  }

  /** A controller's status write, with the generation it has seen; none when nothing would change. */
  private writeStatus(gr: string, o: SimObject, status: Rec): void {
    const next = { ...status, observedGeneration: o.metadata.generation };
    if (JSON.stringify(next) === JSON.stringify(o.status)) return;
    this.store.update(gr, { ...clone(o), status: next }, { subresource: 'status' });
  }

  /** The objects of `gr` that `owner` controls: their names start with its own, and they name it as their owner. */
  private owned(gr: string, owner: SimObject): SimObject[] {
    const table = this.store.table(gr);
    const out: SimObject[] = [];
    for (const key of table?.keys(`${owner.metadata.namespace ?? ''}/${owner.metadata.name ?? ''}-`) ?? []) {
      const o = table?.get(key);
      if (o?.metadata.ownerReferences?.some((r) => r.uid === owner.metadata.uid)) out.push(o);
    }
    return out;
  }

  private scale(): void {
    const deploy = this.pick('deployments.apps');
    const rs = deploy && this.currentReplicaSet(deploy);
    if (!deploy || !rs) return;
    const pods = this.podKeys(rs);
    const current = Number(rec(deploy.spec).replicas ?? pods.length);
    const up = pods.length > 0 && (current <= 1 || (current < MAX_REPLICAS && this.rng.chance(0.5)));
    const target = up ? current + 1 : current - 1;
    if (target < 1 || target > MAX_REPLICAS) return;
    this.setReplicas('deployments.apps', deploy, target);
    this.setReplicas('replicasets.apps', rs, target);
    this.unsettle('ReplicaSet', rs.metadata.namespace ?? '', rs.metadata.name ?? '');
    this.events.scaled(deploy, rs.metadata.name ?? '', current, target);
    const template = pods[0] ? this.store.table('pods')?.get(pods[0]) : undefined;
    if (up && template) this.newPod(rs, template);
    else if (!up && pods.length > 0) this.deletePod(pods[pods.length - 1] as string, true);
  }

  private rollout(): void {
    const deploy = this.pick('deployments.apps');
    const old = deploy && this.currentReplicaSet(deploy);
    if (!deploy || !old) return;
    const pods = this.podKeys(old);
    const template = pods[0] ? this.store.table('pods')?.get(pods[0]) : undefined;
    if (!template) return;
    const ns = deploy.metadata.namespace ?? '';
    const revision = Number(deploy.metadata.annotations?.['deployment.kubernetes.io/revision'] ?? 1) + 1;
    const hash = templateHash(this.cluster, ns, deploy.metadata.name ?? '', 'churn', this.ops - this.relabelOps);
    // A `kubectl rollout restart`: the time goes into the Deployment's template, and from it into the new ReplicaSet
    // (its template and selector carrying the new hash) and every pod that ReplicaSet makes.
    // A new template, so a new generation, even for a second restart within the same second (the annotation has
    // whole seconds): the changes churn makes must not depend on the wall clock.
    const next = withRevision(deploy, String(revision));
    const deployTemplate = rec(rec(next.spec).template);
    const templateMeta = rec(deployTemplate.metadata);
    const before = Date.parse(String(rec(templateMeta.annotations)['kubectl.kubernetes.io/restartedAt'] ?? ''));
    const restartedAt = { 'kubectl.kubernetes.io/restartedAt': iso(Number.isNaN(before) ? this.now() : Math.max(this.now(), before + 1000)) };
    next.spec = { ...rec(next.spec), template: { ...deployTemplate, metadata: { ...templateMeta, annotations: { ...rec(templateMeta.annotations), ...restartedAt } } } };
    const rs = clone(old);
    const labels = { ...(rs.metadata.labels ?? {}), 'pod-template-hash': hash };
    rs.metadata = { name: `${deploy.metadata.name ?? ''}-${hash}`, namespace: ns, labels, annotations: { ...(rs.metadata.annotations ?? {}), 'deployment.kubernetes.io/revision': String(revision) }, ...(rs.metadata.ownerReferences ? { ownerReferences: rs.metadata.ownerReferences } : {}) };
    const rsSpec = rec(rs.spec);
    const rsTemplate = rec(rsSpec.template);
    const rsTemplateMeta = rec(rsTemplate.metadata);
    rs.spec = {
      ...rsSpec,
      selector: { ...rec(rsSpec.selector), matchLabels: { ...rec(rec(rsSpec.selector).matchLabels), 'pod-template-hash': hash } },
      template: { ...rsTemplate, metadata: { ...rsTemplateMeta, labels: { ...rec(rsTemplateMeta.labels), 'pod-template-hash': hash }, annotations: { ...rec(rsTemplateMeta.annotations), ...restartedAt } } },
    };
    // A new ReplicaSet's status starts empty (the API server resets it on create); its controller fills it in.
    rs.status = { replicas: 0 };
    if (this.store.get('replicasets.apps', ns, rs.metadata.name ?? '')) return;
    const created = this.store.create('replicasets.apps', rs, ns);
    this.store.update('deployments.apps', next);
    this.unsettle('ReplicaSet', ns, created.metadata.name ?? '');
    this.unsettle('ReplicaSet', ns, old.metadata.name ?? '');
    const podTemplate = clone(template);
    podTemplate.metadata.labels = { ...(podTemplate.metadata.labels ?? {}), 'pod-template-hash': hash };
    podTemplate.metadata.annotations = { ...(podTemplate.metadata.annotations ?? {}), ...restartedAt };
    podTemplate.metadata.ownerReferences = [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: created.metadata.name ?? '', uid: created.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }];
    this.events.scaled(deploy, created.metadata.name ?? '', 0, pods.length);
    for (const key of pods) {
      this.newPod(created, podTemplate);
      this.deletePod(key, true);
    }
    this.setReplicas('replicasets.apps', old, 0);
    this.events.scaled(deploy, old.metadata.name ?? '', pods.length, 0);
  }

  /** Evicts a pod of a ReplicaSet, StatefulSet or DaemonSet; its controller replaces it. */
  private replacePod(): void {
    const pod = this.pick('pods');
    const owner = pod?.metadata.ownerReferences?.[0];
    if (!pod || !owner || owner.kind === 'Job') return;
    if (pod.metadata.deletionTimestamp) return;
    const next = this.replacementOf(pod, this.rng);
    if (next?.afterGone) this.deletePod(keyOf(pod), false, next.pod);
    else {
      this.deletePod(keyOf(pod), false);
      if (next) this.create(next.pod);
    }
  }

  /** The ReplicaSet, StatefulSet or DaemonSet that controls `pod`, if it is there and not being deleted. */
  private activeOwner(pod: SimObject): SimObject | undefined {
    const ref = pod.metadata.ownerReferences?.[0];
    const gr = ref?.kind ? OWNER_GR[ref.kind] : undefined;
    const owner = gr ? this.store.get(gr, pod.metadata.namespace, ref?.name ?? '') : undefined;
    return owner && owner.metadata.uid === ref?.uid && !owner.metadata.deletionTimestamp ? owner : undefined;
  }

  /**
   * What `pod`'s controller makes in its place once the pod is deleted (suffixes drawn from `rng`): a ReplicaSet a new
   * pod (from the pod, as from its template), a DaemonSet the same with a new suffix, both at once; a StatefulSet a pod
   * of the same name, once the old one is gone (`afterGone`). Nothing when no active owner controls the pod.
   */
  private replacementOf(pod: SimObject, rng: Rng): { pod: SimObject; afterGone: boolean } | undefined {
    const owner = this.activeOwner(pod);
    const name = owner?.metadata.name ?? '';
    switch (owner?.kind) {
      case 'ReplicaSet': return { pod: podFrom(pod, `${name}-${kubeSuffix(rng)}`, `${name}-`), afterGone: false };
      case 'DaemonSet': {
        // At the DaemonSet's revision: the pod as it was, or from the template once a new one was set.
        const revision = this.dsRevision.get(keyOf(owner));
        const node = this.store.get('nodes', undefined, String(rec(pod.spec).nodeName ?? ''));
        const fresh = revision !== undefined && pod.metadata.labels?.['controller-revision-hash'] !== revision && node;
        return { pod: fresh ? this.daemonPod(owner, `${name}-${kubeSuffix(rng)}`, node) : podFrom(pod, `${name}-${kubeSuffix(rng)}`), afterGone: false };
      }
      // At the update revision: the pod as it was, or from the template when it was at another (OnDelete, a partition).
      case 'StatefulSet': return { pod: this.statefulSetPod(owner, ordinalOf(owner, pod), [pod]), afterGone: true };
      default: return undefined;
    }
  }

  /** The kubelet warns about a pod on its node (again: its event counts the repeats). */
  private kubeletWarning(): void {
    const pod = this.pick('pods');
    if (pod && !pod.metadata.deletionTimestamp && rec(pod.spec).nodeName) this.events.kubeletWarning(pod);
  }
}

/** A StatefulSet's pod's ordinal: what follows the StatefulSet's name in the pod's. */
function ordinalOf(sts: SimObject, pod: SimObject): number {
  return Number((pod.metadata.name ?? '').slice((sts.metadata.name ?? '').length + 1));
}

function specReplicas(o: SimObject): number {
  return Number(rec(o.spec).replicas ?? 0);
}

/** A new pod made from `template` (a pod, or a template with a pod's metadata) under `name`: no identity of its own yet. */
function podFrom(template: SimObject, name: string, generateName?: string): SimObject {
  const pod = clone(template);
  pod.metadata = { ...pod.metadata, name, ...(generateName !== undefined ? { generateName } : {}) };
  for (const f of ['uid', 'resourceVersion', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds']) delete pod.metadata[f];
  return pod;
}

/** A copy of a Deployment or ReplicaSet at `revision` (its deployment.kubernetes.io/revision annotation). */
function withRevision(o: SimObject, revision: string): SimObject {
  const next = clone(o);
  next.metadata.annotations = { ...(next.metadata.annotations ?? {}), 'deployment.kubernetes.io/revision': revision };
  return next;
}

/** A pod template without the ReplicaSet's pod-template-hash label: what a Deployment's template is compared as. */
function withoutHash(template: Record<string, unknown>): Record<string, unknown> {
  const meta = rec(template.metadata);
  const { 'pod-template-hash': _hash, ...labels } = rec(meta.labels);
  return { ...template, metadata: { ...meta, labels } };
}

/**
 * A value as kube's semantic equality sees it: a null, an empty map and an empty list are the same as nothing (a
 * template kubectl sends back from a typed object carries `creationTimestamp: null`, `resources: {}`).
 */
function semantic(v: unknown): unknown {
  if (Array.isArray(v)) return v.length === 0 ? undefined : v.map(semantic);
  if (v === null || typeof v !== 'object') return v ?? undefined;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    const y = semantic(x);
    if (y !== undefined) out[k] = y;
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

/** What a pod's status says of the node it runs on: the node's InternalIP. */
function hostStatus(node: SimObject): Rec {
  const ip = String(recs(rec(node.status).addresses).find((a) => a.type === 'InternalIP')?.address ?? '');
  return { hostIP: ip, hostIPs: [{ ip }] };
}

/**
 * The status of a pod just placed on its node, before its kubelet starts it: Pending, its containers being created,
 * not ready, no address of its own yet (a host-network pod has its node's).
 */
function pendingStatus(pod: SimObject, at: string): Rec {
  const status = rec(pod.status);
  if (!rec(pod.spec).hostNetwork) {
    delete status.podIP;
    delete status.podIPs;
  }
  if (status.containerStatuses === undefined) Object.assign(status, newPodStatus(pod, at));
  for (const s of recs(status.containerStatuses)) {
    Object.assign(s, { ready: false, started: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } }, lastState: {} });
    delete s.containerID;
  }
  for (const c of recs(status.conditions)) {
    if (c.type === 'Ready' || c.type === 'ContainersReady') Object.assign(c, { status: 'False', reason: 'ContainersNotReady', lastTransitionTime: at });
    if (c.type === 'PodReadyToStartContainers') Object.assign(c, { status: 'False', lastTransitionTime: at });
  }
  return { ...status, phase: 'Pending', startTime: at };
}

/**
 * The status of a scheduled pod made from a template, before its kubelet starts it: scheduled and initialized, its
 * containers (each as the spec names it) waiting; create() then marks it Pending and not ready, as for any new pod.
 */
function newPodStatus(pod: SimObject, at: string): Rec {
  const cond = (type: string, status: string): Rec => ({ type, status, lastProbeTime: null, lastTransitionTime: at });
  return {
    conditions: [cond('PodReadyToStartContainers', 'False'), cond('Initialized', 'True'), cond('Ready', 'False'), cond('ContainersReady', 'False'), cond('PodScheduled', 'True')],
    containerStatuses: recs(rec(pod.spec).containers).map((c) => ({ name: c.name, image: c.image, imageID: '', ready: false, started: false, restartCount: 0, state: {}, lastState: {} })),
    qosClass: 'Burstable',
  };
}
