// Loading a kubeconfig as client-go reads it, where client-node differs: a user's `token-file` is read again as it
// changes (client-go re-reads it every minute: projected service-account tokens rotate hourly), not once at load;
// a token file missing at load is a request error then, not a config that cannot be parsed; and an exec plugin's
// relative command path resolves against the kubeconfig's directory.
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { isObject } from './printers/fields.js';


/** The kubeconfig document when it parses and has a users list; undefined otherwise (client-node reports it). */
function parsed(text: string): KubeconfigDoc | undefined {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch {
    return undefined;
  }
  return isObject(doc) && Array.isArray(doc.users) ? (doc as KubeconfigDoc) : undefined;
}

/**
 * The kubeconfig text with each `token-file` user turned into client-node's file token provider (read again every
 * 60 s), its path made absolute against `dir` as client-go resolves it. The text is returned as it is when it has
 * none, or does not parse (client-node then reports it).
 */
export function withTokenFiles(text: string, dir: string | undefined): string {
  const doc = parsed(text);
  // JSON is YAML: client-node reads it back as it read the text.
  return doc && rewriteTokenFiles(doc, dir) ? JSON.stringify(doc) : text;
}

type KubeconfigDoc = Record<string, unknown> & { users: unknown[] };

/** Rewrites the document's token-file users in place (see withTokenFiles); true when it changed any. */
function rewriteTokenFiles(doc: KubeconfigDoc, dir: string | undefined): boolean {
  let changed = false;
  for (const entry of doc.users) {
    const user = isObject(entry) ? entry.user : undefined;
    if (!isObject(user)) continue;
    const file = user['token-file'];
    // A token beside it wins, as in client-go; an exec or auth-provider user keeps its own.
    if (typeof file !== 'string' || file === '' || user.token || user.exec || user['auth-provider']) continue;
    user['auth-provider'] = { name: 'tokenFile', config: { tokenFile: dir && !isAbsolute(file) ? join(dir, file) : file } };
    delete user['token-file'];
    changed = true;
  }
  return changed;
}

/** Impersonation headers per loaded kubeconfig and user name (client-node sends a user's `as` only). */
const impersonations = new WeakMap<KubeConfig, Map<string, Record<string, string | string[]>>>();

/**
 * The Impersonate-Uid / -Group / -Extra-* headers a kubeconfig user's `as-uid`, `as-groups` and `as-user-extra` ask
 * for, as client-go sends them (client-node leaves them out, so a member kubeconfig meant to read as a narrower group
 * read with the whole token's rights). `as` itself is client-node's (Impersonate-User).
 */
function impersonationHeaders(doc: KubeconfigDoc): Map<string, Record<string, string | string[]>> {
  const out = new Map<string, Record<string, string | string[]>>();
  for (const entry of doc.users) {
    if (!isObject(entry) || typeof entry.name !== 'string' || !isObject(entry.user)) continue;
    const u = entry.user;
    const h: Record<string, string | string[]> = {};
    if (typeof u['as-uid'] === 'string' && u['as-uid'] !== '') h['Impersonate-Uid'] = u['as-uid'];
    if (Array.isArray(u['as-groups'])) {
      const groups = (u['as-groups'] as unknown[]).filter((g): g is string => typeof g === 'string');
      if (groups.length > 0) h['Impersonate-Group'] = groups;
    }
    if (isObject(u['as-user-extra'])) {
      for (const [key, values] of Object.entries(u['as-user-extra'])) {
        const vs = (Array.isArray(values) ? values : [values]).filter((v): v is string => typeof v === 'string');
        if (vs.length > 0) h[`Impersonate-Extra-${encodeURIComponent(key)}`] = vs;
      }
    }
    if (Object.keys(h).length > 0) out.set(entry.name, h);
  }
  return out;
}

/** The impersonation headers (beyond `as`) of the kubeconfig's current user; {} when none. */
export function impersonationOf(kc: KubeConfig): Record<string, string | string[]> {
  const user = kc.getCurrentUser()?.name;
  return (user !== undefined ? impersonations.get(kc)?.get(user) : undefined) ?? {};
}

/** Each loaded kubeconfig's clusters' `client.authentication.k8s.io/exec` extensions, by cluster name. */
const execExtensions = new WeakMap<KubeConfig, Map<string, unknown>>();

const EXEC_EXTENSION = 'client.authentication.k8s.io/exec';

/** The clusters' exec extensions (client-node drops kubeconfig extensions): what client-go gives a plugin as config. */
function execClusterConfigs(doc: KubeconfigDoc): Map<string, unknown> {
  const out = new Map<string, unknown>();
  const clusters = Array.isArray(doc.clusters) ? (doc.clusters as unknown[]) : [];
  for (const entry of clusters) {
    if (!isObject(entry) || typeof entry.name !== 'string' || !isObject(entry.cluster)) continue;
    const extensions = entry.cluster.extensions;
    if (!Array.isArray(extensions)) continue;
    const ext = (extensions as unknown[]).find((e) => isObject(e) && e.name === EXEC_EXTENSION);
    if (isObject(ext) && ext.extension !== undefined) out.set(entry.name, ext.extension);
  }
  return out;
}

/** The current cluster's exec extension, if its kubeconfig has one. */
export function execClusterConfigOf(kc: KubeConfig): unknown {
  const cluster = kc.getCurrentCluster()?.name;
  return cluster !== undefined ? execExtensions.get(kc)?.get(cluster) : undefined;
}

function load(text: string, dir: string | undefined): KubeConfig {
  const kc = new KubeConfig();
  const doc = parsed(text);
  if (!doc) {
    kc.loadFromString(text);
    return kc;
  }
  // Read before the token files are rewritten in the document (the rewrite touches users' token-file only).
  const headers = impersonationHeaders(doc);
  const extensions = execClusterConfigs(doc);
  kc.loadFromString(rewriteTokenFiles(doc, dir) ? JSON.stringify(doc) : text);
  if (headers.size > 0) impersonations.set(kc, headers);
  if (extensions.size > 0) execExtensions.set(kc, extensions);
  return kc;
}

/** A kubeconfig from text (a PediaCluster's `kubeconfig`): relative paths resolve against the working directory. */
export function kubeConfigFromString(text: string): KubeConfig {
  return load(text, undefined);
}

/**
 * A kubeconfig file (`--kubeconfig`): relative paths resolve against its directory, as kubectl resolves them — files
 * (client-node does those), token files, and an exec plugin's command when it names a path (`./bin/get-token`;
 * a bare name is looked up on PATH).
 */
export function kubeConfigFromFile(path: string): KubeConfig {
  const dir = dirname(path);
  const kc = load(readFileSync(path, 'utf8'), dir);
  kc.makePathsAbsolute(dir);
  for (const user of kc.getUsers()) {
    const exec: unknown = user.exec;
    if (isObject(exec) && typeof exec.command === 'string' && exec.command.includes('/') && !isAbsolute(exec.command)) exec.command = join(dir, exec.command);
  }
  return kc;
}
