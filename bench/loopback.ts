import type http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LoopbackServer {
  base: string;
  close(): Promise<void>;
}

/** Starts `server` on a free port of 127.0.0.1: benchmarks never reach beyond this machine. */
export async function listenOnLoopback(server: http.Server): Promise<LoopbackServer> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
