// `show clusters`: the PROGRESS and MESSAGE columns say what the resources are doing, not only whether a list runs.
import { describe, expect, it } from 'vitest';
import { renderClusters } from '../../src/cmd/show.js';
import type { ClusterReport, ResourceReport } from '../../src/cmd/show-model.js';

const NOW = Date.parse('2026-12-02T07:00:00Z');
const READY = [
  { type: 'Validated', status: 'True', reason: 'Validated', message: '' },
  { type: 'SynchroRunning', status: 'True', reason: 'Running', message: '' },
  { type: 'ClusterHealthy', status: 'True', reason: 'Healthy', message: '' },
  { type: 'Ready', status: 'True', reason: 'Ready', message: '' },
];

function resource(resource: string, status: string, o: Partial<ResourceReport> = {}): ResourceReport {
  return { cluster: 'prod', group: '', version: 'v1', resource, kind: resource, status, reason: '', message: '', initialListPhase: false, count: 3, bytes: 300, ...o };
}

/** The one data row of the table, as header → cell. */
function row(resources: ResourceReport[], conditions = READY): Record<string, string> {
  const report: ClusterReport = { name: 'prod', apiserver: 'https://prod:6443', version: 'v1.32.0', protocol: 'h2', conditions, resources, objects: 9, bytes: 900, spec: {} };
  const [head, line] = renderClusters([report], false, NOW).split('\n');
  // Columns are padded to their header here (one row), three spaces apart; the last is not padded.
  const starts = [...head!.matchAll(/\S+( \S+)*/g)].map((m) => [m[0], m.index] as const);
  return Object.fromEntries(starts.map(([h, at], i) => [h, line!.slice(at, starts[i + 1]?.[1] ?? undefined).trim()]));
}

describe('show clusters', () => {
  it('says synced once every resource watches after its initial list', () => {
    const r = row([resource('pods', 'Syncing'), resource('services', 'Syncing'), resource('configmaps', 'Syncing')]);
    expect(r).toMatchObject({ PROTOCOL: 'h2', RESOURCES: '3/3', PROGRESS: 'synced', MESSAGE: '' });
  });

  it('counts a resource waiting for its turn to list as not done yet', () => {
    const r = row([
      resource('pods', 'Syncing', { initialListPhase: true }), resource('services', 'Pending'),
      resource('configmaps', 'Syncing'), resource('secrets', 'Syncing'),
    ]);
    expect(r.PROGRESS).toBe('[#####-----] 2/4');
  });

  it('shows resources stopped by storage refusing writes as stopped, with the reason, never as synced', () => {
    const full = { reason: 'StorageExpection', message: 'storage writes failing: write: disk is full' };
    const r = row([resource('pods', 'Stop', full), resource('services', 'Stop', full), resource('configmaps', 'Stop', full)]);
    expect(r).toMatchObject({ RESOURCES: '0/3', PROGRESS: '3 stopped' });
    expect(r.MESSAGE).toBe('3 resources: StorageExpection storage writes failing: write: disk is full');
  });

  it('names the one resource that fails, before any stopped one', () => {
    const r = row([
      resource('pods', 'Syncing'), resource('configmaps', 'Stop', { reason: 'SynchroRemoved' }),
      resource('services', 'Error', { reason: 'ResourceWatchFailed', message: 'watch: 403 Forbidden' }),
    ]);
    expect(r).toMatchObject({ PROGRESS: '1 stopped, 1 failing', MESSAGE: 'services: ResourceWatchFailed watch: 403 Forbidden' });
  });

  it('a shutdown (Stop without a reason) is stopped with nothing to report; a failing condition comes first', () => {
    expect(row([resource('pods', 'Stop'), resource('services', 'Stop')])).toMatchObject({ PROGRESS: '2 stopped', MESSAGE: '' });
    const unhealthy = READY.map((c) => (c.type === 'ClusterHealthy' ? { ...c, status: 'False', reason: 'Unhealthy', message: 'cluster health responded with 503' } : c));
    const r = row([resource('pods', 'Stop', { reason: 'Pause' })], unhealthy);
    expect(r).toMatchObject({ PROGRESS: '1 stopped', MESSAGE: 'ClusterHealthy: Unhealthy cluster health responded with 503' });
  });
});
