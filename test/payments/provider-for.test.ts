import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../src/config';
import { ManualClock } from '../../src/platform/clock';
import { encryptSecret } from '../../src/platform/crypto';
import { providerFor, SimulatorProvider, TossProvider, TEST_CARDS } from '../../src/payments';
import { startFakeToss } from './fake-toss';

const config = loadConfig({ TOSS_API_BASE_URL: 'http://127.0.0.1:9' }, { masterKey: randomBytes(32), dataDir: 'memory://' });

test('the simulator serves test mode only', () => {
  const clock = new ManualClock();
  const test = providerFor({ config, clock }, { mode: 'test', payment_provider: 'simulator', toss_secret_key_sealed: null });
  assert.ok(test instanceof SimulatorProvider);
  assert.equal(providerFor({ config, clock }, { mode: 'live', payment_provider: 'simulator', toss_secret_key_sealed: null }), null);
});

test('one simulator per clock, so its idempotency memory spans requests', async () => {
  const clock = new ManualClock();
  const settings = { mode: 'test', payment_provider: 'simulator', toss_secret_key_sealed: null } as const;
  const a = providerFor({ config, clock }, settings) as SimulatorProvider;
  const b = providerFor({ config, clock }, settings) as SimulatorProvider;
  assert.equal(a, b);
  assert.notEqual(providerFor({ config, clock: new ManualClock() }, settings), a);
  const r = a.authorize({ method: 'card', cardNumber: TEST_CARDS.success, amount: 1000, orderId: 'ord_provider_for' });
  assert.ok(r.ok);
});

test('toss needs a sealed secret key; without one (or without a provider) there is none', () => {
  const clock = new ManualClock();
  assert.equal(providerFor({ config, clock }, { mode: 'live', payment_provider: 'toss', toss_secret_key_sealed: null }), null);
  assert.equal(providerFor({ config, clock }, { mode: 'live', payment_provider: null, toss_secret_key_sealed: null }), null);
  assert.equal(providerFor({ config, clock }, { mode: 'test', payment_provider: null, toss_secret_key_sealed: null }), null);
});

test('toss with a sealed key talks to the configured base URL with the revealed secret', async () => {
  const fake = await startFakeToss();
  try {
    const cfg = { ...config, tossApiBaseUrl: fake.baseUrl };
    const sealed = encryptSecret(cfg.masterKey, fake.secretKey);
    const p = providerFor({ config: cfg, clock: new ManualClock() }, { mode: 'live', payment_provider: 'toss', toss_secret_key_sealed: sealed });
    assert.ok(p instanceof TossProvider);
    const r = await p.confirmPayment({ paymentKey: 'tgen_provider_for', orderId: 'ord_provider_for', amount: 3000, idempotencyKey: 'k' });
    assert.equal(r.status, 'succeeded', JSON.stringify(r));
  } finally {
    await fake.close();
  }
});
