import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { allowLoopbackPort } from '../helpers/app';

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  rawBody: string;
  /** Which of the receiver's secrets verified this delivery with the standardwebhooks library. */
  verifiedWith: string[];
  payload: any;
}

export type Responder = (r: Received, n: number) => { status: number; body?: string; headers?: Record<string, string>; delayMs?: number } | 'hang';

/**
 * A real HTTP receiver on 127.0.0.1, checking every delivery with the standardwebhooks library's own
 * `Webhook.verify` (not the project's signing code) against each secret it was given.
 */
export async function startReceiver(opts: { secrets?: () => string[]; respond?: Responder; listed?: boolean } = {}) {
  const received: Received[] = [];
  const state: { secrets: () => string[]; respond: Responder } = { secrets: opts.secrets ?? (() => []), respond: opts.respond ?? (() => ({ status: 200, body: 'ok' })) };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const verifiedWith: string[] = [];
      for (const s of state.secrets()) {
        try {
          new Webhook(s).verify(rawBody, req.headers as Record<string, string>);
          verifiedWith.push(s);
        } catch {
          // not signed with this secret
        }
      }
      let payload: any = null;
      try {
        payload = JSON.parse(rawBody);
      } catch {
        payload = null;
      }
      const r: Received = { path: req.url ?? '', headers: req.headers, rawBody, verifiedWith, payload };
      received.push(r);
      const answer = state.respond(r, received.length);
      if (answer === 'hang') return; // never answers: the sender's timeout must fire
      setTimeout(() => {
        res.writeHead(answer.status, { 'content-type': 'text/plain', ...(answer.headers ?? {}) });
        res.end(answer.body ?? '');
      }, answer.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  // Listed in the test apps' WEBHOOK_LOOPBACK_PORTS unless a test wants a loopback port that is not.
  if (opts.listed !== false) allowLoopbackPort(port);
  return {
    port,
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    received,
    state,
    /** Deliveries of one event id (retries keep the id). */
    byId: (id: string) => received.filter((r) => r.headers['webhook-id'] === id),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** A 127.0.0.1 port with nothing listening on it (bound, then released). */
export async function closedPort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  allowLoopbackPort(port);
  return port;
}
