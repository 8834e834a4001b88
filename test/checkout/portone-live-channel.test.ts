import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, type TestApp, type TestStore } from '../helpers/app';
import { updateModeSettings } from '../../src/stores/service';
import { startFakePortOne, type FakePortOne } from '../payments/fake-portone';
import { createProduct, createSession, payPath, submitPayForm } from './factory';

// Issue 42, live mode refuses test credentials. PortOne's V2 API offers no way to read a channel's type (테스트 / 실연동)
// with the API secret: its OpenAPI (/work/ref/portone-v2.openapi.yml) has no channel endpoint, and the channel's type
// appears only on what was made with it (SelectedChannel.type on a Payment, a BillingKeyInfo). So a channel key cannot
// be refused when saved; instead, a live mode never records a payment PortOne reports made on a TEST channel (no money
// moved at the PG). This is that refusal, end to end through the pay page of a live store.

let t: TestApp;
let fake: FakePortOne;
let s: TestStore;
let live: string;
let p: any;
const CARD_CHANNEL = 'channel-key-3e5f7a9b-2c4d-4c55-9a3e-0b4c3d2e1f20';

before(async () => {
  t = await createTestApp();
  fake = await startFakePortOne({ clock: t.clock });
  (t.deps.config as { portoneApiBaseUrl: string }).portoneApiBaseUrl = fake.baseUrl;
  s = await createTestStore(t);
  await updateModeSettings(t.deps, s.storeId, 'live', { paymentProvider: 'portone', portoneStoreId: fake.storeId, portoneApiSecret: fake.apiSecret, portoneWebhookSecret: fake.webhookSecret, portoneChannelKeys: { card: CARD_CHANNEL } });
  live = (await s.newKey({ mode: 'live' })).key;
  p = await createProduct(t, s, { mode: 'live', price: 9_000 });
});
after(async () => {
  await t.close();
  await fake.close();
});

const paymentIdOf = (page: string): string => JSON.parse(page.match(/var cfg = (\{.*?\});\n/s)![1]).request.paymentId;
const orderRows = (sessionId: string) => t.db.selectFrom('orders').selectAll().where('checkout_session_id', '=', sessionId).execute();

test('live mode: a payment PortOne made on a TEST channel is refused with a Korean message naming the fix, and no order is made', async () => {
  const session = await createSession(t, live, { productId: p.id });
  const launch = await submitPayForm(t, session, { method: 'card' });
  assert.equal(launch.statusCode, 200, launch.body.slice(0, 300));
  const paymentId = paymentIdOf(launch.body);
  // The seller saved the console's 테스트 channel key in live settings: PortOne's Payment says channel.type TEST.
  assert.equal(fake.browserPay({ paymentId, amount: 9_000, channelType: 'TEST' }).ok, true);
  const back = await t.app.inject({ url: `${payPath(session)}/portone/return?paymentId=${encodeURIComponent(paymentId)}` });
  assert.equal(back.statusCode, 422, back.body.slice(0, 300));
  assert.match(back.body, /테스트 채널로 결제된 건은 실연동 모드에서 받을 수 없습니다/);
  assert.deepEqual(await orderRows(session.id), [], 'no order');
  const row = await t.db.selectFrom('checkout_sessions').select(['status', 'order_id']).where('id', '=', session.id).executeTakeFirstOrThrow();
  assert.equal(row.status, 'open', 'the session is not completed');
  assert.equal(row.order_id, null);
  const paid = await t.db.selectFrom('events').select('data').where('type', '=', 'order.paid').where('store_id', '=', s.storeId).execute();
  assert.equal(paid.filter((e) => (e.data as any).id === paymentId).length, 0, 'no order.paid');
});

test('live mode: the same page takes a payment PortOne made on a LIVE channel', async () => {
  const session = await createSession(t, live, { productId: p.id });
  const paymentId = paymentIdOf((await submitPayForm(t, session, { method: 'card' })).body);
  assert.equal(fake.browserPay({ paymentId, amount: 9_000, channelType: 'LIVE' }).ok, true);
  const back = await t.app.inject({ url: `${payPath(session)}/portone/return?paymentId=${encodeURIComponent(paymentId)}` });
  assert.ok([200, 303].includes(back.statusCode), `${back.statusCode} ${back.body.slice(0, 300)}`);
  const orders = await orderRows(session.id);
  assert.equal(orders.length, 1);
  assert.equal(orders[0].status, 'paid');
  assert.equal(orders[0].mode, 'live');
});
