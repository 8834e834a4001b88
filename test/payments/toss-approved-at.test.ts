import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, bearer, type TestApp, type TestStore } from '../helpers/app';
import { createProduct, createSession, createSubscriptionProduct, payPath, submitPayForm } from '../checkout/factory';
import { startFakeToss, type FakeToss } from './fake-toss';
import { ManualClock } from '../../src/platform/clock';
import { updateModeSettings } from '../../src/stores/service';
import { runReconciliation, startReconciliation } from '../../src/reconciliation/service';

// A Toss payment is paid when Toss approved it (Payment.approvedAt, https://docs.tosspayments.com/reference#payment-객체),
// not when our server got round to recording it. Toss approves at 23:59:59 KST on 2026-11-01; our clock already reads
// 00:00:01 KST on 2026-11-02 when the answer is recorded (a slow answer, or a clock a little ahead). The order must be
// paid on 2026-11-01, where Toss's ledger has it, or the day's reconciliation calls it missing at Toss.

const TOSS_APPROVES = '2026-11-01T14:59:59.000Z'; // 23:59:59 KST, 2026-11-01
const WE_RECORD = '2026-11-01T15:00:01.000Z'; // 00:00:01 KST, 2026-11-02
const tossClock = new ManualClock(TOSS_APPROVES);
const ours = new ManualClock('2026-11-01T14:50:00.000Z');
let t: TestApp;
let s: TestStore;
let fake: FakeToss;
let live: string;

before(async () => {
  fake = await startFakeToss({ kind: 'live', clock: tossClock });
  t = await createTestApp({ clock: ours, config: { tossApiBaseUrl: fake.baseUrl, tossTimeoutMs: 10_000, tossBillingTimeoutMs: 10_000 } });
  s = await createTestStore(t);
  await updateModeSettings(t.deps, s.storeId, 'live', { paymentProvider: 'toss', tossClientKey: fake.clientKey, tossSecretKey: fake.secretKey });
  live = (await s.newKey({ mode: 'live' })).key;
});
after(async () => {
  await t.close();
  await fake.close();
});

const paidAt = async (orderId: string) => (await t.db.selectFrom('orders').select('paid_at').where('id', '=', orderId).executeTakeFirstOrThrow()).paid_at!;

test('a one-time Toss payment approved just before midnight KST is paid that day, and that day\'s reconciliation agrees', async () => {
  const product = await createProduct(t, s, { mode: 'live', price: 12_000 });
  const session = await createSession(t, live, { productId: product.id, successUrl: 'https://example.com/ok' });
  const orderId = (await t.db.selectFrom('checkout_sessions').select('pending_order_id').where('id', '=', session.id).executeTakeFirstOrThrow()).pending_order_id;
  assert.equal((await submitPayForm(t, session)).statusCode, 200);
  ours.set(WE_RECORD);
  const res = await t.app.inject({ url: `${payPath(session)}/toss/success?${new URLSearchParams({ paymentKey: 'tpk_midnight_1', orderId, amount: '12000' })}` });
  assert.equal(res.statusCode, 303, res.body);
  assert.equal(fake.payments.get('tpk_midnight_1').approvedAt, '2026-11-01T23:59:59+09:00');
  assert.equal((await paidAt(orderId)).toISOString(), TOSS_APPROVES, 'paid when Toss approved it');
  const order = (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(live) })).json();
  assert.equal(order.paidAt, TOSS_APPROVES);

  const run = await startReconciliation(t.deps, s.storeId, { mode: 'live', date: '2026-11-01', source: 'cli', enqueue: false });
  const done = await runReconciliation(t.deps, run.id);
  assert.equal(done!.status, 'completed');
  assert.deepEqual(done!.differences, [], 'Toss\'s approval and our order fall on the same KST day');
});

test('a subscription\'s first charge through Toss\'s billing key is paid at Toss\'s approvedAt too', async () => {
  ours.set('2026-11-01T14:50:00.000Z');
  tossClock.set(TOSS_APPROVES);
  const product = await createSubscriptionProduct(t, s, { mode: 'live' });
  const session = await createSession(t, live, { productId: product.id, planId: 'basic', interval: 'monthly', successUrl: 'https://example.com/ok' });
  assert.equal((await submitPayForm(t, session)).statusCode, 200);
  ours.set(WE_RECORD);
  const customerKey = `sub_${session.id.slice(3)}`;
  const ok = await t.app.inject({ url: `${payPath(session)}/toss/billing-success?${new URLSearchParams({ authKey: 'auth_midnight', customerKey })}` });
  assert.equal(ok.statusCode, 303, ok.body);
  const orderId = new URL(String(ok.headers.location)).searchParams.get('order_id')!;
  assert.equal((await paidAt(orderId)).toISOString(), TOSS_APPROVES);
});
