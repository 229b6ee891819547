// PediaCluster and ClusterSyncResources YAML files (--clusters <file|dir>): listing, reading and parsing them, for the
// synchro's file source and for the apiserver that forwards to members.
import { readdir, readFile, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import type { Logger } from 'pino';
import { parseAllDocuments } from 'yaml';
import { dns1123SubdomainProblems } from './label-selector.js';
import type { ClusterSyncResources, PediaCluster } from './pediacluster.js';
import { isObject } from './printers/fields.js';

/** What the files declare, by name. */
export interface ClusterFileContents {
  clusters: Map<string, PediaCluster>;
  syncResources: Map<string, ClusterSyncResources>;
}

/** Parses one file's text. Throws on YAML syntax errors (the caller keeps that file's previous contents). */
export function parseClusterDocuments(text: string, file: string, log: Logger): ClusterFileContents {
  const out: ClusterFileContents = { clusters: new Map(), syncResources: new Map() };
  const docs = parseAllDocuments(text);
  for (const doc of docs) {
    if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors[0]!.message}`);
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) continue;
    const items = isObject(value) && Array.isArray(value.items) && /List$/.test(String(value.kind)) ? value.items : [value];
    for (const item of items) addObject(item, out, file, log);
  }
  return out;
}

function addObject(item: unknown, out: ClusterFileContents, file: string, log: Logger): void {
  if (!isObject(item)) return;
  const name = isObject(item.metadata) ? item.metadata.name : undefined;
  if (typeof name !== 'string' || name === '') {
    log.warn({ file, kind: item.kind }, 'document without metadata.name ignored');
    return;
  }
  // The API would refuse these names (metadata.name of any object is a DNS-1123 subdomain); here they would reach the
  // CLUSTER column, labels and `clusters=a,b` searches, where a comma or a space cannot be told from the syntax.
  const problems = item.kind === 'PediaCluster' || item.kind === 'ClusterSyncResources' ? dns1123SubdomainProblems(name) : [];
  if (problems.length > 0) {
    log.warn({ file, kind: item.kind, name, problems }, 'document ignored: metadata.name is not a valid name');
    return;
  }
  // One name, one object, as in the API; across files, too (the first file wins, cluster-source-file.ts).
  if ((item.kind === 'PediaCluster' && out.clusters.has(name)) || (item.kind === 'ClusterSyncResources' && out.syncResources.has(name))) {
    log.warn({ file, kind: item.kind, name }, 'defined twice in the file; the first one is used');
    return;
  }
  if (item.kind === 'PediaCluster') {
    const spec = isObject(item.spec) ? item.spec : {};
    out.clusters.set(name, { ...(item as object), metadata: { ...(item.metadata as object), name }, spec } as PediaCluster);
  } else if (item.kind === 'ClusterSyncResources') {
    const spec = isObject(item.spec) ? item.spec : {};
    out.syncResources.set(name, { ...(item as object), metadata: { name }, spec } as ClusterSyncResources);
  } else {
    log.warn({ file, kind: item.kind, name }, 'document of an unknown kind ignored');
  }
}

/** Each file's text; a file that cannot be read (gone between listing and reading) is left out. */
export async function readTexts(files: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const f of files) {
    try {
      out.set(f, await readFile(f, 'utf8'));
    } catch {
      // Judged by the caller: its previous contents stay.
    }
  }
  return out;
}

/** The files of `path`: itself, or a directory's YAML and JSON files (not hidden ones), sorted. */
export async function listClusterFiles(path: string): Promise<string[]> {
  const st = await stat(path);
  if (!st.isDirectory()) return [path];
  const names = await readdir(path);
  return names
    .filter((n) => !n.startsWith('.') && ['.yaml', '.yml', '.json'].includes(extname(n)))
    .sort()
    .map((n) => join(path, n));
}

/** Every PediaCluster the files of `path` declare, by name; a file that cannot be read or parsed is left out. */
export async function readClusterFiles(path: string, log: Logger): Promise<Map<string, PediaCluster>> {
  const out = new Map<string, PediaCluster>();
  for (const [file, text] of await readTexts(await listClusterFiles(path))) {
    try {
      for (const [name, pc] of parseClusterDocuments(text, file, log).clusters) out.set(name, pc);
    } catch (e: unknown) {
      log.warn({ file, err: e instanceof Error ? e.message : String(e) }, 'cluster file not readable');
    }
  }
  return out;
}
