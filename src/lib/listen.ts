// Listening on a port, with a failure the operator can act on: which flag chose the address, and what the kernel said.
import type { AddressInfo, Server } from 'node:net';
import { ConfigError } from './errors.js';

export interface ListenAt {
  port: number;
  host: string;
  /** The flag that chose the port (`--secure-port`), named when the port cannot be had. */
  portFlag: string;
  /** The flag that chose the host, named when the address is not this machine's; without one, the port's flag. */
  hostFlag?: string;
}

/**
 * Listens on `at` and resolves with the bound address. A port that is taken or privileged, or an address that is not
 * this machine's, is the configuration's doing: it rejects with a ConfigError (exit 2) that names the flag, instead of
 * Node's bare `listen EADDRINUSE: address already in use`.
 */
export function listen(server: Server, at: ListenAt): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const onError = (e: NodeJS.ErrnoException): void => reject(listenError(e, at));
    server.once('error', onError);
    server.listen(at.port, at.host, () => {
      server.off('error', onError);
      resolve(server.address() as AddressInfo);
    });
  });
}

function listenError(e: NodeJS.ErrnoException, at: ListenAt): Error {
  const where = `${at.host.includes(':') ? `[${at.host}]` : at.host}:${at.port}`;
  switch (e.code) {
    case 'EADDRINUSE':
      return new ConfigError(`${at.portFlag}: cannot listen on ${where}: the port is in use (another clusterpedia, or another server, holds it)`, { cause: e });
    case 'EACCES':
      return new ConfigError(`${at.portFlag}: cannot listen on ${where}: permission denied (ports below 1024 need privileges)`, { cause: e });
    case 'EADDRNOTAVAIL':
      return new ConfigError(`${at.hostFlag ?? at.portFlag}: cannot listen on ${where}: the address is not one of this machine's`, { cause: e });
    default:
      return e;
  }
}
