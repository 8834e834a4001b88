import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, createTestApp } from '../helpers/app';
import { createProduct } from '../checkout/factory';
import { emit, pump } from '../webhooks/setup';
import { startReceiver } from '../webhooks/receiver';
import { postForm, signIn } from './helpers';

const secretOf = (body: string) => /data-testid="secret">[\s\S]*?<code>([^<]+)<\/code>/.exec(body)?.[1];

test('Developers: API keys and webhooks through the same services as the console, each action audited with the member', async (tc) => {
  const t = await createTestApp();
  const receiver = await startReceiver();
  tc.after(async () => {
    await receiver.close();
    await t.close();
  });
  const owner = await signIn(t, { name: '최개발' });
  const s = owner.store;
  const audit = async (action: string) => (await t.app.inject({ url: `/admin/v1/audit-log?action=${action}`, headers: bearer(s.ownerToken) })).json().data;

  await tc.test('the key list shows the test key with its hint; creating one with scopes, IP allow-list and product range shows the secret once', async () => {
    const page = await t.app.inject({ url: '/dashboard/developers', headers: owner.headers });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, new RegExp(`data-key="${s.keyId}"`));
    const product = await createProduct(t, s, { name: '범위 상품' });
    const res = await postForm(t, owner, '/dashboard/developers/keys', { name: '주문 조회 서버', scopes: 'orders:read', ipAllowlist: '203.0.113.7\n10.0.0.0/8', productIds: product.id });
    assert.equal(res.statusCode, 200, res.body);
    const secret = secretOf(res.body);
    assert.match(secret ?? '', /^svc_test_/);
    const keys = (await t.app.inject({ url: '/admin/v1/api-keys?mode=test', headers: bearer(s.ownerToken) })).json().data;
    const made = keys.find((k: any) => k.name === '주문 조회 서버');
    assert.deepEqual(made.scopes, ['orders:read']);
    assert.deepEqual(made.ipAllowlist, ['203.0.113.7', '10.0.0.0/8']);
    assert.deepEqual(made.productIds, [product.id]);
    // Shown once: the list page never carries it again.
    const again = await t.app.inject({ url: '/dashboard/developers', headers: owner.headers });
    assert.ok(!again.body.includes(secret!));
    const [entry] = await audit('api_key.created');
    assert.equal(entry.actor.name, '최개발');
    assert.equal(entry.target.id, made.id);
  });

  await tc.test('a bad IP allow-list entry is refused with the service message, and no key is made', async () => {
    const before = (await t.app.inject({ url: '/admin/v1/api-keys?mode=test', headers: bearer(s.ownerToken) })).json().total;
    const res = await postForm(t, owner, '/dashboard/developers/keys', { name: 'bad', scopes: 'orders:read', ipAllowlist: '010.1.2.3' });
    assert.equal(res.statusCode, 400);
    assert.match(res.body, /IP 주소 또는 CIDR 형식이 올바르지 않습니다/);
    assert.equal((await t.app.inject({ url: '/admin/v1/api-keys?mode=test', headers: bearer(s.ownerToken) })).json().total, before);
  });

  await tc.test('rotating a key shows the new secret; the old key keeps working for the grace period; the new one works', async () => {
    const res = await postForm(t, owner, `/dashboard/developers/keys/${s.keyId}/rotate`, { graceHours: '1' });
    assert.equal(res.statusCode, 200, res.body);
    const fresh = secretOf(res.body)!;
    assert.match(fresh, /^svc_test_/);
    assert.equal((await t.app.inject({ url: '/v1/products', headers: bearer(fresh) })).statusCode, 200);
    assert.equal((await t.app.inject({ url: '/v1/products', headers: bearer(s.key) })).statusCode, 200);
    t.clock.advance(3_600_000 + 1000);
    assert.equal((await t.app.inject({ url: '/v1/products', headers: bearer(s.key) })).statusCode, 401);
    const [entry] = await audit('api_key.rotated');
    assert.equal(entry.actor.name, '최개발');
    assert.equal(entry.target.id, s.keyId);
    assert.equal(entry.details.graceHours, 1);
  });

  await tc.test('revoking a key stops it at once', async () => {
    const k = await s.newKey();
    const res = await postForm(t, owner, `/dashboard/developers/keys/${k.id}/revoke`);
    assert.equal(res.statusCode, 200);
    assert.equal((await t.app.inject({ url: '/v1/products', headers: bearer(k.key) })).statusCode, 401);
    assert.equal((await audit('api_key.revoked'))[0].target.id, k.id);
  });

  await tc.test('a support member gets the 403 page on API keys; an admin can neither create nor rotate a live key', async () => {
    const support = await signIn(t, { role: 'support', store: s });
    const page = await t.app.inject({ url: '/dashboard/developers', headers: support.headers });
    assert.equal(page.statusCode, 403);
    assert.match(page.body, /접근 권한이 없습니다/);
    const post = await postForm(t, support, `/dashboard/developers/keys/${s.keyId}/revoke`);
    assert.equal(post.statusCode, 403);

    const admin = await signIn(t, { role: 'admin', store: s });
    const live = await s.newKey({ mode: 'live' });
    await postForm(t, admin, '/dashboard/mode', { mode: 'live' });
    const refused = await postForm(t, admin, `/dashboard/developers/keys/${live.id}/rotate`, { graceHours: '24' });
    assert.equal(refused.statusCode, 403);
    assert.match(refused.body, /상점 소유자만/);
    const create = await postForm(t, admin, '/dashboard/developers/keys', { name: 'x', scopes: 'orders:read' });
    assert.equal(create.statusCode, 403);
    assert.equal((await t.app.inject({ url: '/v1/products', headers: bearer(live.key) })).statusCode, 200, 'the live key still works');
  });

  await tc.test('a key of the other mode is not found from this mode', async () => {
    const live = await s.newKey({ mode: 'live' });
    const res = await postForm(t, owner, `/dashboard/developers/keys/${live.id}/revoke`);
    assert.equal(res.statusCode, 404);
    assert.equal((await t.app.inject({ url: '/v1/products', headers: bearer(live.key) })).statusCode, 200);
  });

  let endpointId = '';
  let signing = '';
  await tc.test('a webhook endpoint is created with event types; its secret is shown; a test event arrives signed', async () => {
    const res = await postForm(t, owner, '/dashboard/developers/webhooks', { url: receiver.url('/hooks'), eventTypes: 'order.paid', description: '주문 서버' });
    assert.equal(res.statusCode, 200, res.body);
    signing = secretOf(res.body)!;
    assert.match(signing, /^whsec_/);
    receiver.state.secrets = () => [signing];
    endpointId = /data-endpoint="(we_[^"]+)"/.exec(res.body)![1];
    const sent = await postForm(t, owner, `/dashboard/developers/webhooks/${endpointId}/test`);
    assert.equal(sent.statusCode, 200);
    assert.match(sent.body, /테스트 이벤트를 보냈습니다: HTTP 200/);
    const got = receiver.received.find((r) => r.payload?.type === 'webhook.test');
    assert.ok(got);
    assert.deepEqual(got.verifiedWith, [signing]);
    const reveal = await postForm(t, owner, `/dashboard/developers/webhooks/${endpointId}/secret`);
    assert.equal(secretOf(reveal.body), signing);
    assert.equal((await audit('webhook_endpoint.secret_revealed'))[0].actor.name, '최개발');
  });

  await tc.test('an event is resent to an endpoint from its detail page, delivered again with the same id, and audited', async () => {
    const ev = await emit(t, s.storeId, 'order.paid', { orderId: 'ord_resend' });
    await pump(t);
    assert.equal(receiver.byId(ev.id).length, 1);
    const detail = await t.app.inject({ url: `/dashboard/developers/events/${ev.id}`, headers: owner.headers });
    assert.equal(detail.statusCode, 200);
    assert.match(detail.body, /data-testid="deliveries"/);
    const res = await postForm(t, owner, `/dashboard/developers/events/${ev.id}/resend`, { endpointId });
    assert.equal(res.statusCode, 200, res.body);
    assert.match(res.body, /다시 보내기를 예약했습니다/);
    await pump(t);
    assert.equal(receiver.byId(ev.id).length, 2);
    const [entry] = await audit('event.resent');
    assert.equal(entry.actor.name, '최개발');
    assert.equal(entry.target.id, ev.id);
    const list = await t.app.inject({ url: '/dashboard/developers/events?type=order.paid', headers: owner.headers });
    assert.match(list.body, new RegExp(ev.id));
  });

  await tc.test('rotating the endpoint secret signs with the new one (the old one too during grace)', async () => {
    const res = await postForm(t, owner, `/dashboard/developers/webhooks/${endpointId}/rotate`);
    assert.equal(res.statusCode, 200);
    const fresh = secretOf(res.body)!;
    assert.notEqual(fresh, signing);
    receiver.state.secrets = () => [fresh];
    const ev = await emit(t, s.storeId, 'order.paid', { orderId: 'ord_after_rotate' });
    await pump(t);
    assert.deepEqual(receiver.byId(ev.id)[0].verifiedWith, [fresh]);
  });
});
