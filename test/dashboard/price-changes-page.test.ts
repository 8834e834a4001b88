import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, bearer } from '../helpers/app';
import { signIn, postForm } from './helpers';
import { createSubscriptionProduct, subscribe } from '../subscriptions/factory';

test('dashboard product page: schedule a plan price change for existing subscribers, see it pending with the tally, withdraw it', async (tc) => {
  const t = await createTestApp();
  tc.after(() => t.close());
  t.clock.set(new Date('2026-11-01T00:00:00Z'));
  const store = await createTestStore(t);
  const admin = await signIn(t, { store, role: 'admin', name: '최관리' });
  const support = await signIn(t, { store, role: 'support' });
  const p = await createSubscriptionProduct(t, store);
  await subscribe(t, store, { productId: p.id });
  await subscribe(t, store, { productId: p.id });
  const url = `/dashboard/products/${p.id}`;

  await tc.test('the product page shows the section with the rule and no changes yet', async () => {
    const res = await t.app.inject({ url, headers: admin.headers });
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /기존 구독자 가격 변경/);
    assert.match(res.body, /30일 전에 알리고 구독자의 동의/);
    assert.match(res.body, /data-testid="no-price-changes"/);
  });

  await tc.test('support may not schedule (403), nothing written', async () => {
    const res = await postForm(t, support, `${url}/price-changes`, { planId: 'basic', monthlyPrice: '12900', effectiveDate: '2026-12-15' });
    assert.equal(res.statusCode, 403);
    assert.equal((await t.app.inject({ url: '/admin/v1/price-changes', headers: bearer(store.ownerToken) })).json().total, 0);
  });

  await tc.test('under 30 days: the Korean rule, what was typed kept', async () => {
    const res = await postForm(t, admin, `${url}/price-changes`, { planId: 'basic', monthlyPrice: '12,900', effectiveDate: '2026-11-25' });
    assert.equal(res.statusCode, 400, res.body);
    assert.match(res.body, /적용일은 지금부터 30일 이상 뒤여야 합니다/);
    assert.match(res.body, /value="12,900"/);
  });

  let changeId = '';
  await tc.test('scheduled: subscribers told, the pending change listed with how many agreed, audited', async () => {
    const res = await postForm(t, admin, `${url}/price-changes`, { planId: 'basic', monthlyPrice: '12,900', yearlyPrice: '', effectiveDate: '2026-12-15' });
    assert.equal(res.statusCode, 303, res.body);
    const list = (await t.app.inject({ url: '/admin/v1/price-changes', headers: bearer(store.ownerToken) })).json();
    assert.equal(list.total, 1);
    changeId = list.data[0].id;
    assert.equal(list.data[0].monthlyPrice, 12_900);
    assert.equal(list.data[0].yearlyPrice, null);
    assert.equal(list.data[0].effectiveAt, '2026-12-14T15:00:00.000Z', 'the chosen day\'s midnight in KST');
    assert.equal(list.data[0].subscribers.notified, 2);
    const page = await t.app.inject({ url: `${url}?done=price_change`, headers: admin.headers });
    assert.match(page.body, /가격 변경을 예약했고 구독자들에게 알렸습니다/);
    assert.match(page.body, new RegExp(`data-price-change-id="${changeId}"`));
    assert.match(page.body, /알림 2 · 동의 0\/2 · 새 가격 갱신 0 · 미동의 종료 0/);
    assert.match(page.body, /예약됨/);
    const audit = await t.db.selectFrom('audit_log').selectAll().where('store_id', '=', store.storeId).where('action', '=', 'price_change.scheduled').execute();
    assert.equal(audit.length, 1);
  });

  await tc.test('a second one for the same plan is refused with the console\'s message', async () => {
    const res = await postForm(t, admin, `${url}/price-changes`, { planId: 'basic', monthlyPrice: '13900', effectiveDate: '2027-01-15' });
    assert.equal(res.statusCode, 409);
    assert.match(res.body, /아직 적용되지 않은 가격 변경 예약이 있습니다/);
  });

  await tc.test('withdrawn from the page', async () => {
    const res = await postForm(t, admin, `${url}/price-changes/${changeId}/cancel`);
    assert.equal(res.statusCode, 303, res.body);
    const c = (await t.app.inject({ url: `/admin/v1/price-changes/${changeId}`, headers: bearer(store.ownerToken) })).json();
    assert.equal(c.status, 'canceled');
    assert.match((await t.app.inject({ url, headers: admin.headers })).body, /취소됨/);
  });
});
