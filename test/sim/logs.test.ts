// The simulator's pod logs, as kube-apiserver answers …/pods/<name>/log: container rules, options, follow; and kubectl logs.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulatedCluster, type SimCluster, type SimObject } from '../../src/sim/index.js';
import { call } from './helpers.js';

const run = promisify(execFile);
const DAY = 86_400_000;
const iso = (fromNowMs: number): string => new Date(Date.now() + fromNowMs).toISOString().replace(/\.\d+Z$/, 'Z');
let c: SimCluster;

function pod(name: string, containers: string[], status: Record<string, unknown> = { phase: 'Running' }, initContainers: string[] = []): SimObject {
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name, namespace: 'logs' },
    spec: { containers: containers.map((n) => ({ name: n, image: 'busybox' })), ...(initContainers.length > 0 ? { initContainers: initContainers.map((n) => ({ name: n, image: 'busybox' })) } : {}) },
    status,
  };
}

beforeAll(async () => {
  c = await startSimulatedCluster({ pods: 1, token: null });
  c.store.create('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'logs' } });
  c.store.create('pods', pod('one', ['main']));
  c.store.create('pods', pod('two', ['app', 'sidecar'], { phase: 'Running' }, ['setup']));
  c.store.create('pods', pod('waiting', ['main'], { phase: 'Pending' }));
  c.store.create('pods', pod('pulling', ['main'], { phase: 'Pending', containerStatuses: [{ name: 'main', restartCount: 0, state: { waiting: { reason: 'ImagePullBackOff' } } }] }));
  c.store.create('pods', pod('crashing', ['main'], { phase: 'Running', containerStatuses: [{ name: 'main', restartCount: 4, state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { exitCode: 1 } } }] }));
  c.store.create('pods', pod('restarted', ['main'], { phase: 'Running', containerStatuses: [{ name: 'main', restartCount: 2 }] }));
  c.store.create('pods', pod('old', ['main'], { phase: 'Running', containerStatuses: [{
    name: 'main', restartCount: 1, state: { running: { startedAt: iso(-10 * DAY) } }, lastState: { terminated: { exitCode: 137, startedAt: iso(-30 * DAY), finishedAt: iso(-10 * DAY) } },
  }] }));
});
afterAll(() => c?.stop());

async function text(path: string): Promise<{ status: number; body: string; type: string }> {
  const r = await request(c.url + path);
  return { status: r.statusCode, body: await r.body.text(), type: String(r.headers['content-type']) };
}

const L = '/api/v1/namespaces/logs/pods';

describe('pod logs', () => {
  it("answers a one-container pod's lines as text, honouring tailLines, timestamps and limitBytes", async () => {
    const all = await text(`${L}/one/log`);
    expect(all).toMatchObject({ status: 200, type: 'text/plain' });
    expect(all.body.split('\n').slice(0, 2)).toEqual(['logs/one/main line 1', 'logs/one/main line 2']);
    expect(all.body.trim().split('\n')).toHaveLength(10);
    expect((await text(`${L}/one/log?tailLines=2`)).body).toBe('logs/one/main line 9\nlogs/one/main line 10\n');
    // Line i was written i seconds after the pod was created (the store sets creationTimestamp, as kube does).
    const created = Date.parse(String(c.store.get('pods', 'logs', 'one')?.metadata.creationTimestamp));
    expect((await text(`${L}/one/log?tailLines=1&timestamps=true`)).body).toBe(`${new Date(created + 9000).toISOString()} logs/one/main line 10\n`);
    expect((await text(`${L}/one/log?limitBytes=5`)).body).toBe('logs/');
    expect((await text(`${L}/one/log?tailLines=0`)).body).toBe('');
  });

  it('spreads the lines over the time the container ran: a long-running one logged its last line just now', async () => {
    const stamps = (body: string): number[] => body.trim().split('\n').map((l) => Date.parse(l.split(' ')[0] ?? ''));
    const status = (c.store.get('pods', 'logs', 'old')?.status as { containerStatuses: Array<{ state: { running: { startedAt: string } }; lastState: { terminated: { startedAt: string; finishedAt: string } } }> }).containerStatuses[0]!;
    const current = stamps((await text(`${L}/old/log?timestamps=true`)).body);
    expect(current).toHaveLength(10);
    expect(current[0]).toBe(Date.parse(status.state.running.startedAt));
    expect(Date.now() - current[9]!).toBeLessThan(60_000);
    expect(current[9]! - current[8]!).toBeGreaterThan(DAY);
    // So --since=1h finds its last line, and --since of a few days a few lines.
    expect((await text(`${L}/old/log?sinceSeconds=3600`)).body).toBe('logs/old/main line 10\n');
    expect((await text(`${L}/old/log?sinceSeconds=${(3 * DAY) / 1000}`)).body.trim().split('\n')).toHaveLength(3);
    // The previous run logged between its start and its end.
    const previous = stamps((await text(`${L}/old/log?previous=true&timestamps=true`)).body);
    expect(previous[0]).toBe(Date.parse(status.lastState.terminated.startedAt));
    expect(Math.abs(previous[9]! - Date.parse(status.lastState.terminated.finishedAt))).toBeLessThan(10);
  });

  it("answers kube's 400s: a container to choose, one not in the pod, one waiting, no previous one, bad numbers", async () => {
    const choose = await call(c, `${L}/two/log`);
    expect(choose.status).toBe(400);
    expect(choose.body).toMatchObject({ kind: 'Status', reason: 'BadRequest', message: 'a container name must be specified for pod two, choose one of: [app sidecar] or one of the init containers: [setup]' });
    expect((await call(c, `${L}/two/log?container=nope`)).body).toMatchObject({ message: 'container nope is not valid for pod two' });
    expect((await text(`${L}/two/log?container=setup&tailLines=1`)).body).toBe('logs/two/setup line 10\n');
    expect((await call(c, `${L}/waiting/log`)).body).toMatchObject({ code: 400, message: 'container "main" in pod "waiting" is waiting to start: ContainerCreating' });
    expect((await call(c, `${L}/pulling/log`)).body).toMatchObject({ code: 400, message: 'container "main" in pod "pulling" is waiting to start: trying and failing to pull image' });
    // A crash-looping container has run: its log (and the previous one) is there.
    expect((await text(`${L}/crashing/log?tailLines=1`)).body).toBe('logs/crashing/main line 10\n');
    expect((await text(`${L}/crashing/log?tailLines=1&previous=true`)).body).toBe('previous logs/crashing/main line 10\n');
    expect((await call(c, `${L}/one/log?previous=true`)).body).toMatchObject({ code: 400, message: 'previous terminated container "main" in pod "one" not found' });
    expect((await text(`${L}/restarted/log?previous=true&tailLines=1`)).body).toBe('previous logs/restarted/main line 10\n');
    expect((await call(c, `${L}/one/log?tailLines=x`)).body).toMatchObject({ code: 400, message: 'tailLines: Invalid value: "x": must be an integer' });
    expect((await call(c, `${L}/one/log?limitBytes=0`)).body).toMatchObject({ code: 400, message: 'limitBytes: Invalid value: 0: must be greater than 0' });
    expect((await call(c, `${L}/gone/log`)).body).toMatchObject({ code: 404, message: 'pods "gone" not found' });
    expect((await call(c, `${L}/one/log`, { method: 'POST', body: {} })).status).toBe(405);
  });

  it('follows: more lines come until the client goes', async () => {
    const ac = new AbortController();
    const r = await request(`${c.url}${L}/one/log?follow=true&tailLines=1`, { signal: ac.signal });
    let got = '';
    for await (const chunk of r.body) {
      got += String(chunk);
      if (got.split('\n').length > 4) break;
    }
    ac.abort();
    expect(got.split('\n').slice(0, 4)).toEqual(['logs/one/main line 10', 'logs/one/main line 11', 'logs/one/main line 12', 'logs/one/main line 13']);
  });

  it('kubectl logs reads them', async () => {
    const flags = [`--server=${c.url}`, '--kubeconfig=/dev/null'];
    const { stdout } = await run('kubectl', ['logs', '-n', 'logs', 'two', '-c', 'sidecar', '--tail=2', ...flags], { timeout: 40_000 });
    expect(stdout).toBe('logs/two/sidecar line 9\nlogs/two/sidecar line 10\n');
  });
});
