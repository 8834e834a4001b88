import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, type TestApp, type TestStore } from '../helpers/app';
import { dispatchEventsOnce, runDeliveryOnce } from '../../src/webhooks/delivery';
import { createEndpoint } from './setup';
import { writeEvent } from '../../src/platform/events';
import { startReceiver, type Receiver } from './receiver';

// SIGTERM on a worker with a webhook backlog: the batches being sent finish and are recorded, no new batch is leased,
// and the rest is there for the next worker at once (no lease to wait out), each delivered once.

let t: TestApp;
let s: TestStore;
let rx: Receiver;

before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
});
after(async () => {
  await rx?.close();
  await t.close();
});

test('a stopping worker finishes the webhook batches in flight, leases no more, and another worker sends the rest once', async () => {
  rx = await startReceiver({ respond: () => ({ status: 200, body: 'ok', delayMs: 300 }) });
  await createEndpoint(t, s, { url: rx.url() });
  // More than one round of the worker's lanes (4 × 25) can take, written in one transaction.
  const events = await t.db.transaction().execute(async (trx) => {
    const out = [];
    for (let i = 0; i < 130; i++) out.push(await writeEvent(trx, t.clock, { storeId: s.storeId, mode: 'test', type: 'order.paid', data: { orderId: `ord_${i}` } }));
    return out;
  });
  assert.equal(await dispatchEventsOnce(t.deps, t.clock.now()), 130);

  const worker = t.deps.worker;
  worker.start();
  for (let i = 0; i < 400 && rx.received.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
  assert.ok(rx.received.length > 0, 'the worker started sending');
  await worker.stop();
  const sentBeforeStop = rx.received.length;
  assert.ok(sentBeforeStop < 130, `the backlog was not worked through after stop (${sentBeforeStop} sent)`);

  const rows = await t.db.selectFrom('webhook_deliveries').select(['status', 'locked_by', 'locked_until']).execute();
  assert.equal(rows.filter((r) => r.status === 'succeeded').length, sentBeforeStop, 'every delivery sent was recorded');
  const rest = rows.filter((r) => r.status !== 'succeeded');
  assert.equal(rest.length, 130 - sentBeforeStop);
  assert.ok(rest.every((r) => r.status === 'pending' && r.locked_by === null && r.locked_until === null), 'nothing left leased by the stopped worker');

  // The next worker (same clock: no lease runs out in between) sends the rest.
  rx.state.respond = () => ({ status: 200, body: "ok" });
  assert.equal(await runDeliveryOnce(t.deps, t.clock.now(), { timeoutMs: 10_000 }), 130 - sentBeforeStop);
  for (const ev of events) assert.equal(rx.byId(ev.id).length, 1, `event ${ev.id} delivered once`);
});
