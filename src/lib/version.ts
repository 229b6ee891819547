// The product version (injected by build.mjs) and the Kubernetes API level we emulate (API.md §4).

declare const __CLUSTERPEDIA_VERSION__: string | undefined;

export const VERSION: string = typeof __CLUSTERPEDIA_VERSION__ === 'string' ? __CLUSTERPEDIA_VERSION__ : '0.0.0-dev';

/** kube-apiserver /version shape; minor 32 so the kubectl dispatcher picks kubectl 1.32. */
export function kubeVersionInfo(): Record<string, string> {
  return {
    major: '1',
    minor: '32',
    gitVersion: `v1.32.0-clusterpedia.${VERSION}`,
    gitCommit: '',
    gitTreeState: 'clean',
    buildDate: '2026-01-01T00:00:00Z',
    goVersion: `node${process.versions.node}`,
    compiler: 'esbuild',
    platform: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`,
  };
}
