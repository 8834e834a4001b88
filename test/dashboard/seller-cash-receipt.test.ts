import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, bearer, type TestApp } from '../helpers/app';
import { createProduct, createSession, formPost, payPath, submitPayForm } from '../checkout/factory';
import { postForm, signIn, type DashboardSession } from './helpers';

// The order page's 현금영수증 form (issue 32): a seller issues one afterwards for a paid 계좌이체 / 가상계좌 order without
// one; the same service as POST /admin/v1/orders/{id}/cash-receipt (test mode: the simulator's test receipt).

let t: TestApp;
let owner: DashboardSession;
let product: any;

before(async () => {
  t = await createTestApp();
  owner = await signIn(t, { name: '김사장' });
  product = await createProduct(t, owner.store, { price: 24_000, stock: 20 });
});
after(() => t.close());

async function paidTransfer(): Promise<string> {
  const session = await createSession(t, owner.store.key, { productId: product.id, successUrl: 'https://example.com/ok' });
  assert.equal((await submitPayForm(t, session, { method: 'transfer', cashReceiptType: 'none' })).statusCode, 303);
  const approved = await formPost(t, `${payPath(session)}/approve`, { decision: 'approve' });
  return new URL(String(approved.headers.location)).searchParams.get('order_id')!;
}
const page = async (orderId: string) => (await t.app.inject({ url: `/dashboard/orders/${orderId}`, headers: owner.headers })).body;

test('the form is offered for a paid transfer without a receipt; a wrong number is refused in Korean next to the field', async () => {
  const orderId = await paidTransfer();
  assert.match(await page(orderId), /data-testid="cash-receipt-form"/);
  const bad = await postForm(t, owner, `/dashboard/orders/${orderId}/cash-receipt`, { type: '지출증빙', customerIdentityNumber: '123-45' });
  assert.equal(bad.statusCode, 400);
  assert.match(bad.body, /id="cash-receipt-err"[^>]*>사업자등록번호 10자리를 입력해 주세요/);
  assert.match(bad.body, /aria-invalid="true"/);
  assert.match(bad.body, /value="123-45"/, 'what was typed stays');
  const order = (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(owner.store.key) })).json();
  assert.equal(order.cashReceipt, undefined, 'nothing kept');
});

test('issued from the dashboard: shown on the order, the form gone, audited; a second submit issues nothing new', async () => {
  const orderId = await paidTransfer();
  const res = await postForm(t, owner, `/dashboard/orders/${orderId}/cash-receipt`, { type: '소득공제', customerIdentityNumber: '010-7777-8888' });
  assert.equal(res.statusCode, 303, res.body);
  const body = await page(orderId);
  assert.doesNotMatch(body, /data-testid="cash-receipt-form"/);
  assert.match(body, /id="cash-receipt">소득공제 · <span class="tag" id="cash-receipt-status">발급됨<\/span> · <span class="mono">010\*\*\*\*8888<\/span> \(판매자 발급\)/);
  const order = (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(owner.store.key) })).json();
  assert.equal(order.cashReceipt.requestedBy, 'seller');
  assert.match(order.cashReceipt.issueNumber, /^T\d{8}$/);
  const again = await postForm(t, owner, `/dashboard/orders/${orderId}/cash-receipt`, { type: '소득공제', customerIdentityNumber: '010-7777-8888' });
  assert.equal(again.statusCode, 409);
  assert.match(again.body, /이미 현금영수증이 있습니다/);
  const audit = await t.db.selectFrom('audit_log').select('action').where('store_id', '=', owner.storeId).where('action', '=', 'order.cash_receipt_issued').execute();
  assert.equal(audit.length, 1);
});

test('a card order has no such form', async () => {
  const session = await createSession(t, owner.store.key, { productId: product.id, successUrl: 'https://example.com/ok' });
  const paid = await submitPayForm(t, session, { method: 'card', cardNumber: '4242424242424242' });
  const orderId = new URL(String(paid.headers.location)).searchParams.get('order_id')!;
  assert.doesNotMatch(await page(orderId), /data-testid="cash-receipt-form"/);
});
