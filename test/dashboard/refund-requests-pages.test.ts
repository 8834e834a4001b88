import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore } from '../helpers/app';
import { signIn, postForm } from './helpers';
import { buy, file, product, DAY } from '../refunds/requests/helpers';
import { refundRows } from '../refunds/factory';

async function auditOf(t: { db: any }, storeId: string, action: string) {
  return t.db.selectFrom('audit_log').selectAll().where('store_id', '=', storeId).where('action', '=', action).orderBy('created_at').execute();
}

test('dashboard refund requests: the deadline queue, approve / hold / reject with the service\'s rules and the statutory lock', async (tc) => {
  const t = await createTestApp();
  tc.after(() => t.close());
  const store = await createTestStore(t);
  const c = { t, s: store };

  // Statutory: filed inside the withdrawal window. Non-statutory: a product whose window ended before filing.
  const p = await product(c, { name: '전자책', price: 10_000 });
  const late = await product(c, { name: '강의', price: 20_000, refundPolicy: { refundDays: 7 } });
  const lateOrder = await buy(c, late.id);
  t.clock.advance(20 * DAY);
  const plain = await file(c, lateOrder, { reason: '마음이 바뀌었어요' });
  assert.equal(plain.statutory, false);
  const statOrder = await buy(c, p.id);
  const stat = await file(c, statOrder, { amount: '10000', reason: '중복 구매' });
  assert.equal(stat.statutory, true);
  // Signed in after the clock moved (sessions expire).
  const owner = await signIn(t, { store, name: '김사장' });
  const support = await signIn(t, { store, role: 'support', name: '이지원' });
  const developer = await signIn(t, { store, role: 'developer' });

  await tc.test('the queue lists undecided requests with the statutory deadline first and a countdown', async () => {
    const res = await t.app.inject({ url: '/dashboard/refund-requests', headers: support.headers });
    assert.equal(res.statusCode, 200);
    const a = res.body.indexOf(`data-request-id="${stat.id}"`);
    const b = res.body.indexOf(`data-request-id="${plain.id}"`);
    assert.ok(a > 0 && b > 0 && a < b, 'statutory (with a deadline) before the older non-statutory one');
    assert.match(res.body, /일 \d+시간 남음/);
  });

  await tc.test('a statutory request shows the lock; hold, reject and a smaller approval answer REFUND_STATUTORY_LOCKED\'s message', async () => {
    const page = await t.app.inject({ url: `/dashboard/refund-requests/${stat.id}`, headers: support.headers });
    assert.match(page.body, /data-testid="statutory-lock"/);
    assert.match(page.body, /REFUND_STATUTORY_LOCKED/);
    for (const action of ['hold', 'reject']) {
      const res = await postForm(t, support, `/dashboard/refund-requests/${stat.id}/${action}`, { reason: '확인 필요' });
      assert.equal(res.statusCode, 409, action);
      assert.match(res.body, /법정 청약철회 기간 중인 요청은/);
    }
    const less = await postForm(t, support, `/dashboard/refund-requests/${stat.id}/approve`, { amount: '5000', confirmAmount: 'on' });
    assert.equal(less.statusCode, 409);
    assert.equal((await refundRows(t, statOrder.id)).length, 0);
  });

  await tc.test('hold needs a reason (REFUND_REASON_REQUIRED); a held request keeps its reason; reject is final', async () => {
    const empty = await postForm(t, owner, `/dashboard/refund-requests/${plain.id}/hold`, { reason: '  ' });
    assert.equal(empty.statusCode, 400);
    assert.match(empty.body, /사유/);
    const held = await postForm(t, support, `/dashboard/refund-requests/${plain.id}/hold`, { reason: '사용 기록 확인 중' });
    assert.equal(held.statusCode, 303, held.body);
    const page = await t.app.inject({ url: String(held.headers.location), headers: support.headers });
    assert.match(page.body, /보류했습니다/);
    assert.match(page.body, /사용 기록 확인 중/);
    const entries = await auditOf(t, owner.storeId, 'refund_request.held');
    assert.equal(entries.length, 1);
    assert.equal(entries[0].actor_name, '이지원');
    assert.equal(entries[0].details.reason, '사용 기록 확인 중');
  });

  await tc.test('a developer may not decide (403), and nothing changes', async () => {
    const res = await postForm(t, developer, `/dashboard/refund-requests/${stat.id}/approve`, {});
    assert.equal(res.statusCode, 403);
    const view = await t.app.inject({ url: '/dashboard/refund-requests', headers: developer.headers });
    assert.equal(view.statusCode, 403);
  });

  await tc.test('approve refunds the amount asked, once; a second click answers that it is no longer actionable', async () => {
    const res = await postForm(t, support, `/dashboard/refund-requests/${stat.id}/approve`, { amount: '10000', reason: '' });
    assert.equal(res.statusCode, 303, res.body);
    const rows = await refundRows(t, statOrder.id);
    assert.deepEqual(rows.map((r) => [r.amount, r.status, r.source]), [[10_000, 'succeeded', 'refund_request']]);
    const again = await postForm(t, support, `/dashboard/refund-requests/${stat.id}/approve`, { amount: '10000' });
    assert.equal(again.statusCode, 409);
    assert.equal((await refundRows(t, statOrder.id)).length, 1);
    const entries = await auditOf(t, owner.storeId, 'refund_request.approved');
    assert.equal(entries.length, 1);
    assert.equal(entries[0].actor_name, '이지원');
    assert.equal(entries[0].details.amount, 10_000);
    const page = await t.app.inject({ url: `/dashboard/refund-requests/${stat.id}`, headers: owner.headers });
    assert.match(page.body, /승인됨/);
  });

  await tc.test('a different amount on a non-statutory request needs the confirmation (REFUND_AMOUNT_MISMATCH), then rejection works', async () => {
    const res = await postForm(t, owner, `/dashboard/refund-requests/${plain.id}/approve`, { amount: '1000' });
    assert.equal(res.statusCode, 409);
    assert.match(res.body, /data-testid="problem"/);
    const rejected = await postForm(t, owner, `/dashboard/refund-requests/${plain.id}/reject`, { reason: '수강 완료 후 요청' });
    assert.equal(rejected.statusCode, 303);
    const queue = await t.app.inject({ url: '/dashboard/refund-requests', headers: owner.headers });
    assert.match(queue.body, /처리할 환불 요청이 없습니다/);
    const all = await t.app.inject({ url: '/dashboard/refund-requests?view=all&status=rejected', headers: owner.headers });
    assert.match(all.body, new RegExp(plain.id));
  });
});
