import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, post, type TestApp, type TestStore } from '../helpers/app';
import { owner } from '../checkout/factory';
import { createSubscriptionProduct, eventsOf, subscribe } from './factory';
import { runMailOnce } from '../../src/mail/dispatch';

/**
 * A price increase's notice offers declining as plainly as agreeing, and the reminder near a yearly buyer's own date is
 * written when a test clock passes 30 days before it (issue 38 item 9: only an "agree" button, declining was doing
 * nothing; the yearly reminder did not run when the test clock passed 30 days before the renewal).
 */

let t: TestApp;
let s: TestStore;

before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
});
after(async () => {
  await t.close();
});

const DAY = 86_400_000;
const inDays = (days: number) => new Date(t.clock.now().getTime() + days * DAY).toISOString();
const schedule = (productId: string, body: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: `/admin/v1/products/${productId}/plans/basic/price-changes`, headers: owner(s), payload: body });
const advance = (id: string, days: number) => t.app.inject({ method: 'POST', url: `/admin/v1/subscriptions/${id}/test-clock/advance`, headers: owner(s), payload: { days } });
const changesOf = async (subscriptionId: string, kind: string) => (await eventsOf(t, 'subscription.updated')).filter((e) => e.id === subscriptionId && e.change.kind === kind);
const form = (url: string, fields: Record<string, string>) =>
  t.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(fields).toString() });

async function portal(subscriptionId: string): Promise<{ path: string; page: string; csrf: string }> {
  const res = await t.app.inject({ method: 'POST', url: '/v1/portal-sessions', headers: post(s.key), payload: { subscriptionId } });
  assert.equal(res.statusCode, 200, res.body);
  const path = new URL(res.json().url).pathname;
  const page = (await t.app.inject({ url: path })).body;
  return { path, page, csrf: /name="csrf" value="([A-Za-z0-9]+)"/.exec(page)![1] };
}
async function mailsOf(kind: string, subscriptionId: string) {
  await runMailOnce(t.deps, t.clock.now());
  const rows = await t.db.selectFrom('mail_outbox').selectAll().where('kind', '=', kind).orderBy('created_at').execute();
  return rows.filter((r) => (r.data as any).id === subscriptionId);
}

test('the portal box offers "거절" beside "동의"; declining is recorded and announced, says the subscription ends on the renewal date unpaid, and it does; agreeing afterwards still renews at the new price', async () => {
  t.clock.set(new Date('2026-11-01T00:00:00Z'));
  const p = await createSubscriptionProduct(t, s);
  const decliner = await subscribe(t, s, { productId: p.id, buyerEmail: 'no@example.com' });
  const changer = await subscribe(t, s, { productId: p.id, buyerEmail: 'later-yes@example.com' });
  const res = await schedule(p.id, { monthlyPrice: 12_900, effectiveAt: inDays(30) });
  assert.equal(res.statusCode, 201, res.body);
  const change = res.json();

  // The notice mail offers both answers, each a link of its own.
  const [notice] = await mailsOf('price_change_scheduled', decliner.subscriptionId);
  assert.match(notice.text_body!, /새 가격에 동의하기: \S+#price-change-ppc_/);
  assert.match(notice.text_body!, /거절하기 \(2026년 12월 1일 오전 9:00 KST에 구독 종료, 결제 없음\): \S+#price-change-ppc_/, notice.text_body!);

  const pa = await portal(decliner.subscriptionId);
  const box = /<div class="price-change" id="price-change-[^"]+"[\s\S]*?<\/div>\n<\/div>/.exec(pa.page)?.[0] ?? '';
  assert.match(box, /data-action="accept-price"/);
  assert.match(box, /data-action="decline-price"[^>]*>거절 \(2026년 12월 1일에 구독 종료\)/, 'a decline button in the same box');
  assert.equal((box.match(/<button type="submit" class="later"/g) ?? []).length, 2, 'both buttons look alike');
  const decline = `${pa.path}/subscriptions/${decliner.subscriptionId}/price-changes/${change.id}/decline`;
  assert.equal((await form(decline, {})).statusCode, 403, 'no CSRF secret, no answer');
  const ok = await form(decline, { csrf: pa.csrf });
  assert.equal(ok.statusCode, 303, ok.body);
  assert.match(new URL(String(ok.headers.location), 'http://x').searchParams.get('notice')!, /새 가격을 거절했습니다\. 2026년 12월 1일까지 지금 가격으로 이용하실 수 있고, 그날 구독이 종료되며 새 가격은 결제되지 않습니다/);
  const d = await t.db.selectFrom('subscription_price_changes').selectAll().where('subscription_id', '=', decliner.subscriptionId).executeTakeFirstOrThrow();
  assert.equal(d.declined_at!.toISOString(), '2026-11-01T00:00:00.000Z');
  const declined = await changesOf(decliner.subscriptionId, 'price_change_declined');
  assert.equal(declined.length, 1);
  assert.equal(declined[0].change.endsAt, '2026-12-01T00:00:00.000Z');
  assert.equal((await form(decline, { csrf: pa.csrf })).statusCode, 303);
  assert.equal((await changesOf(decliner.subscriptionId, 'price_change_declined')).length, 1, 'declining twice records one refusal');
  const after = (await t.app.inject({ url: pa.path })).body;
  assert.match(after, /data-consent="declined"/);
  assert.match(after, /거절하셨습니다\. 구독은 2026년 12월 1일에 종료되고 새 가격은 결제되지 않습니다/);

  // The other declines, then changes their mind before the date.
  const pc = await portal(changer.subscriptionId);
  const base = `${pc.path}/subscriptions/${changer.subscriptionId}/price-changes/${change.id}`;
  assert.equal((await form(`${base}/decline`, { csrf: pc.csrf })).statusCode, 303);
  assert.equal((await form(`${base}/accept`, { csrf: pc.csrf })).statusCode, 303);
  const d2 = await t.db.selectFrom('subscription_price_changes').selectAll().where('subscription_id', '=', changer.subscriptionId).executeTakeFirstOrThrow();
  assert.equal(d2.declined_at, null);
  assert.ok(d2.accepted_at);

  // What the box said happens.
  const r1 = (await advance(decliner.subscriptionId, 31)).json();
  assert.equal(r1.subscription.status, 'ended');
  assert.equal(r1.subscription.endReason, 'price_change_declined');
  assert.equal(r1.subscription.endedAt, '2026-12-01T00:00:00.000Z');
  assert.equal((await t.db.selectFrom('orders').select('id').where('subscription_id', '=', decliner.subscriptionId).where('subscription_event', '=', 'renewal').execute()).length, 0, 'nothing charged');
  const r2 = (await advance(changer.subscriptionId, 31)).json();
  assert.equal(r2.subscription.status, 'active');
  assert.equal(r2.subscription.amount, 12_900);
});

test('a yearly buyer: moving the test clock past 30 days before their renewal writes the reminder with both answers at once, before the renewal', async () => {
  t.clock.set(new Date('2026-11-01T00:00:00Z'));
  const p = await createSubscriptionProduct(t, s, { name: '연간 알림' });
  const yearly = await subscribe(t, s, { productId: p.id, interval: 'yearly', buyerEmail: 'yearly@example.com' });
  const res = await schedule(p.id, { yearlyPrice: 129_000, effectiveAt: inDays(40) });
  assert.equal(res.statusCode, 201, res.body);
  // The buyer's own date: their renewal on 2027-11-01. 334 days on, it is 31 days away: no reminder yet.
  await advance(yearly.subscriptionId, 334);
  assert.equal((await changesOf(yearly.subscriptionId, 'renewal_upcoming')).length, 0, 'not yet');
  // Two more days: 29 days before it. Issue 38: nothing was written until the hourly scan, so a test clock moved on to
  // the renewal never showed the reminder.
  const r = (await advance(yearly.subscriptionId, 2)).json();
  assert.equal(r.subscription.status, 'active');
  const reminders = await changesOf(yearly.subscriptionId, 'renewal_upcoming');
  assert.equal(reminders.length, 1);
  assert.equal(reminders[0].change.renewsAt, '2027-11-01T00:00:00.000Z');
  assert.deepEqual({ newAmount: reminders[0].change.priceChange.newAmount, accepted: reminders[0].change.priceChange.accepted }, { newAmount: 129_000, accepted: false });
  const [mail] = await mailsOf('renewal_upcoming', yearly.subscriptionId);
  assert.ok(mail, 'the reminder is mailed');
  assert.match(mail.text_body!, /새 가격에 동의하기: /);
  assert.match(mail.text_body!, /거절하기 \(2027년 11월 1일 오전 9:00 KST에 구독 종료, 결제 없음\): /);
  // Moving again within the window writes no second reminder.
  await advance(yearly.subscriptionId, 1);
  assert.equal((await changesOf(yearly.subscriptionId, 'renewal_upcoming')).length, 1);
});
