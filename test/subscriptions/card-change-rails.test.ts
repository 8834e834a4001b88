import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, post } from '../helpers/app';
import { createSession, createSubscriptionProduct, payPath, submitPayForm } from '../checkout/factory';
import { updateModeSettings } from '../../src/stores/service';
import { REPLACED_BILLING_KEY_DELETE_JOB } from '../../src/subscriptions/renewal/billing-key-delete';
import { startFakePortOne } from '../payments/fake-portone';

/**
 * A card change that moves a subscription to another rail (its billing key cannot move between PGs, so the new card is
 * registered with the mode's provider of today) leaves nothing chargeable behind: the replaced key is deleted at the
 * gateway that issued it (PortOne: DELETE /billing-keys/{billingKey}, v2.openapi.yml deleteBillingKey), after the new
 * key is recorded and outside its transaction, and again later when PortOne does not answer.
 */
const CARD_CHANNEL = 'channel-key-9c0b2a4e-1f1d-4c55-9a3e-0b4c3d2e1f00';

test('a card change from PortOne to another rail deletes the old billing key at PortOne once the new one is recorded, retried while PortOne fails', async () => {
  const t = await createTestApp();
  const fake = await startFakePortOne({ clock: t.clock });
  try {
    (t.deps.config as { portoneApiBaseUrl: string }).portoneApiBaseUrl = fake.baseUrl;
    const s = await createTestStore(t);
    await updateModeSettings(t.deps, s.storeId, 'test', { paymentProvider: 'portone', portoneStoreId: fake.storeId, portoneApiSecret: fake.apiSecret, portoneWebhookSecret: fake.webhookSecret, portoneChannelKeys: { card: CARD_CHANNEL } });
    const product = await createSubscriptionProduct(t, s);

    // Subscribed on PortOne: the card registered in PortOne's window, the first payment charged to its key.
    const session = await createSession(t, s.key, { productId: product.id, planId: 'basic', interval: 'monthly', successUrl: 'https://example.com/ok' });
    const launch = await submitPayForm(t, session);
    assert.equal(launch.statusCode, 200, launch.body.slice(0, 300));
    const subscriptionId = JSON.parse(/var cfg = (\{.*?\});\n/s.exec(launch.body)![1]).request.customer.customerId as string;
    const oldKey = fake.issueBillingKey({ customerId: subscriptionId });
    const paid = await t.app.inject({ url: `${payPath(session)}/portone/billing-return?billingKey=${encodeURIComponent(oldKey)}` });
    assert.equal(paid.statusCode, 303, paid.body.slice(0, 300));
    await t.deps.worker.runOnce();

    // The seller moves the mode to the simulator (standing for Toss); the buyer changes the card in the portal.
    await updateModeSettings(t.deps, s.storeId, 'test', { paymentProvider: 'simulator' });
    const created = await t.app.inject({ method: 'POST', url: '/v1/portal-sessions', headers: post(s.key), payload: { subscriptionId } });
    assert.equal(created.statusCode, 200, created.body);
    const path = new URL(created.json().url).pathname;
    const csrf = /name="csrf" value="([A-Za-z0-9]+)"/.exec((await t.app.inject({ url: path })).body)![1];
    // PortOne fails the first delete (502 PG_PROVIDER: nothing said about the key).
    fake.answerNext('billing_delete', { status: 502, type: 'PG_PROVIDER', message: 'PG사 오류', pgCode: 'X', pgMessage: 'PG사 오류' });
    const changed = await t.app.inject({ method: 'POST', url: `${path}/subscriptions/${subscriptionId}/card`, headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://localhost:3000' }, payload: new URLSearchParams({ csrf, cardNumber: '5555555555554444' }).toString() });
    assert.equal(changed.statusCode, 303, changed.body);
    assert.match(decodeURIComponent(String(changed.headers.location)), /notice=/);
    const sub = await t.db.selectFrom('subscriptions').select(['provider', 'card_last4']).where('id', '=', subscriptionId).executeTakeFirstOrThrow();
    assert.deepEqual(sub, { provider: 'simulator', card_last4: '4444' }, 'the new card is recorded on its rail');
    assert.equal(fake.billingKeys.get(oldKey).status, 'ISSUED', 'nothing deleted from inside the card change');
    const deletes = () => fake.calls.filter((c) => c.op === 'billing_delete' && decodeURIComponent(c.path).includes(oldKey));
    assert.equal(deletes().length, 0);

    await t.deps.worker.runOnce();
    assert.equal(deletes().length, 1, 'asked once the change committed');
    assert.equal(fake.billingKeys.get(oldKey).status, 'ISSUED', 'PortOne failed the first time');
    const job = () => t.db.selectFrom('jobs').select(['status', 'attempts', 'payload']).where('name', '=', REPLACED_BILLING_KEY_DELETE_JOB).executeTakeFirstOrThrow();
    assert.equal((await job()).status, 'pending', 'to be retried');
    assert.doesNotMatch(JSON.stringify((await job()).payload), new RegExp(oldKey), 'the key is kept sealed in the job');

    t.clock.advance(6_000);
    await t.deps.worker.runOnce();
    assert.equal(deletes().length, 2);
    assert.equal(fake.billingKeys.get(oldKey).status, 'DELETED', 'the old card can no longer be charged at PortOne');
    assert.equal((await job()).status, 'done');
    assert.equal(new URL(deletes()[1].path, 'http://x').searchParams.get('reason'), '결제 카드 변경', 'PortOne is told why (its `reason`)');
  } finally {
    await t.close();
    await fake.close();
  }
});
