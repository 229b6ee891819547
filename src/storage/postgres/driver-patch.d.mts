import type { Plugin } from 'esbuild';

export const POSTGRES_CONNECTION_MODULE: RegExp;
export function patchPostgresConnection(source: string, path: string): string;
export function postgresDriverPatch(): Plugin;
