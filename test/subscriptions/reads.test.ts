import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, createTestApp, createTestStore, type TestApp, type TestStore } from '../helpers/app';
import { createSubscriptionProduct, getSubscription, subscribe } from './factory';

let t: TestApp;
let s: TestStore;

before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
});
after(async () => {
  await t.close();
});

const list = (key: string, qs = '') => t.app.inject({ url: `/v1/subscriptions${qs}`, headers: bearer(key) });

test('GET /v1/subscriptions/{id} answers the documented record, every field present, no billing key', async () => {
  const p = await createSubscriptionProduct(t, s);
  const { orderId, subscriptionId } = await subscribe(t, s, { productId: p.id, metadata: { plan: 'x' } });
  const sub = await getSubscription(t, s.key, subscriptionId);
  assert.deepEqual(Object.keys(sub).sort(), [
    'amount', 'billingInterval', 'buyerEmail', 'buyerName', 'buyerPhone', 'cancelAtPeriodEnd', 'canceledAt', 'card', 'createdAt', 'currency',
    'currentPeriodEnd', 'currentPeriodStart', 'endReason', 'endedAt', 'id', 'latestOrderId', 'metadata', 'mode', 'nextRetryAt', 'pendingPlanChange',
    'pendingPriceChange',
    'planId', 'productId', 'productName', 'recurringConsent', 'startedAt', 'status', 'trialEndsAt', 'trialing',
  ]);
  assert.equal(sub.id, subscriptionId);
  assert.equal(sub.mode, 'test');
  assert.equal(sub.status, 'active');
  assert.equal(sub.productId, p.id);
  assert.equal(sub.productName, '멤버십');
  assert.equal(sub.planId, 'basic');
  assert.equal(sub.billingInterval, 'monthly');
  assert.equal(sub.amount, 9_900);
  assert.equal(sub.currency, 'KRW');
  assert.equal(sub.cancelAtPeriodEnd, false);
  assert.equal(sub.canceledAt, null);
  assert.equal(sub.endedAt, null);
  assert.equal(sub.endReason, null);
  assert.equal(sub.latestOrderId, orderId);
  assert.deepEqual(sub.card, { brand: '카드', last4: '4242' });
  assert.deepEqual(sub.metadata, { plan: 'x' });
  assert.equal(sub.startedAt, t.clock.now().toISOString());
  assert.equal(sub.currentPeriodStart, t.clock.now().toISOString());
  assert.equal(sub.currentPeriodEnd, '2026-12-01T00:00:00.000Z');
  assert.ok(!JSON.stringify(sub).includes('sim_bill'));
});

test('SUBSCRIPTION_NOT_FOUND for an unknown id, another store, another mode and a product outside the key range', async () => {
  const p = await createSubscriptionProduct(t, s);
  const { subscriptionId } = await subscribe(t, s, { productId: p.id });
  const unknown = await t.app.inject({ url: '/v1/subscriptions/sub_nope', headers: bearer(s.key) });
  assert.equal(unknown.statusCode, 404);
  assert.equal(unknown.json().code, 'SUBSCRIPTION_NOT_FOUND');
  const other = await createTestStore(t);
  const r1 = await t.app.inject({ url: `/v1/subscriptions/${subscriptionId}`, headers: bearer(other.key) });
  assert.equal(r1.json().code, 'SUBSCRIPTION_NOT_FOUND');
  const live = await s.newKey({ mode: 'live' });
  const r2 = await t.app.inject({ url: `/v1/subscriptions/${subscriptionId}`, headers: bearer(live.key) });
  assert.equal(r2.json().code, 'SUBSCRIPTION_NOT_FOUND');
  const limited = await s.newKey({ productIds: ['prod_other'] });
  const r3 = await t.app.inject({ url: `/v1/subscriptions/${subscriptionId}`, headers: bearer(limited.key) });
  assert.equal(r3.statusCode, 404);
  assert.equal(r3.json().code, 'SUBSCRIPTION_NOT_FOUND');
  const l = (await list(limited.key)).json();
  assert.equal(l.total, 0);
  const inRange = await s.newKey({ productIds: [p.id] });
  assert.equal((await t.app.inject({ url: `/v1/subscriptions/${subscriptionId}`, headers: bearer(inRange.key) })).statusCode, 200);
});

test('the list is newest first by start time, paginated, filtered by status and buyerEmail (case-insensitive); sort is refused', async () => {
  const store = await createTestStore(t);
  const p = await createSubscriptionProduct(t, store);
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    ids.push((await subscribe(t, store, { productId: p.id, buyerEmail: i === 1 ? 'Second@Example.com' : `b${i}@example.com` })).subscriptionId);
    t.clock.advance(60_000);
  }
  const all = (await list(store.key)).json();
  assert.equal(all.total, 3);
  assert.deepEqual(all.data.map((x: any) => x.id), [...ids].reverse());
  const page2 = (await list(store.key, '?page=2&limit=2')).json();
  assert.deepEqual({ page: page2.page, limit: page2.limit, total: page2.total, ids: page2.data.map((x: any) => x.id) }, { page: 2, limit: 2, total: 3, ids: [ids[0]] });
  const byEmail = (await list(store.key, '?buyerEmail=second@example.COM')).json();
  assert.deepEqual(byEmail.data.map((x: any) => x.id), [ids[1]]);
  await t.db.updateTable('subscriptions').set({ status: 'past_due' }).where('id', '=', ids[2]).execute();
  const pastDue = (await list(store.key, '?status=past_due')).json();
  assert.deepEqual(pastDue.data.map((x: any) => x.id), [ids[2]]);
  assert.equal((await list(store.key, '?status=active')).json().total, 2);
  const bad = await list(store.key, '?status=paused');
  assert.equal(bad.statusCode, 400);
  assert.equal(bad.json().code, 'VALIDATION_FAILED');
  const sort = await list(store.key, '?sort=startedAt');
  assert.equal(sort.statusCode, 400);
});

test('subscriptions:read is required', async () => {
  const k = await s.newKey({ scopes: ['orders:read'] });
  const r = await list(k.key);
  assert.equal(r.statusCode, 403);
  assert.equal(r.json().code, 'API_KEY_SCOPE_MISSING');
  assert.deepEqual(r.json().details.required, ['subscriptions:read']);
});

test('the OpenAPI document carries the Subscription record, the list filters and the read error', async () => {
  const doc = (await t.app.inject({ url: '/v1/openapi.json' })).json();
  const list = doc.paths['/v1/subscriptions'].get;
  const names = list.parameters.filter((p: any) => p.in === 'query').map((p: any) => p.name).sort();
  assert.deepEqual(names, ['buyerEmail', 'limit', 'page', 'productId', 'status']);
  const read = doc.paths['/v1/subscriptions/{id}'].get;
  const resolve = (s: any) => (s.$ref ? doc.components.schemas[s.$ref.split('/').pop()] : s);
  const schema = resolve(read.responses['200'].content['application/json'].schema);
  for (const f of ['id', 'mode', 'status', 'productId', 'productName', 'planId', 'billingInterval', 'amount', 'currency', 'currentPeriodStart', 'currentPeriodEnd', 'cancelAtPeriodEnd', 'canceledAt', 'endedAt', 'endReason', 'startedAt', 'buyerName', 'buyerEmail', 'buyerPhone', 'card', 'latestOrderId', 'metadata', 'createdAt']) {
    assert.ok(schema.properties[f], `Subscription.${f} documented`);
    assert.ok(schema.required.includes(f), `Subscription.${f} always present`);
  }
  assert.ok(read['x-error-codes'].includes('SUBSCRIPTION_NOT_FOUND'));
});
