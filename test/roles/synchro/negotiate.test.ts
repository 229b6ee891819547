// Resource negotiation: version choice V1–V13 (reference §9.4, adapted) and request expansion over discovery.
import { describe, expect, it } from 'vitest';
import type { Discovery, DiscoveredResource } from '../../../src/kube/discovery.js';
import { negotiate, negotiateVersions } from '../../../src/roles/synchro/negotiate.js';
import { syncResourcesProblem } from '../../../src/roles/synchro/cluster-manager.js';

describe('negotiateVersions: built-in kinds (requested versions ignored, first served version the scheme knows)', () => {
  it('V1 want [v1], served [v1] → [v1]', () => expect(negotiateVersions('apps', true, ['v1'], ['v1'])).toEqual(['v1']));
  it('V2 want [v1beta1], served [v1,v1beta2,v1beta1] → [v1]', () => expect(negotiateVersions('apps', true, ['v1beta1'], ['v1', 'v1beta2', 'v1beta1'])).toEqual(['v1']));
  it('V3 want [v1alpha1], served [v1beta2,v1beta1] → [v1beta2]', () => expect(negotiateVersions('apps', true, ['v1alpha1'], ['v1beta2', 'v1beta1'])).toEqual(['v1beta2']));
  it('V4 want [], served [v2,v1,v1beta2] → [v1]', () => expect(negotiateVersions('apps', true, [], ['v2', 'v1', 'v1beta2'])).toEqual(['v1']));
  it('V5 served [v2,v1beta2] → [v1beta2]', () => expect(negotiateVersions('apps', true, [], ['v2', 'v1beta2'])).toEqual(['v1beta2']));
  it('V6 served [v2] → [v2] (adapted: Clusterpedia refused a version it could not convert)', () => expect(negotiateVersions('apps', true, [], ['v2'])).toEqual(['v2']));
  it('V7 served [v2,v1alpha2] → [v2], the preferred (adapted, as V6)', () => expect(negotiateVersions('apps', true, [], ['v2', 'v1alpha2'])).toEqual(['v2']));
  it('a 1.34 member\'s resource.k8s.io: [v1,v1beta2,v1beta1] → [v1]; without the betas still [v1]', () => {
    expect(negotiateVersions('resource.k8s.io', true, [], ['v1', 'v1beta2', 'v1beta1'])).toEqual(['v1']);
    expect(negotiateVersions('resource.k8s.io', true, [], ['v1'])).toEqual(['v1']);
  });
  it('a built-in the member serves no version of → nothing', () => expect(negotiateVersions('apps', true, [], [])).toEqual([]));
});

describe('negotiateVersions: custom resources', () => {
  it('V8 want [], served [v1beta2,v1beta1] → the preferred only (adapted: Clusterpedia took both)', () => {
    expect(negotiateVersions('example.io', false, [], ['v1beta2', 'v1beta1'])).toEqual(['v1beta2']);
  });
  it('V9 want [], five served → the preferred only (adapted: Clusterpedia took the first 3)', () => {
    expect(negotiateVersions('example.io', false, undefined, ['v2', 'v1', 'v1beta2', 'v1beta1', 'v1alpha1'])).toEqual(['v2']);
  });
  it('V10 want [v1beta2] → [v1beta2]', () => expect(negotiateVersions('example.io', false, ['v1beta2'], ['v1', 'v1beta2', 'v1beta1'])).toEqual(['v1beta2']));
  it('V11 want [v1beta2,v1alpha2] → both, in served order', () => {
    expect(negotiateVersions('example.io', false, ['v1alpha2', 'v1beta2'], ['v1beta2', 'v1beta1', 'v1alpha2'])).toEqual(['v1beta2', 'v1alpha2']);
  });
  it('V12 want [v2beta1,v1alpha2] → [v1alpha2]', () => expect(negotiateVersions('example.io', false, ['v2beta1', 'v1alpha2'], ['v1beta2', 'v1alpha2'])).toEqual(['v1alpha2']));
  it('V13 want [v2beta1] → nothing (skipped)', () => expect(negotiateVersions('example.io', false, ['v2beta1'], ['v1beta2', 'v1alpha2'])).toEqual([]));
  it('want [*] → every served version', () => expect(negotiateVersions('example.io', false, ['*'], ['v2', 'v1'])).toEqual(['v2', 'v1']));
});

const lw = ['get', 'list', 'watch'];
function res(group: string, version: string, resource: string, kind: string, extra: Partial<DiscoveredResource> = {}): DiscoveredResource {
  return { group, version, resource, singular: kind.toLowerCase(), kind, namespaced: true, verbs: lw, shortNames: [], categories: [], ...extra };
}

const discovery: Discovery = {
  groups: [
    { name: '', versions: ['v1'], preferredVersion: 'v1' },
    { name: 'apps', versions: ['v1'], preferredVersion: 'v1' },
    { name: 'batch', versions: ['v1'], preferredVersion: 'v1' },
    { name: 'stable.example.com', versions: ['v1', 'v1beta1'], preferredVersion: 'v1' },
    { name: 'metrics.k8s.io', versions: ['v1beta1'], preferredVersion: 'v1beta1' },
  ],
  resources: [
    res('', 'v1', 'pods', 'Pod', { shortNames: ['po'], categories: ['all'] }),
    res('', 'v1', 'namespaces', 'Namespace', { namespaced: false }),
    res('', 'v1', 'bindings', 'Binding', { verbs: ['create'] }),
    res('apps', 'v1', 'deployments', 'Deployment'),
    res('apps', 'v1', 'replicasets', 'ReplicaSet'),
    res('batch', 'v1', 'jobs', 'Job'),
    res('stable.example.com', 'v1', 'crontabs', 'CronTab', { shortNames: ['ct'], categories: ['all'] }),
    res('stable.example.com', 'v1beta1', 'crontabs', 'CronTab'),
    res('metrics.k8s.io', 'v1beta1', 'pods', 'PodMetrics', { verbs: ['get', 'list'] }),
  ],
  crds: [{ group: 'stable.example.com', plural: 'crontabs', kind: 'CronTab', servedVersions: ['v1', 'v1beta1'] }],
};
const ids = (r: { group: string; version: string; resource: string }[]): string[] => r.map((x) => `${x.group}/${x.version}/${x.resource}`);

describe('negotiate', () => {
  it('matches names case-insensitively, singular or plural, or by kind', () => {
    const r = negotiate([{ group: 'apps', resources: ['Deployment', 'REPLICASETS'] }, { group: '', resources: ['pod'] }], false, discovery);
    expect(ids(r.resources)).toEqual(['apps/v1/deployments', 'apps/v1/replicasets', '/v1/pods']);
  });

  it('eventsInvolvedResources: core/v1 events filtered to the named kinds, unless events are synced whole or not served', () => {
    const withEvents: Discovery = { ...discovery, resources: [...discovery.resources, res('', 'v1', 'events', 'Event')] };
    const r = negotiate([
      { group: '', resources: ['pods', 'namespaces'], eventsInvolvedResources: ['pod'] },
      { group: 'apps', resources: ['*'], eventsInvolvedResources: ['*'] },
      { group: 'batch', resources: ['jobs'] },
    ], false, withEvents);
    expect(r.resources.at(-1)).toEqual({ group: '', version: 'v1', resource: 'events', kind: 'Event', namespaced: true, involvedKinds: ['Deployment', 'Pod', 'ReplicaSet'] });
    expect(negotiate([{ group: '', resources: ['pods', 'events'], eventsInvolvedResources: ['pods'] }], false, withEvents).resources.map((x) => x.involvedKinds)).toEqual([undefined, undefined]);
    expect(ids(negotiate([{ group: '', resources: ['pods'], eventsInvolvedResources: ['pods'] }], false, discovery).resources)).toEqual(['/v1/pods']);
    expect(ids(negotiate([{ group: '', resources: ['pods'], eventsInvolvedResources: ['nodes'] }], false, withEvents).resources)).toEqual(['/v1/pods']);
  });

  it('skips what cannot be listed and watched, and reports unknown names', () => {
    const r = negotiate([{ group: '', resources: ['bindings', 'nope'] }, { group: 'metrics.k8s.io', resources: ['pods'] }, { group: 'gone.io', resources: ['x'] }], false, discovery);
    expect(r.resources).toEqual([]);
    expect(r.unmatched).toEqual(['/nope', 'gone.io:x']);
  });

  it('resource * takes every listable resource of the group', () => {
    expect(ids(negotiate([{ group: 'apps', resources: ['*'] }], false, discovery).resources)).toEqual(['apps/v1/deployments', 'apps/v1/replicasets']);
  });

  it('group * takes everything listable and watchable', () => {
    expect(ids(negotiate([{ group: '*', resources: ['*'] }], false, discovery).resources)).toEqual([
      '/v1/pods', '/v1/namespaces', 'apps/v1/deployments', 'apps/v1/replicasets', 'batch/v1/jobs', 'stable.example.com/v1/crontabs',
    ]);
  });

  it('CRDs: preferred version by default, requested versions when given', () => {
    expect(ids(negotiate([{ group: 'stable.example.com', resources: ['crontabs'] }], false, discovery).resources)).toEqual(['stable.example.com/v1/crontabs']);
    expect(ids(negotiate([{ group: 'stable.example.com', versions: ['v1beta1'], resources: ['crontab'] }], false, discovery).resources)).toEqual(['stable.example.com/v1beta1/crontabs']);
    expect(ids(negotiate([{ group: 'stable.example.com', versions: ['*'], resources: ['crontabs'] }], false, discovery).resources)).toEqual(['stable.example.com/v1/crontabs', 'stable.example.com/v1beta1/crontabs']);
  });

  it('syncAllCustomResources adds every CRD, deduplicated with explicit requests', () => {
    const r = negotiate([{ group: 'stable.example.com', resources: ['crontabs'] }, { group: '', resources: ['pods'] }], true, discovery);
    expect(ids(r.resources)).toEqual(['stable.example.com/v1/crontabs', '/v1/pods']);
  });

  it('an aggregated API (a group neither built in nor a CRD) syncs its preferred version, or those requested', () => {
    const aggregated: Discovery = {
      ...discovery,
      groups: [...discovery.groups, { name: 'apps.openshift.io', versions: ['v1', 'v1beta1'], preferredVersion: 'v1' }],
      resources: [...discovery.resources, res('apps.openshift.io', 'v1', 'deploymentconfigs', 'DeploymentConfig'), res('apps.openshift.io', 'v1beta1', 'deploymentconfigs', 'DeploymentConfig')],
    };
    expect(ids(negotiate([{ group: 'apps.openshift.io', resources: ['deploymentconfigs'] }], false, aggregated).resources)).toEqual(['apps.openshift.io/v1/deploymentconfigs']);
    expect(ids(negotiate([{ group: 'apps.openshift.io', versions: ['*'], resources: ['*'] }], false, aggregated).resources)).toEqual(['apps.openshift.io/v1/deploymentconfigs', 'apps.openshift.io/v1beta1/deploymentconfigs']);
    expect(ids(negotiate([{ group: '*', resources: ['*'] }], false, aggregated).resources)).toContain('apps.openshift.io/v1/deploymentconfigs');
    // Without a readable CRD list the rule is the same.
    expect(ids(negotiate([{ group: 'apps.openshift.io', resources: ['deploymentconfigs'] }], false, { ...aggregated, crds: undefined }).resources)).toEqual(['apps.openshift.io/v1/deploymentconfigs']);
  });

  it('built-in versions requested are ignored', () => {
    expect(ids(negotiate([{ group: 'apps', versions: ['v1beta1'], resources: ['deployments'] }], false, discovery).resources)).toEqual(['apps/v1/deployments']);
  });

  it('carries kind and scope', () => {
    const [ns] = negotiate([{ group: '', resources: ['namespaces'] }], false, discovery).resources;
    expect(ns).toEqual({ group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false });
  });

  it('carries the names the member gives a resource kube does not build in, for the status; a built-in\'s none', () => {
    const [pods, crontabs] = negotiate([{ group: '', resources: ['pods'] }, { group: 'stable.example.com', resources: ['crontabs'] }], false, discovery).resources;
    expect(pods).not.toHaveProperty('names');
    expect(crontabs).toMatchObject({ version: 'v1', names: { singularName: 'crontab', shortNames: ['ct'], categories: ['all'] } });
  });
});

describe('syncResourcesProblem: the shape the CRD schema would enforce, for clusters from files', () => {
  it.each([
    [[{ group: '', resources: ['pods'], versions: ['v1'], eventsInvolvedResources: ['*'] }], undefined],
    [[], undefined],
    [undefined, undefined],
    [{ group: '' }, 'x: must be a list'],
    [['pods'], 'x[0]: must be an object with group and resources'],
    [[{ resources: ['pods'] }], 'x[0].group: must be a string ("" for the core group)'],
    [[{ group: '', resources: 'pods' }], 'x[0].resources: must be a non-empty list of names'],
    [[{ group: '', resources: [] }], 'x[0].resources: must be a non-empty list of names'],
    [[{ group: '', resources: [1] }], 'x[0].resources: must be a non-empty list of names'],
    [[{ group: 'apps', resources: ['*'], versions: 'v1' }], 'x[0].versions: must be a list of strings'],
    [[{ group: '', resources: ['pods'] }, { group: '', resources: ['pods'], eventsInvolvedResources: 'pods' }], 'x[1].eventsInvolvedResources: must be a list of strings'],
  ])('%j → %s', (list, problem) => {
    expect(syncResourcesProblem(list, 'x')).toBe(problem);
  });
});
