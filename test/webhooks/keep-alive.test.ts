// Deliveries reuse kept-alive connections to the receiver. What a seller relies on: each event still arrives once per
// delivery, each attempt is recorded once, and a receiver closing idle connections never costs a failed attempt.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { allowLoopbackPort, createTestApp, createTestStore, type TestApp } from '../helpers/app';
import { createEndpoint, emit, pump } from './setup';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(async () => {
  await t.close();
});

/** A receiver that counts TCP connections; `dropReused` resets any connection on its second request, unanswered. */
async function receiver(opts: { dropReused?: boolean } = {}) {
  const ids: string[] = [];
  let connections = 0;
  let dropped = 0;
  const perSocket = new WeakMap<object, number>();
  const server = http.createServer((req, res) => {
    const n = (perSocket.get(req.socket) ?? 0) + 1;
    perSocket.set(req.socket, n);
    if (opts.dropReused && n > 1) {
      // What a receiver that timed out an idle connection looks like to the sender: the socket is gone, nothing answered.
      dropped++;
      req.socket.destroy();
      return;
    }
    req.resume();
    req.on('end', () => {
      ids.push(String(req.headers['webhook-id']));
      res.writeHead(200).end('ok');
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  allowLoopbackPort(port);
  return {
    url: `http://127.0.0.1:${port}/hook`,
    ids,
    connections: () => connections,
    dropped: () => dropped,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

async function attemptsByDelivery(storeId: string) {
  const rows = await t.db
    .selectFrom('webhook_attempts')
    .innerJoin('webhook_deliveries', 'webhook_deliveries.id', 'webhook_attempts.delivery_id')
    .select(['webhook_attempts.delivery_id as id', 'webhook_attempts.succeeded', 'webhook_deliveries.status'])
    .where('webhook_deliveries.store_id', '=', storeId)
    .execute();
  const by = new Map<string, typeof rows>();
  for (const r of rows) by.set(r.id, [...(by.get(r.id) ?? []), r]);
  return by;
}

test('a burst to one endpoint goes over reused connections; every event arrives once and every attempt is recorded once', async () => {
  const s = await createTestStore(t);
  const rx = await receiver();
  try {
    await createEndpoint(t, s, { url: rx.url });
    const sent = [];
    for (let i = 0; i < 40; i++) sent.push((await emit(t, s.storeId, 'order.paid', { id: `ord_${i}` })).id);
    // One lane sending batches of 5 one after another: later batches find the earlier batches' connections free.
    assert.equal(await pump(t, { concurrency: 1, batchSize: 5 }), 40);
    assert.deepEqual([...rx.ids].sort(), [...sent].sort());
    assert.ok(rx.connections() < 40, `${rx.connections()} connections for 40 deliveries`);
    const by = await attemptsByDelivery(s.storeId);
    assert.equal(by.size, 40);
    for (const attempts of by.values()) {
      assert.equal(attempts.length, 1);
      assert.equal(attempts[0].succeeded, true);
      assert.equal(attempts[0].status, 'succeeded');
    }
  } finally {
    await rx.close();
  }
});

test('a kept-alive connection the receiver dropped is replaced by a new one: no failed attempt, nothing sent twice', async () => {
  const s = await createTestStore(t);
  const rx = await receiver({ dropReused: true });
  try {
    await createEndpoint(t, s, { url: rx.url });
    const sent = [];
    for (let i = 0; i < 12; i++) sent.push((await emit(t, s.storeId, 'order.paid', { id: `ord_${i}` })).id);
    assert.equal(await pump(t, { concurrency: 1, batchSize: 3 }), 12);
    assert.ok(rx.dropped() > 0, 'the sender did reuse connections');
    assert.deepEqual([...rx.ids].sort(), [...sent].sort());
    const by = await attemptsByDelivery(s.storeId);
    for (const attempts of by.values()) {
      assert.equal(attempts.length, 1);
      assert.equal(attempts[0].succeeded, true);
    }
  } finally {
    await rx.close();
  }
});
