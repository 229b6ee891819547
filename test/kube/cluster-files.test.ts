// Reading PediaCluster and ClusterSyncResources documents from a --clusters file.
import { describe, expect, it } from 'vitest';
import { parseClusterDocuments } from '../../src/kube/cluster-files.js';
import { recordingLogger } from '../support/log.js';

const pc = (name: string, apiserver: string): string => `apiVersion: cluster.clusterpedia.io/v1alpha2
kind: PediaCluster
metadata: {name: ${name}}
spec: {apiserver: "${apiserver}", tokenData: dG9rZW4=}
`;

describe('parseClusterDocuments', () => {
  it('takes a name once per file, as the API would: the first document is used and the second is said in the log', () => {
    const log = recordingLogger<{ level: number; msg: string; name?: string; kind?: string; file?: string }>();
    const out = parseClusterDocuments([pc('east', 'https://10.0.0.1:6443'), pc('west', 'https://10.0.0.2:6443'), pc('east', 'https://10.0.0.9:6443')].join('---\n'), 'f.yaml', log.logger);
    expect([...out.clusters.keys()]).toEqual(['east', 'west']);
    expect(out.clusters.get('east')?.spec.apiserver).toBe('https://10.0.0.1:6443');
    expect(log.lines).toEqual([expect.objectContaining({ level: 40, msg: 'defined twice in the file; the first one is used', name: 'east', kind: 'PediaCluster', file: 'f.yaml' })]);
  });

  it('reads a List\'s items, and says what it leaves out', () => {
    const log = recordingLogger<{ level: number; msg: string }>();
    const list = `kind: PediaClusterList
items:
- {kind: PediaCluster, metadata: {name: a}, spec: {}}
- {kind: ClusterSyncResources, metadata: {name: r}, spec: {syncResources: []}}
- {kind: PediaCluster, metadata: {}, spec: {}}
- {kind: ConfigMap, metadata: {name: c}}
`;
    const out = parseClusterDocuments(list, 'l.yaml', log.logger);
    expect([...out.clusters.keys()]).toEqual(['a']);
    expect([...out.syncResources.keys()]).toEqual(['r']);
    expect(log.lines.map((l) => l.msg)).toEqual(['document without metadata.name ignored', 'document of an unknown kind ignored']);
  });

  it('leaves out a PediaCluster or ClusterSyncResources whose name the API would refuse, and says why', () => {
    const log = recordingLogger<{ level: number; msg: string; name?: string; problems?: string[] }>();
    const docs = [pc('East_1', 'https://a'), pc('"a,b"', 'https://b'), pc(`${'x'.repeat(254)}`, 'https://c'), pc('east-1.fleet', 'https://d'), 'kind: ClusterSyncResources\nmetadata: {name: "Pods "}\nspec: {}\n'];
    const out = parseClusterDocuments(docs.join('---\n'), 'n.yaml', log.logger);
    expect([...out.clusters.keys()]).toEqual(['east-1.fleet']);
    expect(out.syncResources.size).toBe(0);
    expect(log.lines.map((l) => l.name)).toEqual(['East_1', 'a,b', 'x'.repeat(254), 'Pods ']);
    expect(log.lines.every((l) => l.msg === 'document ignored: metadata.name is not a valid name')).toBe(true);
    expect(log.lines[0]?.problems?.[0]).toMatch(/^a lowercase RFC 1123 subdomain must consist of/);
    expect(log.lines[2]?.problems).toContain('must be no more than 253 characters');
  });
});
