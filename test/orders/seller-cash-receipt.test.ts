import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, bearer, type TestApp, type TestStore } from '../helpers/app';
import { createProduct, createSession, formPost, payPath, submitPayForm } from '../checkout/factory';
import { startFakeToss, type FakeToss } from '../payments/fake-toss';
import { updateModeSettings } from '../../src/stores/service';

// The seller issues a 현금영수증 afterwards (issue 32) for a paid 계좌이체 / 가상계좌 order without one, through
// POST /admin/v1/orders/{id}/cash-receipt: Toss's POST /v1/cash-receipts (answered by the fake from Toss's documented
// shapes, test/fixtures/toss/cash-receipts.json) with an Idempotency-Key recorded before the call; refunds reduce it
// through POST /v1/cash-receipts/{receiptKey}/cancel, since the payment's cancel does not touch a separate receipt.

let t: TestApp;
let s: TestStore;
let fake: FakeToss;
let live: string;
let product: any;
let seq = 0;

before(async () => {
  fake = await startFakeToss({ kind: 'live' });
  t = await createTestApp({ config: { tossApiBaseUrl: fake.baseUrl, tossTimeoutMs: 10_000 } });
  s = await createTestStore(t);
  await updateModeSettings(t.deps, s.storeId, 'live', { paymentProvider: 'toss', tossClientKey: fake.clientKey, tossSecretKey: fake.secretKey });
  live = (await s.newKey({ mode: 'live' })).key;
  product = await createProduct(t, s, { mode: 'live', price: 50_000, stock: 50 });
});
after(async () => {
  await t.close();
  await fake.close();
});

const owner = () => ({ authorization: `Bearer ${s.ownerToken}` });
const issue = (orderId: string, payload: Record<string, unknown>) => t.app.inject({ method: 'POST', url: `/admin/v1/orders/${orderId}/cash-receipt`, headers: owner(), payload: { mode: 'live', ...payload } });
const issueCalls = () => fake.calls.filter((c) => c.method === 'POST' && c.path === '/v1/cash-receipts');
const cancelCalls = () => fake.calls.filter((c) => c.method === 'POST' && /^\/v1\/cash-receipts\/[^/]+\/cancel$/.test(c.path));

/** A live 계좌이체 paid through Toss's window with no 현금영수증 chosen. */
async function paidTransfer(): Promise<string> {
  const session = await createSession(t, live, { productId: product.id, successUrl: 'https://example.com/ok' });
  const orderId = (await t.db.selectFrom('checkout_sessions').select('pending_order_id').where('id', '=', session.id).executeTakeFirstOrThrow()).pending_order_id!;
  const launch = await submitPayForm(t, session, { method: 'transfer', cashReceiptType: 'none' });
  assert.equal(launch.statusCode, 200, launch.body);
  const paymentKey = `tpk_transfer_seller_cr_${++seq}`;
  fake.requestPayment({ paymentKey, orderId, amount: 50_000 });
  const res = await t.app.inject({ url: `${payPath(session)}/toss/success?${new URLSearchParams({ paymentKey, orderId, amount: '50000' })}` });
  assert.equal(res.statusCode, 303, res.body);
  return orderId;
}

const order = async (orderId: string) => (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(live) })).json();
const refund = (orderId: string, amount: number | undefined, key: string) =>
  t.app.inject({ method: 'POST', url: `/admin/v1/orders/${orderId}/refund`, headers: { ...owner(), 'idempotency-key': key }, payload: { mode: 'live', ...(amount ? { amount } : {}) } });

test('the seller issues a 현금영수증 afterwards: Toss gets the documented body with an Idempotency-Key; the Order and receipt page show it', async () => {
  const orderId = await paidTransfer();
  assert.equal((await order(orderId)).cashReceipt, undefined, 'none chosen with the payment');
  const before = issueCalls().length;
  const res = await issue(orderId, { type: '지출증빙', customerIdentityNumber: '123-45-67890' });
  assert.equal(res.statusCode, 200, res.body);
  const body = res.json();
  assert.equal(body.cashReceipt.requestedBy, 'seller');
  assert.equal(body.cashReceipt.type, '지출증빙');
  assert.equal(body.cashReceipt.status, 'issued');
  assert.equal(body.cashReceipt.amount, 50_000);
  assert.equal(body.cashReceipt.identity, '123****7890', "kept masked, as Toss's answer has it (issue 40)");
  const calls = issueCalls().slice(before);
  assert.equal(calls.length, 1);
  assert.deepEqual(calls[0].body, { amount: 50_000, orderId: `${orderId}-cr`, orderName: calls[0].body.orderName, customerIdentityNumber: '1234567890', type: '지출증빙', taxFreeAmount: 0 });
  assert.ok(calls[0].headers['idempotency-key'], 'an Idempotency-Key is sent');
  const atToss = [...fake.cashReceipts.values()].filter((r) => r.orderId === `${orderId}-cr`);
  assert.equal(atToss.length, 1);
  assert.equal(body.cashReceipt.issueNumber, atToss[0].history[0].issueNumber);
  assert.equal(body.cashReceipt.receiptUrl, atToss[0].history[0].receiptUrl);
  const page = (await t.app.inject({ url: new URL(body.receiptUrl).pathname + new URL(body.receiptUrl).search })).body;
  assert.ok(page.includes(body.cashReceipt.issueNumber), 'the receipt page shows the issue number');
  assert.ok(page.includes('id="cash-receipt-link"'), 'and links Toss\'s receipt');
  assert.ok(!page.includes('1234567890'), 'never the full number');
});

test('an order that already has one is refused with CASH_RECEIPT_EXISTS; a wrong number with a Korean field error', async () => {
  const orderId = await paidTransfer();
  const bad = await issue(orderId, { type: '소득공제', customerIdentityNumber: '02-123-4567' });
  assert.equal(bad.statusCode, 400);
  assert.equal(bad.json().code, 'VALIDATION_FAILED');
  assert.match(bad.json().details.fields[0].message, /휴대폰 번호/);
  const badBiz = await issue(orderId, { type: '지출증빙', customerIdentityNumber: '123-45-678' });
  assert.match(badBiz.json().details.fields[0].message, /사업자등록번호 10자리/);
  assert.equal((await issue(orderId, { type: '소득공제', customerIdentityNumber: '010-1234-5678' })).statusCode, 200);
  const n = issueCalls().length;
  const again = await issue(orderId, { type: '지출증빙', customerIdentityNumber: '1234567890' });
  assert.equal(again.statusCode, 409);
  assert.equal(again.json().code, 'CASH_RECEIPT_EXISTS');
  assert.match(again.json().message, /이미 현금영수증이 있습니다/);
  assert.equal(issueCalls().length, n, 'Toss was not asked again');
});

test('a card order, another store\'s order and a fully refunded order are refused', async () => {
  const orderId = await paidTransfer();
  assert.equal((await refund(orderId, undefined, `full-before-${orderId}`)).statusCode, 200);
  const r = await issue(orderId, { type: '소득공제', customerIdentityNumber: '01012345678' });
  assert.equal(r.statusCode, 409);
  assert.equal(r.json().code, 'CASH_RECEIPT_NOT_ALLOWED');
  const other = await createTestStore(t);
  const foreign = await t.app.inject({ method: 'POST', url: `/admin/v1/orders/${orderId}/cash-receipt`, headers: { authorization: `Bearer ${other.ownerToken}` }, payload: { mode: 'live', type: '소득공제', customerIdentityNumber: '01012345678' } });
  assert.equal(foreign.json().code, 'ORDER_NOT_FOUND');
});

test('a double click issues once: both requests answer the same receipt, Toss made one', async () => {
  const orderId = await paidTransfer();
  const before = issueCalls().length;
  const [a, b] = await Promise.all([issue(orderId, { type: '소득공제', customerIdentityNumber: '01099998888' }), issue(orderId, { type: '소득공제', customerIdentityNumber: '01099998888' })]);
  const ok = [a, b].filter((r) => r.statusCode === 200);
  assert.ok(ok.length >= 1, `${a.body} ${b.body}`);
  for (const r of [a, b]) assert.ok(r.statusCode === 200 || r.json().code === 'CASH_RECEIPT_EXISTS' || r.json().code === 'PG_CASH_RECEIPT_AMBIGUOUS', r.body);
  assert.equal([...fake.cashReceipts.values()].filter((r) => r.orderId === `${orderId}-cr`).length, 1, 'one receipt at Toss');
  const keys = new Set(issueCalls().slice(before).map((c) => c.headers['idempotency-key']));
  assert.equal(keys.size, 1, 'every call carried the same Idempotency-Key');
  assert.equal((await order(orderId)).cashReceipt.status, 'issued');
});

test('a crash between Toss\'s issue and our record: the retry sends the same Idempotency-Key and Toss issues nothing new', async () => {
  const orderId = await paidTransfer();
  const before = issueCalls().length;
  // Toss issues the receipt, then the connection is cut before its answer reaches us.
  fake.beforeAnswer = (call) => (call.path === '/v1/cash-receipts' ? 'drop' : undefined);
  const lost = await issue(orderId, { type: '소득공제', customerIdentityNumber: '01011112222' });
  fake.beforeAnswer = null;
  assert.equal(lost.statusCode, 502, lost.body);
  assert.equal(lost.json().code, 'PG_CASH_RECEIPT_AMBIGUOUS');
  assert.equal((await order(orderId)).cashReceipt.status, 'requested', 'the intent was recorded before the call');
  assert.equal([...fake.cashReceipts.values()].filter((r) => r.orderId === `${orderId}-cr`).length, 1, 'Toss did issue it');
  // The seller sends it again (or the job does): the same key, Toss answers the first issue.
  const retry = await issue(orderId, { type: '소득공제', customerIdentityNumber: '01011112222' });
  assert.equal(retry.statusCode, 200, retry.body);
  assert.equal(retry.json().cashReceipt.status, 'issued');
  const calls = issueCalls().slice(before);
  assert.equal(calls.length, 2);
  assert.equal(calls[0].headers['idempotency-key'], calls[1].headers['idempotency-key'], 'the retry re-sent the same key');
  assert.equal([...fake.cashReceipts.values()].filter((r) => r.orderId === `${orderId}-cr`).length, 1, 'still one receipt at Toss');
  const rk = [...fake.cashReceipts.entries()].find(([, r]) => r.orderId === `${orderId}-cr`)![0];
  assert.equal(retry.json().cashReceipt.issueNumber, fake.cashReceipts.get(rk)!.history[0].issueNumber);
});

test('the job finishes an unanswered issue by itself, with the same key', async () => {
  const orderId = await paidTransfer();
  fake.beforeAnswer = (call) => (call.path === '/v1/cash-receipts' ? 'drop' : undefined);
  assert.equal((await issue(orderId, { type: '소득공제', customerIdentityNumber: '01033334444' })).statusCode, 502);
  fake.beforeAnswer = null;
  t.clock.advance(61_000);
  await t.deps.worker.runOnce();
  assert.equal((await order(orderId)).cashReceipt.status, 'issued');
  assert.equal([...fake.cashReceipts.values()].filter((r) => r.orderId === `${orderId}-cr`).length, 1);
});

test('refunds reduce the seller\'s receipt through Toss\'s cash-receipt cancel: partial, then full', async () => {
  const orderId = await paidTransfer();
  const issued = await issue(orderId, { type: '소득공제', customerIdentityNumber: '01055556666' });
  assert.equal(issued.statusCode, 200, issued.body);
  const [receiptKey, atToss] = [...fake.cashReceipts.entries()].find(([, r]) => r.orderId === `${orderId}-cr`)!;
  const c0 = cancelCalls().length;

  const partial = await refund(orderId, 20_000, `partial-${orderId}`);
  assert.equal(partial.statusCode, 200, partial.body);
  assert.equal(partial.json().order.cashReceipt.status, 'partially_canceled');
  assert.equal(partial.json().order.cashReceipt.amount, 30_000);
  const first = cancelCalls().slice(c0);
  assert.equal(first.length, 1);
  assert.equal(first[0].path, `/v1/cash-receipts/${receiptKey}/cancel`);
  assert.deepEqual(first[0].body, { amount: 20_000 });
  assert.ok(first[0].headers['idempotency-key']);
  assert.equal(atToss.amount, 30_000, 'Toss\'s receipt covers what is still paid');

  const full = await refund(orderId, undefined, `full-${orderId}`);
  assert.equal(full.statusCode, 200, full.body);
  assert.equal(full.json().order.cashReceipt.status, 'canceled');
  assert.equal(full.json().order.cashReceipt.amount, 0);
  const second = cancelCalls().slice(c0 + 1);
  assert.equal(second.length, 1);
  assert.deepEqual(second[0].body, {}, 'no amount: the whole rest is canceled');
  assert.equal(atToss.amount, 0);
  // The job queued with the refund finds nothing left to do.
  t.clock.advance(1000);
  await t.deps.worker.runOnce();
  assert.equal(cancelCalls().length, c0 + 2, 'never canceled twice');
});

test('only the unrefunded amount is issued', async () => {
  const orderId = await paidTransfer();
  assert.equal((await refund(orderId, 15_000, `pre-${orderId}`)).statusCode, 200);
  const res = await issue(orderId, { type: '소득공제', customerIdentityNumber: '4000123412341234' });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.json().cashReceipt.amount, 35_000);
  assert.equal(issueCalls().at(-1)!.body.amount, 35_000);
});

test('test mode: the simulator issues a test receipt afterwards for a 가상계좌 order after its deposit', async () => {
  const testProduct = await createProduct(t, s, { price: 12_000, stock: 5 });
  const session = await createSession(t, s.key, { productId: testProduct.id, successUrl: 'https://example.com/ok' });
  const submitted = await submitPayForm(t, session, { method: 'virtual_account', cashReceiptType: 'none' });
  assert.ok(submitted.statusCode === 303 || submitted.statusCode === 200, submitted.body);
  const orderId = (await t.db.selectFrom('checkout_sessions').select('pending_order_id').where('id', '=', session.id).executeTakeFirstOrThrow()).pending_order_id!;
  const approve = await formPost(t, `${payPath(session)}/approve`, { decision: 'approve' });
  assert.ok(approve.statusCode < 400, approve.body);
  const dep = await t.app.inject({ method: 'POST', url: `/admin/v1/orders/${orderId}/test-deposit`, headers: owner() });
  assert.equal(dep.statusCode, 200, dep.body);
  assert.equal(dep.json().status, 'paid');
  const res = await t.app.inject({ method: 'POST', url: `/admin/v1/orders/${orderId}/cash-receipt`, headers: owner(), payload: { mode: 'test', type: '소득공제', customerIdentityNumber: '010-2222-3333' } });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.json().cashReceipt.requestedBy, 'seller');
  assert.match(res.json().cashReceipt.issueNumber, /^T\d{8}$/);
  assert.equal(res.json().cashReceipt.amount, 12_000);
});
