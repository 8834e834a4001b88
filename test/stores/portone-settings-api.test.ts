import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, createTestApp, createTestStore, type TestApp, type TestStore } from '../helpers/app';
import { startFakePortOne, type FakePortOne } from '../payments/fake-portone';
import { providerFor } from '../../src/payments';
import { findModeSettings } from '../../src/stores/repo';
import { getGoLiveChecklist } from '../../src/stores/go-live-service';

// Issue 42: a store chooses PortOne per mode through the console API (PUT /admin/v1/store/settings/{mode}); the API
// secret is tried against PortOne (the fake answers 401 UNAUTHORIZED for any other secret, PAYMENT_NOT_FOUND for an
// unknown paymentId under the right one) before it is sealed, and the mode's provider then is PortOne.

let t: TestApp;
let fake: FakePortOne;
before(async () => {
  t = await createTestApp();
  fake = await startFakePortOne({ clock: t.clock });
  (t.deps.config as { portoneApiBaseUrl: string }).portoneApiBaseUrl = fake.baseUrl;
});
after(async () => {
  await t.close();
  await fake.close();
});

const CARD_CHANNEL = 'channel-key-9c0b2a4e-1f1d-4c55-9a3e-0b4c3d2e1f00';
const save = (s: TestStore, mode: 'live' | 'test', payload: Record<string, unknown>) =>
  t.app.inject({ method: 'PUT', url: `/admin/v1/store/settings/${mode}`, headers: bearer(s.ownerToken), payload });
const settingsOf = async (s: TestStore, mode: 'live' | 'test') => (await t.app.inject({ url: '/admin/v1/store', headers: bearer(s.ownerToken) })).json().settings[mode];

test('PortOne settings verified with PortOne are sealed and make the mode take payments through PortOne', async () => {
  const s = await createTestStore(t);
  const before = fake.calls.length;
  const res = await save(s, 'test', { paymentProvider: 'portone', portoneStoreId: fake.storeId, portoneApiSecret: fake.apiSecret, portoneWebhookSecret: fake.webhookSecret, portoneChannelKeys: { card: CARD_CHANNEL } });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(fake.calls.length, before + 1, 'PortOne was asked once (a read)');
  const view = await settingsOf(s, 'test');
  assert.equal(view.paymentProvider, 'portone');
  assert.equal(view.portoneStoreId, fake.storeId);
  assert.equal(view.portoneApiSecretSet, true);
  assert.equal(view.portoneWebhookSecretSet, true);
  assert.deepEqual(view.portoneChannelKeys, { card: CARD_CHANNEL });
  assert.equal(view.checkoutConfigured, true);
  assert.ok(!JSON.stringify(view).includes(fake.apiSecret) && !JSON.stringify(view).includes(fake.webhookSecret), 'secrets are never returned');
  const row = await findModeSettings(t.db, s.storeId, 'test');
  assert.ok(row.portone_api_secret_sealed && !row.portone_api_secret_sealed.includes(fake.apiSecret), 'sealed');
  const provider = providerFor(t.deps, row);
  assert.equal(provider?.name, 'portone');
  // The provider built from the stored settings really speaks to the store's PortOne account.
  fake.browserPay({ paymentId: 'ord_portone_settings_1', amount: 5000 });
  assert.equal((await provider!.confirmPayment({ paymentKey: 'ord_portone_settings_1', orderId: 'ord_portone_settings_1', amount: 5000, idempotencyKey: 'k' })).status, 'succeeded');
});

test('live mode on PortOne with a verified secret ticks the go-live checklist\'s credentials item', async () => {
  const s = await createTestStore(t);
  const res = await save(s, 'live', { paymentProvider: 'portone', portoneStoreId: fake.storeId, portoneApiSecret: fake.apiSecret });
  assert.equal(res.statusCode, 200, res.body);
  const list = await getGoLiveChecklist(t.deps, s.storeId);
  assert.equal(list.items.find((i) => i.item === 'tossKeys')?.done, true);
});

test('a secret PortOne refuses is not stored; bad shapes are refused on their field without asking PortOne', async () => {
  const s = await createTestStore(t);
  const refused = await save(s, 'test', { paymentProvider: 'portone', portoneStoreId: fake.storeId, portoneApiSecret: 'x'.repeat(40) });
  assert.equal(refused.statusCode, 400);
  assert.equal(refused.json().code, 'VALIDATION_FAILED');
  assert.equal(refused.json().details.fields[0].field, 'portoneApiSecret');
  assert.match(refused.json().message, /포트원이 API Secret을 거절했습니다/);
  const view = await settingsOf(s, 'test');
  assert.equal(view.portoneApiSecretSet, false);
  assert.equal(view.paymentProvider, 'simulator', 'nothing of the refused save was stored');

  const before = fake.calls.length;
  const badStore = await save(s, 'test', { portoneStoreId: 'my-store', portoneApiSecret: fake.apiSecret });
  assert.equal(badStore.statusCode, 400);
  assert.equal(badStore.json().details.fields[0].field, 'portoneStoreId');
  const badChannel = await save(s, 'test', { portoneChannelKeys: { card: 'live_ck_abc' } });
  assert.equal(badChannel.json().details.fields[0].field, 'portoneChannelKeys');
  const badHook = await save(s, 'test', { portoneWebhookSecret: 'secret' });
  assert.equal(badHook.json().details.fields[0].field, 'portoneWebhookSecret');
  assert.equal(fake.calls.length, before, 'PortOne was not called for shapes');
});

test('PortOne chosen without its credentials is not configured (checkout would answer CHECKOUT_NOT_CONFIGURED)', async () => {
  const s = await createTestStore(t);
  assert.equal((await save(s, 'test', { paymentProvider: 'portone' })).statusCode, 200);
  const view = await settingsOf(s, 'test');
  assert.equal(view.checkoutConfigured, false);
  assert.equal(providerFor(t.deps, await findModeSettings(t.db, s.storeId, 'test')), null);
});
