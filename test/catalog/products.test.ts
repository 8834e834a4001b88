import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, bearer, type TestApp, type TestStore } from '../helpers/app';
import { createCoupon, createProduct, createSubscriptionProduct, owner } from '../checkout/factory';
import { seedDemoCatalog } from '../../src/catalog/demo';

let t: TestApp;
let s: TestStore;

before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
});
after(async () => {
  await t.close();
});

const adminReq = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown) =>
  t.app.inject({ method, url, headers: owner(s), ...(payload === undefined ? {} : { payload: payload as any }) });

test('a product has every field of the Product schema; one-time and subscription pricing', async () => {
  const one = await createProduct(t, s, { name: '전자책', price: 15_000, stock: 100, license: { mode: 'service', maxActivations: 3, validityDays: 365 } });
  assert.deepEqual(Object.keys(one).sort(), ['createdAt', 'description', 'id', 'license', 'mode', 'name', 'pricing', 'refundPolicy', 'saleEndsAt', 'saleStartsAt', 'soldCount', 'status', 'stock', 'type', 'updatedAt'].sort());
  assert.match(one.id, /^prod_/);
  assert.deepEqual(one.pricing, { currency: 'KRW', price: 15_000, plans: [] });
  assert.deepEqual(one.refundPolicy, { refundDays: 7, trialOffered: false, usageRestrictionMarked: false, clawbackDisclosed: false, penaltyRate: 10 });
  assert.deepEqual(one.license, { mode: 'service', maxActivations: 3, validityDays: 365 });
  assert.equal(one.stock, 100);
  assert.equal(one.soldCount, 0);
  assert.equal(one.description, null);
  assert.equal(one.saleStartsAt, null);
  const sub = await createSubscriptionProduct(t, s, { refundPolicy: { refundDays: 14, clawbackDisclosed: true } });
  assert.deepEqual(sub.pricing, { currency: 'KRW', price: null, plans: [{ id: 'basic', name: '베이직', monthlyPrice: 9_900, yearlyPrice: 99_000, trialDays: null, currency: 'KRW' }] });
  assert.equal(sub.refundPolicy.refundDays, 14);
  assert.equal(sub.refundPolicy.clawbackDisclosed, true);
});

test('the console refuses inconsistent products with VALIDATION_FAILED naming the field', async () => {
  const bad = async (body: Record<string, unknown>, field: string) => {
    const res = await adminReq('POST', '/admin/v1/products', { mode: 'test', name: 'x', ...body });
    assert.equal(res.statusCode, 400, res.body);
    assert.ok(res.json().details.fields.some((f: any) => f.field === field), `${field}: ${res.body}`);
  };
  await bad({ type: 'one_time' }, 'pricing.price');
  await bad({ type: 'one_time', pricing: { price: 100, plans: [{ name: 'p', monthlyPrice: 1 }] } }, 'pricing.plans');
  await bad({ type: 'subscription' }, 'pricing.plans');
  await bad({ type: 'subscription', pricing: { price: 100, plans: [{ name: 'p', monthlyPrice: 1 }] } }, 'pricing.price');
  await bad({ type: 'subscription', pricing: { plans: [{ name: 'p' }] } }, 'pricing.plans.0');
  await bad({ type: 'subscription', pricing: { plans: [{ id: 'a', name: 'p', monthlyPrice: 1 }, { id: 'a', name: 'q', monthlyPrice: 2 }] } }, 'pricing.plans.1.id');
  await bad({ type: 'one_time', pricing: { price: 1 }, saleStartsAt: '2027-01-02T00:00:00Z', saleEndsAt: '2027-01-01T00:00:00Z' }, 'saleEndsAt');
  await bad({ type: 'one_time', pricing: { price: -1 } }, 'pricing.price');
  await bad({ type: 'one_time', pricing: { price: 1, currency: 'USD' } }, 'pricing.currency');
  // The names the console used before `pricing` are unknown fields now, refused like any other.
  await bad({ type: 'one_time', price: 1 }, 'price');
  await bad({ type: 'subscription', plans: [{ name: 'p', monthlyPrice: 1 }] }, 'plans');
  await bad({ type: 'one_time', pricing: { price: 1 }, extra: true }, 'extra');
});

test('the console writes prices in the shape /v1/products reads them: a read product\'s pricing is accepted back as is', async () => {
  const created = await adminReq('POST', '/admin/v1/products', { mode: 'test', type: 'one_time', name: '전자책', pricing: { price: 15_000 } });
  assert.equal(created.statusCode, 201, created.body);
  const sub = await createSubscriptionProduct(t, s);
  for (const id of [created.json().id, sub.id]) {
    const read = (await t.app.inject({ url: `/v1/products/${id}`, headers: bearer(s.key) })).json();
    t.clock.advance(1000);
    const back = await adminReq('PATCH', `/admin/v1/products/${id}`, { pricing: read.pricing });
    assert.equal(back.statusCode, 200, back.body);
    assert.deepEqual(back.json().pricing, read.pricing);
  }
  assert.equal(created.json().pricing.price, 15_000);
  // A plan list given replaces the plans; leaving `plans` out keeps them.
  const kept = await adminReq('PATCH', `/admin/v1/products/${sub.id}`, { pricing: { currency: 'KRW' } });
  assert.deepEqual(kept.json().pricing.plans.map((p: any) => p.id), ['basic']);
  // The console's create schema names no field the public Product does not (pricing, refundPolicy, license, …).
  const doc = (await t.app.inject({ url: '/admin/v1/openapi.json' })).json();
  const product = doc.components.schemas.Product.properties;
  for (const name of Object.keys(doc.components.schemas.CreateProductRequest.properties)) assert.ok(product[name], `Product.${name}`);
  const coupon = doc.components.schemas.Coupon.properties;
  for (const name of Object.keys(doc.components.schemas.CreateCouponRequest.properties)) assert.ok(coupon[name], `Coupon.${name}`);
});

test('update, archive and read back in the console; other stores cannot touch the product', async () => {
  const p = await createProduct(t, s);
  t.clock.advance(1000);
  const upd = await adminReq('PATCH', `/admin/v1/products/${p.id}`, { name: '개정판', pricing: { price: 18_000 }, stock: 5, refundPolicy: { refundDays: 10 } });
  assert.equal(upd.statusCode, 200, upd.body);
  assert.equal(upd.json().name, '개정판');
  assert.equal(upd.json().pricing.price, 18_000);
  assert.equal(upd.json().stock, 5);
  assert.equal(upd.json().refundPolicy.refundDays, 10);
  assert.equal(upd.json().refundPolicy.penaltyRate, 10, 'fields left out stay');
  assert.notEqual(upd.json().updatedAt, p.updatedAt);
  assert.equal((await adminReq('PATCH', `/admin/v1/products/${p.id}`, { pricing: { price: null } })).statusCode, 400);
  const arch = await adminReq('POST', `/admin/v1/products/${p.id}/archive`);
  assert.equal(arch.json().status, 'archived');
  assert.equal((await adminReq('GET', `/admin/v1/products/${p.id}`)).json().status, 'archived');
  const other = await createTestStore(t);
  const res = await t.app.inject({ method: 'PATCH', url: `/admin/v1/products/${p.id}`, headers: owner(other), payload: { name: 'x' } });
  assert.equal(res.statusCode, 404);
  assert.equal(res.json().code, 'PRODUCT_NOT_FOUND');
  assert.equal((await t.app.inject({ url: `/admin/v1/products`, headers: { authorization: 'Bearer own_nope' } })).statusCode, 401);
});

test('GET /v1/products: newest first, the key\'s mode only, the key\'s product range only', async () => {
  const store = await createTestStore(t);
  const p1 = await createProduct(t, store, { name: '첫째' });
  t.clock.advance(1000);
  const p2 = await createProduct(t, store, { name: '둘째' });
  await createProduct(t, store, { name: '라이브', mode: 'live' });
  const res = await t.app.inject({ url: '/v1/products', headers: bearer(store.key) });
  assert.equal(res.statusCode, 200);
  assert.deepEqual(res.json().data.map((p: any) => p.id), [p2.id, p1.id]);
  assert.equal(res.json().total, 2);
  const narrow = (await store.newKey({ productIds: [p1.id] })).key;
  assert.deepEqual((await t.app.inject({ url: '/v1/products', headers: bearer(narrow) })).json().data.map((p: any) => p.id), [p1.id]);
  assert.equal((await t.app.inject({ url: `/v1/products/${p2.id}`, headers: bearer(narrow) })).json().code, 'PRODUCT_NOT_FOUND');
  assert.equal((await t.app.inject({ url: `/v1/products/${p1.id}`, headers: bearer(narrow) })).json().name, '첫째');
  const live = (await store.newKey({ mode: 'live' })).key;
  assert.deepEqual((await t.app.inject({ url: '/v1/products', headers: bearer(live) })).json().data.map((p: any) => p.name), ['라이브']);
  assert.equal((await t.app.inject({ url: `/v1/products/${p1.id}`, headers: bearer(live) })).statusCode, 404);
  const noScope = (await store.newKey({ scopes: ['orders:read'] })).key;
  assert.equal((await t.app.inject({ url: '/v1/products', headers: bearer(noScope) })).statusCode, 403);
  const mine = (await t.app.inject({ url: '/admin/v1/products?mode=live', headers: owner(store) })).json();
  assert.deepEqual(mine.data.map((p: any) => p.name), ['라이브']);
});

test('coupons: codes are case-insensitive and unique per store and mode; update and archive', async () => {
  const c = await createCoupon(t, s, { code: 'Spring-5', name: '봄 할인', discountType: 'fixed', discountValue: 500, maxRedemptions: 10 });
  assert.equal(c.code, 'SPRING-5');
  assert.equal(c.redeemedCount, 0);
  assert.equal(c.currency, 'KRW');
  assert.equal(c.productIds, null);
  const dup = await adminReq('POST', '/admin/v1/coupons', { mode: 'test', code: 'spring-5', name: 'x', discountType: 'fixed', discountValue: 1 });
  assert.equal(dup.statusCode, 409);
  assert.equal(dup.json().code, 'COUPON_CODE_TAKEN');
  // the same code in live mode is another coupon
  assert.equal((await adminReq('POST', '/admin/v1/coupons', { mode: 'live', code: 'spring-5', name: 'x', discountType: 'fixed', discountValue: 1 })).statusCode, 201);
  assert.equal((await adminReq('POST', '/admin/v1/coupons', { mode: 'test', code: 'P101', name: 'x', discountType: 'percent', discountValue: 101 })).statusCode, 400);
  const unknownProduct = await adminReq('POST', '/admin/v1/coupons', { mode: 'test', code: 'PX', name: 'x', discountType: 'fixed', discountValue: 1, productIds: ['prod_nope'] });
  assert.equal(unknownProduct.statusCode, 400);
  const upd = await adminReq('PATCH', `/admin/v1/coupons/${c.id}`, { maxRedemptions: null, validUntil: '2027-01-01T00:00:00.000Z' });
  assert.equal(upd.statusCode, 200);
  assert.equal(upd.json().maxRedemptions, null);
  assert.equal(upd.json().validUntil, '2027-01-01T00:00:00.000Z');
  assert.equal((await adminReq('POST', `/admin/v1/coupons/${c.id}/archive`)).json().status, 'archived');
  const listed = (await adminReq('GET', '/admin/v1/coupons?mode=test')).json();
  assert.ok(listed.data.some((x: any) => x.id === c.id && x.status === 'archived'));
  assert.equal((await adminReq('GET', '/admin/v1/coupons/cpn_nope')).json().code, 'COUPON_NOT_FOUND');
});

test('the demo catalog: a one-time e-book, a subscription with monthly and yearly plans, a licensed product and WELCOME10', async () => {
  const store = await createTestStore(t);
  await seedDemoCatalog(t.deps, store.storeId);
  const products = (await t.app.inject({ url: '/v1/products', headers: bearer(store.key) })).json().data;
  assert.equal(products.length, 3);
  assert.ok(products.some((p: any) => p.type === 'one_time' && p.pricing.price === 15_000));
  assert.ok(products.some((p: any) => p.type === 'subscription' && p.pricing.plans[0].monthlyPrice === 9_900 && p.pricing.plans[0].yearlyPrice === 99_000));
  assert.ok(products.some((p: any) => p.license.mode === 'service' && p.license.maxActivations === 3));
  const coupons = (await t.app.inject({ url: '/admin/v1/coupons', headers: owner(store) })).json().data;
  assert.deepEqual(coupons.map((c: any) => [c.code, c.discountType, c.discountValue, c.mode]), [['WELCOME10', 'percent', 10, 'test']]);
});
