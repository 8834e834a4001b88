import { test, after, before, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, type TestApp, type TestStore } from '../helpers/app';
import { dispatchEventsOnce, leaseDeliveries, recordAttempt, runDeliveryOnce, sendLeased, envelopeOf } from '../../src/webhooks/delivery';
import { createEndpoint, eventDetail, emit } from './setup';
import { startReceiver, type Receiver } from './receiver';

// Leases: what happens when a worker dies or stalls between sending and recording.

let t: TestApp;
let s: TestStore;
let rx: Receiver;
let secret: string;

before(async () => {
  t = await createTestApp();
});
after(async () => {
  await t.close();
});
beforeEach(async () => {
  s = await createTestStore(t);
  rx = await startReceiver({ secrets: () => [secret] });
});
afterEach(async () => {
  await rx.close();
  await t.db.updateTable('webhook_deliveries').set({ status: 'failed', next_attempt_at: null }).where('status', '=', 'pending').execute();
});

test('a crash between sending and recording re-sends after the lease expires (never dropped)', async () => {
  ({ secret } = await createEndpoint(t, s, { url: rx.url() }));
  const ev = await emit(t, s.storeId);
  await dispatchEventsOnce(t.deps, t.clock.now());
  // Worker A leases and sends, then "crashes" before recording.
  const leased = await leaseDeliveries(t.deps, t.clock.now(), { limit: 10, timeoutMs: 15_000 });
  assert.equal(leased.length, 1);
  const endpoint = await t.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', leased[0].delivery.endpoint_id).executeTakeFirst();
  const row = await t.db.selectFrom('events').selectAll().where('id', '=', ev.id).executeTakeFirstOrThrow();
  await sendLeased(t.deps, leased[0].delivery, endpoint, envelopeOf(row), 15_000);
  assert.equal(rx.received.length, 1);
  // While the lease holds, nobody else sends it.
  assert.equal(await runDeliveryOnce(t.deps, t.clock.now()), 0);
  t.clock.advance(60_000);
  assert.equal(await runDeliveryOnce(t.deps, t.clock.now()), 0);
  t.clock.advance(60_000);
  assert.equal(await runDeliveryOnce(t.deps, t.clock.now()), 1);
  assert.equal(rx.byId(ev.id).length, 2);
  const d = (await eventDetail(t, s, ev.id)).deliveries[0];
  assert.equal(d.status, 'succeeded');
});

test('a worker whose lease ran out mid-send logs its attempt but cannot reschedule what another worker now holds', async () => {
  ({ secret } = await createEndpoint(t, s, { url: rx.url() }));
  rx.state.respond = (_r, n) => (n === 1 ? { status: 500 } : { status: 200 });
  const ev = await emit(t, s.storeId);
  await dispatchEventsOnce(t.deps, t.clock.now());
  const load = async (deliveryEndpointId: string) => ({
    endpoint: await t.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', deliveryEndpointId).executeTakeFirst(),
    event: envelopeOf(await t.db.selectFrom('events').selectAll().where('id', '=', ev.id).executeTakeFirstOrThrow()),
  });
  const [slow] = await leaseDeliveries(t.deps, t.clock.now(), { limit: 1, timeoutMs: 15_000 });
  const ctx = await load(slow.delivery.endpoint_id);
  const slowSent = await sendLeased(t.deps, slow.delivery, ctx.endpoint, ctx.event, 15_000); // answered 500
  t.clock.advance(120_000); // its lease expires before it records
  const [fresh] = await leaseDeliveries(t.deps, t.clock.now(), { limit: 1, timeoutMs: 15_000 });
  assert.equal(fresh.delivery.id, slow.delivery.id);
  await recordAttempt(t.deps, slow, slowSent); // late: must not schedule a retry or drop the new lease
  let row = await t.db.selectFrom('webhook_deliveries').selectAll().where('id', '=', slow.delivery.id).executeTakeFirstOrThrow();
  assert.equal(row.locked_by, fresh.token);
  assert.equal(row.status, 'pending');
  assert.equal(row.attempts, 1);
  const freshSent = await sendLeased(t.deps, fresh.delivery, ctx.endpoint, ctx.event, 15_000); // answered 200
  await recordAttempt(t.deps, fresh, freshSent);
  row = await t.db.selectFrom('webhook_deliveries').selectAll().where('id', '=', slow.delivery.id).executeTakeFirstOrThrow();
  assert.equal(row.status, 'succeeded');
  assert.equal(row.locked_by, null);
  const d = (await eventDetail(t, s, ev.id)).deliveries[0];
  assert.deepEqual(d.attempts.map((a: any) => [a.attempt, a.statusCode]), [[1, 500], [2, 200]]);
});
