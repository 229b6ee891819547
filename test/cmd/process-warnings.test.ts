// Node's process warnings (a deprecation, undici's "SOCKS5 proxy support is experimental") are JSON log lines when the
// executable runs as shipped, not plain text on stderr beside the log.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'cp-warn-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('bin/clusterpedia logs a process warning as a JSON line and prints nothing of it on stderr', async () => {
  // Emitted again and again: one emitted before the command has its logger (a slow start) is not logged.
  const preload = join(dir, 'warn.cjs');
  writeFileSync(preload, "setInterval(() => process.emitWarning('proxy support is experimental', 'ExperimentalWarning'), 200).unref();\n");
  const child = spawn('bin/clusterpedia', ['apiserver', '--storage', `sqlite:${join(dir, 'db')}`, '--secure-port', '0', '--insecure-port', '0'], {
    env: { ...process.env, NODE_OPTIONS: `--require ${preload}` },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const deadline = Date.now() + 30_000;
  while (!stdout.includes('node process warning') && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 50));
  child.kill('SIGTERM');
  await new Promise((r) => child.once('close', r));
  const line = stdout.split('\n').find((l) => l.includes('node process warning'));
  expect(line, stdout + stderr).toBeDefined();
  expect(JSON.parse(line!)).toMatchObject({ level: 40, msg: 'node process warning', warning: { name: 'ExperimentalWarning', message: 'proxy support is experimental' } });
  expect(stderr).not.toContain('proxy support is experimental');
});
