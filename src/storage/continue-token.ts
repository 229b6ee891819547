// Keyset continue tokens: opaque base64url JSON holding the last row's sort-key values and the order's fingerprint.
import { createHash } from 'node:crypto';
import { StorageError } from './errors.js';

export type KeyValue = string | number | null;

const TOKEN_VERSION = 1;

/** A short stable hash of what a token is only valid for (the types and the effective sort keys). */
export function fingerprint(parts: unknown): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 16);
}

export function encodeContinueToken(values: KeyValue[], fp: string): string {
  return Buffer.from(JSON.stringify({ v: TOKEN_VERSION, f: fp, k: values }), 'utf8').toString('base64url');
}

/**
 * The sort-key values carried by `token`. A token that is malformed, of another version, or was issued for another
 * order or other types is rejected as StorageError 'Invalid' (the apiserver answers 400), never reinterpreted.
 */
export function decodeContinueToken(token: string, fp: string, keyCount: number): KeyValue[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch (e: unknown) {
    throw new StorageError('Invalid', 'continue token is malformed', false, { cause: e });
  }
  const t = parsed as { v?: unknown; f?: unknown; k?: unknown };
  if (typeof parsed !== 'object' || parsed === null || t.v !== TOKEN_VERSION || !Array.isArray(t.k)) {
    throw new StorageError('Invalid', 'continue token is malformed', false);
  }
  if (t.f !== fp) throw new StorageError('Invalid', 'continue token was issued for a different query order or resource type', false);
  const k = t.k as unknown[];
  if (k.length !== keyCount || !k.every((v) => v === null || typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)))) {
    throw new StorageError('Invalid', 'continue token is malformed', false);
  }
  return k as KeyValue[];
}
