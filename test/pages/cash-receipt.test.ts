import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, bearer, type TestApp, type TestStore } from '../helpers/app';
import { createProduct, createSession, formPost, payPath, submitPayForm } from '../checkout/factory';
import { startFakeToss, type FakeToss } from '../payments/fake-toss';
import { updateModeSettings } from '../../src/stores/service';

// 현금영수증 for 계좌이체 / 가상계좌 (issue 32): the buyer's choice on our payment page (소득공제 with a phone or card
// number, 지출증빙 with a 사업자번호). Since issue 40 Toss's window is told 미발행 (it takes the type only, never the number)
// and the receipt is issued with the number through POST /v1/cash-receipts by a job after the payment (a 가상계좌 after
// its deposit), recorded from Toss's answer and shown on the receipt and in the Order (test/checkout/cash-receipt-issue
// tests that flow in depth). Test mode: the simulator issues a test receipt (issue number T + 8 digits).

let t: TestApp;
let s: TestStore;
let fake: FakeToss;
let live: string;
let liveProduct: any;
let testProduct: any;

before(async () => {
  fake = await startFakeToss({ kind: 'live' });
  t = await createTestApp({ config: { tossApiBaseUrl: fake.baseUrl, tossTimeoutMs: 10_000 } });
  s = await createTestStore(t);
  await updateModeSettings(t.deps, s.storeId, 'live', { paymentProvider: 'toss', tossClientKey: fake.clientKey, tossSecretKey: fake.secretKey });
  live = (await s.newKey({ mode: 'live' })).key;
  liveProduct = await createProduct(t, s, { mode: 'live', price: 33_000, stock: 5 });
  testProduct = await createProduct(t, s, { price: 12_000, stock: 5 });
});
after(async () => {
  await t.close();
  await fake.close();
});

const receiptOf = async (order: any) => {
  const u = new URL(order.receiptUrl);
  return (await t.app.inject({ url: u.pathname + u.search })).body;
};

test('the payment page offers 현금영수증 for bank methods and refuses a wrong number in Korean', async () => {
  const session = await createSession(t, s.key, { productId: testProduct.id });
  const form = await t.app.inject({ url: payPath(session) });
  assert.match(form.body, /name="cashReceiptType" value="income"/);
  assert.match(form.body, /name="cashReceiptType" value="expense"/);
  const bad = await submitPayForm(t, session, { method: 'transfer', cashReceiptType: 'expense', cashReceiptNumber: '123-45-6789' });
  assert.equal(bad.statusCode, 422);
  assert.match(bad.body, /사업자등록번호 10자리를 입력해 주세요/);
  const empty = await submitPayForm(t, session, { method: 'virtual_account', cashReceiptType: 'income', cashReceiptNumber: '' });
  assert.equal(empty.statusCode, 422);
  assert.match(empty.body, /휴대폰 번호나 카드 번호를 입력해 주세요/);
  const wrongPhone = await submitPayForm(t, session, { method: 'transfer', cashReceiptType: 'income', cashReceiptNumber: '02-123-4567' });
  assert.equal(wrongPhone.statusCode, 422);
  // A card payment ignores the (hidden) fields.
  const other = await createSession(t, s.key, { productId: testProduct.id, successUrl: 'https://example.com/ok' });
  const card = await submitPayForm(t, other, { method: 'card', cardNumber: '4242424242424242', cashReceiptType: 'expense', cashReceiptNumber: '1' });
  assert.equal(card.statusCode, 303, card.body.match(/role="alert"[^<]*<[^<]*/)?.[0]);
});

test('test mode: a 계좌이체 with 소득공제 gets a simulated 현금영수증, on the receipt and in the Order', async () => {
  const session = await createSession(t, s.key, { productId: testProduct.id, successUrl: 'https://example.com/ok' });
  const submitted = await submitPayForm(t, session, { method: 'transfer', cashReceiptType: 'income', cashReceiptNumber: '010-1234-5678' });
  assert.equal(submitted.statusCode, 303, submitted.body);
  const approved = await formPost(t, `${payPath(session)}/approve`, { decision: 'approve' });
  assert.equal(approved.statusCode, 303, approved.body);
  const orderId = new URL(String(approved.headers.location)).searchParams.get('order_id')!;
  assert.match(await receiptOf((await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(s.key) })).json()), /발급 중/, 'being issued until the job has run');
  await t.deps.worker.runOnce();
  const order = (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(s.key) })).json();
  assert.equal(order.status, 'paid');
  assert.equal(order.cashReceipt.type, '소득공제');
  assert.equal(order.cashReceipt.status, 'issued');
  assert.equal(order.cashReceipt.requestedBy, 'buyer');
  assert.equal(order.cashReceipt.identity, '010****5678', 'the number is kept masked only');
  assert.match(order.cashReceipt.issueNumber, /^T\d{8}$/);
  assert.equal(order.cashReceipt.amount, 12_000);
  const page = await receiptOf(order);
  assert.match(page, /현금영수증/);
  assert.ok(page.includes(order.cashReceipt.issueNumber));
  assert.ok(!page.includes('01012345678'));
});

test('a card order has no cashReceipt', async () => {
  const session = await createSession(t, s.key, { productId: testProduct.id, successUrl: 'https://example.com/ok' });
  const paid = await submitPayForm(t, session, { method: 'card', cardNumber: '4242424242424242' });
  const orderId = new URL(String(paid.headers.location)).searchParams.get('order_id')!;
  const order = (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(s.key) })).json();
  assert.equal(order.cashReceipt, undefined);
});

test('live: 지출증빙 is issued with the typed number through POST /v1/cash-receipts (the window told 미발행); Toss\'s answer is recorded with its link', async () => {
  const session = await createSession(t, live, { productId: liveProduct.id, successUrl: 'https://example.com/ok' });
  const orderId = (await t.db.selectFrom('checkout_sessions').select('pending_order_id').where('id', '=', session.id).executeTakeFirstOrThrow()).pending_order_id;
  const launch = await submitPayForm(t, session, { method: 'transfer', cashReceiptType: 'expense', cashReceiptNumber: '123-45-67890' });
  assert.equal(launch.statusCode, 200, launch.body);
  assert.ok(launch.body.includes('"transfer":{"cashReceipt":{"type":"미발행"},"useEscrow":false}'), launch.body.slice(0, 0));

  const paymentKey = 'tpk_transfer_cash_0001';
  fake.requestPayment({ paymentKey, orderId, amount: 33_000, cashReceipt: { type: '미발행' } });
  const res = await t.app.inject({ url: `${payPath(session)}/toss/success?${new URLSearchParams({ paymentKey, orderId, amount: '33000' })}` });
  assert.equal(res.statusCode, 303, res.body);
  await t.deps.worker.runOnce();
  const atToss = [...fake.cashReceipts.values()].find((r) => r.orderId === `${orderId}-cr`)!.history[0];
  assert.equal(atToss.customerIdentityNumber, '123****7890');
  const order = (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(live) })).json();
  assert.equal(order.cashReceipt.type, '지출증빙');
  assert.equal(order.cashReceipt.status, 'issued');
  assert.equal(order.cashReceipt.issueNumber, atToss.issueNumber);
  assert.equal(order.cashReceipt.receiptUrl, atToss.receiptUrl);
  assert.equal(order.cashReceipt.identity, '123****7890', 'as Toss answered it');
  const page = await receiptOf(order);
  assert.ok(page.includes(`href="${atToss.receiptUrl.replace(/&/g, '&amp;')}"`) || page.includes(`href="${atToss.receiptUrl}"`), 'the receipt links Toss\'s 현금영수증');
});

test('live: a 가상계좌 keeps the buyer\'s choice as requested until the deposit, then issues it with the number', async () => {
  const session = await createSession(t, live, { productId: liveProduct.id });
  const orderId = (await t.db.selectFrom('checkout_sessions').select('pending_order_id').where('id', '=', session.id).executeTakeFirstOrThrow()).pending_order_id;
  const launch = await submitPayForm(t, session, { method: 'virtual_account', cashReceiptType: 'income', cashReceiptNumber: '01098765432' });
  assert.equal(launch.statusCode, 200, launch.body);
  assert.ok(launch.body.includes('"virtualAccount":{"cashReceipt":{"type":"미발행"}'));
  const paymentKey = 'tpk_vaccount_cash_0001';
  fake.requestPayment({ paymentKey, orderId, amount: 33_000, cashReceipt: { type: '미발행' } });
  const res = await t.app.inject({ url: `${payPath(session)}/toss/success?${new URLSearchParams({ paymentKey, orderId, amount: '33000' })}` });
  assert.equal(res.statusCode, 200, res.body);
  assert.match(res.body, /가상계좌가 발급되었습니다/);
  const order = (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(live) })).json();
  assert.equal(order.status, 'awaiting_deposit');
  assert.equal(order.cashReceipt.status, 'requested');
  assert.equal(order.cashReceipt.issueNumber, null);
  assert.match(await receiptOf(order), /입금 확인 후 발급/);
  // The deposit (DEPOSIT_CALLBACK, confirmed by our lookup), then the receipt with the number, by the job.
  const callback = fake.deposit(paymentKey);
  assert.equal((await t.app.inject({ method: 'POST', url: `/gateway/toss/webhook/${s.storeId}/live`, payload: callback as any })).statusCode, 200);
  await t.deps.worker.runOnce();
  await t.deps.worker.runOnce();
  const paid = (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(live) })).json();
  const atToss = [...fake.cashReceipts.values()].find((r) => r.orderId === `${orderId}-cr`)!;
  assert.equal(atToss.customerIdentityNumber, '01098765432');
  assert.equal(paid.status, 'paid');
  assert.equal(paid.cashReceipt.status, 'issued');
  assert.equal(paid.cashReceipt.issueNumber, atToss.history[0].issueNumber);
  assert.equal(paid.cashReceipt.receiptUrl, atToss.history[0].receiptUrl);
});

test('test mode: a 가상계좌 with 지출증빙 gets its simulated receipt at the (test) deposit', async () => {
  const session = await createSession(t, s.key, { productId: testProduct.id, successUrl: 'https://example.com/ok' });
  await submitPayForm(t, session, { method: 'virtual_account', cashReceiptType: 'expense', cashReceiptNumber: '1234567890' });
  const approved = await formPost(t, `${payPath(session)}/approve`, { decision: 'approve' });
  // An issued 가상계좌 shows its account before the seller's successUrl (a link onward), not a redirect.
  assert.equal(approved.statusCode, 200, approved.body);
  const orderId = (await t.db.selectFrom('checkout_sessions').select('order_id').where('id', '=', session.id).executeTakeFirstOrThrow()).order_id!;
  assert.ok(approved.body.includes(`https://example.com/ok?order_id=${orderId}`), 'the link onward to the seller');
  let order = (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(s.key) })).json();
  assert.equal(order.cashReceipt.status, 'requested');
  const dep = await t.app.inject({ method: 'POST', url: `/admin/v1/orders/${orderId}/test-deposit`, headers: bearer(s.ownerToken) });
  assert.ok(dep.statusCode < 300, dep.body);
  await t.deps.worker.runOnce();
  order = (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(s.key) })).json();
  assert.equal(order.status, 'paid');
  assert.equal(order.cashReceipt.type, '지출증빙');
  assert.equal(order.cashReceipt.status, 'issued');
  assert.match(order.cashReceipt.issueNumber, /^T\d{8}$/);
});

test('의무발행업종: from 100,000원 a 계좌이체 without the buyer\'s 현금영수증 is issued one to the NTS self-issue number; below, or when off, none', async () => {
  const big = await createProduct(t, s, { price: 120_000, stock: 5 });
  const payTransfer = async (productId: string) => {
    const session = await createSession(t, s.key, { productId, successUrl: 'https://example.com/ok' });
    const submitted = await submitPayForm(t, session, { method: 'transfer', cashReceiptType: 'none' });
    assert.equal(submitted.statusCode, 303, submitted.body);
    const approved = await formPost(t, `${payPath(session)}/approve`, { decision: 'approve' });
    const orderId = new URL(String(approved.headers.location)).searchParams.get('order_id')!;
    await t.deps.worker.runOnce();
    return (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(s.key) })).json();
  };
  // Off (the default): the buyer's "none" stands.
  assert.equal((await payTransfer(big.id)).cashReceipt, undefined);
  const on = await t.app.inject({ method: 'PATCH', url: '/admin/v1/store', headers: { ...bearer(s.ownerToken), 'content-type': 'application/json' }, payload: { cashReceiptMandatory: true } });
  assert.equal(on.statusCode, 200, on.body);
  assert.equal(on.json().cashReceiptMandatory, true);
  const order = await payTransfer(big.id);
  assert.equal(order.cashReceipt.type, '소득공제');
  assert.equal(order.cashReceipt.requestedBy, 'mandatory');
  assert.equal(order.cashReceipt.status, 'issued');
  assert.equal(order.cashReceipt.amount, 120_000);
  assert.match(await receiptOf(order), /국세청 자진발급번호 010-000-1234/);
  // Below 100,000원 the law asks nothing.
  assert.equal((await payTransfer(testProduct.id)).cashReceipt, undefined);
  await t.app.inject({ method: 'PATCH', url: '/admin/v1/store', headers: { ...bearer(s.ownerToken), 'content-type': 'application/json' }, payload: { cashReceiptMandatory: false } });
});

test('refunds reduce and then cancel the 현금영수증 (its own cancel call at Toss); the receipt page says so', async () => {
  const session = await createSession(t, live, { productId: liveProduct.id, successUrl: 'https://example.com/ok' });
  const orderId = (await t.db.selectFrom('checkout_sessions').select('pending_order_id').where('id', '=', session.id).executeTakeFirstOrThrow()).pending_order_id;
  await submitPayForm(t, session, { method: 'transfer', cashReceiptType: 'income', cashReceiptNumber: '010-2222-3333' });
  const paymentKey = 'tpk_transfer_cash_refund';
  fake.requestPayment({ paymentKey, orderId, amount: 33_000, cashReceipt: { type: '미발행' } });
  const res = await t.app.inject({ url: `${payPath(session)}/toss/success?${new URLSearchParams({ paymentKey, orderId, amount: '33000' })}` });
  assert.equal(res.statusCode, 303, res.body);
  await t.deps.worker.runOnce();
  const atToss = [...fake.cashReceipts.values()].find((r) => r.orderId === `${orderId}-cr`)!;
  const refund = (body: Record<string, unknown>) => t.app.inject({ method: 'POST', url: `/v1/orders/${orderId}/refund`, headers: { ...bearer(live), 'content-type': 'application/json', 'idempotency-key': `r-${JSON.stringify(body)}` }, payload: body });
  const part = await refund({ amount: 13_000, reason: '부분 환불' });
  assert.equal(part.statusCode, 200, part.body);
  assert.equal(part.json().order.cashReceipt.status, 'partially_canceled');
  assert.equal(part.json().order.cashReceipt.amount, 20_000);
  assert.equal(atToss.amount, 20_000, "Toss's receipt covers what is left too");
  assert.match(await receiptOf(part.json().order), /환불 금액만큼 부분 취소됨/);
  const rest = await refund({ reason: '전액 환불' });
  assert.equal(rest.statusCode, 200, rest.body);
  assert.equal(rest.json().order.cashReceipt.status, 'canceled');
  assert.equal(rest.json().order.cashReceipt.amount, 0);
  assert.match(await receiptOf(rest.json().order), /취소됨 \(전액 환불\)/);
});
