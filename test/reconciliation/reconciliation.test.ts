import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, type TestApp, type TestStore } from '../helpers/app';
import { owner } from '../checkout/factory';
import { ManualClock } from '../../src/platform/clock';
import { updateModeSettings } from '../../src/stores/service';
import { TossProvider } from '../../src/payments/toss';
import { runDailyReconciliation, runReconciliation, startReconciliation } from '../../src/reconciliation/service';
import { startFakeToss, type FakeToss } from '../payments/fake-toss';
import { eventsOf, insertPaidOrder, orderRow, product, refund } from '../refunds/factory';
import { signIn } from '../dashboard/helpers';

// Reconciliation of a KST day with Toss, against the fake Toss API (its GET /v1/transactions answers in the shape of
// https://docs.tosspayments.com/guides/apis/transactions). The store takes test-mode payments through Toss.
// The app's clock and the fake's are one: 2026-11-01T00:00Z is 09:00 KST on 2026-11-01, the day reconciled.
const DAY_KST = '2026-11-01';
const clock = new ManualClock('2026-11-01T00:00:00.000Z');
let fake: FakeToss;
let t: TestApp;
let s: TestStore;
let toss: TossProvider;
let p: any;
const planted: Record<string, { orderId: string; paymentKey: string }> = {};

const create = (store: TestStore, body: Record<string, unknown>) => t.app.inject({ method: 'POST', url: '/admin/v1/reconciliations', headers: owner(store), payload: body });
const read = (store: TestStore, id: string) => t.app.inject({ url: `/admin/v1/reconciliations/${id}`, headers: owner(store) });

/** An order of ours paid through Toss for `ours` won, confirmed at the fake for `atToss` won (the same unless drifting). */
async function paid(name: string, ours: number, atToss = ours): Promise<{ orderId: string; paymentKey: string }> {
  const paymentKey = `tpay_${name}`;
  const orderId = await insertPaidOrder(t, s.storeId, p.id, { mode: 'test', amount: ours, provider: 'toss', paymentKey });
  const r = await toss.confirmPayment({ paymentKey, orderId, amount: atToss, idempotencyKey: `confirm-${paymentKey}` });
  assert.equal(r.status, 'succeeded');
  clock.advance(60_000);
  return (planted[name] = { orderId, paymentKey });
}

before(async () => {
  fake = await startFakeToss({ clock });
  // Two transactions a page, so the day's six come in three pages and paging with startingAfter must work.
  t = await createTestApp({ clock, config: { tossApiBaseUrl: fake.baseUrl, tossTimeoutMs: 2000, reconciliationPageSize: 2 } });
  s = await createTestStore(t);
  await updateModeSettings(t.deps, s.storeId, 'test', { paymentProvider: 'toss', tossClientKey: 'test_ck_reconcile', tossSecretKey: fake.secretKey });
  toss = new TossProvider({ secretKey: fake.secretKey, baseUrl: fake.baseUrl, clock });
  p = await product(t, s, {});

  // 1. In agreement: paid, and partly refunded through our API (a Toss cancel we recorded).
  const fine = await paid('fine', 10_000);
  const r = await refund(t, s.key, fine.orderId, { amount: 2_000 });
  assert.equal(r.statusCode, 200, r.body);
  // 2. Paid at Toss, unknown here: an approval under an order id we never recorded.
  const r2 = await toss.confirmPayment({ paymentKey: 'tpay_stranger', orderId: 'ord_stranger_0001', amount: 7_000, idempotencyKey: 'confirm-stranger' });
  assert.equal(r2.status, 'succeeded');
  planted.stranger = { orderId: 'ord_stranger_0001', paymentKey: 'tpay_stranger' };
  clock.advance(60_000);
  // 3. A cancel made at Toss (merchant admin) that never reached us: 3,000 of 8,000.
  const canceled = await paid('canceled_at_toss', 8_000);
  const c = await toss.refund({ paymentKey: canceled.paymentKey, amount: 3_000, reason: '상점관리자 취소', idempotencyKey: 'admin-cancel-1' });
  assert.equal(c.status, 'succeeded');
  // 4. An amount drift: 5,000 here, 5,500 at Toss.
  await paid('drift', 5_000, 5_500);
  // 5. Paid here, never at Toss.
  const ghost = await insertPaidOrder(t, s.storeId, p.id, { mode: 'test', amount: 4_000, provider: 'toss', paymentKey: 'tpay_ghost' });
  planted.ghost = { orderId: ghost, paymentKey: 'tpay_ghost' };
  // The next KST day: a payment at Toss unknown here, which the reconciliation of DAY_KST must not see.
  clock.set('2026-11-01T16:00:00.000Z'); // 01:00 KST on 2026-11-02
  assert.equal((await toss.confirmPayment({ paymentKey: 'tpay_next_day', orderId: 'ord_next_day_01', amount: 1_000, idempotencyKey: 'confirm-next' })).status, 'succeeded');
  clock.set('2026-11-02T01:00:00.000Z'); // 10:00 KST on 2026-11-02
});
after(async () => {
  await t.close();
  await fake.close();
});

/** What the planted day must report, exactly, in the service's order (kind, then order id). */
function expectedDifferences() {
  return [
    { kind: 'unknown_here', orderId: 'ord_stranger_0001', paymentKey: 'tpay_stranger', ourAmount: null, gatewayAmount: 7_000 },
    { kind: 'missing_at_toss', orderId: planted.ghost.orderId, paymentKey: 'tpay_ghost', ourAmount: 4_000, gatewayAmount: null },
    { kind: 'amount_differs', orderId: planted.drift.orderId, paymentKey: 'tpay_drift', ourAmount: 5_000, gatewayAmount: 5_500 },
    { kind: 'refunds_differ', orderId: planted.canceled_at_toss.orderId, paymentKey: 'tpay_canceled_at_toss', ourAmount: 0, gatewayAmount: 3_000 },
  ];
}

test('a day with planted differences reports exactly those through the API, paging Toss with startingAfter; the event carries the count; nothing of ours changes', async () => {
  fake.calls.length = 0;
  const res = await create(s, { mode: 'test', date: DAY_KST });
  assert.equal(res.statusCode, 202, res.body);
  const started = res.json();
  assert.match(started.id, /^rcn_/);
  assert.equal(started.status, 'running');
  assert.deepEqual(started.differences, []);
  assert.equal((await read(s, started.id)).json().status, 'running', 'running until the job has run');

  await t.deps.worker.runOnce();
  const done = (await read(s, started.id)).json();
  assert.equal(done.status, 'completed', JSON.stringify(done));
  assert.equal(done.date, DAY_KST);
  assert.equal(done.gatewayTransactions, 6, 'fine (approval + cancel), stranger, canceled_at_toss (approval + cancel), drift');
  assert.deepEqual(done.differences, expectedDifferences());
  assert.equal(done.differenceCount, 4);

  // Toss was asked for the KST day, page after page, each continuing after the last transactionKey of the one before.
  const pages = fake.calls.filter((c) => c.path === '/v1/transactions');
  assert.equal(pages.length, 4, 'three full pages of two, then an empty one');
  assert.equal(pages[0].query.get('startDate'), '2026-11-01T00:00:00.000');
  assert.equal(pages[0].query.get('endDate'), '2026-11-01T23:59:59.999');
  assert.equal(pages[0].query.get('limit'), '2');
  assert.equal(pages[0].query.get('startingAfter'), null);
  const dayTx = fake.transactions.filter((x) => x.transactionAt.startsWith(DAY_KST));
  assert.equal(pages[1].query.get('startingAfter'), dayTx[1].transactionKey);
  assert.equal(pages[2].query.get('startingAfter'), dayTx[3].transactionKey);
  assert.equal(pages[3].query.get('startingAfter'), dayTx[5].transactionKey);

  const [evt] = await eventsOf(t, s.storeId, 'reconciliation.completed');
  assert.equal((evt.data as any).id, started.id);
  assert.equal((evt.data as any).differenceCount, 4);

  // The report is what was found; afterwards each difference goes through the Toss webhook's own sync path, which
  // changes only what a lookup at Toss proves: the cancel made at Toss becomes a gateway refund dated when Toss
  // canceled; the drifted amount is not ours to rewrite.
  await t.deps.worker.runOnce();
  assert.equal((await orderRow(t, planted.canceled_at_toss.orderId)).refunded_amount, 3_000);
  const gatewayRefunds = await t.db.selectFrom('order_refunds').select(['source', 'amount', 'refunded_at']).where('order_id', '=', planted.canceled_at_toss.orderId).execute();
  assert.deepEqual(gatewayRefunds.map((r) => [r.source, Number(r.amount), r.refunded_at?.toISOString().slice(0, 10)]), [['gateway', 3_000, '2026-11-01']]);
  assert.equal((await orderRow(t, planted.drift.orderId)).amount, 5_000);

  const list = (await t.app.inject({ url: '/admin/v1/reconciliations?mode=test', headers: owner(s) })).json();
  assert.equal(list.total, 1);
  assert.equal(list.data[0].id, started.id);
  assert.equal(list.data[0].differenceCount, 4);
  assert.equal(list.data[0].differences, undefined);
});

test('the report carries Toss\'s settlements of the day (GET /v1/settlements, paged): what Toss pays out, when, and the fee and its VAT; the dashboard shows them', async () => {
  const [run] = (await t.app.inject({ url: '/admin/v1/reconciliations?mode=test', headers: owner(s) })).json().data;
  const settlementCalls = fake.calls.filter((c) => c.path === '/v1/settlements');
  assert.ok(settlementCalls.length >= 3, 'six records at two a page, read page after page');
  assert.equal(settlementCalls[0].query.get('startDate'), DAY_KST);
  assert.equal(settlementCalls[0].query.get('endDate'), DAY_KST);
  assert.equal(settlementCalls[0].query.get('dateType'), 'soldDate');
  assert.deepEqual(settlementCalls.map((c) => c.query.get('page')), settlementCalls.map((_, i) => String(i + 1)));
  const report = (await read(s, run.id)).json();
  const st = report.settlements;
  assert.equal(st.status, 'read');
  // The day's six transactions at Toss: four approvals and two cancels, each its own settlement record.
  assert.equal(st.records.length, 6);
  assert.equal(st.records.filter((r: any) => r.canceled).length, 2);
  const sales = 10_000 + 7_000 + 8_000 + 5_500;
  assert.equal(st.totals.amount, sales - 2_000 - 3_000);
  for (const r of st.records) {
    assert.equal(r.fee, r.feeSupplyAmount + r.feeVat, 'what Toss keeps is its fee plus the VAT on it');
    assert.equal(r.payOutAmount, r.amount - r.fee);
    assert.equal(r.soldDate, DAY_KST);
  }
  assert.equal(st.totals.payOutAmount, st.totals.amount - st.totals.fee);
  // The fake settles daily and pays out two days later (Toss's guide: 지급 주기 '정산 매출일 + 2일').
  assert.deepEqual(st.payouts.map((p: any) => [p.paidOutDate, p.keyPair, p.count, p.payOutAmount]), [['2026-11-03', 'payments', 6, st.totals.payOutAmount]]);
  const fee10k = st.records.find((r: any) => r.orderId === planted.fine.orderId && !r.canceled);
  assert.deepEqual([fee10k.amount, fee10k.fee, fee10k.feeSupplyAmount, fee10k.feeVat, fee10k.payOutAmount], [10_000, 320, 291, 29, 9_680]);

  const session = await signIn(t, { store: s, role: 'admin' });
  const detail = await t.app.inject({ url: `/dashboard/reconciliation/${run.id}`, headers: session.headers });
  assert.equal(detail.statusCode, 200);
  assert.match(detail.body, /data-testid="settlements"/);
  assert.match(detail.body, /토스 정산/);
  assert.ok(detail.body.includes('2026-11-03'), 'the payout date');
  assert.ok(detail.body.includes(`${st.totals.payOutAmount.toLocaleString('ko-KR')}원`), 'the payout total');
  assert.ok(detail.body.includes(`${st.totals.feeVat.toLocaleString('ko-KR')}원`), 'the VAT on the fee');
});

test('each difference is handed to the injected sync function (the webhook path), after the run is recorded', async () => {
  const seen: any[] = [];
  const r = await startReconciliation(t.deps, s.storeId, { mode: 'test', date: DAY_KST, source: 'cli', enqueue: false });
  const done = await runReconciliation(t.deps, r.id, async (q) => {
    assert.equal((await read(s, r.id)).json().status, 'completed', 'sync runs once the run is stored');
    seen.push(q);
  });
  // The run before applied the cancel made at Toss (a gateway refund): the same day now differs only where no lookup
  // could prove anything.
  assert.equal(done!.differenceCount, 3);
  assert.deepEqual(
    seen,
    expectedDifferences()
      .filter((d) => d.kind !== 'refunds_differ')
      .map((d) => ({ storeId: s.storeId, mode: 'test', paymentKey: d.paymentKey, orderId: d.orderId, provider: 'toss' })),
  );
});

test('refusals: a future day or a malformed date (400), a mode without Toss keys (409), a second run of a day still running (409), another store\'s run (404)', async () => {
  const future = await create(s, { mode: 'test', date: '2026-11-03' });
  assert.equal(future.statusCode, 400);
  assert.equal(future.json().details.fields[0].field, 'date');
  assert.equal((await create(s, { mode: 'test', date: '2026-02-30' })).json().code, 'VALIDATION_FAILED');
  const live = await create(s, { mode: 'live', date: DAY_KST });
  assert.equal(live.statusCode, 409);
  assert.equal(live.json().code, 'RECONCILIATION_NOT_AVAILABLE');

  const first = await create(s, { mode: 'test', date: '2026-10-31' });
  assert.equal(first.statusCode, 202);
  const again = await create(s, { mode: 'test', date: '2026-10-31' });
  assert.equal(again.statusCode, 409);
  assert.equal(again.json().code, 'RECONCILIATION_IN_PROGRESS');
  assert.equal(again.json().details.id, first.json().id);
  await t.deps.worker.runOnce();
  const quiet = (await read(s, first.json().id)).json();
  assert.equal(quiet.status, 'completed');
  assert.equal(quiet.gatewayTransactions, 0);
  assert.deepEqual(quiet.differences, []);

  const other = await createTestStore(t);
  const nf = await read(other, first.json().id);
  assert.equal(nf.statusCode, 404);
  assert.equal(nf.json().code, 'RECONCILIATION_NOT_FOUND');
});

test('Toss failing the transactions query (500) marks the run failed, GATEWAY_UNAVAILABLE, and sends no event', async () => {
  fake.setMode('error500');
  const before = (await eventsOf(t, s.storeId, 'reconciliation.completed')).length;
  const res = await create(s, { mode: 'test', date: '2026-10-30' });
  await t.deps.worker.runOnce();
  fake.setMode('ok');
  const r = (await read(s, res.json().id)).json();
  assert.equal(r.status, 'failed');
  assert.equal(r.failure.code, 'GATEWAY_UNAVAILABLE');
  assert.equal((await eventsOf(t, s.storeId, 'reconciliation.completed')).length, before);
});

test('the daily run reconciles the day before for every store mode with Toss keys, from the configured KST hour, once', async () => {
  const deps = { ...t.deps, config: { ...t.deps.config, reconciliationHourKst: 6 } };
  const day = '2026-11-02';
  assert.equal(await runDailyReconciliation(deps, new Date('2026-11-02T20:00:00.000Z')), 0, '05:00 KST on 11-03: too early');
  assert.equal(await runDailyReconciliation(deps, new Date('2026-11-02T22:00:00.000Z')), 1, '07:00 KST on 11-03: the store\'s test mode (Toss keys)');
  assert.equal(await runDailyReconciliation(deps, new Date('2026-11-02T23:00:00.000Z')), 0, 'once a day');
  const list = (await t.app.inject({ url: '/admin/v1/reconciliations', headers: owner(s) })).json();
  const job = list.data.find((r: any) => r.source === 'job');
  assert.equal(job.date, day);
  assert.equal(job.mode, 'test');
  await t.deps.worker.runOnce();
  const r = (await read(s, job.id)).json();
  assert.equal(r.status, 'completed');
  assert.deepEqual(r.differences.map((d: any) => [d.kind, d.paymentKey]), [['unknown_here', 'tpay_next_day']]);
});

test('dashboard 대사: lists the runs and shows a run\'s differences; a member starts one from the page', async () => {
  const session = await signIn(t, { store: s, role: 'admin' });
  const page = await t.app.inject({ url: '/dashboard/reconciliation', headers: session.headers });
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /<table data-testid="reconciliations">/);
  const first = (await t.app.inject({ url: '/admin/v1/reconciliations?mode=test&limit=100', headers: owner(s) })).json().data.find((r: any) => r.date === DAY_KST && r.source === 'console');
  assert.ok(page.body.includes(`/dashboard/reconciliation/${first.id}`));

  const detail = await t.app.inject({ url: `/dashboard/reconciliation/${first.id}`, headers: session.headers });
  assert.equal(detail.statusCode, 200);
  const rows = [...detail.body.matchAll(/<tr data-kind="([a-z_]+)"><td>[^<]*<\/td><td class="mono">([^<]+)<\/td><td class="mono">([^<]+)<\/td><td class="num">([^<]+)<\/td><td class="num">([^<]+)<\/td><\/tr>/g)].map((m) => m.slice(1));
  assert.deepEqual(rows, [
    ['unknown_here', 'ord_stranger_0001', 'tpay_stranger', '—', '7,000원'],
    ['missing_at_toss', planted.ghost.orderId, 'tpay_ghost', '4,000원', '—'],
    ['amount_differs', planted.drift.orderId, 'tpay_drift', '5,000원', '5,500원'],
    ['refunds_differ', planted.canceled_at_toss.orderId, 'tpay_canceled_at_toss', '0원', '3,000원'],
  ]);
  assert.match(detail.body, /토스에만 있는 결제/);

  const { postForm } = await import('../dashboard/helpers');
  const started = await postForm(t, session, '/dashboard/reconciliation', { date: '2026-10-29' });
  assert.equal(started.statusCode, 303, started.body);
  assert.match(String(started.headers.location), /^\/dashboard\/reconciliation\/rcn_/);
  const refused = await postForm(t, session, '/dashboard/reconciliation', { date: '2099-01-01' });
  assert.equal(refused.statusCode, 400);

  const support = await signIn(t, { store: s, role: 'support' });
  assert.equal((await t.app.inject({ url: '/dashboard/reconciliation', headers: support.headers })).statusCode, 403);
});
