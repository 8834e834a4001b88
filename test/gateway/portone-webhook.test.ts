import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, type TestApp, type TestStore } from '../helpers/app';
import { updateModeSettings } from '../../src/stores/service';
import { startFakePortOne, type FakePortOne, type FakePortOneWebhook } from '../payments/fake-portone';
import { createProduct, createSession, payPath, submitPayForm } from '../checkout/factory';

// Issue 42: PortOne's webhooks over HTTP. The fake PortOne (written from PortOne's documentation) signs each delivery
// with the store's webhook secret (Standard Webhooks); our route verifies it over the raw body, then a job reads the
// payment back from PortOne before anything changes. A 가상계좌 deposit reaches the order; a forged delivery is refused.

let t: TestApp;
let fake: FakePortOne;
let s: TestStore;
let p: any;
const VA_CHANNEL = 'channel-key-1d2c3b4a-0000-4c55-9a3e-0b4c3d2e1f01';

before(async () => {
  t = await createTestApp();
  fake = await startFakePortOne({ clock: t.clock });
  (t.deps.config as { portoneApiBaseUrl: string }).portoneApiBaseUrl = fake.baseUrl;
  s = await createTestStore(t);
  await updateModeSettings(t.deps, s.storeId, 'test', {
    paymentProvider: 'portone', portoneStoreId: fake.storeId, portoneApiSecret: fake.apiSecret, portoneWebhookSecret: fake.webhookSecret, portoneChannelKeys: { virtual_account: VA_CHANNEL },
  });
  p = await createProduct(t, s, { price: 33_000 });
});
after(async () => {
  await t.close();
  await fake.close();
});

const hookPath = `/gateway/portone/webhook/`;
const deliver = (hook: FakePortOneWebhook, storeId = s.storeId) =>
  t.app.inject({ method: 'POST', url: `${hookPath}${storeId}/test`, headers: hook.headers, payload: hook.body });
const orderOf = (id: string) => t.db.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirst();

/** A 가상계좌 issued through the pay page and PortOne's window, its order awaiting the deposit. */
async function issuedAccount(): Promise<string> {
  const session = await createSession(t, s.key, { productId: p.id });
  const launch = await submitPayForm(t, session, { method: 'virtual_account' });
  assert.equal(launch.statusCode, 200, launch.body.slice(0, 300));
  const paymentId = JSON.parse(launch.body.match(/var cfg = (\{.*?\});\n/s)![1]).request.paymentId as string;
  assert.equal(fake.browserPay({ paymentId, amount: 33_000, method: 'virtual_account' }).ok, true);
  const back = await t.app.inject({ url: `${payPath(session)}/portone/return?paymentId=${paymentId}` });
  assert.ok([200, 303].includes(back.statusCode), back.body.slice(0, 300));
  assert.equal((await orderOf(paymentId))?.status, 'awaiting_deposit');
  return paymentId;
}

test('the store shows the PortOne webhook URL per mode; a deposit to a PortOne 가상계좌 reaches the order through it, once', async () => {
  const view = (await t.app.inject({ url: '/admin/v1/store', headers: { authorization: `Bearer ${s.ownerToken}` } })).json();
  assert.equal(view.settings.test.portoneWebhookUrl, `${t.deps.config.publicBaseUrl}${hookPath}${s.storeId}/test`);
  const orderId = await issuedAccount();
  const hook = fake.deposit(orderId);
  const res = await deliver(hook);
  assert.equal(res.statusCode, 200, res.body);
  await t.deps.worker.runOnce();
  const order = await orderOf(orderId);
  assert.equal(order?.status, 'paid');
  // PortOne redelivers: nothing more happens.
  assert.equal((await deliver(hook)).statusCode, 200);
  await t.deps.worker.runOnce();
  const paid = await t.db.selectFrom('events').select('data').where('type', '=', 'order.paid').where('store_id', '=', s.storeId).execute();
  assert.equal(paid.filter((e) => (e.data as any).id === orderId).length, 1, 'one order.paid');
});

test('a forged delivery (another secret, or no signature) is refused and changes nothing', async () => {
  const orderId = await issuedAccount();
  const forged = fake.webhook('Transaction.Paid', orderId, { secret: 'whsec_' + Buffer.from('not-the-stores-secret-0123456789').toString('base64') });
  const res = await deliver(forged);
  assert.equal(res.statusCode, 400, res.body);
  const unsigned = await t.app.inject({ method: 'POST', url: `${hookPath}${s.storeId}/test`, headers: { 'content-type': 'application/json' }, payload: forged.body });
  assert.equal(unsigned.statusCode, 400);
  await t.deps.worker.runOnce();
  assert.equal((await orderOf(orderId))?.status, 'awaiting_deposit');
});

test('a correctly signed Paid webhook for an account PortOne has not seen paid is read back and not believed', async () => {
  const orderId = await issuedAccount();
  const res = await deliver(fake.webhook('Transaction.Paid', orderId));
  assert.equal(res.statusCode, 200, res.body);
  await t.deps.worker.runOnce();
  assert.equal((await orderOf(orderId))?.status, 'awaiting_deposit', 'PortOne still says VIRTUAL_ACCOUNT_ISSUED');
});

test('a redelivery with the same webhook-id queues no second read-back; messages with other ids about one payment coalesce', async () => {
  const orderId = await issuedAccount();
  const readBacks = () => fake.calls.filter((c) => c.op === 'get_payment' && c.path.startsWith(`/payments/${encodeURIComponent(orderId)}?`)).length;
  const before = readBacks();
  // PortOne retries one message (it did not see our 200 in time): the same webhook-id, after our read-back has run.
  const hook = fake.webhook('Transaction.Paid', orderId);
  assert.equal((await deliver(hook)).statusCode, 200);
  await t.deps.worker.runOnce();
  assert.equal(readBacks(), before + 1, 'the message is read back once');
  const retry = await deliver(hook);
  assert.equal(retry.statusCode, 200, 'a retry is acknowledged');
  await t.deps.worker.runOnce();
  assert.equal(readBacks(), before + 1, 'the retry of a message already taken is not read back again');

  // Two messages (two webhook-ids) about the same payment before the job runs: one pending read-back, as Toss's coalesce.
  const [a, b] = [fake.webhook('Transaction.Paid', orderId), fake.webhook('Transaction.Paid', orderId)];
  assert.notEqual(a.headers['webhook-id'], b.headers['webhook-id']);
  assert.equal((await deliver(a)).statusCode, 200);
  assert.equal((await deliver(b)).statusCode, 200);
  await t.deps.worker.runOnce();
  assert.equal(readBacks(), before + 2, 'the two new messages are one read-back');
  assert.equal((await orderOf(orderId))?.status, 'awaiting_deposit');

  // After the deposit, PortOne's Paid message still reaches the order (a new webhook-id), and only once.
  const paid = fake.deposit(orderId);
  assert.equal((await deliver(paid)).statusCode, 200);
  assert.equal((await deliver(paid)).statusCode, 200);
  await t.deps.worker.runOnce();
  assert.equal((await orderOf(orderId))?.status, 'paid');
  assert.equal(readBacks(), before + 3);
});

test('taken webhook-ids are forgotten after a week by the hourly prune, never before', async () => {
  const orderId = await issuedAccount();
  const hook = fake.webhook('Transaction.Paid', orderId);
  assert.equal((await deliver(hook)).statusCode, 200);
  const held = () => t.db.selectFrom('gateway_webhook_deliveries').select('delivery_id').where('delivery_id', '=', hook.headers['webhook-id']).execute();
  assert.equal((await held()).length, 1);
  t.clock.advance(6 * 86_400_000);
  await t.deps.worker.runOnce();
  assert.equal((await held()).length, 1, 'kept for 6 days');
  t.clock.advance(86_400_000 + 60_000);
  await t.deps.worker.runOnce();
  assert.deepEqual(await held(), [], 'gone after a week');
});
