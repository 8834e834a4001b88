import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, bearer, TEST_ADMIN_TOKEN, type TestApp } from '../helpers/app';
import { startFakeToss, type FakeToss } from '../payments/fake-toss';

let t: TestApp;
let toss: FakeToss;
before(async () => {
  // Saved Toss keys are verified with Toss first: the fake's merchant holds the live pair the test saves.
  toss = await startFakeToss({ secretKey: 'live_sk_secret' });
  t = await createTestApp({ config: { tossApiBaseUrl: toss.baseUrl } });
});
after(async () => {
  await t.close();
  await toss.close();
});

const createStore = (token: string | null, payload: object = { name: '새 상점' }) =>
  t.app.inject({ method: 'POST', url: '/admin/v1/stores', headers: token ? bearer(token) : {}, payload });

test('creating a store needs the operator token and returns the owner token once', async () => {
  assert.equal((await createStore(null)).statusCode, 401);
  assert.equal((await createStore('wrong')).json().code, 'ADMIN_UNAUTHORIZED');
  const res = await createStore(TEST_ADMIN_TOKEN);
  assert.equal(res.statusCode, 201);
  const { store, ownerToken } = res.json();
  assert.match(ownerToken, /^own_[A-Za-z0-9]{40}$/);
  assert.equal(store.settings.test.paymentProvider, 'simulator');
  assert.equal(store.settings.test.checkoutConfigured, true);
  assert.equal(store.settings.live.checkoutConfigured, false, 'live mode needs gateway credentials first');
  assert.equal(store.publicContactVerified, false);
  const read = await t.app.inject({ url: '/admin/v1/store', headers: bearer(ownerToken) });
  assert.equal(read.json().id, store.id);
});

test('without ADMIN_TOKEN configured no one can create stores over HTTP', async () => {
  const closed = await createTestApp({ database: t.deps.database, config: { adminToken: null } });
  try {
    const res = await closed.app.inject({ method: 'POST', url: '/admin/v1/stores', headers: bearer(''), payload: { name: 'x' } });
    assert.equal(res.statusCode, 401);
  } finally {
    await closed.close();
  }
});

test('the owner sets the name, allow-list and payment setup; secrets are never returned', async () => {
  const { ownerToken } = (await createStore(TEST_ADMIN_TOKEN)).json();
  const h = bearer(ownerToken);
  const patched = await t.app.inject({ method: 'PATCH', url: '/admin/v1/store', headers: h, payload: { name: '이름 바꾼 상점' } });
  assert.equal(patched.json().name, '이름 바꾼 상점');
  const live = await t.app.inject({
    method: 'PUT',
    url: '/admin/v1/store/settings/live',
    headers: h,
    payload: { returnUrlDomains: ['Shop.Example.com'], paymentProvider: 'toss', tossClientKey: 'live_ck_abc', tossSecretKey: 'live_sk_secret' },
  });
  assert.equal(live.statusCode, 200);
  const settings = live.json().settings.live;
  assert.deepEqual(settings.returnUrlDomains, ['shop.example.com']);
  assert.equal(settings.checkoutConfigured, true);
  assert.equal(settings.tossSecretKeySet, true);
  assert.ok(!live.body.includes('live_sk_secret'));
  const row = await t.db.selectFrom('store_mode_settings').selectAll().where('mode', '=', 'live').where('toss_client_key', '=', 'live_ck_abc').executeTakeFirstOrThrow();
  assert.ok(row.toss_secret_key_sealed && !row.toss_secret_key_sealed.includes('live_sk_secret'), 'stored encrypted');
  const sim = await t.app.inject({ method: 'PUT', url: '/admin/v1/store/settings/live', headers: h, payload: { paymentProvider: 'simulator' } });
  assert.equal(sim.statusCode, 400, 'the simulator is never used for live money');
  // Toss's payment-widget keys (gck/gsk) cannot open the payment window this service uses: refused, nothing stored.
  const widget = await t.app.inject({
    method: 'PUT',
    url: '/admin/v1/store/settings/live',
    headers: h,
    payload: { paymentProvider: 'toss', tossClientKey: 'live_gck_widget', tossSecretKey: 'live_gsk_widget' },
  });
  assert.equal(widget.statusCode, 400, widget.body);
  assert.equal(widget.json().code, 'VALIDATION_FAILED');
  const fields = widget.json().details.fields;
  assert.deepEqual(fields.map((f: any) => f.field), ['tossClientKey', 'tossSecretKey']);
  assert.match(fields[0].message, /API 개별 연동 키/);
  const kept = await t.db.selectFrom('store_mode_settings').selectAll().where('mode', '=', 'live').where('toss_client_key', '=', 'live_ck_abc').executeTakeFirst();
  assert.ok(kept, 'the earlier API keys are still the stored ones');
  const testWidget = await t.app.inject({ method: 'PUT', url: '/admin/v1/store/settings/test', headers: h, payload: { tossClientKey: 'test_gck_docs_Ovk5rk1EwkEbP0W43n07xlzm' } });
  assert.equal(testWidget.statusCode, 400);
});

test('API keys: created with scopes, IP list and products; plaintext once; invalid CIDR refused; owner-scoped', async () => {
  const a = (await createStore(TEST_ADMIN_TOKEN)).json();
  const b = (await createStore(TEST_ADMIN_TOKEN)).json();
  const res = await t.app.inject({
    method: 'POST',
    url: '/admin/v1/api-keys',
    headers: bearer(a.ownerToken),
    payload: { mode: 'live', name: 'server', scopes: ['orders:read'], ipAllowlist: ['10.0.0.0/8'], productIds: ['prd_x'] },
  });
  assert.equal(res.statusCode, 201);
  const { apiKey, secret } = res.json();
  assert.match(secret, /^svc_live_/);
  assert.equal(apiKey.keyHint, secret.slice(0, 13));
  const list = (await t.app.inject({ url: '/admin/v1/api-keys', headers: bearer(a.ownerToken) })).json();
  assert.ok(!JSON.stringify(list).includes(secret), 'the list never shows the key');
  const bad = await t.app.inject({ method: 'POST', url: '/admin/v1/api-keys', headers: bearer(a.ownerToken), payload: { mode: 'test', name: 'x', scopes: ['orders:read'], ipAllowlist: ['10.0.0.0/99'] } });
  assert.equal(bad.statusCode, 400);
  assert.equal(bad.json().details.fields[0].field, 'ipAllowlist.0');
  const badScope = await t.app.inject({ method: 'POST', url: '/admin/v1/api-keys', headers: bearer(a.ownerToken), payload: { mode: 'test', name: 'x', scopes: ['orders:write'] } });
  assert.equal(badScope.statusCode, 400, 'removed scopes are refused');
  const foreign = await t.app.inject({ method: 'POST', url: `/admin/v1/api-keys/${apiKey.id}/revoke`, headers: bearer(b.ownerToken) });
  assert.equal(foreign.statusCode, 404, "another store's owner cannot touch the key");
});
