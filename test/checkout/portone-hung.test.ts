import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore } from '../helpers/app';
import { updateModeSettings } from '../../src/stores/service';
import { startFakePortOne } from '../payments/fake-portone';
import { createProduct, createSession, payPath, submitPayForm } from './factory';

/**
 * The provider's own deadline seen from checkout: PortOne took the buyer's money, but our read-back of the payment hangs
 * past the deadline. The order must stay pending (neither failed, which would let the buyer pay twice, nor paid on
 * nothing), PortOne's payment must not be cancelled, and the reconcile job settles it once PortOne answers.
 * The deadline is shortened here (the fake holds the answer until released; the deadline is the only way out).
 */
test('a hung PortOne answer at checkout leaves the order pending, not failed or paid; the reconcile job pays it later, once', async () => {
  const t = await createTestApp();
  const fake = await startFakePortOne({ clock: t.clock });
  try {
    (t.deps.config as { portoneApiBaseUrl: string }).portoneApiBaseUrl = fake.baseUrl;
    const s = await createTestStore(t);
    await updateModeSettings(t.deps, s.storeId, 'test', { paymentProvider: 'portone', portoneStoreId: fake.storeId, portoneApiSecret: fake.apiSecret, portoneWebhookSecret: fake.webhookSecret, portoneChannelKeys: { card: 'channel-key-9c0b2a4e-1f1d-4c55-9a3e-0b4c3d2e1f00' } });
    const product = await createProduct(t, s, { price: 33_000 });
    const session = await createSession(t, s.key, { productId: product.id, successUrl: 'https://example.com/ok' });
    const launch = await submitPayForm(t, session, { method: 'card' });
    const paymentId = JSON.parse(/var cfg = (\{.*?\});\n/s.exec(launch.body)![1]).request.paymentId as string;
    assert.equal(fake.browserPay({ paymentId, amount: 33_000 }).ok, true);

    (t.deps.config as { tossTimeoutMs: number }).tossTimeoutMs = 300;
    const held = fake.hold('get_payment');
    const back = await t.app.inject({ url: `${payPath(session)}/portone/return?paymentId=${encodeURIComponent(paymentId)}` });
    assert.notEqual(back.statusCode, 303, 'not sent to the seller\'s success page');
    assert.notEqual(back.statusCode, 422, 'not told the payment failed');
    const row = await t.db.selectFrom('checkout_sessions').select(['status', 'payment']).where('id', '=', session.id).executeTakeFirstOrThrow();
    assert.equal(row.status, 'open', JSON.stringify(row));
    assert.equal((row.payment as { state: string }).state, 'unknown');
    assert.equal((await t.db.selectFrom('orders').select('id').where('checkout_session_id', '=', session.id).execute()).length, 0, 'no order, neither paid nor failed');
    held.release();
    await held.arrived;
    assert.equal(fake.payments.get(paymentId).status, 'PAID', 'PortOne\'s payment is not cancelled');

    // The reconcile job, after its delay: reads the payment back (PortOne answers now) and pays the order.
    t.clock.advance(61_000);
    await t.deps.worker.runOnce();
    const orders = await t.db.selectFrom('orders').selectAll().where('checkout_session_id', '=', session.id).execute();
    assert.equal(orders.length, 1);
    assert.equal(orders[0].id, paymentId);
    assert.equal(orders[0].status, 'paid');
    assert.equal(Number(orders[0].amount), 33_000);
    const paidEvents = await t.db.selectFrom('events').select('data').where('type', '=', 'order.paid').where('store_id', '=', s.storeId).execute();
    assert.equal(paidEvents.length, 1, 'one order.paid');
    // The buyer's reload now lands on the seller's success page.
    const again = await t.app.inject({ url: `${payPath(session)}/portone/return?paymentId=${encodeURIComponent(paymentId)}` });
    assert.equal(again.statusCode, 303);
  } finally {
    await t.close();
    await fake.close();
  }
});
