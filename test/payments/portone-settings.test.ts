import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { loadConfig } from '../../src/config';
import { ManualClock } from '../../src/platform/clock';
import { encryptSecret } from '../../src/platform/crypto';
import { checkPortOneInput, portoneProviderFromSettings, portoneWebhookSecretOf, type PortOneSettings } from '../../src/payments/portone-settings';
import { verifyPortOneWebhook } from '../../src/payments/portone-webhook';
import { createTestDatabase } from '../helpers/app';
import { startFakePortOne, type FakePortOne } from './fake-portone';

/**
 * A mode's PortOne settings (migration 118) becoming the provider: sealed secrets, the store id, the mode (live refuses
 * payments PortOne took on a TEST channel), and what a seller may save.
 */
const clock = new ManualClock('2026-11-20T03:00:00.000Z');
let fake: FakePortOne;
let config: ReturnType<typeof loadConfig>;
let db: Awaited<ReturnType<typeof createTestDatabase>>;

before(async () => {
  fake = await startFakePortOne({ clock });
  config = loadConfig({ PORTONE_API_BASE_URL: fake.baseUrl }, { masterKey: randomBytes(32), dataDir: 'memory://' });
  db = await createTestDatabase();
});
after(async () => {
  await fake.close();
  await db.drop();
});

test('migration 118: a mode can choose portone, holds its sealed credentials and channel keys, and an order can be paid through it', async () => {
  const storeId = `st_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  const now = clock.now();
  await sql`insert into stores (id, name, owner_token_hash, created_at, updated_at) values (${storeId}, 'PortOne 상점', ${randomBytes(16).toString('hex')}, ${now}, ${now})`.execute(db.db);
  const sealed = encryptSecret(config.masterKey, fake.apiSecret);
  const webhookSealed = encryptSecret(config.masterKey, fake.webhookSecret);
  await sql`insert into store_mode_settings (store_id, mode, payment_provider, portone_store_id, portone_api_secret_sealed, portone_webhook_secret_sealed, portone_channel_keys, updated_at)
            values (${storeId}, 'test', 'portone', ${fake.storeId}, ${sealed}, ${webhookSealed}, ${JSON.stringify({ card: 'channel-key-9c0b2a4e-1f1d-4c55-9a3e-0b4c3d2e1f00' })}::jsonb, ${now})`.execute(db.db);
  await assert.rejects(sql`update store_mode_settings set payment_provider = 'paypal' where store_id = ${storeId}`.execute(db.db));
  const { rows } = await sql<PortOneSettings & { payment_provider: string }>`select mode, payment_provider, portone_store_id, portone_api_secret_sealed, portone_webhook_secret_sealed, portone_channel_keys from store_mode_settings where store_id = ${storeId}`.execute(db.db);
  const row = rows[0];
  assert.equal(row.payment_provider, 'portone');
  assert.deepEqual(row.portone_channel_keys, { card: 'channel-key-9c0b2a4e-1f1d-4c55-9a3e-0b4c3d2e1f00' });
  assert.ok(!String(row.portone_api_secret_sealed).includes(fake.apiSecret), 'the secret is stored sealed');

  const provider = portoneProviderFromSettings({ config, clock }, row);
  assert.ok(provider);
  fake.browserPay({ paymentId: 'ord_settings_1', amount: 8000 });
  assert.equal((await provider.confirmPayment({ paymentKey: 'ord_settings_1', orderId: 'ord_settings_1', amount: 8000, idempotencyKey: 'i' })).status, 'succeeded');
  const secret = portoneWebhookSecretOf({ config }, row);
  const hook = fake.webhook('Transaction.Paid', 'ord_settings_1');
  assert.equal((await verifyPortOneWebhook(secret!, hook.body, hook.headers)).ok, true);

  // orders.provider takes 'portone' too (the widened check of migration 118).
  const { rows: defs } = await sql<{ def: string }>`select pg_get_constraintdef(oid) as def from pg_constraint where conname = 'orders_provider_check'`.execute(db.db);
  assert.match(defs[0].def, /'portone'/);
});

test('incomplete settings give no provider (the checkout answers CHECKOUT_NOT_CONFIGURED)', () => {
  assert.equal(portoneProviderFromSettings({ config, clock }, { mode: 'test', portone_store_id: fake.storeId, portone_api_secret_sealed: null }), null);
  assert.equal(portoneProviderFromSettings({ config, clock }, { mode: 'test', portone_store_id: null, portone_api_secret_sealed: encryptSecret(config.masterKey, 'x') }), null);
});

test('live mode refuses a payment PortOne took on a TEST channel (no money moved), and takes a LIVE channel\'s', async () => {
  const live = portoneProviderFromSettings({ config, clock }, { mode: 'live', portone_store_id: fake.storeId, portone_api_secret_sealed: encryptSecret(config.masterKey, fake.apiSecret) })!;
  fake.browserPay({ paymentId: 'ord_live_test_channel', amount: 5000 });
  const refused = await live.confirmPayment({ paymentKey: 'ord_live_test_channel', orderId: 'ord_live_test_channel', amount: 5000, idempotencyKey: 'i' });
  assert.equal(refused.status, 'failed');
  if (refused.status === 'failed') assert.equal(refused.code, 'TEST_CHANNEL_PAYMENT');
  fake.browserPay({ paymentId: 'ord_live_live_channel', amount: 5000, channelType: 'LIVE' });
  assert.equal((await live.confirmPayment({ paymentKey: 'ord_live_live_channel', orderId: 'ord_live_live_channel', amount: 5000, idempotencyKey: 'i' })).status, 'succeeded');
});

test('what a seller saves is checked first, with Korean messages naming the console field', () => {
  const ok = { storeId: 'store-9bf6076d-beef-4729-9521-ae66c14e0569', apiSecret: 'a'.repeat(40), webhookSecret: `whsec_${Buffer.from('0123456789abcdef0123').toString('base64')}`, channelKeys: { card: 'channel-key-9c0b2a4e-1f1d-4c55-9a3e-0b4c3d2e1f00' } };
  assert.deepEqual(checkPortOneInput(ok), { ok: true });
  const bad = [
    { ...ok, storeId: 'imp12345678' },
    { ...ok, apiSecret: 'short' },
    { ...ok, webhookSecret: 'not-a-secret' },
    { ...ok, channelKeys: { card: 'test_ck_toss' } },
    { ...ok, channelKeys: { mobile: 'channel-key-9c0b2a4e-1f1d-4c55-9a3e-0b4c3d2e1f00' } },
  ].map((i) => checkPortOneInput(i));
  assert.deepEqual(bad.map((r) => (r.ok ? null : r.field)), ['portoneStoreId', 'portoneApiSecret', 'portoneWebhookSecret', 'portoneChannelKeys', 'portoneChannelKeys']);
  for (const r of bad) if (!r.ok) assert.match(r.message, /[가-힣]/);
});
