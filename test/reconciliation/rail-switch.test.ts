import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, type TestApp, type TestStore } from '../helpers/app';
import { createProduct, createSession, owner, payPath, submitPayForm } from '../checkout/factory';
import { updateModeSettings } from '../../src/stores/service';
import { reconcileSession } from '../../src/checkout/reconcile';
import { startFakePortOne, type FakePortOne } from '../payments/fake-portone';

/**
 * A payment is reconciled against the rail that took it, not the mode's provider of the day: a seller who switches a
 * mode from one provider to another (the simulator here stands for Toss: both sit behind the same interface) still has
 * yesterday's payments in the old provider's ledger, and a payment whose answer was lost at the old one is only known
 * there.
 */
const CARD_CHANNEL = 'channel-key-9c0b2a4e-1f1d-4c55-9a3e-0b4c3d2e1f00';

async function setup(): Promise<{ t: TestApp; s: TestStore; fake: FakePortOne; toPortOne: () => Promise<unknown>; toSimulator: () => Promise<unknown> }> {
  const t = await createTestApp();
  const fake = await startFakePortOne({ clock: t.clock });
  (t.deps.config as { portoneApiBaseUrl: string }).portoneApiBaseUrl = fake.baseUrl;
  const s = await createTestStore(t);
  return {
    t,
    s,
    fake,
    // The PortOne credentials stay saved when the mode goes back to the simulator (as Toss's keys stay when it goes to PortOne).
    toPortOne: () => updateModeSettings(t.deps, s.storeId, 'test', { paymentProvider: 'portone', portoneStoreId: fake.storeId, portoneApiSecret: fake.apiSecret, portoneWebhookSecret: fake.webhookSecret, portoneChannelKeys: { card: CARD_CHANNEL } }),
    toSimulator: () => updateModeSettings(t.deps, s.storeId, 'test', { paymentProvider: 'simulator' }),
  };
}

/** Pays a session through PortOne's window (the fake's) and returns to our return URL; the answer the return gets is the caller's. */
async function payAtPortOne(t: TestApp, fake: FakePortOne, session: { id: string; url: string }, amount: number) {
  const launch = await submitPayForm(t, session, { method: 'card' });
  assert.equal(launch.statusCode, 200, launch.body.slice(0, 300));
  const paymentId = JSON.parse(/var cfg = (\{.*?\});\n/s.exec(launch.body)![1]).request.paymentId as string;
  assert.equal(fake.browserPay({ paymentId, amount }).ok, true);
  const back = await t.app.inject({ url: `${payPath(session)}/portone/return?paymentId=${encodeURIComponent(paymentId)}` });
  return { paymentId, back };
}

test('a PortOne payment whose answer was lost is settled by reading it back at PortOne, after the store switched the mode to another provider', async () => {
  const { t, s, fake, toPortOne, toSimulator } = await setup();
  try {
    await toPortOne();
    const product = await createProduct(t, s, { price: 15_000 });
    const session = await createSession(t, s.key, { productId: product.id });
    // PortOne takes the money, but its answer to our read-back is lost (a 5xx: nothing said about the payment).
    fake.answerNext('get_payment', { status: 500, type: 'INTERNAL_SERVER_ERROR' });
    const { paymentId, back } = await payAtPortOne(t, fake, session, 15_000);
    assert.notEqual(back.statusCode, 303, 'not paid yet');
    const pending = await t.db.selectFrom('checkout_sessions').select(['status', 'payment']).where('id', '=', session.id).executeTakeFirstOrThrow();
    assert.equal((pending.payment as { state: string }).state, 'unknown', JSON.stringify(pending));
    assert.equal((await t.db.selectFrom('orders').select('id').where('checkout_session_id', '=', session.id).execute()).length, 0);

    await toSimulator();
    assert.equal(await reconcileSession(t.deps, session.id), 'paid');
    const order = await t.db.selectFrom('orders').selectAll().where('checkout_session_id', '=', session.id).executeTakeFirstOrThrow();
    assert.equal(order.id, paymentId);
    assert.equal(order.status, 'paid');
    assert.equal(order.provider, 'portone', 'the order stays on the rail that took it');
    assert.equal(Number(order.amount), 15_000);
    assert.equal(fake.payments.get(paymentId).status, 'PAID', 'confirmed at PortOne, not cancelled');
  } finally {
    await t.close();
    await fake.close();
  }
});

test('a day with payments on two rails: each order is compared with the ledger of the provider that took it, before and after the switch, and none is reported missing', async () => {
  const { t, s, fake, toPortOne, toSimulator } = await setup();
  try {
    const product = await createProduct(t, s, { price: 9_000 });
    // Morning: the test card through the simulator.
    const sim = await createSession(t, s.key, { productId: product.id, successUrl: 'https://example.com/ok' });
    const simPaid = await submitPayForm(t, sim, { cardNumber: '4242424242424242' });
    assert.equal(simPaid.statusCode, 303, simPaid.body.slice(0, 300));
    t.clock.advance(60_000);
    // Noon: the seller switches the mode to PortOne; a buyer pays there.
    await toPortOne();
    const po = await createSession(t, s.key, { productId: product.id });
    const { paymentId, back } = await payAtPortOne(t, fake, po, 9_000);
    assert.ok([200, 303].includes(back.statusCode), back.body.slice(0, 300));
    t.clock.advance(60_000);

    const day = new Date(t.clock.now().getTime() + 9 * 3_600_000).toISOString().slice(0, 10);
    const run = async () => {
      const started = await t.app.inject({ method: 'POST', url: '/admin/v1/reconciliations', headers: owner(s), payload: { mode: 'test', date: day } });
      assert.equal(started.statusCode, 202, started.body);
      await t.deps.worker.runOnce();
      return (await t.app.inject({ url: `/admin/v1/reconciliations/${started.json().id}`, headers: owner(s) })).json();
    };
    const onPortOne = await run();
    assert.equal(onPortOne.status, 'completed', JSON.stringify(onPortOne));
    assert.equal(onPortOne.gatewayTransactions, 2, 'the simulator\'s payment read in its ledger, PortOne\'s in PortOne\'s');
    assert.deepEqual(onPortOne.differences, []);

    // Back on the simulator, a cancel made in PortOne's console is still found: PortOne's ledger is read for its order.
    await toSimulator();
    fake.cancelInConsole(paymentId, 2_000, '콘솔 부분 취소');
    t.clock.advance(60_000);
    const back2 = await run();
    assert.equal(back2.status, 'completed', JSON.stringify(back2));
    assert.ok(!back2.differences.some((d: { kind: string }) => d.kind === 'missing_at_toss'), JSON.stringify(back2.differences));
    assert.ok(back2.differences.some((d: { orderId: string }) => d.orderId === paymentId), JSON.stringify(back2.differences));
    // The difference went to PortOne's sync (not the simulator's): the console cancel is now a refund of ours.
    const refunds = await t.db.selectFrom('order_refunds').select(['amount', 'status']).where('order_id', '=', paymentId).execute();
    assert.deepEqual(refunds.map((r) => [Number(r.amount), r.status]), [[2_000, 'succeeded']]);

    // Had the seller also removed PortOne's keys, the day could not be checked against PortOne: the run says so.
    await updateModeSettings(t.deps, s.storeId, 'test', { portoneApiSecret: null });
    const blind = await run();
    assert.equal(blind.status, 'failed', JSON.stringify(blind));
    assert.equal(blind.failure.code, 'NOT_CONFIGURED');
    assert.match(blind.failure.message, /포트원\(으\)로 결제된 주문이 있지만/);
  } finally {
    await t.close();
    await fake.close();
  }
});
