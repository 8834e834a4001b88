import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, bearer, type TestApp } from '../helpers/app';
import { createProduct, createSession, formPost, payPath, submitPayForm } from './factory';
import { startFakeToss, type FakeToss } from '../payments/fake-toss';
import { updateModeSettings } from '../../src/stores/service';
import { postForm, signIn, type DashboardSession } from '../dashboard/helpers';
import { syncCashReceipt } from '../../src/checkout/seller-cash-receipt';

// Issue 40: the 현금영수증 asked with a payment — the buyer's number typed on our page, or 의무발행 to the National Tax
// Service's self-issue number 010-000-1234 — is issued through Toss's POST /v1/cash-receipts after the payment (Toss's
// window takes the receipt type only, never the number, so it is told 미발행), from a row written before the call with
// an Idempotency-Key reused on every resend; what the order shows is Toss's answer. Against the fake Toss built from
// Toss's reference (test/fixtures/toss/cash-receipts.json: https://docs.tosspayments.com/reference#현금영수증-발급-요청,
// components.schemas.CashReceipt of the 2022-11-16 reference; a refusal is Toss's common 400 INVALID_REQUEST).

let t: TestApp;
let fake: FakeToss;
let owner: DashboardSession;
let live: string;
let big: any;
let small: any;
let seq = 0;

before(async () => {
  fake = await startFakeToss({ kind: 'live' });
  t = await createTestApp({ config: { tossApiBaseUrl: fake.baseUrl, tossTimeoutMs: 10_000 } });
  owner = await signIn(t, { name: '김사장' });
  await updateModeSettings(t.deps, owner.storeId, 'live', { paymentProvider: 'toss', tossClientKey: fake.clientKey, tossSecretKey: fake.secretKey });
  live = (await owner.store.newKey({ mode: 'live' })).key;
  big = await createProduct(t, owner.store, { mode: 'live', price: 120_000, stock: 50 });
  small = await createProduct(t, owner.store, { mode: 'live', price: 33_000, stock: 50 });
  const on = await t.app.inject({ method: 'PATCH', url: '/admin/v1/store', headers: { ...bearer(owner.store.ownerToken), 'content-type': 'application/json' }, payload: { cashReceiptMandatory: true } });
  assert.equal(on.statusCode, 200, on.body);
});
after(async () => {
  await t.close();
  await fake.close();
});

const issueCalls = (orderId?: string) => fake.calls.filter((c) => c.method === 'POST' && c.path === '/v1/cash-receipts' && (!orderId || String(c.body?.orderId).startsWith(orderId)));
const atToss = (orderId: string) => [...fake.cashReceipts.values()].filter((r) => r.orderId.startsWith(`${orderId}-cr`));
const order = async (orderId: string) => (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(live) })).json();
const events = (type: string, orderId: string) =>
  t.db.selectFrom('events').selectAll().where('type', '=', type).execute().then((rows) => rows.filter((e: any) => JSON.stringify(e.data).includes(orderId)));

/** A live 계좌이체 through Toss's window; answers the order id and what the window was told. */
async function payTransfer(product: any, form: Record<string, string>): Promise<{ orderId: string; launch: string }> {
  const session = await createSession(t, live, { productId: product.id, successUrl: 'https://example.com/ok' });
  const orderId = (await t.db.selectFrom('checkout_sessions').select('pending_order_id').where('id', '=', session.id).executeTakeFirstOrThrow()).pending_order_id!;
  const launch = await submitPayForm(t, session, { method: 'transfer', ...form });
  assert.equal(launch.statusCode, 200, launch.body);
  const paymentKey = `tpk_transfer_i40_${++seq}`;
  const amount = product === big ? 120_000 : 33_000;
  fake.requestPayment({ paymentKey, orderId, amount, cashReceipt: { type: '미발행' } });
  const res = await t.app.inject({ url: `${payPath(session)}/toss/success?${new URLSearchParams({ paymentKey, orderId, amount: String(amount) })}` });
  assert.equal(res.statusCode, 303, res.body);
  return { orderId, launch: launch.body };
}

test('의무발행: a 120,000원 transfer with no request reaches Toss as 소득공제 to 0100001234; the order records what Toss answered', async () => {
  const { orderId, launch } = await payTransfer(big, { cashReceiptType: 'none' });
  assert.ok(launch.includes('"transfer":{"cashReceipt":{"type":"미발행"},"useEscrow":false}'), 'the window issues none itself');
  // Written before any call: requested, with the job that sends it.
  const before = await order(orderId);
  assert.equal(before.cashReceipt.status, 'requested');
  assert.equal(before.cashReceipt.requestedBy, 'mandatory');
  assert.equal(issueCalls(orderId).length, 0, 'nothing sent inside the payment transaction');
  await t.deps.worker.runOnce();
  const calls = issueCalls(orderId);
  assert.equal(calls.length, 1);
  assert.deepEqual(calls[0].body, { amount: 120_000, orderId: `${orderId}-cr`, orderName: calls[0].body.orderName, customerIdentityNumber: '0100001234', type: '소득공제', taxFreeAmount: 0 });
  assert.equal(calls[0].headers['idempotency-key'], `cash-receipt-${orderId}`);
  const [receipt] = atToss(orderId);
  const answered = receipt.history[0];
  const after = await order(orderId);
  assert.equal(after.cashReceipt.status, 'issued');
  assert.equal(after.cashReceipt.issueNumber, answered.issueNumber);
  assert.equal(after.cashReceipt.receiptUrl, answered.receiptUrl);
  assert.equal(after.cashReceipt.amount, answered.amount);
  assert.equal(after.cashReceipt.type, answered.type);
  assert.equal(after.cashReceipt.identity, answered.customerIdentityNumber, "the masked number as Toss answered it, not our page's");
  assert.equal(after.cashReceipt.identity, '010****1234');
  const row = await t.db.selectFrom('order_cash_receipts').selectAll().where('order_id', '=', orderId).executeTakeFirstOrThrow();
  assert.equal(row.identity_sealed, null, 'the full number is dropped once Toss has answered');
  assert.equal(row.issue_status, 'IN_PROGRESS');
});

test('a number typed on our page reaches Toss (the window is told 미발행); below 100,000원 without a request nothing is issued', async () => {
  const { orderId, launch } = await payTransfer(small, { cashReceiptType: 'expense', cashReceiptNumber: '123-45-67890' });
  assert.ok(launch.includes('"transfer":{"cashReceipt":{"type":"미발행"},"useEscrow":false}'));
  await t.deps.worker.runOnce();
  const calls = issueCalls(orderId);
  assert.equal(calls.length, 1);
  assert.equal(calls[0].body.customerIdentityNumber, '1234567890');
  assert.equal(calls[0].body.type, '지출증빙');
  assert.equal(calls[0].body.amount, 33_000);
  const o = await order(orderId);
  assert.equal(o.cashReceipt.status, 'issued');
  assert.equal(o.cashReceipt.requestedBy, 'buyer');
  assert.equal(o.cashReceipt.issueNumber, atToss(orderId)[0].history[0].issueNumber);
  const none = await payTransfer(small, { cashReceiptType: 'none' });
  await t.deps.worker.runOnce();
  assert.equal((await order(none.orderId)).cashReceipt, undefined);
  assert.equal(issueCalls(none.orderId).length, 0);
});

test('a 가상계좌 is issued its receipt with the typed number after the deposit, not before', async () => {
  const session = await createSession(t, live, { productId: small.id });
  const orderId = (await t.db.selectFrom('checkout_sessions').select('pending_order_id').where('id', '=', session.id).executeTakeFirstOrThrow()).pending_order_id!;
  const launch = await submitPayForm(t, session, { method: 'virtual_account', cashReceiptType: 'income', cashReceiptNumber: '010-9876-5432' });
  assert.ok(launch.body.includes('"virtualAccount":{"cashReceipt":{"type":"미발행"}'));
  const paymentKey = `tpk_vaccount_i40_${++seq}`;
  fake.requestPayment({ paymentKey, orderId, amount: 33_000, cashReceipt: { type: '미발행' } });
  assert.equal((await t.app.inject({ url: `${payPath(session)}/toss/success?${new URLSearchParams({ paymentKey, orderId, amount: '33000' })}` })).statusCode, 200);
  await t.deps.worker.runOnce();
  assert.equal(issueCalls(orderId).length, 0, 'nothing before the deposit');
  assert.equal((await order(orderId)).cashReceipt.status, 'requested');
  const callback = fake.deposit(paymentKey);
  assert.equal((await t.app.inject({ method: 'POST', url: `/gateway/toss/webhook/${owner.storeId}/live`, payload: callback as any })).statusCode, 200);
  await t.deps.worker.runOnce();
  await t.deps.worker.runOnce();
  const calls = issueCalls(orderId);
  assert.equal(calls.length, 1);
  assert.equal(calls[0].body.customerIdentityNumber, '01098765432');
  const paid = await order(orderId);
  assert.equal(paid.status, 'paid');
  assert.equal(paid.cashReceipt.status, 'issued');
  assert.equal(paid.cashReceipt.issueNumber, atToss(orderId)[0].history[0].issueNumber);
});

test('an answer lost after Toss issued (a crash between call and record): the job sends the same key again and one receipt exists', async () => {
  const { orderId } = await payTransfer(big, { cashReceiptType: 'none' });
  let dropped = 0;
  fake.beforeAnswer = (call) => (call.path === '/v1/cash-receipts' && dropped++ === 0 ? 'drop' : undefined);
  try {
    await t.deps.worker.runOnce();
    assert.equal(atToss(orderId).length, 1, 'Toss issued it');
    assert.equal((await order(orderId)).cashReceipt.status, 'requested', 'but we did not hear: still requested');
    // A second process and the retry job, together: the same key, Toss answers the first issue.
    t.clock.advance(120_000);
    await Promise.all([t.deps.worker.runOnce(), syncCashReceipt(t.deps, orderId).catch(() => undefined)]);
    await t.deps.worker.runOnce();
  } finally {
    fake.beforeAnswer = null;
  }
  const calls = issueCalls(orderId);
  assert.ok(calls.length >= 2, 'sent again');
  assert.equal(new Set(calls.map((c) => c.headers['idempotency-key'])).size, 1, 'always the same Idempotency-Key');
  assert.equal(atToss(orderId).length, 1, 'one receipt at Toss');
  const o = await order(orderId);
  assert.equal(o.cashReceipt.status, 'issued');
  assert.equal(o.cashReceipt.issueNumber, atToss(orderId)[0].history[0].issueNumber);
});

test('a receipt Toss refuses is flagged failed with its message, announced by cash_receipt.failed, shown on the dashboard, and the retry issues once', async () => {
  const { orderId } = await payTransfer(small, { cashReceiptType: 'income', cashReceiptNumber: '010-5555-6666' });
  fake.answerNext('cash_receipt', { status: 400, code: 'INVALID_REQUEST', message: '잘못된 요청입니다.' });
  await t.deps.worker.runOnce();
  const o = await order(orderId);
  assert.equal(o.cashReceipt.status, 'failed');
  assert.deepEqual(o.cashReceipt.failure, { code: 'INVALID_REQUEST', message: '잘못된 요청입니다.' });
  assert.equal(atToss(orderId).length, 0);
  const ev = await events('cash_receipt.failed', orderId);
  assert.equal(ev.length, 1, 'one event');
  const data = typeof ev[0].data === 'string' ? JSON.parse(ev[0].data) : ev[0].data;
  assert.equal(data.orderId, orderId);
  assert.equal(data.cashReceipt.status, 'failed');
  assert.equal(data.cashReceipt.failure.message, '잘못된 요청입니다.');
  // The seller sees it on the order page (live mode) with Toss's words and a retry.
  assert.equal((await postForm(t, owner, '/dashboard/mode', { mode: 'live' })).statusCode, 303);
  const page = (await t.app.inject({ url: `/dashboard/orders/${orderId}`, headers: owner.headers })).body;
  assert.match(page, /id="cash-receipt-failed"/);
  assert.match(page, /id="cash-receipt-failure">잘못된 요청입니다\.</);
  assert.match(page, /id="cash-receipt-status">발급 실패</);
  assert.match(page, /action="\/dashboard\/orders\/[^"]+\/cash-receipt\/retry"/);
  // A double click on retry: one new key, one receipt at Toss.
  const [a, b] = await Promise.all([postForm(t, owner, `/dashboard/orders/${orderId}/cash-receipt/retry`), postForm(t, owner, `/dashboard/orders/${orderId}/cash-receipt/retry`)]);
  for (const r of [a, b]) assert.ok(r.statusCode === 303 || r.statusCode === 502, `${r.statusCode} ${r.body.slice(0, 200)}`);
  await t.deps.worker.runOnce();
  assert.equal(atToss(orderId).length, 1, 'one receipt at Toss');
  const retried = issueCalls(orderId).slice(1);
  assert.ok(retried.length >= 1);
  assert.equal(new Set(retried.map((c) => c.headers['idempotency-key'])).size, 1, 'the retries share one key');
  assert.notEqual(retried[0].headers['idempotency-key'], issueCalls(orderId)[0].headers['idempotency-key'], 'a fresh key: the refused one would replay the refusal');
  assert.equal(retried[0].body.orderId, `${orderId}-cr2`);
  assert.equal(retried[0].body.customerIdentityNumber, '01055556666', 'the number it was asked for');
  const done = await order(orderId);
  assert.equal(done.cashReceipt.status, 'issued');
  assert.equal(done.cashReceipt.failure, null);
  assert.equal(done.cashReceipt.issueNumber, atToss(orderId)[0].history[0].issueNumber);
  assert.equal((await events('cash_receipt.failed', orderId)).length, 1, 'no new event for a success');
  assert.equal((await postForm(t, owner, '/dashboard/mode', { mode: 'test' })).statusCode, 303);
});

test('a refused 의무발행 is issued by hand with the buyer\'s number; refunds then reduce that receipt at Toss', async () => {
  const { orderId } = await payTransfer(big, { cashReceiptType: 'none' });
  fake.answerNext('cash_receipt', { status: 400, code: 'INVALID_REQUEST', message: '잘못된 요청입니다.' });
  await t.deps.worker.runOnce();
  assert.equal((await order(orderId)).cashReceipt.status, 'failed');
  const res = await t.app.inject({ method: 'POST', url: `/admin/v1/orders/${orderId}/cash-receipt`, headers: bearer(owner.store.ownerToken), payload: { mode: 'live', type: '소득공제', customerIdentityNumber: '010-1111-2222' } });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.json().cashReceipt.status, 'issued');
  assert.equal(issueCalls(orderId).at(-1)!.body.customerIdentityNumber, '01011112222');
  const [receipt] = atToss(orderId);
  const part = await t.app.inject({ method: 'POST', url: `/v1/orders/${orderId}/refund`, headers: { ...bearer(live), 'content-type': 'application/json', 'idempotency-key': `i40-part-${orderId}` }, payload: { amount: 20_000, reason: '부분 환불' } });
  assert.equal(part.statusCode, 200, part.body);
  assert.equal(part.json().order.cashReceipt.status, 'partially_canceled');
  assert.equal(part.json().order.cashReceipt.amount, 100_000);
  assert.equal(receipt.amount, 100_000, "Toss's separate receipt was reduced by its own cancel call");
});

test('test mode: the simulator issues test receipts the same way, refuses its test number 010-0000-0000, and the retry is flagged again', async () => {
  const product = await createProduct(t, owner.store, { price: 15_000, stock: 5 });
  const pay = async (number: string) => {
    const session = await createSession(t, owner.store.key, { productId: product.id, successUrl: 'https://example.com/ok' });
    assert.equal((await submitPayForm(t, session, { method: 'transfer', cashReceiptType: 'income', cashReceiptNumber: number })).statusCode, 303);
    const approved = await formPost(t, `${payPath(session)}/approve`, { decision: 'approve' });
    return new URL(String(approved.headers.location)).searchParams.get('order_id')!;
  };
  const get = async (id: string) => (await t.app.inject({ url: `/v1/orders/${id}`, headers: bearer(owner.store.key) })).json();
  const ok = await pay('010-3333-4444');
  assert.equal((await get(ok)).cashReceipt.status, 'requested');
  await t.deps.worker.runOnce();
  const issued = (await get(ok)).cashReceipt;
  assert.equal(issued.status, 'issued');
  assert.match(issued.issueNumber, /^T\d{8}$/);
  assert.equal(issued.identity, '010****4444');
  const refused = await pay('010-0000-0000');
  await t.deps.worker.runOnce();
  const failed = (await get(refused)).cashReceipt;
  assert.equal(failed.status, 'failed');
  assert.equal(failed.failure.code, 'SIMULATED_CASH_RECEIPT_REFUSED');
  assert.equal((await events('cash_receipt.failed', refused)).length, 1);
  const again = await postForm(t, owner, `/dashboard/orders/${refused}/cash-receipt/retry`);
  assert.equal(again.statusCode, 502, 'the same number is refused again');
  assert.equal((await get(refused)).cashReceipt.status, 'failed', 'still flagged');
  assert.equal((await events('cash_receipt.failed', refused)).length, 2);
  const byHand = await postForm(t, owner, `/dashboard/orders/${refused}/cash-receipt`, { type: '소득공제', customerIdentityNumber: '010-7777-1234' });
  assert.equal(byHand.statusCode, 303, byHand.body.slice(0, 300));
  const fixed = (await get(refused)).cashReceipt;
  assert.equal(fixed.status, 'issued');
  assert.equal(fixed.identity, '010****1234');
});
