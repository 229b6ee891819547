// Pages served as stored go from storage to the socket as bytes (StorageReader.listJoined for resources,
// ListQuery.objectBytes rows for collections): multi-byte UTF-8 must come out intact whatever the page form (joined
// buffers, streamed from a cursor as text, chunked) and across the writer's 64 KB chunks, for resources and
// collections alike, and every other form must still see the same objects — on both backends. Every form is read
// twice: gzipped, as kubectl and fetch ask for it (compress.ts; the bodies here are all over its threshold), and plain.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/lib/log.js';
import { GZIP_THRESHOLD_BYTES } from '../../../src/roles/apiserver/compress.js';
import { openStorage } from '../../../src/storage/open.js';
import type { Storage } from '../../../src/storage/types.js';
import { startTestApiserver, type TestApiserver } from '../../support/apiserver.js';
import { healthyStatus, pod } from '../../support/fixtures.js';
import { freshPostgresDatabase } from '../../support/postgres.js';

const P = '/apis/clusterpedia.io/v1beta1/resources';
/** More than a page read at once (1,000): an unlimited list of them streams from a cursor instead of being joined. */
const N = 1001;
/** ~4.5 KB of 2-, 3- and 4-byte characters per pod: the pods span many 64 KB chunks, splitting characters anywhere. */
const note = (i: number): string => `grüße ✓ 日本語 🚀 #${i} ${'ü✓日🚀'.repeat(450)}`;
const names = Array.from({ length: N }, (_, i) => `intl-${String(i).padStart(4, '0')}`);
const bigNames = Array.from({ length: 20 }, (_, i) => `big-${String(19 - i).padStart(2, '0')}`);

interface Item { metadata: { name: string; annotations: Record<string, string> } }

function expectAllNotes(items: Item[], form: string): void {
  expect(items.map((o) => o.metadata.name).sort(), form).toEqual(names);
  for (const o of items) expect(o.metadata.annotations.note, form).toBe(note(Number(o.metadata.name.slice(5))));
}

/** The storage under test: a fresh SQLite file or PostgreSQL database. */
interface Target { url: string; drop(): Promise<void> }

async function sqliteTarget(): Promise<Target> {
  const dir = await mkdtemp(join(tmpdir(), 'cp-list-bytes-'));
  return { url: `sqlite://${join(dir, 'db.sqlite')}`, drop: () => rm(dir, { recursive: true, force: true }) };
}

function bytesContract(dialect: string, open: () => Promise<Target>): void {
  let target: Target | undefined;
  let storage: Storage;
  let api: TestApiserver;

  /** `gzip`: the client accepts it, as fetch and kubectl do by default; `identity`: it does not. */
  type Encoding = 'gzip' | 'identity';
  const ENCODINGS: Encoding[] = ['gzip', 'identity'];

  /** Fetches a body, checking it came gzipped exactly when asked for and over the threshold (fetch decodes gzip). */
  async function getBody(path: string, accept: string, encoding: Encoding): Promise<ArrayBuffer> {
    const r = await fetch(`${api.base}${path}`, { headers: { accept, 'accept-encoding': encoding } });
    expect(r.status).toBe(200);
    const body = await r.arrayBuffer();
    const gzipped = encoding === 'gzip' && body.byteLength > GZIP_THRESHOLD_BYTES;
    expect(r.headers.get('content-encoding'), `${path} ${encoding}, ${body.byteLength} bytes`).toBe(gzipped ? 'gzip' : null);
    return body;
  }

  async function getJson(path: string, encoding: Encoding, accept = 'application/json'): Promise<Record<string, unknown>> {
    // Decoded strictly: a character cut at a chunk boundary would throw here rather than turn into U+FFFD.
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(await getBody(path, accept, encoding))) as Record<string, unknown>;
  }

  beforeAll(async () => {
    target = await open();
    storage = await openStorage({ url: target.url }, { logger: silentLogger() });
    await storage.migrate();
    const upserts = names.map((name, i) => {
      const p = pod('c1', 'intl', name);
      const meta = (p.object as { metadata: { annotations: Record<string, string> } }).metadata;
      meta.annotations.note = note(i);
      return p;
    });
    await storage.write({ upserts, deletes: [] });
    // ~1 MB each: a page of them is more than one joined buffer (StorageReader.listJoined).
    const big = bigNames.map((name, i) => {
      const p = pod('c1', 'big', name);
      (p.object as { metadata: { annotations: Record<string, string> } }).metadata.annotations.note = `${i} ${'ü'.repeat(500_000)}`;
      return p;
    });
    await storage.write({ upserts: big, deletes: [] });
    await storage.putClusterStatus('c1', healthyStatus('c1', true));
    api = await startTestApiserver(storage, (o) => {
      o.limits.maxPageSize = 0; // an unlimited list streams from a cursor instead of being cut into pages
    });
  });

  afterAll(async () => {
    await api?.stop();
    await storage?.close();
    await target?.drop();
  });

  describe(`objects copied out as bytes: ${dialect}`, () => {
    it('storage hands the same objects with and without objectBytes, bytes equal to their UTF-8', async () => {
      const read = async (objectBytes: boolean, limit: number): Promise<{ text: string[]; bytes: (Buffer | undefined)[] }> => {
        const page = await storage.list({ types: { kind: 'one', group: '', version: 'v1', resource: 'pods' }, namespaces: { op: 'in', values: ['intl'] }, limit, objectBytes });
        const text: string[] = [];
        const bytes: (Buffer | undefined)[] = [];
        for await (const r of page.rows) {
          text.push(r.object);
          bytes.push(r.bytes);
        }
        return { text, bytes };
      };
      // A page read at once comes as bytes; a streamed list as text, whose memory is freed write by write, but for
      // its first chunk of 500 rows on PostgreSQL, whose driver hands over a text column undecoded when asked.
      const firstChunk = dialect === 'postgres' ? 500 : 0;
      for (const [limit, asBytes] of [[100, 100], [0, firstChunk]] as const) {
        const plain = await read(false, limit);
        const raw = await read(true, limit);
        expect(raw.text).toEqual(plain.text);
        expect(plain.bytes.every((b) => b === undefined)).toBe(true);
        const bytesAt = raw.bytes.flatMap((b, i) => (b ? [i] : []));
        expect(bytesAt, `limit ${limit}`).toEqual(Array.from({ length: asBytes }, (_, i) => i));
        raw.bytes.forEach((b, i) => b && expect(b.equals(Buffer.from(plain.text[i] ?? ''))).toBe(true));
      }
    });

    it.each(ENCODINGS)('an unlimited list (streamed from a cursor) keeps every multi-byte character (%s)', async (encoding) => {
      const body = await getJson(`${P}/api/v1/namespaces/intl/pods`, encoding);
      expect(body.kind).toBe('PodList');
      expectAllNotes(body.items as Item[], 'unlimited');
    });

    it.each(ENCODINGS)('limited pages (read at once, joined) walked with limit 1000 and 30 keep them too (%s)', async (encoding) => {
      for (const limit of [1000, 30]) {
        const walked: Item[] = [];
        let token = '';
        do {
          const b = await getJson(`${P}/api/v1/namespaces/intl/pods?limit=${limit}${token ? `&continue=${encodeURIComponent(token)}` : ''}`, encoding);
          walked.push(...(b.items as Item[]));
          token = (b.metadata as { continue?: string }).continue ?? '';
        } while (token);
        expectAllNotes(walked, `limit=${limit} walk`);
      }
    });

    it('a page of large objects, read in several joined buffers, is one list in order, and its rows are counted', async () => {
      const listed = async (): Promise<number> => {
        const text = await (await fetch(`${api.base}/metrics`)).text();
        return Number(/clusterpedia_apiserver_listed_rows_total\{resource="pods"\} (\d+)/.exec(text)?.[1] ?? 0);
      };
      const before = await listed();
      const body = await getJson(`${P}/api/v1/namespaces/big/pods?limit=500`, 'gzip');
      const items = body.items as Item[];
      expect(items.map((o) => o.metadata.name)).toEqual([...bigNames].sort());
      for (const o of items) expect(o.metadata.annotations.note).toBe(`${19 - Number(o.metadata.name.slice(4))} ${'ü'.repeat(500_000)}`);
      expect(body.metadata).toEqual({ resourceVersion: expect.stringMatching(/^\d+$/) });
      expect(await listed()).toBe(before + 20);
      const page = await getJson(`${P}/api/v1/namespaces/big/pods?limit=15`, 'identity');
      expect((page.items as Item[]).length).toBe(15);
      expect((page.metadata as { continue?: string }).continue).toMatch(/^[A-Za-z0-9_-]+$/);
    });

    it.each(ENCODINGS)('a collection, YAML, metadata-only and Table lists still decode the same objects (%s)', async (encoding) => {
      const coll = await getJson('/apis/clusterpedia.io/v1beta1/collectionresources/any?resources=/pods&namespaces=intl', encoding);
      expectAllNotes(coll.items as Item[], 'collection');
      const meta = await getJson(`${P}/api/v1/namespaces/intl/pods`, encoding, 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1');
      expectAllNotes(meta.items as Item[], 'metadata only');
      const table = await getJson(`${P}/api/v1/namespaces/intl/pods?includeObject=Object`, encoding, 'application/json;as=Table;g=meta.k8s.io;v=v1');
      expect((table.rows as unknown[]).length).toBe(N);
      const yaml = new TextDecoder().decode(await getBody(`${P}/api/v1/namespaces/intl/pods`, 'application/yaml', encoding));
      // YAML is rendered from parsed objects; `yaml` used to fold the long note between an emoji's two UTF-16 halves.
      expectAllNotes((parseYaml(yaml) as { items: Item[] }).items, 'yaml');
      // One object of ~14 KB: under the threshold, never compressed.
      const one = await fetch(`${api.base}${P}/clusters/c1/api/v1/namespaces/intl/pods/intl-0007`, { headers: { accept: 'application/yaml', 'accept-encoding': encoding } });
      expect(one.headers.get('content-encoding')).toBeNull();
      expect((parseYaml(await one.text()) as Item).metadata.annotations.note).toBe(note(7));
    });
  });
}

bytesContract('sqlite', sqliteTarget);
bytesContract('postgres', () => freshPostgresDatabase('cp_list_bytes'));
