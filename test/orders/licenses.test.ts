import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, bearer, type TestApp, type TestStore } from '../helpers/app';
import { createProduct, createSession, payPath, submitPayForm } from '../checkout/factory';
import { startReceiver, type Receiver } from '../webhooks/receiver';
import { createEndpoint, pump } from '../webhooks/setup';
import { TEST_CARDS } from '../../src/payments';

let t: TestApp;
let s: TestStore;
let rx: Receiver;
let secret: string;
before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
  rx = await startReceiver({ secrets: () => [secret] });
  secret = (await createEndpoint(t, s, { url: rx.url('/paid'), eventTypes: ['order.paid'] })).secret;
});
after(async () => {
  await rx.close();
  await t.close();
});

async function pay(product: { id: string }) {
  const session = await createSession(t, s.key, { productId: product.id, successUrl: 'https://example.com/ok' });
  const res = await submitPayForm(t, session, { cardNumber: TEST_CARDS.success });
  assert.equal(res.statusCode, 303, res.body);
  return new URL(String(res.headers.location)).searchParams.get('order_id')!;
}

const readOrder = async (id: string) => (await t.app.inject({ url: `/v1/orders/${id}`, headers: bearer(s.key) })).json();

test('a service-issued license reaches the buyer: in the Order, in order.paid (verified with standardwebhooks) and on the receipt', async () => {
  const product = await createProduct(t, s, { name: '데스크톱 앱', license: { mode: 'service', maxActivations: 3, validityDays: 365 } });
  const orderId = await pay(product);
  const order = await readOrder(orderId);
  assert.equal(order.licenses.length, 1);
  const [lic] = order.licenses;
  assert.deepEqual(Object.keys(lic).sort(), ['expiresAt', 'id', 'key', 'status']);
  assert.equal(lic.status, 'active');
  assert.match(lic.key, /^[0-9A-Z]{5}(-[0-9A-Z]{5}){4}$/);
  const license = (await t.app.inject({ url: `/v1/licenses/${lic.id}`, headers: bearer(s.key) })).json();
  assert.equal(license.key, lic.key, 'the same key the license read shows');
  assert.equal(license.orderId, orderId);
  assert.equal(lic.expiresAt, license.expiresAt);
  assert.equal(new Date(lic.expiresAt).getTime() - t.clock.now().getTime(), 365 * 86_400_000);

  const list = (await t.app.inject({ url: '/v1/orders', headers: bearer(s.key) })).json();
  assert.deepEqual(list.data.find((o: any) => o.id === orderId).licenses, order.licenses, 'lists carry them too');

  await pump(t);
  const delivery = rx.received.find((r) => r.payload?.data?.id === orderId);
  assert.ok(delivery, 'order.paid delivered');
  assert.deepEqual(delivery.verifiedWith, [secret], 'signature verified by the standardwebhooks library');
  assert.equal(delivery.payload.type, 'order.paid');
  assert.deepEqual(delivery.payload.data.licenses, order.licenses);

  const receipt = await t.app.inject({ url: new URL(order.receiptUrl).pathname + new URL(order.receiptUrl).search });
  assert.equal(receipt.statusCode, 200);
  assert.match(receipt.body, new RegExp(`<code id="license-key-0" class="license-key" tabindex="0">${lic.key}</code>`), 'selectable text');
  assert.match(receipt.body, /<button type="button" data-copy="license-key-0" hidden aria-label="라이선스 키 복사">복사<\/button>/);
  assert.match(receipt.body, /<script src="\/pay-assets\/pay.js" defer>/);
  assert.match(String(receipt.headers['content-security-policy']), /script-src 'self'/);
});

test('a seller-issued license is listed as pending with key null until the seller answers; a product without licenses has []', async () => {
  const seller = await createProduct(t, s, { license: { mode: 'seller', maxActivations: null, validityDays: null } });
  const orderId = await pay(seller);
  const order = await readOrder(orderId);
  assert.equal(order.licenses.length, 1);
  assert.equal(order.licenses[0].status, 'pending');
  assert.equal(order.licenses[0].key, null);
  assert.equal(order.licenses[0].expiresAt, null);
  const receipt = await t.app.inject({ url: new URL(order.receiptUrl).pathname + new URL(order.receiptUrl).search });
  assert.match(receipt.body, /판매자가 키를 발급하고 있습니다/);

  const plain = await createProduct(t, s);
  const plainOrder = await readOrder(await pay(plain));
  assert.deepEqual(plainOrder.licenses, []);
  assert.ok(!(await t.app.inject({ url: new URL(plainOrder.receiptUrl).pathname + new URL(plainOrder.receiptUrl).search })).body.includes('id="licenses"'));
});

test('without successUrl the paid page shows the key and links the receipt', async () => {
  const product = await createProduct(t, s, { license: { mode: 'service', maxActivations: 1, validityDays: null } });
  const session = await createSession(t, s.key, { productId: product.id });
  const res = await submitPayForm(t, session, { cardNumber: TEST_CARDS.success });
  assert.equal(res.statusCode, 200);
  const orderId = (await t.db.selectFrom('orders').select('id').where('checkout_session_id', '=', session.id).executeTakeFirstOrThrow()).id;
  const key = (await readOrder(orderId)).licenses[0].key;
  assert.ok(res.body.includes(key));
  assert.match(res.body, /영수증 페이지 열기/);
  assert.ok(payPath(session));
});

test('the OpenAPI document describes Order.licenses and its items', async () => {
  const doc = (await t.app.inject({ url: '/v1/openapi.json' })).json();
  const text = JSON.stringify(doc);
  assert.match(text, /the licenses this order gave the buyer/);
  assert.match(text, /null while a seller-issued license is `pending`/);
});
