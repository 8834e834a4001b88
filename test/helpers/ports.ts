import { createServer } from 'node:net';

/** A TCP port free on 127.0.0.1 right now (for a server process a test starts). */
export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}
