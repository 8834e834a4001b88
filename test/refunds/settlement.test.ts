import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, type TestApp, type TestStore } from '../helpers/app';
import { owner } from '../checkout/factory';
import { kstWeekStart, orderFee } from '../../src/refunds/settlement';
import { insertActiveRequest, insertPaidOrder, orderRow, product, refund } from './factory';

// Clock starts 2026-11-01T00:00Z = Sunday 1 November 09:00 KST.
let t: TestApp;
let s: TestStore;
let p: any;
let long: any;
const ids: Record<string, string> = {};

before(async () => {
  t = await createTestApp({ config: { settlementSchedule: 'weekly' } });
  s = await createTestStore(t);
  p = await product(t, s);
  long = await product(t, s, { name: '14일 환불 상품', refundPolicy: undefined });
  await t.db.updateTable('products').set({ refund_days: 14 }).where('id', '=', long.id).execute();
  ids.a = await insertPaidOrder(t, s.storeId, p.id); // Nov 1: window ends 9 Nov 24:00 KST (8 Nov is a Sunday → Monday 9)
  ids.long = await insertPaidOrder(t, s.storeId, long.id); // Nov 1, 14 days: ends 16 Nov 24:00 KST (15 Nov Sunday → 16)
  ids.requested = await insertPaidOrder(t, s.storeId, p.id);
  ids.inflight = await insertPaidOrder(t, s.storeId, p.id);
  ids.refundedFully = await insertPaidOrder(t, s.storeId, p.id, { amount: 5_000 });
  t.clock.set('2026-11-05T01:00:00.000Z'); // Thursday 5 Nov KST
  ids.b = await insertPaidOrder(t, s.storeId, p.id, { amount: 20_000 }); // window ends 12 Nov 24:00 KST
  ids.liveOrder = await insertPaidOrder(t, s.storeId, p.id, { mode: 'live' });
});
after(async () => {
  await t.close();
});

const create = (body: Record<string, unknown>) => t.app.inject({ method: 'POST', url: '/admin/v1/settlements', headers: owner(s), payload: body });

test('nothing to settle while every order is inside its withdrawal window: SETTLEMENT_EMPTY, and the job makes no round', async () => {
  const res = await create({ mode: 'test' });
  assert.equal(res.statusCode, 409);
  assert.equal(res.json().code, 'SETTLEMENT_EMPTY');
  await t.deps.worker.runOnce();
  assert.equal((await t.db.selectFrom('settlement_rounds').selectAll().execute()).length, 0);
});

test('the console settles orders out of their window: gross, refunds, fees, net per order and in total; then they answer REFUND_SETTLED', async () => {
  assert.equal((await refund(t, s.key, ids.a, { amount: 1_000 })).statusCode, 200);
  assert.equal((await refund(t, s.key, ids.refundedFully, {})).statusCode, 200);
  await insertActiveRequest(t, s.storeId, ids.requested);
  const now = t.clock.now();
  await t.db.insertInto('order_refunds').values({
    id: 'rf_settle_inflight', order_id: ids.inflight, store_id: s.storeId, mode: 'test', amount: 1, reason: null, status: 'unknown',
    provider_idempotency_key: 'k-settle', error: null, refund_request_id: null, created_at: now, refunded_at: null, updated_at: now,
  }).execute();

  t.clock.set('2026-11-09T14:59:00.000Z'); // Monday 9 Nov 23:59 KST: order a's window still open
  assert.equal((await create({ mode: 'test' })).json().code, 'SETTLEMENT_EMPTY');
  t.clock.set('2026-11-09T15:00:00.000Z'); // Tuesday 10 Nov 00:00 KST
  const res = await create({ mode: 'test' });
  assert.equal(res.statusCode, 201, res.body);
  const round = res.json();
  assert.match(round.id, /^stl_/);
  assert.equal(round.source, 'console');
  assert.equal(round.mode, 'test');
  // a (1,000 refunded) and the fully refunded one; not the long-window one, b, the one with a request or the one in flight.
  assert.deepEqual(round.orders.map((o: any) => o.orderId).sort(), [ids.a, ids.refundedFully].sort());
  const a = round.orders.find((o: any) => o.orderId === ids.a);
  assert.deepEqual([a.gross, a.refunded, a.fee, a.net], [10_000, 1_000, orderFee(9_000), 9_000 - orderFee(9_000)]);
  assert.equal(orderFee(9_000), 297);
  const full = round.orders.find((o: any) => o.orderId === ids.refundedFully);
  assert.deepEqual([full.gross, full.refunded, full.fee, full.net], [5_000, 5_000, 0, 0]);
  assert.deepEqual([round.orderCount, round.gross, round.refunds, round.fees, round.net], [2, 15_000, 6_000, 297, 8_703]);
  assert.equal(round.feeRateBps, 330);

  const settled = await refund(t, s.key, ids.a, { amount: 1_000 });
  assert.equal(settled.statusCode, 409);
  assert.equal(settled.json().code, 'REFUND_SETTLED');
  assert.equal(settled.json().details.settlementId, round.id);
  assert.equal((await orderRow(t, ids.a)).settlement_id, round.id);

  // Read back: list (newest first) and one round with its orders; another store sees nothing.
  const list = (await t.app.inject({ url: '/admin/v1/settlements?mode=test', headers: owner(s) })).json();
  assert.equal(list.total, 1);
  assert.equal(list.data[0].id, round.id);
  assert.equal(list.data[0].orders, undefined);
  const one = (await t.app.inject({ url: `/admin/v1/settlements/${round.id}`, headers: owner(s) })).json();
  assert.deepEqual(one, round);
  const other = await createTestStore(t);
  const nf = await t.app.inject({ url: `/admin/v1/settlements/${round.id}`, headers: owner(other) });
  assert.equal(nf.statusCode, 404);
  assert.equal(nf.json().code, 'SETTLEMENT_NOT_FOUND');
  assert.equal((await t.app.inject({ url: '/admin/v1/settlements?mode=live', headers: owner(s) })).json().total, 0);
});

test('the weekly job settles, once per KST week, the orders paid before its Monday whose window has ended', async () => {
  assert.equal(kstWeekStart(new Date('2026-11-15T15:00:00.000Z')), '2026-11-16'); // Monday 00:00 KST
  assert.equal(kstWeekStart(new Date('2026-11-15T14:59:59.000Z')), '2026-11-09'); // Sunday 23:59 KST
  t.clock.set('2026-11-15T15:30:00.000Z'); // Monday 16 Nov 00:30 KST
  ids.c = await insertPaidOrder(t, s.storeId, p.id, { paidAt: new Date('2026-11-01T00:00:00.000Z') }); // old enough, but created after
  await t.deps.worker.runOnce();
  const rounds = await t.db.selectFrom('settlement_rounds').selectAll().where('source', '=', 'job').execute();
  const test_ = rounds.find((r) => r.mode === 'test')!;
  assert.equal(test_.period_key, '2026-11-16');
  const lines = await t.db.selectFrom('settlement_orders').select('order_id').where('round_id', '=', test_.id).execute();
  // b (window ended 13 Nov 00:00 KST) and c; the long-window order's ends 17 Nov 00:00 KST: next week.
  assert.deepEqual(lines.map((l) => l.order_id).sort(), [ids.b, ids.c].sort());
  const live = rounds.find((r) => r.mode === 'live')!;
  assert.equal(live.order_count, 1, 'live orders settle in their own round');
  // Running again in the same week makes nothing new, even with a new qualifying order.
  await insertPaidOrder(t, s.storeId, p.id, { paidAt: new Date('2026-11-02T00:00:00.000Z') });
  await t.deps.worker.runOnce();
  assert.equal((await t.db.selectFrom('settlement_rounds').selectAll().where('source', '=', 'job').execute()).length, 2);
  // Next week: the long-window order and the late one.
  t.clock.set('2026-11-22T16:00:00.000Z');
  await t.deps.worker.runOnce();
  const next = await t.db.selectFrom('settlement_rounds').selectAll().where('period_key', '=', '2026-11-23').execute();
  assert.equal(next.length, 1);
  assert.equal(next[0].order_count, 2);
  assert.equal((await orderRow(t, ids.long)).settlement_id, next[0].id);
  // Orders held back by a request or a refund in flight stay unsettled.
  assert.equal((await orderRow(t, ids.requested)).settlement_id, null);
  assert.equal((await orderRow(t, ids.inflight)).settlement_id, null);
});
