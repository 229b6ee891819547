// `npm run chaos`: one bounded chaos run per backend; prints each result and appends it to RELIABILITY.md.
// Exit code 0 when every run passed, 1 when one failed, 2 on bad flags. Ctrl-C stops everything it started.
import { join } from 'node:path';
import { ROOT } from '../../test/support/bundle.js';
import { runChaos, type ChaosResult } from './chaos.js';
import type { Clusterpedia } from './clusterpedia.js';
import { parseCli } from './options.js';
import { appendToReliability, markdownEntry, textReport } from './report.js';

async function main(): Promise<number> {
  let req;
  try {
    req = parseCli(process.argv.slice(2), process.env);
  } catch (e: unknown) {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
    return 2;
  }
  const ac = new AbortController();
  const children = new Set<Clusterpedia>();
  const onSignal = (sig: NodeJS.Signals): void => {
    process.stderr.write(`\n[chaos] ${sig}: stopping\n`);
    ac.abort();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  // Whatever happens, no clusterpedia outlives the driver.
  process.on('exit', () => {
    for (const c of children) c.killSync();
  });
  const results: ChaosResult[] = [];
  for (const o of req.runs) {
    if (ac.signal.aborted) break;
    const argv = process.argv.slice(2).filter((a, i, all) => a !== '--backend' && all[i - 1] !== '--backend' && !a.startsWith('--backend='));
    const command = `npm run chaos -- ${[...argv, '--backend', o.backend].join(' ')}`.trim();
    try {
      const r = await runChaos(o, {
        signal: ac.signal,
        progress: (line) => {
          if (o.verbose) process.stderr.write(`${line}\n`);
        },
        onClusterpedia: (c) => children.add(c),
      });
      results.push(r);
      process.stdout.write(`${textReport(r)}\n\n`);
      if (req.record) {
        appendToReliability(join(ROOT, 'RELIABILITY.md'), markdownEntry(r, command));
        process.stdout.write('appended to RELIABILITY.md\n\n');
      }
    } catch (e: unknown) {
      process.stderr.write(`[chaos] ${o.backend} run failed: ${e instanceof Error ? e.stack ?? e.message : String(e)}\n`);
      return 1;
    }
  }
  return results.length === req.runs.length && results.every((r) => r.passed) ? 0 : 1;
}

process.exitCode = await main();
