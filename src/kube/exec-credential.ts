// Credential plugins (a kubeconfig user's `exec`: aws eks get-token, gke-gcloud-auth-plugin, kubelogin) run as
// client-go runs them, for a process that no one watches: no terminal, a bounded run, the credential kept until its
// expiry. client-node's runner (ExecAuth) left the plugin's standard input open (a plugin asking for a login waited
// on it for ever, one process per retry), set no KUBERNETES_EXEC_INFO, and put the plugin's whole stderr in its error.
import { spawn } from 'node:child_process';
import { basename } from 'node:path';
import type { Cluster } from '@kubernetes/client-node';
import { KubeApiError } from './client-errors.js';

/** The API versions of ExecCredential that client-go still speaks (v1alpha1 went in Kubernetes 1.24). */
const API_VERSIONS = ['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1'];

/** A plugin's stdout is an ExecCredential of a few kB; past this it is not read further and the run fails. */
const MAX_STDOUT_BYTES = 1024 * 1024;

/** What is kept of a failed plugin's stderr for the error: its last line, this long at most. */
const STDERR_EXCERPT_CHARS = 300;

/** A kubeconfig user's `exec` stanza (client-node keeps it as written). */
export interface ExecConfig {
  apiVersion?: string;
  command?: string;
  args?: string[];
  env?: { name: string; value: string }[] | null;
  interactiveMode?: string;
  provideClusterInfo?: boolean;
  installHint?: string;
}

/** A credential from a plugin: a bearer token, a client certificate and key, or both; until `expiresAt` if given. */
export interface ExecCredential {
  token?: string;
  cert?: string;
  key?: string;
  /** ms since the epoch; undefined: valid until the server refuses it. */
  expiresAt?: number;
}

/** A plugin that cannot give a credential: misconfigured, missing, failed, or not a valid ExecCredential. */
function pluginError(message: string, reason = 'CredentialPluginError'): KubeApiError {
  // Retryable: a plugin often fails on something outside us (its own network, an expired cloud login) that heals.
  return new KubeApiError(message, 0, reason, true);
}

/**
 * Checks an exec stanza as client-go does before any run: a command, a supported apiVersion, and an interactiveMode
 * a process without a terminal can honour. Throws a plugin error saying what is wrong.
 */
export function checkExecConfig(exec: ExecConfig): { command: string; apiVersion: string } {
  if (typeof exec.command !== 'string' || exec.command === '') throw pluginError('kubeconfig exec plugin has no command');
  const apiVersion = exec.apiVersion ?? '';
  if (!API_VERSIONS.includes(apiVersion)) {
    throw pluginError(`kubeconfig exec plugin apiVersion ${JSON.stringify(apiVersion)} is not supported (${API_VERSIONS.join(', ')})`);
  }
  const mode = exec.interactiveMode ?? (apiVersion.endsWith('/v1') ? '' : 'IfAvailable');
  if (mode === '') throw pluginError(`kubeconfig exec plugin: interactiveMode must be set for ${apiVersion} (Never or IfAvailable)`);
  if (mode === 'Always') {
    throw pluginError(`kubeconfig exec plugin ${basename(exec.command)} needs an interactive terminal (interactiveMode: Always), which a server process does not have; use a plugin or mode that logs in without one`);
  }
  if (mode !== 'Never' && mode !== 'IfAvailable') throw pluginError(`kubeconfig exec plugin interactiveMode ${JSON.stringify(mode)} is not Never, IfAvailable or Always`);
  return { command: exec.command, apiVersion };
}

/**
 * KUBERNETES_EXEC_INFO, as client-go sets it: the ExecCredential the plugin is asked for, never interactive here, with
 * the cluster it is for when the stanza says provideClusterInfo.
 */
export function execInfo(exec: ExecConfig, apiVersion: string, cluster: Cluster | null, clusterConfig?: unknown): string {
  const spec: Record<string, unknown> = { interactive: false };
  if (exec.provideClusterInfo && cluster) {
    const c: Record<string, unknown> = { server: cluster.server };
    if (cluster.tlsServerName) c['tls-server-name'] = cluster.tlsServerName;
    if (cluster.skipTLSVerify) c['insecure-skip-tls-verify'] = true;
    if (cluster.caData) c['certificate-authority-data'] = cluster.caData;
    if (cluster.proxyUrl) c['proxy-url'] = cluster.proxyUrl;
    // The cluster's `client.authentication.k8s.io/exec` extension, for the plugin (kubeconfig.ts reads it).
    if (clusterConfig !== undefined) c.config = clusterConfig;
    spec.cluster = c;
  }
  return JSON.stringify({ kind: 'ExecCredential', apiVersion, spec });
}

/** Parses and checks a plugin's stdout as client-go does. Never quotes it: it holds the credential. */
export function parseExecCredential(stdout: string, apiVersion: string, name: string): ExecCredential {
  let doc: unknown;
  try {
    doc = JSON.parse(stdout);
  } catch {
    throw pluginError(`exec plugin ${name} did not print an ExecCredential (its output is not JSON)`);
  }
  const o = (typeof doc === 'object' && doc !== null ? doc : {}) as { apiVersion?: unknown; kind?: unknown; status?: unknown };
  if (o.kind !== 'ExecCredential') throw pluginError(`exec plugin ${name} did not print an ExecCredential (kind ${JSON.stringify(o.kind ?? '')})`);
  if (o.apiVersion !== apiVersion) {
    throw pluginError(`exec plugin ${name} is configured for ${apiVersion} but answered ${JSON.stringify(o.apiVersion ?? '')}`);
  }
  if (typeof o.status !== 'object' || o.status === null) throw pluginError(`exec plugin ${name} did not return a status`);
  const s = o.status as Record<string, unknown>;
  const str = (k: string): string | undefined => (typeof s[k] === 'string' && s[k] !== '' ? (s[k] as string) : undefined);
  const token = str('token');
  const cert = str('clientCertificateData');
  const key = str('clientKeyData');
  if (!token && !cert && !key) throw pluginError(`exec plugin ${name} returned neither a token nor a client certificate and key`);
  if (Boolean(cert) !== Boolean(key)) throw pluginError(`exec plugin ${name} returned a client ${cert ? 'certificate without its key' : 'key without its certificate'}`);
  let expiresAt: number | undefined;
  const exp = str('expirationTimestamp');
  if (exp !== undefined) {
    expiresAt = Date.parse(exp);
    if (Number.isNaN(expiresAt)) throw pluginError(`exec plugin ${name} returned an expirationTimestamp that is not a time: ${JSON.stringify(exp.slice(0, 40))}`);
  }
  return { ...(token ? { token } : {}), ...(cert ? { cert, key } : {}), ...(expiresAt !== undefined ? { expiresAt } : {}) };
}

/** Process groups of the plugin runs in progress: ended with this process, so none outlives it. */
const runningGroups = new Set<number>();
let exitHook = false;

function track(pid: number): void {
  runningGroups.add(pid);
  if (exitHook) return;
  exitHook = true;
  process.on('exit', () => {
    for (const g of runningGroups) killGroup(g);
  });
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Gone already.
  }
}

/** The last non-blank line of a plugin's stderr, shortened: what it says went wrong. */
function stderrExcerpt(stderr: string): string {
  const line = stderr.split('\n').map((l) => l.trim()).filter(Boolean).at(-1) ?? '';
  return line.length > STDERR_EXCERPT_CHARS ? `${line.slice(0, STDERR_EXCERPT_CHARS)}…` : line;
}

/**
 * Runs the plugin once: no standard input, the process environment plus the stanza's env and KUBERNETES_EXEC_INFO,
 * in a process group of its own. Past `timeoutMs` the group is killed (the plugin and whatever it started) and the
 * run fails with CredentialTimeout; so is a group still running when this process exits.
 */
export function runExecPlugin(exec: ExecConfig, cluster: Cluster | null, timeoutMs: number, clusterConfig?: unknown): Promise<ExecCredential> {
  let checked: { command: string; apiVersion: string };
  try {
    checked = checkExecConfig(exec);
  } catch (e: unknown) {
    return Promise.reject(e);
  }
  const { command, apiVersion } = checked;
  const name = basename(command);
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const e of exec.env ?? []) if (e && typeof e.name === 'string') env[e.name] = String(e.value ?? '');
  env.KUBERNETES_EXEC_INFO = execInfo(exec, apiVersion, cluster, clusterConfig);
  return new Promise((resolve, reject) => {
    const child = spawn(command, Array.isArray(exec.args) ? exec.args.map(String) : [], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stdoutBytes = 0;
    let stderr = '';
    let failure: KubeApiError | undefined;
    const pid = child.pid;
    if (pid !== undefined) track(pid);
    const stop = (): void => {
      if (pid !== undefined) killGroup(pid);
    };
    // Set once the plugin itself has exited; its output may still be arriving, or held open by something it left.
    let exited = false;
    child.on('exit', () => {
      exited = true;
    });
    const timer = setTimeout(() => {
      if (!exited) failure ??= new KubeApiError(`no credentials within ${timeoutMs / 1000} s: exec plugin ${name} has not answered and was stopped`, 0, 'CredentialTimeout', true);
      stop();
    }, timeoutMs);
    timer.unref();
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (d: string) => {
      stdoutBytes += Buffer.byteLength(d);
      if (stdoutBytes > MAX_STDOUT_BYTES) {
        failure ??= pluginError(`exec plugin ${name} printed more than ${MAX_STDOUT_BYTES / 1024 / 1024} MiB`);
        stop();
      } else stdout += d;
    });
    child.stderr.on('data', (d: string) => {
      // Only the end is shown: keep a bounded tail.
      stderr = (stderr + d).slice(-4 * STDERR_EXCERPT_CHARS);
    });
    child.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') {
        const hint = exec.installHint?.trim();
        failure ??= pluginError(`exec plugin ${command} not found${hint ? `: ${hint.slice(0, 500)}` : ''}`, 'CredentialPluginNotFound');
      } else failure ??= pluginError(`exec plugin ${name} could not be started: ${e.code ?? e.message}`);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (pid !== undefined) runningGroups.delete(pid);
      if (failure) return reject(failure);
      if (code !== 0) {
        const said = stderrExcerpt(stderr);
        return reject(pluginError(`exec plugin ${name} failed (${code === null ? `signal ${signal}` : `exit code ${code}`})${said ? `: ${said}` : ''}`));
      }
      try {
        resolve(parseExecCredential(stdout, apiVersion, name));
      } catch (e: unknown) {
        reject(e);
      }
    });
  });
}

/**
 * One kubeconfig user's plugin credential, shared by every client of that kubeconfig: kept until its expiry (or, when
 * it states none, until a server refuses it), one run at a time whoever asks meanwhile.
 */
export class ExecCredentialSource {
  private current: ExecCredential | undefined;
  private running: Promise<ExecCredential> | undefined;

  constructor(
    private readonly exec: ExecConfig,
    private readonly cluster: Cluster | null,
    private readonly timeoutMs: number,
    private readonly now: () => number,
    /** The cluster's `client.authentication.k8s.io/exec` extension, given to the plugin with provideClusterInfo. */
    private readonly clusterConfig?: unknown,
  ) {}

  /**
   * The credential to send. `refused`: a server answered 401 to this one; it is dropped and the plugin asked again,
   * unless another caller has already replaced it.
   */
  get(refused?: ExecCredential): Promise<ExecCredential> {
    if (refused && this.current === refused) this.current = undefined;
    const c = this.current;
    if (c && (c.expiresAt === undefined || c.expiresAt > this.now())) return Promise.resolve(c);
    this.running ??= runExecPlugin(this.exec, this.cluster, this.timeoutMs, this.clusterConfig).then((fresh) => {
      this.current = fresh;
      return fresh;
    }).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }
}
