// The remembered key → RV map, the "newer" rule of reference §5.4, and the object shaping before storage.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { prepareObject, objectKey, splitKey } from '../../../src/roles/synchro/prune.js';
import { isNewer, VersionMap } from '../../../src/roles/synchro/versions.js';

describe('VersionMap', () => {
  it('round-trips numeric and non-numeric RVs', () => {
    const m = VersionMap.from([['a', '12'], ['b', 'x-1'], ['c', '007'], ['d', '12345678901234567890']]);
    expect(m.get('a')).toBe('12');
    expect(m.get('b')).toBe('x-1');
    expect(m.get('c')).toBe('007');
    expect(m.get('d')).toBe('12345678901234567890');
    expect(m.size).toBe(4);
  });

  it('a sweep finds the keys a relist did not see', () => {
    const m = VersionMap.from([['a', '1'], ['b', '1'], ['c', '1']]);
    m.beginSweep();
    m.touch('a', '2');
    m.touch('d', '1');
    expect(m.unseen().sort()).toEqual(['b', 'c']);
    m.set('b', '5'); // a watch event does not count as seen by the list
    expect(m.unseen().sort()).toEqual(['b', 'c']);
    m.beginSweep();
    expect(m.unseen().sort()).toEqual(['a', 'b', 'c', 'd']);
  });

  it('keeps UTF-8 keys, long keys and many deletions (compaction) intact', () => {
    const m = new VersionMap();
    const long = `ns/${'x'.repeat(600)}`;
    m.set('ns/ünïcødé', '1');
    m.set(long, '2');
    for (let i = 0; i < 20_000; i++) m.set(`ns/pod-${i}`, String(i + 10));
    for (let i = 0; i < 20_000; i += 3) m.delete(`ns/pod-${i}`);
    expect(m.get('ns/ünïcødé')).toBe('1');
    expect(m.get(long)).toBe('2');
    expect(m.get('ns/pod-3')).toBeUndefined();
    expect(m.get('ns/pod-4')).toBe('14');
    expect(m.size).toBe(2 + 20_000 - 6667);
    expect([...m.keys()].length).toBe(m.size);
  });

  it('keeps RVs at the edge of its 48-bit field, cluster-scoped keys and odd namespaces apart', () => {
    const edge = String(2 ** 48 - 1);
    const past = String(2 ** 48);
    const m = VersionMap.from([['ns/a', edge], ['ns/b', past], ['ns/c', String(2 ** 48 - 2)], ['a', '1'], ['/a', '2'], ['ns/a/b', '3'], ['ns/', '4'], ['ns', '5']]);
    expect([m.get('ns/a'), m.get('ns/b'), m.get('ns/c')]).toEqual([edge, past, String(2 ** 48 - 2)]);
    expect([m.get('a'), m.get('/a'), m.get('ns/a/b'), m.get('ns/'), m.get('ns')]).toEqual(['1', '2', '3', '4', '5']);
    expect(m.get('other/a')).toBeUndefined();
    expect([...m.keys()].sort()).toEqual(['/a', 'a', 'ns', 'ns/', 'ns/a', 'ns/a/b', 'ns/b', 'ns/c']);
    m.set('ns/a', '7');
    expect(m.get('ns/a')).toBe('7');
  });

  it('a key left untouched for hundreds of sweeps is still unseen (the generation wraps)', () => {
    const m = VersionMap.from([['ns/kept', '1'], ['ns/gone', '1']]);
    for (let sweep = 0; sweep < 600; sweep++) {
      m.beginSweep();
      m.touch('ns/kept', String(sweep + 2));
      expect(m.unseen()).toEqual(['ns/gone']);
    }
  });

  it('compaction drops the namespaces of deleted keys and keeps the rest as they were', () => {
    // A cluster whose CI makes a namespace per run: 20 rounds of 5,000 namespaces come and go.
    const m = new VersionMap();
    m.set('kept/pod', 'x-1');
    m.set('kept/other', '9');
    for (let round = 0; round < 20; round++) {
      for (let i = 0; i < 5000; i++) m.set(`ephemeral-${round}-${i}/pod`, String(i + 1));
      for (let i = 0; i < 5000; i++) m.delete(`ephemeral-${round}-${i}/pod`);
    }
    m.beginSweep();
    m.touch('kept/other', '10');
    // Interned: the live ones and those of deleted records not yet compacted away (under a quarter of the arena).
    expect((m as unknown as { nsNames: string[] }).nsNames.length).toBeLessThan(1000);
    expect(m.size).toBe(2);
    expect([m.get('kept/pod'), m.get('kept/other')]).toEqual(['x-1', '10']);
    expect(m.unseen()).toEqual(['kept/pod']);
    expect(m.get('ephemeral-1/pod')).toBeUndefined();
  });

  it('behaves like a Map under any sequence of operations (property)', () => {
    type Op = { op: 'set' | 'touch' | 'delete' | 'sweep'; key: string; rv: string };
    const op = fc.record({
      op: fc.constantFrom('set', 'touch', 'delete', 'sweep') as fc.Arbitrary<Op['op']>,
      key: fc.oneof(fc.constantFrom('a', 'b', 'ns/c', 'ns/d', 'é/ü', '/a', 'ns/', 'ns/c/d', 'ns'), fc.string({ minLength: 1, maxLength: 8 })),
      rv: fc.oneof(fc.integer({ min: 0, max: 1e12 }).map(String), fc.constantFrom('x1', '007', '', String(2 ** 48 - 1), String(2 ** 48))),
    });
    fc.assert(fc.property(fc.array(op, { maxLength: 300 }), (ops) => {
      const m = new VersionMap();
      const ref = new Map<string, string>();
      let seen = new Set<string>();
      for (const o of ops) {
        if (o.op === 'set') {
          if (!ref.has(o.key)) seen.add(o.key);
          m.set(o.key, o.rv);
          ref.set(o.key, o.rv);
        } else if (o.op === 'touch') {
          m.touch(o.key, o.rv);
          ref.set(o.key, o.rv);
          seen.add(o.key);
        } else if (o.op === 'delete') {
          expect(m.delete(o.key)).toBe(ref.delete(o.key));
        } else {
          m.beginSweep();
          seen = new Set();
        }
      }
      expect(m.size).toBe(ref.size);
      for (const [k, v] of ref) expect(m.get(k)).toBe(v);
      expect([...m.keys()].sort()).toEqual([...ref.keys()].sort());
      expect(m.unseen().sort()).toEqual([...ref.keys()].filter((k) => !seen.has(k)).sort());
    }));
  });

  it('maps used in turn (they share the buffer keys are encoded in) keep apart, long keys growing it included', () => {
    const op = fc.record({
      map: fc.integer({ min: 0, max: 3 }),
      del: fc.boolean(),
      key: fc.oneof(fc.constantFrom('a', 'ns/c', 'ns/d', 'é/ü'), fc.string({ minLength: 1, maxLength: 8 }), fc.constant(`ns/${'long-'.repeat(200)}`)),
      rv: fc.integer({ min: 0, max: 1e9 }).map(String),
    });
    fc.assert(fc.property(fc.array(op, { maxLength: 300 }), (ops) => {
      const maps = [new VersionMap(), new VersionMap(), new VersionMap(), new VersionMap()];
      const refs = maps.map(() => new Map<string, string>());
      for (const o of ops) {
        if (o.del) expect(maps[o.map]!.delete(o.key)).toBe(refs[o.map]!.delete(o.key));
        else {
          maps[o.map]!.set(o.key, o.rv);
          refs[o.map]!.set(o.key, o.rv);
        }
        // A lookup in another map between: what it encodes must not leak into this one's next operation.
        maps[(o.map + 1) % 4]!.get(o.key);
      }
      maps.forEach((m, i) => {
        expect([...m.keys()].sort()).toEqual([...refs[i]!.keys()].sort());
        for (const [k, v] of refs[i]!) expect(m.get(k)).toBe(v);
      });
    }));
  });
});

describe('isNewer (reference §5.4)', () => {
  it('unknown → write; equal → no write; numerically greater → write; smaller → no write', () => {
    expect(isNewer('5', undefined)).toBe(true);
    expect(isNewer('5', '5')).toBe(false);
    expect(isNewer('10', '9')).toBe(true);
    expect(isNewer('9', '10')).toBe(false);
  });
  it('non-numeric RVs: any difference is newer', () => {
    expect(isNewer('b', 'a')).toBe(true);
    expect(isNewer('a', 'a')).toBe(false);
  });
});

describe('prepareObject', () => {
  const pod = () => ({
    metadata: {
      name: 'p', namespace: 'ns', resourceVersion: '3', managedFields: [{ manager: 'kubectl' }],
      annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}', keep: 'me' },
    },
    spec: {},
  });

  it('prunes managedFields and last-applied, adds the cluster annotation, kind and apiVersion', () => {
    const o = prepareObject(pod(), 'c1', 'v1', 'Pod', { managedFields: true, lastAppliedConfiguration: true })!;
    expect(o.apiVersion).toBe('v1');
    expect(o.kind).toBe('Pod');
    expect(o.metadata.managedFields).toBeUndefined();
    expect(o.metadata.annotations).toEqual({ keep: 'me', 'shadow.clusterpedia.io/cluster-name': 'c1' });
  });

  it('keeps them when pruning is off', () => {
    const o = prepareObject(pod(), 'c1', 'apps/v1', 'Deployment', { managedFields: false, lastAppliedConfiguration: false })!;
    expect(o.metadata.managedFields).toHaveLength(1);
    expect(o.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration']).toBe('{}');
  });

  it('adds annotations to an object that had none; refuses an object without a name', () => {
    expect(prepareObject({ metadata: { name: 'n' } }, 'c', 'v1', 'Namespace', { managedFields: true, lastAppliedConfiguration: true })!.metadata.annotations)
      .toEqual({ 'shadow.clusterpedia.io/cluster-name': 'c' });
    expect(prepareObject({ metadata: {} }, 'c', 'v1', 'Pod', { managedFields: true, lastAppliedConfiguration: true })).toBeUndefined();
  });

  it('with secretData, a core Secret keeps its keys without values, and loses stringData and last-applied whatever the pruning', () => {
    const secret = () => ({
      metadata: { name: 's', namespace: 'ns', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"data":{"password":"aHVudGVyMg=="}}' } },
      type: 'Opaque', data: { password: 'aHVudGVyMg==', user: 'YWRtaW4=' }, stringData: { token: 'plain' },
    });
    const o = prepareObject(secret(), 'c1', 'v1', 'Secret', { managedFields: false, lastAppliedConfiguration: false, secretData: true })! as Record<string, unknown>;
    expect(o.data).toEqual({ password: '', user: '' });
    expect(o).not.toHaveProperty('stringData');
    expect(o.type).toBe('Opaque');
    expect((o.metadata as { annotations: Record<string, string> }).annotations).toEqual({ 'shadow.clusterpedia.io/redacted': 'data', 'shadow.clusterpedia.io/cluster-name': 'c1' });
    expect(JSON.stringify(o)).not.toContain('aHVudGVyMg');
    // Off, or not a core Secret (a custom kind of the same name): as it came.
    expect((prepareObject(secret(), 'c1', 'v1', 'Secret', { managedFields: true, lastAppliedConfiguration: true }) as Record<string, unknown>).data).toEqual({ password: 'aHVudGVyMg==', user: 'YWRtaW4=' });
    expect((prepareObject(secret(), 'c1', 'example.io/v1', 'Secret', { managedFields: true, lastAppliedConfiguration: true, secretData: true }) as Record<string, unknown>).stringData).toEqual({ token: 'plain' });
  });

  it('keys: ns/name or name; split back', () => {
    expect(objectKey({ metadata: { name: 'a', namespace: 'b' } })).toBe('b/a');
    expect(objectKey({ metadata: { name: 'a' } })).toBe('a');
    expect(splitKey('b/a')).toEqual({ namespace: 'b', name: 'a' });
    expect(splitKey('a')).toEqual({ namespace: '', name: 'a' });
  });
});
