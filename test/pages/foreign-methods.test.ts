import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, bearer, post, type TestApp, type TestStore } from '../helpers/app';
import { createProduct, createSession, formPost, payPath, submitPayForm } from '../checkout/factory';
import { updateModeSettings } from '../../src/stores/service';
import { TEST_CARDS } from '../../src/payments';

// Buyers abroad in test mode (issue 41): the payment page offers 해외 발급 카드 and PayPal only once the store turned
// them on; the simulator takes an overseas card like a card (same test numbers) and PayPal on its approval page for the
// dollar amount shown (39,000원 at 1,300원/US$ = US$30.00), refunded in part in cents.

let t: TestApp;
let s: TestStore;
let product: any;

before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
  product = await createProduct(t, s, { price: 39_000, stock: 10 });
});
after(async () => {
  await t.close();
});

const refund = (orderId: string, body: Record<string, unknown>) => t.app.inject({ method: 'POST', url: `/v1/orders/${orderId}/refund`, headers: post(s.key), payload: body });
const order = async (id: string) => (await t.app.inject({ url: `/v1/orders/${id}`, headers: bearer(s.key) })).json();

test('off by default: neither method is on the page, and a hand-made POST is refused', async () => {
  const session = await createSession(t, s.key, { productId: product.id });
  const page = await t.app.inject({ url: payPath(session) });
  assert.doesNotMatch(page.body, /value="paypal"|value="foreign_card"/);
  const tried = await submitPayForm(t, session, { method: 'foreign_card', cardNumber: TEST_CARDS.success });
  assert.equal(tried.statusCode, 422);
  assert.match(tried.body, /선택한 결제 수단으로 결제할 수 없습니다/);
  // PayPal needs the store's rate.
  await assert.rejects(updateModeSettings(t.deps, s.storeId, 'test', { foreignMethods: ['paypal'] }), (e: any) => e.code === 'VALIDATION_FAILED' && JSON.stringify(e.details).includes('usdKrwRate') && JSON.stringify(e.details).includes('환율'));
});

test('enabled: an overseas card pays in won with a test card; PayPal is approved for US$30.00 and refunded 1,000원 → US$0.77, then the rest → US$29.23', async () => {
  await updateModeSettings(t.deps, s.storeId, 'test', { foreignMethods: ['foreign_card', 'paypal'], usdKrwRate: 1300 });
  const session = await createSession(t, s.key, { productId: product.id, successUrl: 'https://example.com/ok' });
  const page = await t.app.inject({ url: payPath(session) });
  assert.match(page.body, /value="foreign_card"/);
  assert.match(page.body, /value="paypal"/);
  assert.match(page.body, /US\$30\.00/, 'the page says what PayPal charges');

  const declined = await submitPayForm(t, session, { method: 'foreign_card', cardNumber: TEST_CARDS.declined });
  assert.equal(declined.statusCode, 422);
  const card = await submitPayForm(t, session, { method: 'foreign_card', cardNumber: TEST_CARDS.success });
  assert.equal(card.statusCode, 303, card.body);
  const cardOrder = await order(new URL(String(card.headers.location)).searchParams.get('order_id')!);
  assert.equal(cardOrder.method, 'foreign_card');
  assert.equal(cardOrder.amount, 39_000);
  assert.equal(cardOrder.presentment, undefined);

  const s2 = await createSession(t, s.key, { productId: product.id, successUrl: 'https://example.com/ok' });
  const submitted = await submitPayForm(t, s2, { method: 'paypal' });
  assert.equal(submitted.statusCode, 303, submitted.body);
  const approval = await t.app.inject({ url: `${payPath(s2)}/approve` });
  assert.match(approval.body, /PayPal \(USD\)로 US\$30\.00 결제 승인/);
  const approved = await formPost(t, `${payPath(s2)}/approve`, { decision: 'approve' });
  assert.equal(approved.statusCode, 303, approved.body);
  const id = new URL(String(approved.headers.location)).searchParams.get('order_id')!;
  let o = await order(id);
  assert.equal(o.method, 'paypal');
  assert.equal(o.amount, 39_000);
  assert.deepEqual(o.presentment, { amount: 3000, currency: 'USD', refundedAmount: 0 });

  // 1,000 × 3,000 / 39,000 = 76.92 cents → 77.
  const part = await refund(id, { amount: 1_000 });
  assert.equal(part.statusCode, 200, part.body);
  o = part.json().order;
  assert.deepEqual(o.presentment, { amount: 3000, currency: 'USD', refundedAmount: 77 });
  const rest = await refund(id, {});
  assert.equal(rest.statusCode, 200, rest.body);
  o = rest.json().order;
  assert.equal(o.status, 'refunded');
  assert.equal(o.refundedAmount, 39_000);
  assert.deepEqual(o.refunds.map((r: any) => r.presentment.amount), [77, 2923]);
});
