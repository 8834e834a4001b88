import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestStore, bearer, type TestApp, type TestStore } from '../helpers/app';
import { DAY, MINUTE } from '../../src/platform/clock';
import { createLicenseTestApp, createProduct, licenseOf, licensed, nonce, paidOrder } from './factory';

let t: TestApp;
let s: TestStore;
before(async () => {
  t = await createLicenseTestApp();
  s = await createTestStore(t);
});
after(async () => {
  await t.close();
});

const app = (path: 'activate' | 'deactivate' | 'verify', body: Record<string, unknown>) => t.app.inject({ method: 'POST', url: `/v1/licenses/${path}`, payload: body });
const owner = (st: TestStore) => ({ authorization: `Bearer ${st.ownerToken}` });

const LICENSE_FIELDS = [
  'id', 'mode', 'key', 'productId', 'productName', 'orderId', 'orderItemId', 'buyerEmail', 'buyerName', 'status', 'maxActivations',
  'activationCount', 'issuedAt', 'expiresAt', 'revokedAt', 'revokeReason', 'rotatedFrom', 'activations',
];

test('GET /v1/licenses/{id} returns every field of the contract, with its activations', async () => {
  const productId = await createProduct(t, s.storeId, { name: '사진 편집기 Pro', maxActivations: 3, validityDays: 30 });
  const orderId = await paidOrder(t, s.storeId, productId, { buyerEmail: 'park@example.com', buyerName: '박민수' });
  const lic = await licenseOf(t, orderId);
  const issuedAt = t.clock.now().toISOString();
  const a1 = (await app('activate', { key: lic.key, productId, nonce: nonce(), label: '노트북' })).json().activation;
  t.clock.advance(MINUTE);
  await app('activate', { key: lic.key, productId, nonce: nonce() });
  await app('deactivate', { key: lic.key, productId, nonce: nonce(), activationId: a1.id });

  const res = await t.app.inject({ url: `/v1/licenses/${lic.id}`, headers: bearer(s.key) });
  assert.equal(res.statusCode, 200);
  const body = res.json();
  assert.deepEqual(Object.keys(body), LICENSE_FIELDS);
  assert.deepEqual({ ...body, activations: undefined }, {
    id: lic.id,
    mode: 'test',
    key: lic.key,
    productId,
    productName: '사진 편집기 Pro',
    orderId,
    orderItemId: null,
    buyerEmail: 'park@example.com',
    buyerName: '박민수',
    status: 'active',
    maxActivations: 3,
    activationCount: 1,
    issuedAt,
    expiresAt: new Date(new Date(issuedAt).getTime() + 30 * DAY).toISOString(),
    revokedAt: null,
    revokeReason: null,
    rotatedFrom: null,
    activations: undefined,
  });
  assert.equal(body.activations.length, 2);
  assert.deepEqual(Object.keys(body.activations[0]), ['id', 'label', 'activatedAt', 'lastVerifiedAt', 'deactivatedAt']);
  assert.deepEqual(body.activations[0], { id: a1.id, label: '노트북', activatedAt: issuedAt, lastVerifiedAt: null, deactivatedAt: t.clock.now().toISOString() });
  assert.equal(body.activations[1].deactivatedAt, null);

  // status is evaluated at read time
  t.clock.advance(30 * DAY);
  assert.equal((await t.app.inject({ url: `/v1/licenses/${lic.id}`, headers: bearer(s.key) })).json().status, 'expired');
});

test('GET /v1/licenses lists newest first with page/limit, filters, and rejects sort/order', async () => {
  const st = await createTestStore(t);
  const productId = await createProduct(t, st.storeId);
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    t.clock.advance(1000);
    ids.push((await licenseOf(t, await paidOrder(t, st.storeId, productId))).id);
  }
  const p1 = (await t.app.inject({ url: '/v1/licenses?limit=2', headers: bearer(st.key) })).json();
  assert.deepEqual([p1.total, p1.page, p1.limit], [5, 1, 2]);
  assert.deepEqual(p1.data.map((l: any) => l.id), [ids[4], ids[3]]);
  assert.deepEqual(Object.keys(p1.data[0]), LICENSE_FIELDS);
  const p3 = (await t.app.inject({ url: '/v1/licenses?limit=2&page=3', headers: bearer(st.key) })).json();
  assert.deepEqual(p3.data.map((l: any) => l.id), [ids[0]]);

  const other = await createProduct(t, st.storeId);
  const otherOrder = await paidOrder(t, st.storeId, other);
  const byProduct = (await t.app.inject({ url: `/v1/licenses?productId=${other}`, headers: bearer(st.key) })).json();
  assert.deepEqual(byProduct.data.map((l: any) => l.orderId), [otherOrder]);
  const byOrder = (await t.app.inject({ url: `/v1/licenses?orderId=${otherOrder}`, headers: bearer(st.key) })).json();
  assert.equal(byOrder.total, 1);

  for (const q of ['sort=issuedAt', 'order=desc', 'limit=101', 'page=0']) {
    const r = await t.app.inject({ url: `/v1/licenses?${q}`, headers: bearer(st.key) });
    assert.equal(r.statusCode, 400, q);
    assert.equal(r.json().code, 'VALIDATION_FAILED');
  }
});

test('live and test are separate, stores are separate, and a product-restricted key sees only its products', async () => {
  const st = await createTestStore(t);
  const testProduct = await createProduct(t, st.storeId);
  const liveProduct = await createProduct(t, st.storeId, { mode: 'live' });
  const testLic = await licenseOf(t, await paidOrder(t, st.storeId, testProduct));
  const liveLic = await licenseOf(t, await paidOrder(t, st.storeId, liveProduct));

  const live = await st.newKey({ mode: 'live', scopes: ['licenses:read'] });
  const liveList = (await t.app.inject({ url: '/v1/licenses', headers: bearer(live.key) })).json();
  assert.deepEqual(liveList.data.map((l: any) => l.id), [liveLic.id]);
  assert.equal(liveList.data[0].mode, 'live');
  assert.equal((await t.app.inject({ url: `/v1/licenses/${testLic.id}`, headers: bearer(live.key) })).json().code, 'LICENSE_NOT_FOUND');

  // another store's key
  assert.equal((await t.app.inject({ url: `/v1/licenses/${testLic.id}`, headers: bearer(s.key) })).statusCode, 404);

  const other = await createProduct(t, st.storeId);
  const otherLic = await licenseOf(t, await paidOrder(t, st.storeId, other));
  const restricted = await st.newKey({ productIds: [testProduct], scopes: ['licenses:read'] });
  const list = (await t.app.inject({ url: '/v1/licenses', headers: bearer(restricted.key) })).json();
  assert.deepEqual(list.data.map((l: any) => l.id), [testLic.id]);
  assert.equal(list.total, 1);
  const outside = await t.app.inject({ url: `/v1/licenses/${otherLic.id}`, headers: bearer(restricted.key) });
  assert.equal(outside.statusCode, 404);
  assert.equal(outside.json().code, 'LICENSE_NOT_FOUND');
  assert.equal((await t.app.inject({ url: `/v1/licenses?productId=${other}`, headers: bearer(restricted.key) })).json().total, 0);
});

test('server reads need licenses:read', async () => {
  const { licenseId } = await licensed(t, s.storeId);
  const k = await s.newKey({ scopes: ['orders:read'] });
  for (const url of ['/v1/licenses', `/v1/licenses/${licenseId}`]) {
    const r = await t.app.inject({ url, headers: bearer(k.key) });
    assert.equal(r.statusCode, 403);
    assert.deepEqual(r.json().details, { required: ['licenses:read'] });
    assert.equal((await t.app.inject({ url })).statusCode, 401);
  }
});

test('revoke from the console: the app API answers revoked from then on; revoking twice is 409 LICENSE_NOT_ACTIVE', async () => {
  const { key, productId, licenseId } = await licensed(t, s.storeId);
  const r = await t.app.inject({ method: 'POST', url: `/admin/v1/licenses/${licenseId}/revoke`, headers: owner(s), payload: { reason: '환불' } });
  assert.equal(r.statusCode, 200);
  assert.deepEqual([r.json().status, r.json().revokeReason, r.json().revokedAt], ['revoked', '환불', t.clock.now().toISOString()]);
  assert.equal((await app('verify', { key, productId, nonce: nonce() })).json().status, 'revoked');
  const again = await t.app.inject({ method: 'POST', url: `/admin/v1/licenses/${licenseId}/revoke`, headers: owner(s), payload: {} });
  assert.equal(again.statusCode, 409);
  assert.equal(again.json().code, 'LICENSE_NOT_ACTIVE');
  // another store's owner cannot touch it
  const st = await createTestStore(t);
  assert.equal((await t.app.inject({ method: 'POST', url: `/admin/v1/licenses/${licenseId}/reissue`, headers: owner(st), payload: {} })).statusCode, 404);
});

test('re-issue rotates the key: a new license with rotatedFrom, the old one revoked, the old key answers revoked', async () => {
  const { key, productId, licenseId, orderId } = await licensed(t, s.storeId, { maxActivations: 4, validityDays: 10 });
  await app('activate', { key, productId, nonce: nonce() });
  const old = (await t.app.inject({ url: `/v1/licenses/${licenseId}`, headers: bearer(s.key) })).json();
  t.clock.advance(MINUTE);
  const r = await t.app.inject({ method: 'POST', url: `/admin/v1/licenses/${licenseId}/reissue`, headers: owner(s), payload: {} });
  assert.equal(r.statusCode, 201);
  const fresh = r.json();
  assert.equal(fresh.rotatedFrom, licenseId);
  assert.notEqual(fresh.id, licenseId);
  assert.notEqual(fresh.key, key);
  assert.deepEqual(
    [fresh.status, fresh.orderId, fresh.maxActivations, fresh.expiresAt, fresh.activationCount, fresh.issuedAt],
    ['active', orderId, 4, old.expiresAt, 0, t.clock.now().toISOString()],
  );

  const oldNow = (await t.app.inject({ url: `/v1/licenses/${licenseId}`, headers: bearer(s.key) })).json();
  assert.deepEqual([oldNow.status, oldNow.revokeReason], ['revoked', 'reissued']);
  assert.equal((await app('verify', { key, productId, nonce: nonce() })).json().status, 'revoked');
  assert.equal((await app('verify', { key: fresh.key, productId, nonce: nonce() })).json().status, 'active');

  // the list shows both, the new one first
  const list = (await t.app.inject({ url: `/v1/licenses?orderId=${orderId}`, headers: bearer(s.key) })).json();
  assert.deepEqual(list.data.map((l: any) => l.id), [fresh.id, licenseId]);
  // a revoked license cannot be re-issued
  const again = await t.app.inject({ method: 'POST', url: `/admin/v1/licenses/${licenseId}/reissue`, headers: owner(s), payload: {} });
  assert.equal(again.json().code, 'LICENSE_NOT_ACTIVE');
});

test('the console lists the store\'s licenses of both modes, or one mode', async () => {
  const st = await createTestStore(t);
  const tp = await createProduct(t, st.storeId);
  const lp = await createProduct(t, st.storeId, { mode: 'live' });
  await paidOrder(t, st.storeId, tp);
  t.clock.advance(1000);
  await paidOrder(t, st.storeId, lp);
  const all = (await t.app.inject({ url: '/admin/v1/licenses', headers: owner(st) })).json();
  assert.deepEqual(all.data.map((l: any) => l.mode), ['live', 'test']);
  assert.equal(all.data[0].issuer, 'service');
  assert.deepEqual(all.data[0].issueAttempts, []);
  const live = (await t.app.inject({ url: '/admin/v1/licenses?mode=live', headers: owner(st) })).json();
  assert.deepEqual([live.total, live.data[0].mode], [1, 'live']);
  assert.equal((await t.app.inject({ url: '/admin/v1/licenses' })).statusCode, 401);
});
