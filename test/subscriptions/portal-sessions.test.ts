import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, post, type TestApp, type TestStore } from '../helpers/app';
import { createSubscriptionProduct, subscribe } from './factory';

let t: TestApp;
let s: TestStore;
let sub: { subscriptionId: string; orderId: string };

before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
  const product = await createSubscriptionProduct(t, s);
  sub = await subscribe(t, s, { productId: product.id, buyerEmail: 'portal@example.com' });
});
after(async () => {
  await t.close();
});

const create = (body: Record<string, unknown>, key = s.key, idem?: string) => t.app.inject({ method: 'POST', url: '/v1/portal-sessions', headers: post(key, idem), payload: body });

test('creates a short-lived single-purpose portal url for a subscription id (documented body)', async () => {
  const res = await create({ subscriptionId: sub.subscriptionId, returnUrl: 'https://example.com/account' });
  assert.equal(res.statusCode, 200, res.body);
  const b = res.json();
  assert.deepEqual(Object.keys(b).sort(), ['buyerEmail', 'createdAt', 'expiresAt', 'id', 'mode', 'returnUrl', 'subscriptionId', 'url'].sort());
  assert.match(b.id, /^ps_/);
  assert.equal(b.mode, 'test');
  assert.equal(b.subscriptionId, sub.subscriptionId);
  assert.equal(b.buyerEmail, 'portal@example.com');
  assert.equal(b.returnUrl, 'https://example.com/account');
  assert.equal(new Date(b.expiresAt).getTime() - new Date(b.createdAt).getTime(), 60 * 60_000);
  assert.match(b.url, /^http:\/\/localhost:3000\/portal\/[A-Za-z0-9]{40}$/);
  const page = await t.app.inject({ url: new URL(b.url).pathname });
  assert.equal(page.statusCode, 200);
  // Only the hash is stored: the url cannot be rebuilt from the database.
  const row = await t.db.selectFrom('portal_sessions').selectAll().where('id', '=', b.id).executeTakeFirstOrThrow();
  assert.ok(!b.url.includes(row.token_hash));
});

test('buyerEmail alone opens the buyer\'s active subscription (case-insensitive); returnUrl is optional', async () => {
  const res = await create({ buyerEmail: 'Portal@Example.com' });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.json().subscriptionId, sub.subscriptionId);
  assert.equal(res.json().returnUrl, null);
});

test('BAD_REQUEST: neither buyerEmail nor subscriptionId, or a buyerEmail that is not an email', async () => {
  for (const body of [{}, { returnUrl: 'https://example.com/' }, { buyerEmail: 'not-an-email' }, { buyerEmail: 'a@b', subscriptionId: sub.subscriptionId }]) {
    const res = await create(body);
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.json().code, 'BAD_REQUEST');
    assert.match(res.json().message, /[가-힣]/);
  }
});

test('VALIDATION_FAILED: unknown fields and non-string values', async () => {
  for (const body of [{ subscriptionId: sub.subscriptionId, extra: 1 }, { subscriptionId: 5 }]) {
    const res = await create(body);
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().code, 'VALIDATION_FAILED');
  }
});

test('CHECKOUT_URL_INVALID: a returnUrl that is not an absolute http(s) URL (checked before the subscription)', async () => {
  for (const returnUrl of ['/relative', 'javascript:alert(1)', 'ftp://example.com/', 'https://user:pw@example.com/']) {
    const res = await create({ subscriptionId: 'sub_missing', returnUrl });
    assert.equal(res.statusCode, 400, returnUrl);
    assert.equal(res.json().code, 'CHECKOUT_URL_INVALID');
    assert.equal(res.json().details.field, 'returnUrl');
  }
});

test('SUBSCRIPTION_NOT_FOUND: unknown id, another buyer\'s email, a key of the other mode or limited to other products', async () => {
  const live = await s.newKey({ mode: 'live' });
  const limited = await s.newKey({ productIds: ['prod_other'] });
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ subscriptionId: 'sub_nope' }, s.key],
    [{ subscriptionId: sub.subscriptionId, buyerEmail: 'someone@example.com' }, s.key],
    [{ subscriptionId: sub.subscriptionId }, live.key],
    [{ subscriptionId: sub.subscriptionId }, limited.key],
  ];
  for (const [body, key] of cases) {
    const res = await create(body, key);
    assert.equal(res.statusCode, 404, JSON.stringify(body));
    assert.equal(res.json().code, 'SUBSCRIPTION_NOT_FOUND');
  }
});

test('NOT_FOUND: only buyerEmail, and that buyer has no active or past-due subscription', async () => {
  const res = await create({ buyerEmail: 'nobody@example.com' });
  assert.equal(res.statusCode, 404);
  assert.equal(res.json().code, 'NOT_FOUND');
});

test('RETURN_URL_NOT_ALLOWED: a returnUrl host outside the mode\'s allow-list (subdomains allowed)', async () => {
  const bad = await create({ subscriptionId: sub.subscriptionId, returnUrl: 'https://evil.example.org/account' });
  assert.equal(bad.statusCode, 400);
  assert.equal(bad.json().code, 'RETURN_URL_NOT_ALLOWED');
  const sub2 = await create({ subscriptionId: sub.subscriptionId, returnUrl: 'https://shop.example.com/account' });
  assert.equal(sub2.statusCode, 200, sub2.body);
});

test('scope and idempotency: subscriptions:write required; Idempotency-Key required and replayed', async () => {
  const readOnly = await s.newKey({ scopes: ['subscriptions:read'] });
  const denied = await create({ subscriptionId: sub.subscriptionId }, readOnly.key);
  assert.equal(denied.statusCode, 403);
  assert.equal(denied.json().code, 'API_KEY_SCOPE_MISSING');
  const noKey = await t.app.inject({ method: 'POST', url: '/v1/portal-sessions', headers: { authorization: `Bearer ${s.key}` }, payload: { subscriptionId: sub.subscriptionId } });
  assert.equal(noKey.statusCode, 400);
  const a = await create({ subscriptionId: sub.subscriptionId }, s.key, 'portal-idem-1');
  const b = await create({ subscriptionId: sub.subscriptionId }, s.key, 'portal-idem-1');
  assert.equal(b.headers['idempotent-replayed'], 'true');
  assert.equal(a.json().url, b.json().url);
});
