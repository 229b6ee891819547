// Conditions of reference §4.3: reasons, messages, the Ready summary, stable lastTransitionTime.
import { describe, expect, it } from 'vitest';
import { buildConditions, MESSAGES, type ClusterConditionState } from '../../../src/roles/synchro/conditions.js';

const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-01T00:00:10.000Z';
const pick = (c: ReturnType<typeof buildConditions>, type: string): Record<string, string> => {
  const x = c.find((y) => y.type === type)!;
  return { status: x.status, reason: x.reason, message: x.message };
};

describe('buildConditions', () => {
  it('running and healthy → all True, Ready True', () => {
    const c = buildConditions({ validated: { ok: true }, synchro: { phase: 'Running' }, health: { status: 'True', message: MESSAGES.healthy } }, undefined, T0);
    expect(c.map((x) => x.type)).toEqual(['Validated', 'SynchroRunning', 'ClusterHealthy', 'Ready']);
    expect(pick(c, 'Validated')).toEqual({ status: 'True', reason: 'Validated', message: '' });
    expect(pick(c, 'SynchroRunning')).toEqual({ status: 'True', reason: 'Running', message: 'cluster synchro is running' });
    expect(pick(c, 'ClusterHealthy')).toEqual({ status: 'True', reason: 'Healthy', message: 'cluster health responded with ok' });
    expect(pick(c, 'Ready')).toEqual({ status: 'True', reason: 'Ready', message: '' });
  });

  it('invalid config → Validated False/InvalidConfig, SynchroRunning copies it, health Unknown/MonitorStop', () => {
    const s: ClusterConditionState = { validated: { ok: false, reason: 'InvalidConfig', message: 'invalid cluster config: Cluster APIServer Endpoint is required' }, synchro: { phase: 'None' }, health: { status: 'Unknown', message: '' } };
    const c = buildConditions(s, undefined, T0);
    expect(pick(c, 'Validated')).toEqual({ status: 'False', reason: 'InvalidConfig', message: 'invalid cluster config: Cluster APIServer Endpoint is required' });
    expect(pick(c, 'SynchroRunning')).toEqual({ status: 'False', reason: 'InvalidConfig', message: 'invalid cluster config: Cluster APIServer Endpoint is required' });
    expect(pick(c, 'ClusterHealthy')).toEqual({ status: 'Unknown', reason: 'MonitorStop', message: 'wait cluster synchro' });
    expect(pick(c, 'Ready')).toEqual({ status: 'False', reason: 'NotReady', message: 'Validated condition is False, reason is InvalidConfig' });
  });

  it('unreachable member → ClusterHealthy False/NotReachable with the probe error, Ready names it', () => {
    const c = buildConditions({ validated: { ok: true }, synchro: { phase: 'Running' }, health: { status: 'False', reason: 'NotReachable', message: 'GET /readyz: ECONNREFUSED' } }, undefined, T0);
    expect(pick(c, 'ClusterHealthy')).toEqual({ status: 'False', reason: 'NotReachable', message: 'GET /readyz: ECONNREFUSED' });
    expect(pick(c, 'Ready')).toEqual({ status: 'False', reason: 'NotReady', message: 'ClusterHealthy condition is False, reason is NotReachable' });
  });

  it('synchro phases', () => {
    const phase = (synchro: ClusterConditionState['synchro']): Record<string, string> =>
      pick(buildConditions({ validated: { ok: true }, synchro, health: { status: 'Unknown', message: MESSAGES.waitMonitor } }, undefined, T0), 'SynchroRunning');
    expect(phase({ phase: 'None' })).toEqual({ status: 'False', reason: 'WaitInit', message: 'pediacluster is validated' });
    expect(phase({ phase: 'Pending' })).toEqual({ status: 'False', reason: 'Pending', message: 'cluster synchro is created, wait running' });
    expect(phase({ phase: 'Shutdown' })).toEqual({ status: 'False', reason: 'Shutdown', message: 'cluster synchro is shutdown' });
    expect(phase({ phase: 'InitialFailed', message: 'boom' })).toEqual({ status: 'False', reason: 'InitialFailed', message: 'boom' });
  });

  it('a missing sync resources reference is only a warning', () => {
    const c = buildConditions({ validated: { ok: true, warning: MESSAGES.syncResourceRefNotFound }, synchro: { phase: 'Running' }, health: { status: 'True', message: MESSAGES.healthy } }, undefined, T0);
    expect(pick(c, 'Validated')).toEqual({ status: 'True', reason: 'Validated', message: 'Warning: sync resource ref is not found' });
    expect(pick(c, 'Ready').status).toBe('True');
  });

  it('lastTransitionTime moves only when the status changes', () => {
    const healthy: ClusterConditionState = { validated: { ok: true }, synchro: { phase: 'Running' }, health: { status: 'True', message: MESSAGES.healthy } };
    const first = buildConditions(healthy, undefined, T0);
    const same = buildConditions(healthy, first, T1);
    expect(same.every((c) => c.lastTransitionTime === T0)).toBe(true);
    const down = buildConditions({ ...healthy, health: { status: 'False', reason: 'NotReachable', message: 'x' } }, same, T1);
    expect(down.find((c) => c.type === 'ClusterHealthy')!.lastTransitionTime).toBe(T1);
    expect(down.find((c) => c.type === 'Validated')!.lastTransitionTime).toBe(T0);
  });
});
