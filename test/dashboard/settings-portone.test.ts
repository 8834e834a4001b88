import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, createTestApp } from '../helpers/app';
import { postForm, signIn } from './helpers';
import { startFakePortOne } from '../payments/fake-portone';

// Issue 42: the dashboard's payment settings choose PortOne and take its credentials; the secret is checked with the
// fake PortOne (from PortOne's documentation) before it is sealed, write-only like Toss's, and never in the audit log.
test('Settings › payments: PortOne chosen with its store id, secrets and channel keys; secrets write-only; a refused secret not saved', async (tc) => {
  const t = await createTestApp();
  const fake = await startFakePortOne({ clock: t.clock });
  (t.deps.config as { portoneApiBaseUrl: string }).portoneApiBaseUrl = fake.baseUrl;
  tc.after(async () => {
    await t.close();
    await fake.close();
  });
  const owner = await signIn(t, { name: '윤사장' });
  const s = owner.store;
  const view = async () => (await t.app.inject({ url: '/admin/v1/store', headers: bearer(s.ownerToken) })).json().settings.test;
  const card = 'channel-key-9c0b2a4e-1f1d-4c55-9a3e-0b4c3d2e1f00';

  const refused = await postForm(t, owner, '/dashboard/settings/payments', { paymentProvider: 'portone', portoneStoreId: fake.storeId, portoneApiSecret: 'y'.repeat(40) });
  assert.equal(refused.statusCode, 400, refused.body.slice(0, 200));
  assert.match(refused.body, /포트원이 API Secret을 거절했습니다/);
  assert.equal((await view()).portoneApiSecretSet, false);

  const saved = await postForm(t, owner, '/dashboard/settings/payments', {
    paymentProvider: 'portone', portoneStoreId: fake.storeId, portoneApiSecret: fake.apiSecret, portoneWebhookSecret: fake.webhookSecret, portoneChannel_card: card,
  });
  assert.equal(saved.statusCode, 200, saved.body.slice(0, 300));
  let v = await view();
  assert.equal(v.paymentProvider, 'portone');
  assert.equal(v.portoneApiSecretSet, true);
  assert.equal(v.portoneWebhookSecretSet, true);
  assert.deepEqual(v.portoneChannelKeys, { card });
  assert.equal(v.checkoutConfigured, true);

  // The page shows PortOne chosen, the secret as set (never its value), the webhook URL to register.
  const page = await t.app.inject({ url: '/dashboard/settings', headers: owner.headers });
  assert.match(page.body, /<option value="portone" selected>/);
  assert.match(page.body, /data-testid="portone-secret-state">API Secret이 설정되어 있습니다/);
  assert.ok(!page.body.includes(fake.apiSecret) && !page.body.includes(fake.webhookSecret));
  assert.match(page.body, new RegExp(`/gateway/portone/webhook/${s.storeId}/test`));

  // The owners are told which PortOne fields changed (names only, never the values).
  const notices = await t.db.selectFrom('mail_outbox').select(['data']).where('store_id', '=', s.storeId).where('kind', '=', 'seller_security_notice').execute();
  const changed = notices.map((n) => (n.data as { fields: string[] }).fields).find((f) => f.includes('portoneApiSecret'));
  assert.deepEqual(changed, ['paymentProvider', 'portoneStoreId', 'portoneApiSecret', 'portoneWebhookSecret', 'portoneChannelKeys']);
  assert.ok(!JSON.stringify(notices).includes(fake.apiSecret), 'no secret in the notice');

  // Saving the form again with the secret fields empty keeps the secrets and stays on PortOne.
  const again = await postForm(t, owner, '/dashboard/settings/payments', { paymentProvider: 'portone', portoneStoreId: fake.storeId, portoneChannel_card: card });
  assert.equal(again.statusCode, 200, again.body.slice(0, 300));
  v = await view();
  assert.equal(v.paymentProvider, 'portone');
  assert.equal(v.portoneApiSecretSet, true);
  const log = (await t.app.inject({ url: '/admin/v1/audit-log?action=settings.payments_updated', headers: bearer(s.ownerToken) })).json().data;
  assert.ok(log.length >= 1);
  assert.ok(!JSON.stringify(log).includes(fake.apiSecret) && !JSON.stringify(log).includes(fake.webhookSecret), 'no secret in the audit log');

  // The choice offered is the provider registry's: every provider in test mode; in live mode none that is test-only.
  const offered = (body: string) => [...body.matchAll(/<select id="provider"[^>]*>([\s\S]*?)<\/select>/g)][0][1].match(/value="[a-z]*"/g);
  assert.deepEqual(offered(page.body), ['value=""', 'value="simulator"', 'value="toss"', 'value="portone"']);
  assert.equal((await postForm(t, owner, '/dashboard/mode', { mode: 'live' })).statusCode, 303);
  const livePage = await t.app.inject({ url: '/dashboard/settings', headers: owner.headers });
  assert.deepEqual(offered(livePage.body), ['value=""', 'value="toss"', 'value="portone"']);
});
