// `show kubeconfig`: the fleet's context and one per member, their servers under the resources prefix, the CA and user.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fleetKubeconfig } from '../../src/cmd/show-kubeconfig.js';

const dir = mkdtempSync(join(tmpdir(), 'cp-kcfg-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const R = '/apis/clusterpedia.io/v1beta1/resources';
type Config = { clusters: { name: string; cluster: Record<string, unknown> }[]; contexts: { name: string; context: Record<string, unknown> }[]; 'current-context': string };
const make = (clusters: string[], o: Partial<Parameters<typeof fleetKubeconfig>[1]> = {}): Config =>
  fleetKubeconfig(clusters, { server: 'https://cp.example:8443', fleetName: 'clusterpedia', ...o }) as Config;

describe('fleetKubeconfig', () => {
  it('names the fleet first, then the members in order, each context on its cluster, the fleet current', () => {
    const c = make(['prod-us', 'prod-eu']);
    expect(c.clusters.map((x) => [x.name, x.cluster.server])).toEqual([
      ['clusterpedia', `https://cp.example:8443${R}`],
      ['prod-eu', `https://cp.example:8443${R}/clusters/prod-eu`],
      ['prod-us', `https://cp.example:8443${R}/clusters/prod-us`],
    ]);
    expect(c.contexts).toEqual([
      { name: 'clusterpedia', context: { cluster: 'clusterpedia' } },
      { name: 'prod-eu', context: { cluster: 'prod-eu' } },
      { name: 'prod-us', context: { cluster: 'prod-us' } },
    ]);
    expect(c['current-context']).toBe('clusterpedia');
  });

  it('takes the server with or without the resources prefix, under a path (an aggregated API behind a proxy)', () => {
    for (const server of ['https://cp.example:8443', 'https://cp.example:8443/', `https://cp.example:8443${R}`, `https://cp.example:8443${R}/`]) {
      expect(make(['a'], { server }).clusters[1]!.cluster.server, server).toBe(`https://cp.example:8443${R}/clusters/a`);
    }
    expect(make([], { server: 'https://rancher.example/k8s/clusters/c-m-1' }).clusters[0]!.cluster.server).toBe(`https://rancher.example/k8s/clusters/c-m-1${R}`);
  });

  it('puts the user on every context, embeds the CA, or skips verification', () => {
    const ca = join(dir, 'ca.crt');
    writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    const c = make(['a'], { user: 'me', certificateAuthority: ca });
    expect(c.contexts.map((x) => x.context.user)).toEqual(['me', 'me']);
    expect(Buffer.from(String(c.clusters[1]!.cluster['certificate-authority-data']), 'base64').toString()).toContain('BEGIN CERTIFICATE');
    expect(make(['a'], { insecureSkipTlsVerify: true }).clusters.map((x) => x.cluster['insecure-skip-tls-verify'])).toEqual([true, true]);
  });

  it('refuses what would make a broken kubeconfig, naming the flag', () => {
    expect(() => make([], { server: 'cp.example:8443' })).toThrow('--server: the scheme must be https or http, not cp.example:');
    expect(() => make([], { server: 'not a url' })).toThrow('--server: "not a url" is not a URL (https://host:port)');
    expect(() => make([], { server: 'https://cp.example/?x=1' })).toThrow('--server: a URL without query or fragment');
    expect(() => make([], { certificateAuthority: join(dir, 'missing.crt') })).toThrow(/^--certificate-authority: cannot read .*missing\.crt: ENOENT$/);
    const notPem = join(dir, 'key.txt');
    writeFileSync(notPem, 'hello');
    expect(() => make([], { certificateAuthority: notPem })).toThrow('holds no PEM certificate');
    expect(() => make(['clusterpedia'])).toThrow('--fleet-name: a member cluster is named "clusterpedia"; give the fleet\'s context another name');
    expect(make(['clusterpedia'], { fleetName: 'fleet' }).contexts.map((x) => x.name)).toEqual(['fleet', 'clusterpedia']);
  });
});
