// The Dockerfile cannot be built here (no Docker), so its structure is checked instead: stages, base images,
// what each COPY takes (from the build context through .dockerignore, or from an earlier stage), the user and
// the ENTRYPOINT, and that what the bundle leaves external is installed at run time.
import { existsSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/bundle.js';

interface Instruction {
  op: string;
  args: string;
}

interface Stage {
  name: string;
  image: string;
  /** The stage it starts from, when it is FROM an earlier stage. */
  parent?: Stage;
  instructions: Instruction[];
  /** Absolute paths that exist in the stage's filesystem because an instruction made them (COPY, npm ci, npm run build). */
  paths: Set<string>;
  workdir: string;
}

const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies?: Record<string, string> };
const buildScript = readFileSync(join(ROOT, 'build.mjs'), 'utf8');
/** Where `npm run build` writes the bundle, from build.mjs. */
const outfile = /outfile:\s*'([^']+)'/.exec(buildScript)?.[1] ?? '';

function instructions(text: string): Instruction[] {
  const out: Instruction[] = [];
  for (const raw of text.replace(/\\\n/g, ' ').split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const [op, ...rest] = line.split(/\s+/);
    out.push({ op: op!.toUpperCase(), args: rest.join(' ') });
  }
  return out;
}

/** Stages with the paths each one produces: WORKDIR, COPY destinations, and what known RUN commands create. */
function stages(): { args: Map<string, string>; stages: Stage[] } {
  const args = new Map<string, string>();
  const list: Stage[] = [];
  for (const ins of instructions(dockerfile)) {
    const cur = list.at(-1);
    if (ins.op === 'ARG' && !cur) {
      const [k, v] = ins.args.split('=');
      args.set(k!, v ?? '');
      continue;
    }
    if (ins.op === 'FROM') {
      const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(ins.args);
      const image = m![1]!.replace(/\$\{(\w+)\}/g, (_, k: string) => args.get(k) ?? `<${k}?>`);
      const parent = list.find((s) => s.name === image);
      list.push({
        name: m![2] ?? String(list.length), image, instructions: [], ...(parent ? { parent } : {}),
        paths: new Set(parent?.paths ?? []), workdir: parent?.workdir ?? '/',
      });
      continue;
    }
    if (!cur) throw new Error(`${ins.op} before FROM`);
    cur.instructions.push(ins);
    if (ins.op === 'WORKDIR') {
      // Only the directory itself, not a promise of anything under it.
      cur.workdir = posix.resolve(cur.workdir, ins.args);
    } else if (ins.op === 'COPY') {
      const parts = ins.args.split(/\s+/).filter((p) => !p.startsWith('--'));
      const dest = parts.at(-1)!;
      const srcs = parts.slice(0, -1);
      const destAbs = posix.resolve(cur.workdir, dest);
      for (const s of srcs) cur.paths.add(dest.endsWith('/') || srcs.length > 1 ? posix.join(destAbs, posix.basename(s)) : destAbs);
    } else if (ins.op === 'RUN') {
      if (/\bnpm ci\b/.test(ins.args)) cur.paths.add(posix.join(cur.workdir, 'node_modules'));
      if (/\bnpm run build\b/.test(ins.args)) cur.paths.add(posix.join(cur.workdir, posix.dirname(outfile)));
    }
  }
  return { args, stages: list };
}

/** Is `path` (relative to the context) sent to the builder, given .dockerignore (last matching rule wins)? */
function inContext(path: string): boolean {
  const rules = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  let included = true;
  for (const rule of rules) {
    const negate = rule.startsWith('!');
    const pattern = (negate ? rule.slice(1) : rule).replace(/\/$/, '');
    const re = new RegExp(`^${pattern.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*')}(/.*)?$`);
    if (re.test(path)) included = negate;
  }
  return included;
}

describe('Dockerfile', () => {
  const { args, stages: all } = stages();
  const byName = (n: string): Stage => {
    const s = all.find((x) => x.name === n);
    if (!s) throw new Error(`no stage ${n}`);
    return s;
  };

  it('builds on node:22-bookworm (npm ci, npm run build) and runs on node:22-bookworm-slim', () => {
    expect(args.get('NODE_VERSION')).toBe('22');
    expect(all.map((s) => [s.name, s.image])).toEqual([
      ['build', 'node:22-bookworm'],
      ['prod-deps', 'build'],
      ['runtime', 'node:22-bookworm-slim'],
    ]);
    const runs = byName('build').instructions.filter((i) => i.op === 'RUN').map((i) => i.args);
    expect(runs).toEqual(['npm ci', 'npm run build']);
    expect(byName('prod-deps').instructions.filter((i) => i.op === 'RUN').map((i) => i.args)).toEqual(['npm prune --omit=dev']);
    // The runtime stage installs and compiles nothing: it only copies.
    expect(byName('runtime').instructions.map((i) => i.op)).not.toContain('RUN');
  });

  it('copies only files that exist in the build context or in an earlier stage', () => {
    for (const [i, stage] of all.entries()) {
      for (const ins of stage.instructions.filter((x) => x.op === 'COPY' || x.op === 'ADD')) {
        expect(ins.op, 'COPY, not ADD').toBe('COPY');
        const from = /--from=(\S+)/.exec(ins.args)?.[1];
        const parts = ins.args.split(/\s+/).filter((p) => !p.startsWith('--'));
        for (const src of parts.slice(0, -1)) {
          if (from === undefined) {
            expect(existsSync(join(ROOT, src)), `${stage.name}: COPY ${src}: not in the repository`).toBe(true);
            expect(inContext(src), `${stage.name}: COPY ${src}: excluded by .dockerignore`).toBe(true);
          } else {
            const source = all.findIndex((s) => s.name === from);
            expect(source, `${stage.name}: COPY --from=${from}: no earlier stage`).toBeGreaterThanOrEqual(0);
            expect(source).toBeLessThan(i);
            const made = [...all[source]!.paths].some((p) => src === p || src.startsWith(`${p}/`));
            expect(made, `${stage.name}: COPY --from=${from} ${src}: nothing in that stage creates it`).toBe(true);
          }
        }
      }
    }
  });

  it('keeps local databases, node_modules, dist and .git out of the build context', () => {
    for (const p of ['clusterpedia.db', 'node_modules', 'node_modules/x/index.js', 'dist/clusterpedia.mjs', '.git', 'test/x.test.ts']) {
      expect(inContext(p), p).toBe(false);
    }
    for (const p of ['src/main.ts', 'package-lock.json', 'build.mjs']) expect(inContext(p), p).toBe(true);
  });

  it('runs the bundle as a numeric non-root user, with better-sqlite3 resolvable next to it', () => {
    const runtime = byName('runtime');
    const last = (op: string): string | undefined => runtime.instructions.filter((i) => i.op === op).at(-1)?.args;
    // The ENTRYPOINT is bin/clusterpedia, copied with the rest of bin/, which runs the bundle with its role's flags.
    expect(JSON.parse(last('ENTRYPOINT') ?? '[]')).toEqual(['/app/bin/clusterpedia']);
    expect(runtime.paths).toContain('/app/bin');
    expect(readFileSync(join(ROOT, 'bin/clusterpedia'), 'utf8')).toMatch(/\/\.\.\/dist\/clusterpedia\.mjs"/);
    const user = last('USER') ?? '';
    expect(user).toMatch(/^\d+(:\d+)?$/);
    expect(Number(user.split(':')[0])).toBeGreaterThan(0);
    // The file bin/clusterpedia runs is the bundle build.mjs writes, copied to where bin/clusterpedia looks.
    expect(runtime.paths).toContain(posix.join('/app', posix.dirname(outfile)));
    expect(posix.basename(outfile)).toBe('clusterpedia.mjs');
    // Node resolves the bundle's external imports from /app/node_modules.
    expect(runtime.paths).toContain('/app/node_modules');
    expect(runtime.paths).toContain('/app/package.json');
  });

  it('keeps every module the bundle leaves external in production dependencies (npm prune --omit=dev keeps them)', () => {
    const externals = /external:\s*\[([^\]]*)\]/.exec(buildScript)?.[1]?.match(/'([^']+)'/g)?.map((s) => s.slice(1, -1)) ?? [];
    expect(externals).toContain('better-sqlite3');
    for (const e of externals) expect(Object.keys(pkg.dependencies), e).toContain(e);
  });
});
