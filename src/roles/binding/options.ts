// The binding role's options: the two roles' trees over one storage, plus the demo fleet.
import type { ApiserverOptions } from '../apiserver/options.js';
import type { SynchroOptions } from '../synchro/options.js';

export interface DemoOptions {
  /** Simulated member clusters started in-process. */
  clusters: number;
  podsPerCluster: number;
  /** Events per second across the demo fleet (0 = still). */
  churn: number;
  seed: number;
  /** Where the generated PediaCluster file is written. */
  dir: string;
}

export interface BindingOptions {
  /** Storage, serving and API options; `apiserver.storage` is the one storage both roles share. */
  apiserver: ApiserverOptions;
  /** Write-path options; its storage and metrics endpoint are ignored (shared with the apiserver). */
  synchro: SynchroOptions;
  demo?: DemoOptions;
}
