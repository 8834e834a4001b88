import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, bearer } from '../helpers/app';
import { signIn, postForm } from './helpers';
import { createSubscriptionProduct, subscribe, getSubscription } from '../subscriptions/factory';
import { refundRows } from '../refunds/factory';

async function auditOf(t: { db: any }, storeId: string, action: string) {
  return t.db.selectFrom('audit_log').selectAll().where('store_id', '=', storeId).where('action', '=', action).orderBy('created_at').execute();
}

test('dashboard subscriptions: cancel preview, cancel at period end or now, the test clock, roles and audit', async (tc) => {
  const t = await createTestApp();
  tc.after(() => t.close());
  const store = await createTestStore(t);
  const owner = await signIn(t, { store, name: '김사장' });
  const support = await signIn(t, { store, role: 'support', name: '이지원' });
  const developer = await signIn(t, { store, role: 'developer', name: '박개발' });
  const product = await createSubscriptionProduct(t, store);
  const a = await subscribe(t, store, { productId: product.id, buyerEmail: 'a@example.com' });
  const b = await subscribe(t, store, { productId: product.id, buyerEmail: 'b@example.com' });

  await tc.test('the list filters by buyer e-mail; the detail shows both cancel options with the amounts of the preview', async () => {
    const list = await t.app.inject({ url: '/dashboard/subscriptions?email=a%40example.com', headers: support.headers });
    assert.equal(list.statusCode, 200);
    assert.match(list.body, new RegExp(a.subscriptionId));
    assert.doesNotMatch(list.body, new RegExp(b.subscriptionId));
    const preview = (await t.app.inject({ url: `/v1/subscriptions/${a.subscriptionId}/cancel-preview`, headers: bearer(store.key) })).json();
    const page = await t.app.inject({ url: `/dashboard/subscriptions/${a.subscriptionId}`, headers: support.headers });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /기간 종료 시 해지/);
    assert.match(page.body, new RegExp(`data-testid="immediate-refund">${preview.immediate.refundAmount.toLocaleString('ko-KR')}원<`));
    assert.match(page.body, /data-testid="test-clock"/);
  });

  await tc.test('a developer sees test subscriptions and may move the test clock, but may not cancel', async () => {
    const page = await t.app.inject({ url: `/dashboard/subscriptions/${b.subscriptionId}`, headers: developer.headers });
    assert.equal(page.statusCode, 200);
    assert.doesNotMatch(page.body, /지금 해지하고 환불<\/button>/);
    const cancel = await postForm(t, developer, `/dashboard/subscriptions/${b.subscriptionId}/cancel`, { timing: 'immediate' });
    assert.equal(cancel.statusCode, 403);
    assert.equal((await getSubscription(t, store.key, b.subscriptionId)).status, 'active');
  });

  await tc.test('the test clock moves a month and the renewal runs (a new paid order), audited', async () => {
    const before = await t.db.selectFrom('orders').select('id').where('subscription_id', '=', b.subscriptionId).execute();
    const res = await postForm(t, developer, `/dashboard/subscriptions/${b.subscriptionId}/test-clock`, { days: '32', hours: '0' });
    assert.equal(res.statusCode, 303, res.body);
    const after = await t.db.selectFrom('orders').select(['id', 'subscription_event']).where('subscription_id', '=', b.subscriptionId).execute();
    assert.equal(after.length, before.length + 1);
    assert.ok(after.some((o) => o.subscription_event === 'renewal'));
    const page = await t.app.inject({ url: String(res.headers.location), headers: developer.headers });
    assert.match(page.body, /테스트 시계를 앞으로 옮기고/);
    const entries = await auditOf(t, store.storeId, 'subscription.test_clock_advanced');
    assert.equal(entries.length, 1);
    assert.equal(entries[0].actor_name, '박개발');
    const bad = await postForm(t, developer, `/dashboard/subscriptions/${b.subscriptionId}/test-clock`, { days: '0', hours: '0' });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /3,660일 이하/);
  });

  await tc.test('cancel at period end schedules it; a second time answers ALREADY_CANCELED\'s message', async () => {
    const res = await postForm(t, support, `/dashboard/subscriptions/${a.subscriptionId}/cancel`, { timing: 'period_end' });
    assert.equal(res.statusCode, 303, res.body);
    assert.equal((await getSubscription(t, store.key, a.subscriptionId)).cancelAtPeriodEnd, true);
    const again = await postForm(t, support, `/dashboard/subscriptions/${a.subscriptionId}/cancel`, { timing: 'period_end' });
    assert.equal(again.statusCode, 409);
    assert.match(again.body, /data-testid="problem"/);
    assert.equal((await auditOf(t, store.storeId, 'subscription.cancel_scheduled')).length, 1);
  });

  await tc.test('cancel now ends it and refunds what the preview showed, audited with the amount', async () => {
    const preview = (await t.app.inject({ url: `/v1/subscriptions/${a.subscriptionId}/cancel-preview`, headers: bearer(store.key) })).json();
    const res = await postForm(t, owner, `/dashboard/subscriptions/${a.subscriptionId}/cancel`, { timing: 'immediate', reason: '고객 요청' });
    assert.equal(res.statusCode, 303, res.body);
    const sub = await getSubscription(t, store.key, a.subscriptionId);
    assert.equal(sub.status, 'ended');
    const refunded = (await refundRows(t, a.orderId)).filter((r) => r.status === 'succeeded').reduce((s, r) => s + r.amount, 0);
    assert.equal(refunded, preview.immediate.refundAmount);
    const entries = await auditOf(t, store.storeId, 'subscription.canceled');
    assert.equal(entries.length, 1);
    assert.equal(entries[0].details.refundAmount, preview.immediate.refundAmount);
    assert.equal(entries[0].actor_name, '김사장');
    const ended = await postForm(t, owner, `/dashboard/subscriptions/${a.subscriptionId}/cancel`, { timing: 'immediate' });
    assert.equal(ended.statusCode, 409);
  });

  await tc.test('live mode shows no test subscriptions, and a developer cannot reach live data at all', async () => {
    const sw = await postForm(t, owner, '/dashboard/mode', { mode: 'live' });
    assert.equal(sw.statusCode, 303);
    const page = await t.app.inject({ url: `/dashboard/subscriptions/${b.subscriptionId}`, headers: owner.headers });
    assert.equal(page.statusCode, 404);
    await postForm(t, owner, '/dashboard/mode', { mode: 'test' });
  });
});
