import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, bearer, post, type TestApp, type TestStore } from '../helpers/app';
import { simulatorFor, TEST_CARDS } from '../../src/payments';
import { refundOrder } from '../../src/refunds/service';
import { RECONCILE_DELAY_MS } from '../../src/refunds/service';
import { STALE_PENDING_MS } from '../../src/refunds/reconcile';
import { buy, eventsOf, insertActiveRequest, insertPaidOrder, orderRow, product, refund, refundRows } from './factory';

let t: TestApp;
let s: TestStore;
let p: any;
let licensed: any;

before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
  p = await product(t, s);
  licensed = await product(t, s, { name: '라이선스 상품', license: { mode: 'service', maxActivations: 3, validityDays: null } });
});
after(async () => {
  await t.close();
});

const code = (res: { json(): any }) => res.json().code;

test('an empty body refunds everything: 200 with { refund, order }, the order becomes refunded and order.refunded is written', async () => {
  const orderId = await buy(t, s, p.id);
  const res = await refund(t, s.key, orderId, {});
  assert.equal(res.statusCode, 200, res.body);
  const body = res.json();
  assert.match(body.refund.id, /^rf_/);
  assert.equal(body.refund.amount, 10_000);
  assert.equal(body.refund.currency, 'KRW');
  assert.equal(body.refund.reason, null);
  assert.equal(body.refund.status, 'succeeded');
  assert.equal(body.refund.refundedAt, t.clock.now().toISOString());
  assert.equal(body.refund.source, 'api');
  assert.equal(body.order.id, orderId);
  assert.equal(body.order.status, 'refunded');
  assert.equal(body.order.refundedAmount, 10_000);
  assert.equal(body.order.refundedAt, body.refund.refundedAt);
  assert.deepEqual(body.order.refunds, [{ amount: 10_000, currency: 'KRW', at: body.refund.refundedAt, reason: null }]);
  // The order read afterwards says the same.
  const read = (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(s.key) })).json();
  assert.equal(read.status, 'refunded');
  assert.equal(read.refundedAmount, 10_000);
  const ev = (await eventsOf(t, s.storeId, 'order.refunded')).filter((e) => (e.data as any).order.id === orderId);
  assert.equal(ev.length, 1);
  assert.equal((ev[0].data as any).refund.id, body.refund.id);
  assert.equal((ev[0].data as any).order.status, 'refunded');
});

test('partial refunds keep the order paid until nothing is left; refundedAmount and refunds[] add up', async () => {
  const orderId = await buy(t, s, p.id);
  const r1 = await refund(t, s.key, orderId, { amount: 3_000, reason: '부분 환불' });
  assert.equal(r1.statusCode, 200, r1.body);
  assert.equal(r1.json().order.status, 'paid');
  assert.equal(r1.json().order.refundedAmount, 3_000);
  t.clock.advance(1000);
  const r2 = await refund(t, s.key, orderId, {});
  assert.equal(r2.statusCode, 200, r2.body);
  assert.equal(r2.json().refund.amount, 7_000, 'the default is what is left');
  const o = r2.json().order;
  assert.equal(o.status, 'refunded');
  assert.equal(o.refundedAmount, 10_000);
  assert.deepEqual(o.refunds.map((r: any) => [r.amount, r.reason]), [[3_000, '부분 환불'], [7_000, null]]);
  assert.equal(o.refundedAt, r2.json().refund.refundedAt);
  assert.equal((await eventsOf(t, s.storeId, 'order.refunded')).filter((e) => (e.data as any).order.id === orderId).length, 2);
});

test('a full refund revokes the order\'s licenses, a partial one does not, keepLicenses keeps them', async () => {
  const lic = async (orderId: string) => t.db.selectFrom('licenses').select(['status', 'revoke_reason']).where('order_id', '=', orderId).execute();
  const a = await buy(t, s, licensed.id);
  assert.deepEqual((await lic(a)).map((l) => l.status), ['active']);
  assert.equal((await refund(t, s.key, a, { amount: 1_000 })).statusCode, 200);
  assert.deepEqual((await lic(a)).map((l) => l.status), ['active'], 'partial refund keeps the license');
  t.clock.advance(1000);
  const full = await refund(t, s.key, a, {});
  assert.equal(full.statusCode, 200);
  assert.deepEqual(await lic(a), [{ status: 'revoked', revoke_reason: 'refunded' }]);
  const ev = (await eventsOf(t, s.storeId, 'order.refunded')).filter((e) => (e.data as any).order.id === a);
  assert.deepEqual(ev.map((e) => (e.data as any).licensesRevoked), [0, 1]);

  const b = await buy(t, s, licensed.id);
  assert.equal((await refund(t, s.key, b, { keepLicenses: true })).statusCode, 200);
  assert.deepEqual((await lic(b)).map((l) => l.status), ['active'], 'kept on request');
  assert.equal((await refundRows(t, b))[0].keep_licenses, true);
});

test('ORDER_NOT_FOUND: absent, another store\'s, another mode\'s, outside the key\'s products', async () => {
  assert.equal(code(await refund(t, s.key, 'ord_nope', {})), 'ORDER_NOT_FOUND');
  const other = await createTestStore(t);
  const orderId = await insertPaidOrder(t, s.storeId, p.id);
  const res = await refund(t, other.key, orderId, {});
  assert.equal(res.statusCode, 404);
  assert.equal(code(res), 'ORDER_NOT_FOUND');
  const live = (await s.newKey({ mode: 'live' })).key;
  assert.equal(code(await refund(t, live, orderId, {})), 'ORDER_NOT_FOUND');
  const onlyOther = (await s.newKey({ productIds: [licensed.id] })).key;
  assert.equal(code(await refund(t, onlyOther, orderId, {})), 'ORDER_NOT_FOUND');
  const inRange = (await s.newKey({ productIds: [p.id] })).key;
  assert.equal((await refund(t, inRange, orderId, { amount: 1 })).statusCode, 200);
  assert.equal((await refundRows(t, orderId)).length, 1, 'nothing recorded for refused attempts');
});

test('REFUND_AMOUNT_INVALID (400) for 0 and negative amounts; fractions and long reasons are VALIDATION_FAILED', async () => {
  const orderId = await insertPaidOrder(t, s.storeId, p.id);
  for (const amount of [0, -1]) {
    const res = await refund(t, s.key, orderId, { amount });
    assert.equal(res.statusCode, 400);
    assert.equal(code(res), 'REFUND_AMOUNT_INVALID');
  }
  assert.equal(code(await refund(t, s.key, orderId, { amount: 1.5 })), 'VALIDATION_FAILED');
  assert.equal(code(await refund(t, s.key, orderId, { reason: 'x'.repeat(501) })), 'VALIDATION_FAILED');
  assert.equal(code(await refund(t, s.key, orderId, { other: 1 })), 'VALIDATION_FAILED');
  assert.equal((await refund(t, s.key, orderId, { amount: 1, reason: 'x'.repeat(500) })).statusCode, 200);
});

test('REFUND_NOT_PAID (409) for pending, failed and fully refunded orders', async () => {
  for (const status of ['pending', 'failed', 'canceled', 'refunded'] as const) {
    const orderId = await insertPaidOrder(t, s.storeId, p.id, { status });
    const res = await refund(t, s.key, orderId, {});
    assert.equal(res.statusCode, 409);
    assert.equal(code(res), 'REFUND_NOT_PAID', status);
  }
});

test('REFUND_SETTLED (409) for an order in a settlement round', async () => {
  const orderId = await insertPaidOrder(t, s.storeId, p.id);
  await t.db.updateTable('orders').set({ settlement_id: 'stl_x' }).where('id', '=', orderId).execute();
  const res = await refund(t, s.key, orderId, {});
  assert.equal(res.statusCode, 409);
  assert.equal(code(res), 'REFUND_SETTLED');
});

test('REFUND_REQUEST_PENDING (409) while a refund request is active; approving that request is not blocked by itself', async () => {
  const orderId = await insertPaidOrder(t, s.storeId, p.id);
  const rr = await insertActiveRequest(t, s.storeId, orderId, 2_000);
  const res = await refund(t, s.key, orderId, {});
  assert.equal(res.statusCode, 409);
  assert.equal(code(res), 'REFUND_REQUEST_PENDING');
  const done = await refundOrder(t.deps, { storeId: s.storeId, mode: 'test', orderId, amount: 2_000, refundRequestId: rr, source: 'refund_request' });
  assert.equal(done.refund.refundRequestId, rr);
  assert.equal(done.refund.source, 'refund_request');
  assert.equal(done.order.refundedAmount, 2_000);
});

test('REFUND_IN_PROGRESS (409) while another refund of the order is pending or unknown', async () => {
  const orderId = await insertPaidOrder(t, s.storeId, p.id);
  simulatorFor(t.clock).injectFailure('refund', 'unknown');
  const first = await refund(t, s.key, orderId, { amount: 1_000 });
  assert.equal(first.statusCode, 502);
  assert.equal(code(first), 'PG_REFUND_AMBIGUOUS');
  const res = await refund(t, s.key, orderId, { amount: 1_000 });
  assert.equal(res.statusCode, 409);
  assert.equal(code(res), 'REFUND_IN_PROGRESS');
  // settle it so later tests start clean
  t.clock.advance(RECONCILE_DELAY_MS);
  await t.deps.worker.runOnce();
  assert.equal((await refund(t, s.key, orderId, { amount: 1_000 })).statusCode, 200);
});

test('REFUND_NONE_LEFT (409) for a paid order with nothing refundable (a 0-won order)', async () => {
  const orderId = await insertPaidOrder(t, s.storeId, p.id, { amount: 0 });
  const res = await refund(t, s.key, orderId, {});
  assert.equal(res.statusCode, 409);
  assert.equal(code(res), 'REFUND_NONE_LEFT');
});

test('REFUND_EXCEEDS (400) above what is left, with the refundable amount in details', async () => {
  const orderId = await insertPaidOrder(t, s.storeId, p.id);
  assert.equal((await refund(t, s.key, orderId, { amount: 4_000 })).statusCode, 200);
  const res = await refund(t, s.key, orderId, { amount: 6_001 });
  assert.equal(res.statusCode, 400);
  assert.equal(code(res), 'REFUND_EXCEEDS');
  assert.equal(res.json().details.refundableAmount, 6_000);
  assert.equal((await refund(t, s.key, orderId, { amount: 6_000 })).statusCode, 200);
});

test('checks run in the documented order', async () => {
  // settled + active request + in flight + amount 0 → AMOUNT_INVALID; then SETTLED; then REQUEST_PENDING; then IN_PROGRESS; then EXCEEDS last.
  const orderId = await insertPaidOrder(t, s.storeId, p.id);
  const now = t.clock.now();
  await t.db.insertInto('order_refunds').values({
    id: 'rf_inflight_order_test', order_id: orderId, store_id: s.storeId, mode: 'test', amount: 1, reason: null, status: 'unknown',
    provider_idempotency_key: 'k', error: null, refund_request_id: null, created_at: now, refunded_at: null, updated_at: now,
  }).execute();
  await insertActiveRequest(t, s.storeId, orderId);
  await t.db.updateTable('orders').set({ settlement_id: 'stl_y' }).where('id', '=', orderId).execute();
  assert.equal(code(await refund(t, 'sk_test_wrong', orderId, { amount: 0 })), 'API_KEY_INVALID');
  assert.equal(code(await refund(t, s.key, 'ord_absent', { amount: 0 })), 'ORDER_NOT_FOUND');
  assert.equal(code(await refund(t, s.key, orderId, { amount: 0 })), 'REFUND_AMOUNT_INVALID');
  assert.equal(code(await refund(t, s.key, orderId, { amount: 99_999 })), 'REFUND_SETTLED');
  await t.db.updateTable('orders').set({ settlement_id: null }).where('id', '=', orderId).execute();
  assert.equal(code(await refund(t, s.key, orderId, { amount: 99_999 })), 'REFUND_REQUEST_PENDING');
  await t.db.updateTable('refund_requests').set({ status: 'rejected' }).where('order_id', '=', orderId).execute();
  assert.equal(code(await refund(t, s.key, orderId, { amount: 99_999 })), 'REFUND_IN_PROGRESS');
  await t.db.updateTable('order_refunds').set({ status: 'failed' }).where('id', '=', 'rf_inflight_order_test').execute();
  assert.equal(code(await refund(t, s.key, orderId, { amount: 99_999 })), 'REFUND_EXCEEDS');
  const notPaid = await insertPaidOrder(t, s.storeId, p.id, { status: 'refunded' });
  await t.db.updateTable('orders').set({ settlement_id: 'stl_z' }).where('id', '=', notPaid).execute();
  assert.equal(code(await refund(t, s.key, notPaid, {})), 'REFUND_NOT_PAID', 'NOT_PAID before SETTLED');
});

test('PG_REFUND_FAILED (502) with the refundFails test card: the refund is failed, nothing moved, the order unchanged', async () => {
  const orderId = await buy(t, s, p.id, TEST_CARDS.refundFails);
  const res = await refund(t, s.key, orderId, { amount: 2_000 });
  assert.equal(res.statusCode, 502);
  assert.equal(code(res), 'PG_REFUND_FAILED');
  assert.equal(res.json().details.gatewayCode, 'NOT_CANCELABLE_PAYMENT');
  const [r] = await refundRows(t, orderId);
  assert.equal(r.id, res.json().details.refundId);
  assert.equal(r.status, 'failed');
  assert.equal(r.failure_code, 'NOT_CANCELABLE_PAYMENT');
  const o = await orderRow(t, orderId);
  assert.equal(o.status, 'paid');
  assert.equal(o.refunded_amount, null);
  // A failed refund does not block the next attempt (it fails the same way with this card).
  assert.equal(code(await refund(t, s.key, orderId, { amount: 2_000 })), 'PG_REFUND_FAILED');
  assert.equal((await eventsOf(t, s.storeId, 'order.refunded')).filter((e) => (e.data as any).order.id === orderId).length, 0);
});

test('PG_REFUND_AMBIGUOUS (502) with the refundTimesOut test card, then reconciliation finds the cancel and records it', async () => {
  const orderId = await buy(t, s, p.id, TEST_CARDS.refundTimesOut);
  const res = await refund(t, s.key, orderId, { amount: 4_000, reason: '시간 초과 시험' });
  assert.equal(res.statusCode, 502);
  assert.equal(code(res), 'PG_REFUND_AMBIGUOUS');
  const refundId = res.json().details.refundId;
  assert.equal((await refundRows(t, orderId))[0].status, 'unknown');
  assert.equal((await orderRow(t, orderId)).refunded_amount, null, 'not counted before it is known');
  // The job is not due before its delay.
  await t.deps.worker.runOnce();
  assert.equal((await refundRows(t, orderId))[0].status, 'unknown');
  t.clock.advance(RECONCILE_DELAY_MS);
  await t.deps.worker.runOnce();
  const [r] = await refundRows(t, orderId);
  assert.equal(r.id, refundId);
  assert.equal(r.status, 'succeeded');
  const o = (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(s.key) })).json();
  assert.equal(o.status, 'paid');
  assert.equal(o.refundedAmount, 4_000);
  assert.deepEqual(o.refunds.map((x: any) => x.reason), ['시간 초과 시험']);
  const ev = (await eventsOf(t, s.storeId, 'order.refunded')).filter((e) => (e.data as any).order.id === orderId);
  assert.equal(ev.length, 1);
  assert.equal((ev[0].data as any).refund.id, refundId);
});

test('an unknown refund that never reached the gateway is retried by reconciliation with the same gateway key, once', async () => {
  const orderId = await insertPaidOrder(t, s.storeId, p.id);
  const sim = simulatorFor(t.clock);
  const calls: Array<{ idempotencyKey: string; amount: number }> = [];
  const orig = sim.refund.bind(sim);
  sim.refund = async (i) => {
    calls.push({ idempotencyKey: i.idempotencyKey, amount: i.amount });
    return orig(i);
  };
  try {
    sim.injectFailure('refund', 'unknown');
    assert.equal(code(await refund(t, s.key, orderId, { amount: 5_000 })), 'PG_REFUND_AMBIGUOUS');
    t.clock.advance(RECONCILE_DELAY_MS);
    await t.deps.worker.runOnce();
    await t.deps.worker.runOnce();
  } finally {
    sim.refund = orig;
  }
  assert.equal(calls.length, 2);
  assert.equal(calls[0].idempotencyKey, calls[1].idempotencyKey, 'the retry reuses the gateway idempotency key');
  const [r] = await refundRows(t, orderId);
  assert.equal(r.status, 'succeeded');
  assert.equal((await orderRow(t, orderId)).refunded_amount, 5_000);
  const look = await sim.lookupPayment((await orderRow(t, orderId)).provider_payment_key!);
  assert.equal(look.status === 'succeeded' && look.value.balanceAmount, 5_000, 'the gateway refunded once');
});

test('a refund left pending by a dead process is swept into reconciliation and settled', async () => {
  const orderId = await insertPaidOrder(t, s.storeId, p.id);
  const now = t.clock.now();
  await t.db.insertInto('order_refunds').values({
    id: 'rf_stale_pending_0001', order_id: orderId, store_id: s.storeId, mode: 'test', amount: 2_500, reason: null, status: 'pending',
    provider_idempotency_key: 'refund-rf_stale_pending_0001', error: null, refund_request_id: null, created_at: now, refunded_at: null, updated_at: now,
  }).execute();
  assert.equal(code(await refund(t, s.key, orderId, {})), 'REFUND_IN_PROGRESS');
  await t.deps.worker.runOnce();
  assert.equal((await refundRows(t, orderId))[0].status, 'pending', 'a fresh pending refund is left alone');
  t.clock.advance(STALE_PENDING_MS + 1000);
  await t.deps.worker.runOnce(); // sweep: pending → unknown, job scheduled
  assert.equal((await refundRows(t, orderId))[0].status, 'unknown');
  t.clock.advance(RECONCILE_DELAY_MS);
  await t.deps.worker.runOnce(); // lookup: nothing canceled → retry with the same key → succeeded
  assert.equal((await refundRows(t, orderId))[0].status, 'succeeded');
  assert.equal((await orderRow(t, orderId)).refunded_amount, 2_500);
});

test('reconciliation flags an unknown refund the gateway\'s state does not explain, and leaves the order alone', async () => {
  const orderId = await insertPaidOrder(t, s.storeId, p.id);
  const sim = simulatorFor(t.clock);
  sim.injectFailure('refund', 'lost');
  assert.equal(code(await refund(t, s.key, orderId, { amount: 1_000 })), 'PG_REFUND_AMBIGUOUS');
  // Someone also cancels 500 in the gateway's dashboard: the gateway now shows 1,500 canceled, we know of 0 + 1,000.
  await sim.refund({ paymentKey: (await orderRow(t, orderId)).provider_payment_key!, amount: 500, reason: 'dashboard', idempotencyKey: `dash-${orderId}` });
  t.clock.advance(RECONCILE_DELAY_MS);
  await t.deps.worker.runOnce();
  const [r] = await refundRows(t, orderId);
  assert.equal(r.status, 'unknown');
  assert.equal(r.failure_code, 'RECONCILE_MISMATCH');
  assert.equal((await orderRow(t, orderId)).refunded_amount, null);
  const ownerH = { authorization: `Bearer ${s.ownerToken}` };
  const listed = (await t.app.inject({ url: `/admin/v1/refunds?orderId=${orderId}`, headers: ownerH })).json();
  assert.equal(listed.data[0].failure.code, 'RECONCILE_MISMATCH');
  assert.equal(code(await refund(t, s.key, orderId, { amount: 100 })), 'REFUND_IN_PROGRESS', 'blocked until resolved');

  // The seller checks the gateway and settles it by hand.
  const resolve = (id: string, headers: Record<string, string>, payload: Record<string, unknown>) =>
    t.app.inject({ method: 'POST', url: `/admin/v1/refunds/${id}/resolve`, headers, payload });
  const other = await createTestStore(t);
  assert.equal(code(await resolve(r.id, { authorization: `Bearer ${other.ownerToken}` }, { status: 'succeeded', note: 'x' })), 'REFUND_NOT_FOUND');
  const res = await resolve(r.id, ownerH, { status: 'succeeded', note: '대시보드에서 1,000원 취소 확인' });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.json().status, 'succeeded');
  assert.equal((await orderRow(t, orderId)).refunded_amount, 1_000);
  assert.equal((await eventsOf(t, s.storeId, 'order.refunded')).filter((e) => (e.data as any).refund.id === r.id).length, 1);
  assert.equal(code(await resolve(r.id, ownerH, { status: 'failed', note: 'x' })), 'REFUND_NOT_UNKNOWN');
  // The job that kept retrying now finds nothing to do.
  t.clock.advance(24 * 3600_000);
  await t.deps.worker.runOnce();
  assert.equal((await refundRows(t, orderId))[0].status, 'succeeded');
});

test('the same Idempotency-Key replays the first answer and refunds once', async () => {
  const orderId = await insertPaidOrder(t, s.storeId, p.id);
  const a = await refund(t, s.key, orderId, { amount: 1_000 }, `same-${orderId}`);
  const b = await refund(t, s.key, orderId, { amount: 1_000 }, `same-${orderId}`);
  assert.equal(a.statusCode, 200);
  assert.equal(b.statusCode, 200);
  assert.equal(b.json().refund.id, a.json().refund.id);
  assert.equal((await refundRows(t, orderId)).length, 1);
  assert.equal(code(await refund(t, s.key, orderId, { amount: 2_000 }, `same-${orderId}`)), 'IDEMPOTENCY_KEY_CONFLICT');
});

test('refunding needs refunds:write', async () => {
  const orderId = await insertPaidOrder(t, s.storeId, p.id);
  const readOnly = (await s.newKey({ scopes: ['orders:read', 'refunds:read'] })).key;
  const res = await refund(t, readOnly, orderId, {});
  assert.equal(res.statusCode, 403);
  assert.equal(code(res), 'API_KEY_SCOPE_MISSING');
});

test('the console lists refunds of every state, newest first, filtered by status and order', async () => {
  const owner = { authorization: `Bearer ${s.ownerToken}` };
  const all = (await t.app.inject({ url: '/admin/v1/refunds?mode=test&limit=100', headers: owner })).json();
  assert.ok(all.total >= 10);
  const times = all.data.map((r: any) => r.createdAt);
  assert.deepEqual([...times].sort().reverse(), times);
  const failed = (await t.app.inject({ url: '/admin/v1/refunds?status=failed', headers: owner })).json();
  assert.ok(failed.total >= 2);
  assert.ok(failed.data.every((r: any) => r.status === 'failed'));
  assert.ok(failed.data.filter((r: any) => r.failure?.code === 'NOT_CANCELABLE_PAYMENT').length >= 2);
  assert.equal((await t.app.inject({ url: '/admin/v1/refunds', headers: bearer(s.key) })).statusCode, 401);
});

test('after a 502, a retry with the same Idempotency-Key answers that refund\'s current state instead of refunding again', async () => {
  const orderId = await buy(t, s, p.id, TEST_CARDS.refundTimesOut);
  const key = `retry-${orderId}`;
  const first = await refund(t, s.key, orderId, { amount: 3_000 }, key);
  assert.equal(code(first), 'PG_REFUND_AMBIGUOUS');
  const again = await refund(t, s.key, orderId, { amount: 3_000 }, key);
  assert.equal(again.statusCode, 502);
  assert.equal(code(again), 'PG_REFUND_AMBIGUOUS');
  assert.equal(again.json().details.refundId, first.json().details.refundId);
  t.clock.advance(RECONCILE_DELAY_MS);
  await t.deps.worker.runOnce();
  const done = await refund(t, s.key, orderId, { amount: 3_000 }, key);
  assert.equal(done.statusCode, 200, done.body);
  assert.equal(done.json().refund.id, first.json().details.refundId);
  assert.equal(done.json().order.refundedAmount, 3_000);
  assert.equal((await refundRows(t, orderId)).length, 1);
  assert.equal(code(await refund(t, s.key, orderId, { amount: 2_000 }, key)), 'IDEMPOTENCY_KEY_CONFLICT', 'same key, other amount');

  const failing = await buy(t, s, p.id, TEST_CARDS.refundFails);
  const f1 = await refund(t, s.key, failing, {}, `retry-${failing}`);
  const f2 = await refund(t, s.key, failing, {}, `retry-${failing}`);
  assert.equal(code(f2), 'PG_REFUND_FAILED');
  assert.equal(f2.json().details.refundId, f1.json().details.refundId);
  assert.equal((await refundRows(t, failing)).length, 1, 'no second attempt under the same key');
  const other = await insertPaidOrder(t, s.storeId, p.id);
  // The 502 answers are not kept by the idempotency layer: the refund itself remembers the key.
  assert.equal(code(await refund(t, s.key, other, {}, `retry-${failing}`)), 'IDEMPOTENCY_KEY_CONFLICT', 'same key, other order');
  assert.equal(code(await refund(t, s.key, failing, { amount: 1 }, `retry-${failing}-2`)), 'PG_REFUND_FAILED');
});

test('a POST without any body refunds everything, like {}', async () => {
  const orderId = await insertPaidOrder(t, s.storeId, p.id);
  const res = await t.app.inject({ method: 'POST', url: `/v1/orders/${orderId}/refund`, headers: post(s.key) });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.json().refund.amount, 10_000);
});

test('the console refunds too (source console), with a required Idempotency-Key that never refunds twice', async () => {
  const orderId = await insertPaidOrder(t, s.storeId, p.id);
  const call = (headers: Record<string, string>, payload: Record<string, unknown>) =>
    t.app.inject({ method: 'POST', url: `/admin/v1/orders/${orderId}/refund`, headers: { authorization: `Bearer ${s.ownerToken}`, ...headers }, payload });
  const noKey = await call({}, { mode: 'test', amount: 1_000 });
  assert.equal(code(noKey), 'VALIDATION_FAILED');
  assert.equal(noKey.json().details.fields[0].field, 'Idempotency-Key');
  const a = await call({ 'idempotency-key': 'console-1' }, { mode: 'test', amount: 1_000, reason: '콘솔 환불' });
  assert.equal(a.statusCode, 200, a.body);
  assert.equal(a.json().refund.source, 'console');
  const b = await call({ 'idempotency-key': 'console-1' }, { mode: 'test', amount: 1_000 });
  assert.equal(b.json().refund.id, a.json().refund.id, 'same key: the same refund');
  assert.equal((await refundRows(t, orderId)).length, 1);
  assert.equal(code(await call({ 'idempotency-key': 'console-2' }, { mode: 'live', amount: 1_000 })), 'ORDER_NOT_FOUND');
  const other = await createTestStore(t);
  const foreign = await t.app.inject({ method: 'POST', url: `/admin/v1/orders/${orderId}/refund`, headers: { authorization: `Bearer ${other.ownerToken}`, 'idempotency-key': 'k' }, payload: { mode: 'test' } });
  assert.equal(code(foreign), 'ORDER_NOT_FOUND');
  assert.equal((await t.app.inject({ method: 'POST', url: `/admin/v1/orders/${orderId}/refund`, headers: { ...bearer(s.key), 'idempotency-key': 'k' }, payload: { mode: 'test' } })).statusCode, 401);
  const rest = await call({ 'idempotency-key': 'console-3' }, { mode: 'test' });
  assert.equal(rest.json().order.status, 'refunded');
});
