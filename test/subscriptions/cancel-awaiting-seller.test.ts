import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, post, type TestApp, type TestStore } from '../helpers/app';
import { owner } from '../checkout/factory';
import { createSubscriptionProduct, eventsOf, subscribe } from './factory';
import { createMember } from '../../src/dashboard/members';
import { runMailOnce } from '../../src/mail/dispatch';
import { runRefundRemindersOnce } from '../../src/mail/refund-reminder';

/**
 * A buyer's portal cancel whose prorated refund awaits the seller (issue 38 item 5). The figures: a monthly
 * 9,900 buyer paid 2027-03-02 10:00 KST and cancels on day 11 (31-day period): deduction floor(9,900 × 11 / 31) =
 * 3,512, R = 6,388, penalty 638, so 5,750 awaits the seller. The confirmation said "즉시 환불 0원 … 아래 요청이 승인되는
 * 대로 환불됩니다" and listed nothing below; no refund_request.created event and no "환불 요청 접수" mail were written; the
 * request had no deadline and stayed `requested` past the period end.
 */

let t: TestApp;
let s: TestStore;

before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
  await createMember(t.deps, { storeId: s.storeId, email: 'owner-reminded@example.com', name: '대표', role: 'owner', password: 'correct-horse-battery' }, { kind: 'operator', id: null, name: null });
});
after(async () => {
  await t.close();
});

const kst = (v: string) => new Date(`${v}+09:00`);
const advance = async (id: string, days: number, hours = 0) => {
  const r = await t.app.inject({ method: 'POST', url: `/admin/v1/subscriptions/${id}/test-clock/advance`, headers: owner(s), payload: { days, hours } });
  assert.equal(r.statusCode, 200, r.body);
  return r.json();
};
const text = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');

test('a portal cancel awaiting the seller names every part with its date, writes the request\'s event and mail, reminds the owners a day before the deadline, and is approved automatically at it', async () => {
  t.clock.set(kst('2027-03-02T10:00:00'));
  const p = await createSubscriptionProduct(t, s, { name: '클라우드 백업' });
  const sub = await subscribe(t, s, { productId: p.id, buyerEmail: 'waits@example.com' });
  await advance(sub.subscriptionId, 10);
  const portal = await t.app.inject({ method: 'POST', url: '/v1/portal-sessions', headers: post(s.key), payload: { subscriptionId: sub.subscriptionId } });
  const path = new URL(portal.json().url).pathname;
  const csrf = /name="csrf" value="([A-Za-z0-9]+)"/.exec((await t.app.inject({ url: path })).body)![1];
  const res = await t.app.inject({
    method: 'POST',
    url: `${path}/subscriptions/${sub.subscriptionId}/cancel`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ timing: 'immediate', csrf }).toString(),
  });
  assert.equal(res.statusCode, 200, res.body);

  // The confirmation: refunded now (0), and the 5,750 awaiting the seller with the seller's deadline and its outcome.
  const page = text(res.body);
  assert.match(page, /즉시 환불 0원/, page);
  assert.match(page, /판매자 확인 후 환불 5,750원/, page);
  assert.match(page, /판매자가 2027년 3월 19일 오후 12:00까지 결정합니다\. 승인되거나 그때까지 결정하지 않으면 자동으로 승인되어/);
  assert.match(page, /거절되면 환불 없이 2027년 4월 2일까지 이용할 수 있습니다/);

  const [request] = await t.db.selectFrom('refund_requests').selectAll().where('subscription_id', '=', sub.subscriptionId).execute();
  assert.equal(Number(request.amount), 5_750);
  assert.equal(request.statutory, false);
  assert.equal(request.auto_approve_at!.toISOString(), kst('2027-03-19T12:00:00').toISOString(), '12:00 KST on the 5th business day after Friday 3-12');
  // The event, in the cancel's transaction (same service time as the cancel's own subscription.updated).
  const created = (await eventsOf(t, 'refund_request.created')).filter((e) => e.id === request.id);
  assert.equal(created.length, 1);
  assert.equal(created[0].autoApproveAt, request.auto_approve_at!.toISOString());
  assert.equal(created[0].source, 'subscription_cancel');
  // The buyer's "환불 요청 접수" mail, with the deadline and what follows it.
  await runMailOnce(t.deps, t.clock.now());
  const mails = (await t.db.selectFrom('mail_outbox').selectAll().where('kind', '=', 'refund_request_received').execute()).filter((m) => (m.data as any).id === request.id);
  assert.equal(mails.length, 1);
  const m = mails[0].text_body!;
  assert.match(m, /요청 금액: 5,750원/, m);
  assert.match(m, /판매자 결정 기한: 2027년 3월 19일 오후 12:00 KST/);
  assert.match(m, /그때까지 결정하지 않으면 요청이 자동으로 승인되어 환불됩니다/);
  assert.match(m, /거절되면 환불 없이 2027년 4월 2일 오전 10:00 KST까지 이용한 뒤 종료됩니다/);

  // The owners' reminder: not 26 hours before the deadline, once within the day before it.
  await advance(sub.subscriptionId, 6); // 2027-03-18 10:00 KST, 26 hours before
  assert.equal(await runRefundRemindersOnce(t.deps, t.clock.now()), 0, 'not yet');
  await advance(sub.subscriptionId, 0, 12); // 2027-03-18 22:00 KST
  assert.equal(await runRefundRemindersOnce(t.deps, t.clock.now()), 1);
  assert.equal(await runRefundRemindersOnce(t.deps, t.clock.now()), 0, 'once');
  await runMailOnce(t.deps, t.clock.now());
  const reminders = await t.db.selectFrom('mail_outbox').selectAll().where('kind', '=', 'seller_refund_reminder').execute();
  assert.deepEqual(reminders.map((r) => r.recipient), ['owner-reminded@example.com']);
  assert.match(reminders[0].subject!, /환불 요청 결정 기한이 다가옵니다 \(2027년 3월 19일 오후 12:00\)/);
  assert.match(reminders[0].text_body!, /기한까지 승인·거절하지 않으면 자동으로 승인되어 환불되고 구독이 종료됩니다/);
  assert.equal((await t.db.selectFrom('refund_requests').select('status').where('id', '=', request.id).executeTakeFirstOrThrow()).status, 'requested');

  // At the deadline: approved automatically, 5,750 refunded, the subscription ended; never `requested` past it.
  const r = await advance(sub.subscriptionId, 1); // 2027-03-19 22:00 KST
  const after = await t.db.selectFrom('refund_requests').selectAll().where('id', '=', request.id).executeTakeFirstOrThrow();
  assert.equal(after.status, 'approved');
  assert.equal(after.decided_by, 'auto');
  const order = await t.db.selectFrom('orders').select('refunded_amount').where('id', '=', sub.orderId).executeTakeFirstOrThrow();
  assert.equal(Number(order.refunded_amount), 5_750);
  assert.equal(r.subscription.status, 'ended');
});
