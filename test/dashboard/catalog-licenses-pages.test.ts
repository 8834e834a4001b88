import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, bearer } from '../helpers/app';
import { signIn, postForm } from './helpers';
import { insertPaidOrder } from '../refunds/factory';

async function auditOf(t: { db: any }, storeId: string, action: string) {
  return t.db.selectFrom('audit_log').selectAll().where('store_id', '=', storeId).where('action', '=', action).orderBy('created_at').execute();
}

test('dashboard products and coupons: create, edit, archive through the catalog service, with the API\'s validation', async (tc) => {
  const t = await createTestApp();
  tc.after(() => t.close());
  const store = await createTestStore(t);
  const admin = await signIn(t, { store, role: 'admin', name: '최관리' });
  const support = await signIn(t, { store, role: 'support' });
  let productId = '';

  await tc.test('support may not manage products (403)', async () => {
    assert.equal((await t.app.inject({ url: '/dashboard/products', headers: support.headers })).statusCode, 403);
    const res = await postForm(t, support, '/dashboard/products', { type: 'one_time', name: '몰래', price: '1000' });
    assert.equal(res.statusCode, 403);
    assert.equal((await t.app.inject({ url: '/admin/v1/products', headers: bearer(store.ownerToken) })).json().total, 0);
  });

  await tc.test('a subscription product needs a plan: the service\'s Korean field message, what was typed kept', async () => {
    const res = await postForm(t, admin, '/dashboard/products', { type: 'subscription', name: '멤버십' });
    assert.equal(res.statusCode, 400);
    assert.match(res.body, /구독 상품에는 요금제가 하나 이상 필요합니다/);
    assert.match(res.body, /value="멤버십"/);
    const penalty = await postForm(t, admin, '/dashboard/products', { type: 'one_time', name: '전자책', price: '1000', penaltyRate: '50' });
    assert.equal(penalty.statusCode, 400, 'the console schema\'s maximum of 10 applies here too');
    assert.match(penalty.body, /refundPolicy\.penaltyRate/);
  });

  await tc.test('create a subscription product with plans, refund policy and license settings; it reads back the same over the API', async () => {
    const res = await postForm(t, admin, '/dashboard/products', {
      type: 'subscription', name: '프로 멤버십', description: '매월 새 강의',
      plan0_id: 'pro', plan0_name: '프로', plan0_monthly: '19,900', plan0_yearly: '199,000',
      plan1_name: '라이트', plan1_monthly: '9900', plan1_yearly: '', plan1_trial: '14',
      refundDays: '14', penaltyRate: '5', trialOffered: 'on', licenseMode: 'service', maxActivations: '3', stock: '',
    });
    assert.equal(res.statusCode, 303, res.body);
    productId = decodeURIComponent(/\/dashboard\/products\/([^?]+)/.exec(String(res.headers.location))![1]);
    const p = (await t.app.inject({ url: `/admin/v1/products/${productId}`, headers: bearer(store.ownerToken) })).json();
    assert.equal(p.mode, 'test');
    assert.equal(p.name, '프로 멤버십');
    assert.deepEqual(p.pricing.plans.map((pl: any) => [pl.name, pl.monthlyPrice, pl.yearlyPrice, pl.trialDays]), [['프로', 19_900, 199_000, null], ['라이트', 9_900, null, 14]]);
    assert.equal(p.pricing.plans[0].id, 'pro');
    assert.deepEqual(p.refundPolicy, { refundDays: 14, trialOffered: true, usageRestrictionMarked: false, clawbackDisclosed: false, penaltyRate: 5 });
    assert.deepEqual(p.license, { mode: 'service', maxActivations: 3, validityDays: null });
    const entries = await auditOf(t, store.storeId, 'product.created');
    assert.equal(entries.length, 1);
    assert.equal(entries[0].actor_name, '최관리');
  });

  await tc.test('edit keeps plan ids, archive stops sales; both audited', async () => {
    const form = await t.app.inject({ url: `/dashboard/products/${productId}`, headers: admin.headers });
    assert.equal(form.statusCode, 200);
    // Editing says that what was sold keeps its terms (issue 19: a product edit never changes existing buyers' refunds).
    assert.match(form.body, /id="future-sales-only">변경 내용은 이후 판매에만 적용됩니다/);
    const liteId = /name="plan1_id" value="([^"]+)"/.exec(form.body)![1];
    assert.match(form.body, /name="plan1_trial" value="14"/, 'the free trial reads back into the form');
    const res = await postForm(t, admin, `/dashboard/products/${productId}`, {
      name: '프로 멤버십 2', plan0_id: 'pro', plan0_name: '프로', plan0_monthly: '24900', plan0_yearly: '249000', plan1_id: liteId, plan1_name: '라이트', plan1_monthly: '9900',
      refundDays: '14', penaltyRate: '5', licenseMode: 'service', maxActivations: '3',
    });
    assert.equal(res.statusCode, 303, res.body);
    const p = (await t.app.inject({ url: `/admin/v1/products/${productId}`, headers: bearer(store.ownerToken) })).json();
    assert.equal(p.name, '프로 멤버십 2');
    assert.deepEqual(p.pricing.plans.map((pl: any) => [pl.id, pl.monthlyPrice]), [['pro', 24_900], [liteId, 9_900]]);
    const archived = await postForm(t, admin, `/dashboard/products/${productId}/archive`);
    assert.equal(archived.statusCode, 303);
    assert.equal((await t.app.inject({ url: `/admin/v1/products/${productId}`, headers: bearer(store.ownerToken) })).json().status, 'archived');
    assert.equal((await auditOf(t, store.storeId, 'product.updated')).length, 1);
    assert.equal((await auditOf(t, store.storeId, 'product.archived')).length, 1);
  });

  await tc.test('coupons: create (a taken code answers COUPON_CODE_TAKEN\'s message), edit, archive', async () => {
    const res = await postForm(t, admin, '/dashboard/coupons', { code: 'welcome10', name: '웰컴', discountType: 'percent', discountValue: '10', maxRedemptions: '100' });
    assert.equal(res.statusCode, 303, res.body);
    const id = decodeURIComponent(/\/dashboard\/coupons\/([^?]+)/.exec(String(res.headers.location))![1]);
    const taken = await postForm(t, admin, '/dashboard/coupons', { code: 'WELCOME10', name: '또', discountType: 'fixed', discountValue: '1000' });
    assert.equal(taken.statusCode, 409);
    const pct = await postForm(t, admin, '/dashboard/coupons', { code: 'BIG', name: '과한 할인', discountType: 'percent', discountValue: '150' });
    assert.equal(pct.statusCode, 400);
    assert.match(pct.body, /정률 할인은 1~100/);
    const edit = await postForm(t, admin, `/dashboard/coupons/${id}`, { name: '웰컴 쿠폰', maxRedemptions: '' });
    assert.equal(edit.statusCode, 303, edit.body);
    const c = (await t.app.inject({ url: `/admin/v1/coupons/${id}`, headers: bearer(store.ownerToken) })).json();
    assert.equal(c.code, 'WELCOME10');
    assert.equal(c.name, '웰컴 쿠폰');
    assert.equal(c.maxRedemptions, null);
    assert.equal((await postForm(t, admin, `/dashboard/coupons/${id}/archive`)).statusCode, 303);
    assert.equal((await t.app.inject({ url: `/admin/v1/coupons/${id}`, headers: bearer(store.ownerToken) })).json().status, 'archived');
    assert.deepEqual((await auditOf(t, store.storeId, 'coupon.created')).length, 1);
  });
});

test('dashboard licenses: search by key, e-mail or order; revoke and re-issue, audited; developer refused', async (tc) => {
  const t = await createTestApp();
  tc.after(() => t.close());
  const store = await createTestStore(t);
  const support = await signIn(t, { store, role: 'support', name: '이지원' });
  const developer = await signIn(t, { store, role: 'developer' });
  const made = await t.app.inject({
    method: 'POST', url: '/admin/v1/products', headers: bearer(store.ownerToken),
    payload: { mode: 'test', type: 'one_time', name: '앱', pricing: { price: 5000 }, license: { mode: 'service', maxActivations: 2 } },
  });
  const productId = made.json().id;
  const orderId = await insertPaidOrder(t, store.storeId, productId, { amount: 5000, licenses: true });
  const other = await insertPaidOrder(t, store.storeId, productId, { amount: 5000, licenses: true });
  const lic = (await t.app.inject({ url: `/admin/v1/licenses?orderId=${orderId}`, headers: bearer(store.ownerToken) })).json().data[0];

  await tc.test('a key (any case), an order id and an e-mail each find the license; the other order\'s stays out', async () => {
    for (const q of [lic.key.toLowerCase(), orderId]) {
      const res = await t.app.inject({ url: `/dashboard/licenses?q=${encodeURIComponent(q)}`, headers: support.headers });
      assert.equal(res.statusCode, 200);
      assert.match(res.body, new RegExp(lic.id), q);
      assert.equal((res.body.match(/href="\/dashboard\/licenses\/lic_/g) ?? []).length, 1, q);
    }
    const byMail = await t.app.inject({ url: '/dashboard/licenses?q=BUYER%40example.com', headers: support.headers });
    assert.equal((byMail.body.match(/href="\/dashboard\/licenses\/lic_/g) ?? []).length, 2);
    const api = await t.app.inject({ url: `/admin/v1/licenses?key=${encodeURIComponent(lic.key)}`, headers: bearer(store.ownerToken) });
    assert.deepEqual(api.json().data.map((l: any) => l.id), [lic.id]);
    assert.ok(other);
  });

  await tc.test('developer: 403', async () => {
    assert.equal((await t.app.inject({ url: '/dashboard/licenses', headers: developer.headers })).statusCode, 403);
    assert.equal((await postForm(t, developer, `/dashboard/licenses/${lic.id}/revoke`, {})).statusCode, 403);
  });

  await tc.test('re-issue makes a new key and revokes the old; revoking a revoked one answers LICENSE_NOT_ACTIVE\'s message', async () => {
    const res = await postForm(t, support, `/dashboard/licenses/${lic.id}/reissue`, { reason: '키 유출' });
    assert.equal(res.statusCode, 303, res.body);
    const newId = decodeURIComponent(/\/dashboard\/licenses\/([^?]+)/.exec(String(res.headers.location))![1]);
    assert.notEqual(newId, lic.id);
    const old = (await t.app.inject({ url: `/admin/v1/licenses/${lic.id}`, headers: bearer(store.ownerToken) })).json();
    assert.equal(old.status, 'revoked');
    assert.equal(old.revokeReason, '키 유출');
    const page = await t.app.inject({ url: String(res.headers.location), headers: support.headers });
    assert.match(page.body, /새 키로 재발급했습니다/);
    const again = await postForm(t, support, `/dashboard/licenses/${lic.id}/revoke`, {});
    assert.equal(again.statusCode, 409);
    assert.match(again.body, /이미 폐기된 라이선스입니다/);
    const revoked = await postForm(t, support, `/dashboard/licenses/${newId}/revoke`, { reason: '환불' });
    assert.equal(revoked.statusCode, 303);
    const entries = await auditOf(t, store.storeId, 'license.reissued');
    assert.equal(entries.length, 1);
    assert.equal(entries[0].details.newLicenseId, newId);
    assert.equal(entries[0].actor_name, '이지원');
    assert.equal((await auditOf(t, store.storeId, 'license.revoked')).length, 1);
  });
});
