// The real flags of a subcommand, read from the built bundle's `--help`, so the manifests cannot drift from the CLI.
import { runBundle } from '../support/bundle.js';

export interface CliOption {
  /** e.g. "--secure-port". */
  flag: string;
  /** e.g. "CLUSTERPEDIA_SECURE_PORT", when the help names one. */
  env?: string;
  /** The default as the help prints it (quotes removed), when it prints one. */
  default?: string;
}

export interface CliCommand {
  name: string;
  options: Map<string, CliOption>;
  envNames: Set<string>;
  help: string;
}

/** Runs `node dist/clusterpedia.mjs <name> --help` and parses commander's option table. */
export async function cliCommand(name: string): Promise<CliCommand> {
  const r = await runBundle([name, '--help'], { timeoutMs: 30_000 });
  const help = r.stdout;
  if (r.code !== 0 || !new RegExp(`^Usage: clusterpedia ${name}\\b`, 'm').test(help)) {
    throw new Error(`\`clusterpedia ${name}\` is not a command of the built bundle (exit ${r.code}):\n${help}${r.stderr}`);
  }
  const options = new Map<string, CliOption>();
  // An option's block: its term line (two-space indent, e.g. "  --secure-port <port>  HTTPS port ...")
  // plus the description lines wrapped under it (deeper indent).
  const blocks: string[] = [];
  for (const line of help.split('\n')) {
    if (/^ {2}-/.test(line)) blocks.push(line);
    else if (/^ {3,}\S/.test(line) && blocks.length > 0) blocks[blocks.length - 1] += ` ${line.trim()}`;
  }
  for (const block of blocks) {
    const text = block.replace(/\s+/g, ' ');
    const flag = /^ (?:-[a-zA-Z], )?(--[a-z][a-z0-9-]*)/.exec(text)?.[1];
    if (!flag) continue;
    const env = /\benv: (CLUSTERPEDIA_[A-Z0-9_]+)/.exec(text)?.[1];
    const def = /\(.*?\bdefault: (?:"([^"]*)"|([^,)]+))/.exec(text);
    options.set(flag, { flag, ...(env ? { env } : {}), ...(def ? { default: (def[1] ?? def[2] ?? '').trim() } : {}) });
  }
  const envNames = new Set([...options.values()].flatMap((o) => (o.env ? [o.env] : [])));
  return { name, options, envNames, help };
}

/** The `--flag` names used in container args (`--a=b` and `--a b` forms). */
export function flagsIn(args: readonly string[]): string[] {
  return args.filter((a) => a.startsWith('--')).map((a) => a.split('=')[0]!);
}
