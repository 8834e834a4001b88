import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, post, type TestApp, type TestStore } from '../helpers/app';
import { owner } from '../checkout/factory';
import { createSubscriptionProduct, eventsOf, getSubscription, subscribe } from './factory';
import { runBilling } from '../../src/subscriptions/renewal/service';
import { runMailOnce } from '../../src/mail/dispatch';
import { runRenewalNoticesOnce } from '../../src/mail/renewal-notice';

/**
 * Issue 29, items 2 and 4: nothing dearer is charged without the buyer's recorded consent. Everything through the HTTP
 * API, the hosted portal and test clocks.
 */
let t: TestApp;
let s: TestStore;
const PLANS = [
  { id: 'basic', name: '베이직', monthlyPrice: 9_900, yearlyPrice: 99_000 },
  { id: 'pro', name: '프로', monthlyPrice: 19_900, yearlyPrice: 199_000 },
];
const DAY = 86_400_000;

before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
});
after(async () => {
  await t.close();
});

const change = (id: string, body: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: `/admin/v1/subscriptions/${id}/change-plan`, headers: owner(s), payload: body });
const advance = (id: string, days: number) => t.app.inject({ method: 'POST', url: `/admin/v1/subscriptions/${id}/test-clock/advance`, headers: owner(s), payload: { days } });
const changesOf = async (subscriptionId: string, kind: string) => (await eventsOf(t, 'subscription.updated')).filter((e) => e.id === subscriptionId && e.change.kind === kind);
const ordersOf = (subscriptionId: string) =>
  t.db.selectFrom('orders').select(['id', 'amount', 'subscription_event', 'plan_id', 'status']).where('subscription_id', '=', subscriptionId).orderBy('created_at').orderBy('id').execute();

async function portal(subscriptionId: string): Promise<{ path: string; page: string; csrf: string }> {
  const res = await t.app.inject({ method: 'POST', url: '/v1/portal-sessions', headers: post(s.key), payload: { subscriptionId } });
  assert.equal(res.statusCode, 200, res.body);
  const path = new URL(res.json().url).pathname;
  const page = (await t.app.inject({ url: path })).body;
  return { path, page, csrf: /name="csrf" value="([A-Za-z0-9]+)"/.exec(page)![1] };
}
const form = (url: string, fields: Record<string, string>) =>
  t.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(fields).toString() });
const notice = (res: { headers: Record<string, unknown> }) => {
  const u = new URL(String(res.headers.location), 'http://x');
  return u.searchParams.get('notice') ?? u.searchParams.get('error') ?? '';
};

test('issue 29 item 2: a seller\'s upgrade of a basic 9,900 buyer at day 10 charged 6,666 at once and renewed at 19,900; now it is an offer: nothing charged, nothing changed until the buyer agrees', async () => {
  t.clock.set('2026-11-01T00:00:00.000Z');
  const p = await createSubscriptionProduct(t, s, { plans: PLANS });
  const { subscriptionId } = await subscribe(t, s, { productId: p.id , buyerEmail: 'consent1@example.com' });
  assert.equal((await advance(subscriptionId, 10)).statusCode, 200);

  const res = await change(subscriptionId, { planId: 'pro', interval: 'monthly' });
  assert.equal(res.statusCode, 200, res.body);
  const body = res.json();
  // Before the fix: timing 'now', amount 6,666, planId 'pro', amount 19,900.
  assert.equal(body.timing, 'awaiting_consent');
  assert.equal(body.amount, 0);
  assert.equal(body.orderId, null);
  assert.equal(body.subscription.planId, 'basic');
  assert.equal(body.subscription.amount, 9_900);
  assert.equal(body.offer.status, 'pending');
  assert.deepEqual(body.offer.to, { planId: 'pro', billingInterval: 'monthly', amount: 19_900 });
  assert.equal(body.offer.deadline, '2026-11-25T00:00:00.000Z', '14 days on the subscription\'s clock');
  assert.deepEqual((await ordersOf(subscriptionId)).map((o) => o.subscription_event), ['initial'], 'no difference order');
  const offered = await changesOf(subscriptionId, 'plan_change_offered');
  assert.equal(offered.length, 1);
  assert.equal(offered[0].change.timing, 'now');
  assert.equal(offered[0].change.to.planName, '프로');

  // The mail asks for consent with a link that opens until the deadline (not 7 days).
  await runMailOnce(t.deps, t.clock.now());
  const mail = await t.db.selectFrom('mail_outbox').selectAll().where('kind', '=', 'plan_change_offered').where('recipient', '=', body.subscription.buyerEmail).orderBy('created_at', 'desc').executeTakeFirstOrThrow();
  assert.equal(mail.status, 'captured');
  assert.match(String(mail.text_body), /요금제 변경 동의 요청/);
  assert.match(String(mail.text_body), /베이직 · 매월 9,900원/);
  assert.match(String(mail.text_body), /프로 · 매월 19,900원/);
  assert.match(String(mail.text_body), /동의 기한: 2026년 11월 25일/);
  const link = /\/portal\/([A-Za-z0-9]+)/.exec(String(mail.text_body))![0];
  const ps = await t.db.selectFrom('portal_sessions').select('expires_at').orderBy('created_at', 'desc').executeTakeFirstOrThrow();
  // The subscription's clock runs 10 days ahead: its deadline (day 24) is day 14 on the service clock.
  assert.equal(ps.expires_at.toISOString(), '2026-11-15T00:00:00.000Z');

  // The renewal before any answer charges the price the buyer agreed to: 9,900.
  const page = (await t.app.inject({ url: link })).body;
  assert.match(page, /요금제 변경 제안 · 동의가 필요합니다/);
  assert.match(page, /<span translate="no">베이직<\/span> 월 9,900원 → <span translate="no">프로<\/span> 월 19,900원/, "the plan names marked as the seller's own");
  assert.match(page, /2026년 11월 25일까지 동의하지 않으시면 아무것도 바뀌지 않고/);

  // The buyer agrees on day 10: the change runs as theirs, the difference charged then, the consent recorded.
  const csrf = /name="csrf" value="([A-Za-z0-9]+)"/.exec(page)![1];
  const accept = `${link}/subscriptions/${subscriptionId}/plan-offers/${body.offer.id}/accept`;
  assert.equal((await form(accept, {})).statusCode, 403, 'no CSRF secret, no consent');
  const ok = await form(accept, { csrf });
  assert.equal(ok.statusCode, 303);
  assert.match(notice(ok), /차액 6,666원을 결제했습니다/);
  const sub = await getSubscription(t, s.key, subscriptionId);
  assert.equal(sub.planId, 'pro');
  assert.equal(sub.amount, 19_900);
  assert.match(sub.recurringConsent.text, /프로\(월간 19,900원\)/);
  assert.match(sub.recurringConsent.text, /차액 6,666원/);
  assert.equal(sub.recurringConsent.consentedAt, '2026-11-11T00:00:00.000Z', 'the subscription\'s time');
  const consents = await t.db.selectFrom('subscription_plan_consents').selectAll().where('subscription_id', '=', subscriptionId).execute();
  assert.equal(consents.length, 1);
  assert.equal(consents[0].status, 'accepted');
  assert.equal((consents[0].consent as any).version, '2026-11-28');
  assert.deepEqual((await ordersOf(subscriptionId)).map((o) => [o.subscription_event, Number(o.amount)]).sort((a, b) => Number(b[1]) - Number(a[1])), [['initial', 9_900], ['difference', 6_666]]);
  assert.equal((await form(accept, { csrf })).statusCode, 303, 'accepting twice is harmless');
  assert.equal((await ordersOf(subscriptionId)).length, 2, 'and charges nothing more');
});

test('unanswered, the offer lapses at its deadline: nothing changes and the renewal charges the old price', async () => {
  t.clock.set('2026-11-01T00:00:00.000Z');
  const p = await createSubscriptionProduct(t, s, { plans: PLANS });
  const { subscriptionId } = await subscribe(t, s, { productId: p.id , buyerEmail: 'consent2@example.com' });
  await advance(subscriptionId, 10);
  assert.equal((await change(subscriptionId, { planId: 'pro', interval: 'monthly' })).json().timing, 'awaiting_consent');
  assert.equal((await advance(subscriptionId, 14)).statusCode, 200);
  const closed = await changesOf(subscriptionId, 'plan_change_offer_closed');
  assert.equal(closed.length, 1);
  assert.equal(closed[0].change.outcome, 'lapsed');
  const lapsed = await t.app.inject({ url: `/admin/v1/subscriptions/${subscriptionId}/plan-change-offer`, headers: owner(s) });
  assert.equal(lapsed.json().offer, null);
  // A portal accept after the deadline is refused.
  await advance(subscriptionId, 7);
  const renewals = (await ordersOf(subscriptionId)).filter((o) => o.subscription_event === 'renewal');
  assert.deepEqual(renewals.map((o) => [Number(o.amount), o.plan_id]), [[9_900, 'basic']], 'renewed at 9,900, not 19,900');
});

test('a seller\'s interval change that charges more (monthly 9,900 → yearly 99,000) is an offer; declined in the portal nothing changes; the seller can withdraw an offer', async () => {
  t.clock.set('2026-11-01T00:00:00.000Z');
  const p = await createSubscriptionProduct(t, s, { plans: PLANS });
  const { subscriptionId } = await subscribe(t, s, { productId: p.id , buyerEmail: 'consent3@example.com' });
  const r = (await change(subscriptionId, { planId: 'basic', interval: 'yearly' })).json();
  assert.equal(r.timing, 'awaiting_consent');
  assert.equal(r.subscription.pendingPlanChange, null, 'nothing scheduled');
  const pt = await portal(subscriptionId);
  assert.match(pt.page, /2026년 12월 1일 결제부터 연 99,000원이 결제됩니다/);
  const no = await form(`${pt.path}/subscriptions/${subscriptionId}/plan-offers/${r.offer.id}/decline`, { csrf: pt.csrf });
  assert.equal(no.statusCode, 303);
  assert.match(notice(no), /거절했습니다/);
  assert.equal((await changesOf(subscriptionId, 'plan_change_offer_closed'))[0].change.outcome, 'declined');

  // A second offer, withdrawn by the seller.
  const r2 = (await change(subscriptionId, { planId: 'pro', interval: 'monthly' })).json();
  assert.equal(r2.timing, 'awaiting_consent');
  const open = await t.app.inject({ url: `/admin/v1/subscriptions/${subscriptionId}/plan-change-offer`, headers: owner(s) });
  assert.equal(open.json().offer.id, r2.offer.id);
  const w = await t.app.inject({ method: 'POST', url: `/admin/v1/subscriptions/${subscriptionId}/plan-change-offer/withdraw`, headers: owner(s) });
  assert.equal(w.statusCode, 200, w.body);
  assert.equal(w.json().status, 'withdrawn');
  const again = await t.app.inject({ method: 'POST', url: `/admin/v1/subscriptions/${subscriptionId}/plan-change-offer/withdraw`, headers: owner(s) });
  assert.equal(again.statusCode, 404);
  const pt2 = await portal(subscriptionId);
  assert.doesNotMatch(pt2.page, /data-plan-offer=/);
  const late = await form(`${pt2.path}/subscriptions/${subscriptionId}/plan-offers/${r2.offer.id}/accept`, { csrf: pt2.csrf });
  assert.match(notice(late), /제안이 없거나 기한이 지났습니다/);
  await advance(subscriptionId, 31);
  const sub = await getSubscription(t, s.key, subscriptionId);
  assert.deepEqual([sub.planId, sub.billingInterval, sub.amount], ['basic', 'monthly', 9_900]);
});

test('cheaper or equal seller changes need no consent: a downgrade is scheduled as before; undoing a cheaper change the buyer chose is dearer and needs consent', async () => {
  t.clock.set('2026-11-01T00:00:00.000Z');
  const p = await createSubscriptionProduct(t, s, { plans: PLANS });
  const { subscriptionId } = await subscribe(t, s, { productId: p.id, planId: 'pro' , buyerEmail: 'consent4@example.com' });
  const down = (await change(subscriptionId, { planId: 'basic', interval: 'monthly' })).json();
  assert.equal(down.timing, 'next_renewal');
  assert.equal(down.subscription.pendingPlanChange.amount, 9_900);
  // The seller "undoes" it: the buyer would pay 19,900 at renewal instead of 9,900.
  const undo = (await change(subscriptionId, { planId: 'pro', interval: 'monthly' })).json();
  assert.equal(undo.timing, 'awaiting_consent');
  assert.equal(undo.subscription.pendingPlanChange.amount, 9_900, 'the cheaper renewal stands');
  await advance(subscriptionId, 31);
  const sub = await getSubscription(t, s.key, subscriptionId);
  assert.equal(sub.amount, 9_900);
});

test('the portal\'s own plan change is the buyer\'s consent: wording, time and version recorded', async () => {
  t.clock.set('2026-11-01T00:00:00.000Z');
  const p = await createSubscriptionProduct(t, s, { plans: PLANS });
  const { subscriptionId } = await subscribe(t, s, { productId: p.id , buyerEmail: 'consent5@example.com' });
  await advance(subscriptionId, 10);
  const pt = await portal(subscriptionId);
  const res = await form(`${pt.path}/subscriptions/${subscriptionId}/plan`, { csrf: pt.csrf, plan: 'pro:monthly' });
  assert.match(notice(res), /차액 6,666원을 결제했습니다/);
  const rows = await t.db.selectFrom('subscription_plan_consents').selectAll().where('subscription_id', '=', subscriptionId).execute();
  assert.equal(rows.length, 1);
  assert.equal(rows[0].source, 'buyer');
  assert.equal(rows[0].status, 'accepted');
  const c = rows[0].consent as any;
  assert.equal(c.consentedAt, '2026-11-11T00:00:00.000Z');
  assert.equal(c.version, '2026-11-28');
  assert.match(c.text, /요금제를 지금 프로\(월간 19,900원\)\(으\)로 변경하고, 남은 기간의 차액 6,666원이 지금 결제되며, 2026년 12월 1일부터 매월 19,900원/);
});

async function longTrial(days: number) {
  const p = await createSubscriptionProduct(t, s, { plans: [{ id: 'basic', name: '베이직', monthlyPrice: 9_900, yearlyPrice: 99_000, trialDays: days }] });
  return subscribe(t, s, { productId: p.id , buyerEmail: 'consent6@example.com' });
}

test('issue 29 item 4: a 60-day trial was charged 9,900 at conversion without a fresh consent; now it ends unpaid at the trial end (trial_not_confirmed)', async () => {
  t.clock.set('2026-11-01T00:00:00.000Z');
  const { subscriptionId } = await longTrial(60);
  const start = await getSubscription(t, s.key, subscriptionId);
  assert.match(start.recurringConsent.text, /체험 종료 30일 전부터 결제 동의를 다시 요청하며/);
  // Day 29: the window has not opened; the portal says when it will.
  await advance(subscriptionId, 29);
  const early = await portal(subscriptionId);
  assert.match(early.page, /data-trial-consent="later"/);
  const refused = await form(`${early.path}/subscriptions/${subscriptionId}/trial-consent`, { csrf: early.csrf });
  assert.match(notice(refused), /체험 종료 30일 전부터/);
  // Day 30: the notice asks for consent; nobody answers.
  await advance(subscriptionId, 1);
  const n = await changesOf(subscriptionId, 'trial_will_end');
  assert.equal(n.length, 1);
  assert.equal(n[0].change.consentRequired, true);
  await advance(subscriptionId, 31);
  const sub = await getSubscription(t, s.key, subscriptionId);
  // Before the fix: status active, a 9,900 renewal order.
  assert.equal(sub.status, 'ended');
  assert.equal(sub.endReason, 'trial_not_confirmed');
  assert.equal(sub.endedAt, '2026-12-31T00:00:00.000Z');
  assert.deepEqual((await ordersOf(subscriptionId)).map((o) => Number(o.amount)), [0], 'only the 0-won trial order');
});

test('a 60-day trial whose buyer confirms in the portal within the 30 days converts and is charged', async () => {
  t.clock.set('2026-11-01T00:00:00.000Z');
  const { subscriptionId } = await longTrial(60);
  await advance(subscriptionId, 45);
  const pt = await portal(subscriptionId);
  assert.match(pt.page, /유료 전환 동의가 필요합니다/);
  const ok = await form(`${pt.path}/subscriptions/${subscriptionId}/trial-consent`, { csrf: pt.csrf });
  assert.match(notice(ok), /유료 전환에 동의했습니다/);
  const given = await changesOf(subscriptionId, 'trial_consent_given');
  assert.equal(given.length, 1);
  assert.equal(given[0].change.consentedAt, '2026-12-16T00:00:00.000Z');
  await advance(subscriptionId, 16);
  const sub = await getSubscription(t, s.key, subscriptionId);
  assert.equal(sub.status, 'active');
  assert.equal(sub.trialing, false);
  assert.deepEqual((await ordersOf(subscriptionId)).map((o) => Number(o.amount)).sort((a, b) => a - b), [0, 9_900]);
});

test('a 30-day trial is covered by the checkout consent (given within 30 days of the first charge) and converts', async () => {
  t.clock.set('2026-11-01T00:00:00.000Z');
  const { subscriptionId } = await longTrial(30);
  await advance(subscriptionId, 31);
  const sub = await getSubscription(t, s.key, subscriptionId);
  assert.equal(sub.status, 'active');
  assert.deepEqual((await ordersOf(subscriptionId)).map((o) => Number(o.amount)).sort((a, b) => a - b), [0, 9_900]);
  void runBilling;
  void DAY;
});

test('issue 29 item 5: a buyer who subscribes after an increase is scheduled is shown and consents to the future price, and renews at it (was: consented to 9,900 only, then ended as "declined")', async () => {
  t.clock.set('2026-11-01T00:00:00.000Z');
  const p = await createSubscriptionProduct(t, s, { plans: [{ id: 'basic', name: '베이직', monthlyPrice: 9_900, yearlyPrice: 99_000 }] });
  const sch = await t.app.inject({ method: 'POST', url: `/admin/v1/products/${p.id}/plans/basic/price-changes`, headers: owner(s), payload: { monthlyPrice: 12_900, effectiveAt: '2026-12-15T00:00:00.000Z' } });
  assert.equal(sch.statusCode, 201, sch.body);
  t.clock.set('2026-11-05T00:00:00.000Z');
  const { subscriptionId } = await subscribe(t, s, { productId: p.id, buyerEmail: 'after-increase@example.com' });
  const sub = await getSubscription(t, s.key, subscriptionId);
  assert.equal(sub.amount, 9_900);
  // Its first renewal on or after 2026-12-15 (and 30 days after signing up) is 2027-01-05.
  assert.match(sub.recurringConsent.text, /2027년 1월 5일 결제부터는 매월 12,900원이 결제되며, 이 금액에도 동의합니다/);
  const pt = await portal(subscriptionId);
  assert.match(pt.page, /data-consent="accepted"/, 'the portal shows the increase as agreed');
  assert.equal((await t.db.selectFrom('mail_outbox').select('id').where('kind', '=', 'price_change_scheduled').where('recipient', '=', 'after-increase@example.com').execute()).length, 0, 'no mail asking again');
  await advance(subscriptionId, 62);
  const after = await getSubscription(t, s.key, subscriptionId);
  assert.equal(after.status, 'active', 'not ended as price_change_declined');
  const renewals = (await ordersOf(subscriptionId)).filter((o) => o.subscription_event === 'renewal').map((o) => Number(o.amount)).sort();
  assert.deepEqual(renewals, [12_900, 9_900].sort(), 'Dec 5 at 9,900, Jan 5 at 12,900');
  // After the buyer's agreed price is charged, the API's amount says it (not 9,900).
  assert.equal(after.amount, 12_900);
});

test('issue 29 item 5: the subscription-started and order-confirmation mails carry 제13조② (payment method, withdrawal, recurring terms, disputes) from the order as sold, with plan names (was: "플랜: pro", an id, from the current state)', async () => {
  t.clock.set('2026-11-01T00:00:00.000Z');
  const p = await createSubscriptionProduct(t, s, { plans: PLANS });
  const email = 'started-mail@example.com';
  const { subscriptionId } = await subscribe(t, s, { productId: p.id, buyerEmail: email });
  // The buyer upgrades in the portal before the mail worker renders the started mail.
  const pt = await portal(subscriptionId);
  assert.match(notice(await form(`${pt.path}/subscriptions/${subscriptionId}/plan`, { csrf: pt.csrf, plan: 'pro:monthly' })), /요금제를 바로 변경했습니다/);
  await runMailOnce(t.deps, t.clock.now());
  const mails = await t.db.selectFrom('mail_outbox').selectAll().where('recipient', '=', email).execute();
  const started = String(mails.find((m) => m.kind === 'subscription_started')!.text_body);
  assert.match(started, /플랜: 베이직/, 'the plan sold, by name');
  assert.match(started, /다음 결제일: 2026년 12월 1일/);
  assert.match(started, /결제 수단: 신용·체크카드/);
  assert.match(started, /정기결제 금액: 매월 9,900원/);
  // Paid Sunday 2026-11-01: the 7th day is Sunday 11-08, rolled to Monday 11-09 and ending 24:00 KST, as the receipt
  // says (issue 38 item 3: the mail used to give the payment's time seven days on).
  assert.match(started, /청약철회: 결제일로부터 7일 이내\(2026년 11월 9일 오후 11:59 KST까지\)/);
  assert.match(started, /1372/);
  const confirmation = String(mails.find((m) => m.kind === 'order_confirmation')!.text_body);
  assert.match(confirmation, /결제 수단: 신용·체크카드/);
  assert.match(confirmation, /청약철회: /);
  assert.match(confirmation, /분쟁조정/);
});

test('issue 29 item 5: a yearly buyer told of an increase is reminded 30 days before their own change (a year later), with a link open until then', async () => {
  t.clock.set('2026-11-01T00:00:00.000Z');
  const p = await createSubscriptionProduct(t, s, { plans: PLANS });
  const email = 'yearly-reminder@example.com';
  const { subscriptionId } = await subscribe(t, s, { productId: p.id, interval: 'yearly', buyerEmail: email });
  const sch = await t.app.inject({ method: 'POST', url: `/admin/v1/products/${p.id}/plans/basic/price-changes`, headers: owner(s), payload: { yearlyPrice: 129_000, effectiveAt: '2026-12-15T00:00:00.000Z' } });
  assert.equal(sch.statusCode, 201, sch.body);
  await runMailOnce(t.deps, t.clock.now());
  const first = String((await t.db.selectFrom('mail_outbox').selectAll().where('recipient', '=', email).where('kind', '=', 'price_change_scheduled').executeTakeFirstOrThrow()).text_body);
  // This buyer's change is at their renewal, 2027-11-01, not the plan's 2026-12-15.
  assert.match(first, /새 가격 첫 결제일: 2027년 11월 1일/);
  assert.match(first, /현재 가격: 매년 99,000원/);
  await advance(subscriptionId, 335); // 2027-10-02 on its clock: within 30 days of the renewal
  await runRenewalNoticesOnce(t.deps, t.clock.now());
  await runMailOnce(t.deps, t.clock.now());
  const reminder = await t.db.selectFrom('mail_outbox').selectAll().where('recipient', '=', email).where('kind', '=', 'renewal_upcoming').executeTakeFirstOrThrow();
  const text = String(reminder.text_body);
  assert.match(text, /새 가격 동의가 필요합니다/);
  assert.match(text, /매년 129,000원/);
  assert.match(text, /동의하지 않으시면 2027년 11월 1일[^\n]*에 구독이 종료되며/);
  const expiries = (await t.db.selectFrom('portal_sessions').select('expires_at').where('subscription_id', '=', subscriptionId).execute()).map((r) => r.expires_at.toISOString()).sort();
  // Each link opens until 2027-11-01 on the subscription's clock (it used to be 7 days): the notice's, written with
  // the clocks together, and the reminder's, written when the subscription's clock ran 335 days ahead.
  assert.deepEqual(expiries, [new Date(Date.parse('2027-11-01T00:00:00.000Z') - 335 * DAY).toISOString(), '2027-11-01T00:00:00.000Z']);
});
