import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, bearer, post, type TestApp, type TestStore } from '../helpers/app';
import { createSession, owner, submitPayForm } from '../checkout/factory';
import { createSubscriptionProduct, eventsOf, getSubscription, subscribe } from './factory';
import { simulatorFor, TEST_CARDS } from '../../src/payments';
import { runTrialNotices } from '../../src/subscriptions/trials/notices';

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

const advance = (id: string, body: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: `/admin/v1/subscriptions/${id}/test-clock/advance`, headers: owner(s), payload: body });

async function trialProduct(trialDays: number, extra: Record<string, unknown> = {}) {
  return createSubscriptionProduct(t, s, { plans: [{ id: 'basic', name: '베이직', monthlyPrice: 9_900, yearlyPrice: 99_000, trialDays }], ...extra });
}

/** Card approvals the simulator made for these order ids (what the fake gateway charged). */
async function approvalsFor(orderIds: string[]) {
  const r = await simulatorFor(t.clock).listTransactions({ startDate: new Date(0), endDate: new Date('2100-01-01'), limit: 10_000 } as any);
  assert.equal(r.status, 'succeeded');
  return (r as any).value.transactions.filter((x: any) => x.kind === 'approval' && orderIds.includes(x.orderId));
}

async function ordersOf(subscriptionId: string) {
  return t.db.selectFrom('orders').select(['id', 'amount', 'subscription_event', 'period_start', 'period_end']).where('subscription_id', '=', subscriptionId).orderBy('created_at').execute();
}

const notices = async (id: string) => (await eventsOf(t, 'subscription.updated')).filter((e) => e.id === id && e.change.kind === 'trial_will_end');

test('a 14-day trial checkout registers the card and charges nothing: a 0-won order, licences issued, consent kept with its time, trialing until its end', async () => {
  const start = t.clock.now();
  const p = await trialProduct(14, { license: { mode: 'service' } });
  const { subscriptionId, orderId } = await subscribe(t, s, { productId: p.id });
  const sub = await getSubscription(t, s.key, subscriptionId);
  assert.equal(sub.status, 'active');
  assert.equal(sub.trialing, true);
  assert.equal(sub.trialEndsAt, new Date(start.getTime() + 14 * DAY).toISOString());
  assert.equal(sub.currentPeriodEnd, sub.trialEndsAt, 'the first charge is the renewal at the trial end');
  assert.equal(sub.amount, 9_900, 'what the first charge and renewals take: the plan price sold');
  assert.ok(sub.card, 'the card is registered for the first charge');
  assert.equal(sub.recurringConsent.consentedAt, start.toISOString());
  assert.match(sub.recurringConsent.text, /체험 종료일 2026년 11월 15일부터 매월 9,900원이 등록한 카드로 자동 결제되는 것에 동의합니다/);

  const orders = await ordersOf(subscriptionId);
  assert.equal(orders.length, 1);
  assert.equal(Number(orders[0].amount), 0);
  assert.equal(orders[0].subscription_event, 'initial');
  assert.deepEqual(await approvalsFor([orderId]), [], 'the simulator approved nothing for the trial');
  const charges = await t.db.selectFrom('subscription_charges').select('id').where('subscription_id', '=', subscriptionId).execute();
  assert.equal(charges.length, 0);

  const order = (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(s.key) })).json();
  assert.equal(order.licenses.length, 1, 'licences are issued at the trial start');
  assert.equal(order.licenses[0].status, 'active');

  // The portal says it is a trial, when the first charge comes and that cancelling before it costs nothing.
  const portal = await t.app.inject({ method: 'POST', url: '/v1/portal-sessions', headers: post(s.key), payload: { subscriptionId } });
  assert.equal(portal.statusCode, 200, portal.body);
  const html = (await t.app.inject({ url: new URL(portal.json().url).pathname })).body;
  assert.match(html, /무료 체험 중입니다\. 2026년 11월 15일에 체험이 끝나면 9,900원이 처음 결제됩니다\. 그 전에 해지하면 결제되지 않습니다\./);
  assert.match(html, /정기결제 동의 내용/);
});

test('notices for a trial shorter than TRIAL_NOTICE_DAYS: one at signup and one 3 days before the end (once each, however often the job runs); the first charge at the trial end takes the plan amount', async () => {
  const p = await trialProduct(14);
  const { subscriptionId } = await subscribe(t, s, { productId: p.id });
  let n = await notices(subscriptionId);
  assert.equal(n.length, 1, 'the signup notice is written with the subscription');
  assert.deepEqual(n[0].change, { kind: 'trial_will_end', trialEndsAt: n[0].trialEndsAt, amount: 9_900, currency: 'KRW', interval: 'monthly', notice: 'signup' });
  assert.equal(n[0].trialing, true);

  // Day 10: the final notice (day 11) is not due yet.
  assert.equal((await advance(subscriptionId, { days: 10 })).statusCode, 200);
  assert.equal((await notices(subscriptionId)).length, 1);
  // Day 11 + 1 h: 3 days before the end.
  await advance(subscriptionId, { days: 1, hours: 1 });
  n = await notices(subscriptionId);
  // (Both carry the same service time, so their order in the table is not theirs to keep: compare as a set.)
  assert.deepEqual(n.map((e) => e.change.notice).sort(), ['final', 'signup']);
  // The job run twice more (and the clock moved a little) writes nothing again.
  await runTrialNotices(t.deps, t.clock.now());
  await runTrialNotices(t.deps, t.clock.now());
  await advance(subscriptionId, { hours: 2 });
  assert.equal((await notices(subscriptionId)).length, 2);
  assert.equal((await getSubscription(t, s.key, subscriptionId)).trialing, true);

  // Past the end (day 14 + 1 h): the first charge, for the plan amount, through the renewal machinery.
  const res = (await advance(subscriptionId, { days: 3 })).json();
  assert.equal(res.subscription.status, 'active');
  assert.equal(res.subscription.trialing, false);
  assert.equal(res.subscription.currentPeriodStart, res.subscription.trialEndsAt);
  const orders = await ordersOf(subscriptionId);
  assert.deepEqual(orders.map((o) => [Number(o.amount), o.subscription_event]), [[0, 'initial'], [9_900, 'renewal']]);
  const approvals = await approvalsFor(orders.map((o) => o.id));
  assert.deepEqual(approvals.map((a: any) => a.amount), [9_900]);
  const paid = (await eventsOf(t, 'order.paid')).filter((e) => e.subscriptionId === subscriptionId && e.subscriptionEvent === 'renewal');
  assert.equal(paid.length, 1);
  assert.equal(paid[0].paidAt, res.testClock.frozenTime);
  assert.equal((await notices(subscriptionId)).length, 2, 'no notice after the conversion');
});

test('a trial longer than TRIAL_NOTICE_DAYS gets one notice, 30 days before its first charge, and none at signup', async () => {
  const p = await trialProduct(60);
  const { subscriptionId } = await subscribe(t, s, { productId: p.id });
  assert.equal((await notices(subscriptionId)).length, 0);
  await advance(subscriptionId, { days: 29, hours: 23 });
  assert.equal((await notices(subscriptionId)).length, 0);
  await advance(subscriptionId, { hours: 2 });
  const n = await notices(subscriptionId);
  assert.equal(n.length, 1);
  assert.equal(n[0].change.notice, 'lead');
  await advance(subscriptionId, { days: 27 });
  assert.equal((await notices(subscriptionId)).length, 1, 'no second notice for a long trial');
});

test('a trial cancelled before its end is never charged: the preview has nothing to refund, it ends at the trial end with no charge and no further notice', async () => {
  const p = await trialProduct(14, { license: { mode: 'service' } });
  const { subscriptionId, orderId } = await subscribe(t, s, { productId: p.id });
  const prev = await t.app.inject({ url: `/v1/subscriptions/${subscriptionId}/cancel-preview`, headers: bearer(s.key) });
  assert.equal(prev.statusCode, 200, prev.body);
  assert.equal(prev.json().immediate.refundAmount, 0);
  const res = await t.app.inject({ method: 'POST', url: `/v1/subscriptions/${subscriptionId}/cancel`, headers: post(s.key), payload: { timing: 'period_end' } });
  assert.equal(res.statusCode, 200, res.body);
  await advance(subscriptionId, { days: 12 });
  assert.equal((await notices(subscriptionId)).length, 1, 'only the signup notice: a cancelled trial gets no reminder');
  const after = (await advance(subscriptionId, { days: 3 })).json();
  assert.equal(after.subscription.status, 'ended');
  assert.equal(after.subscription.endReason, 'canceled');
  const orders = await ordersOf(subscriptionId);
  assert.equal(orders.length, 1);
  assert.deepEqual(await approvalsFor([orderId]), []);
  const charges = await t.db.selectFrom('subscription_charges').select('id').where('subscription_id', '=', subscriptionId).execute();
  assert.equal(charges.length, 0);
});

test('a trial cancelled immediately ends at once with nothing refunded and nothing charged', async () => {
  const p = await trialProduct(14, { license: { mode: 'service' } });
  const { subscriptionId } = await subscribe(t, s, { productId: p.id });
  const res = await t.app.inject({ method: 'POST', url: `/v1/subscriptions/${subscriptionId}/cancel`, headers: post(s.key), payload: { timing: 'immediate' } });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.json().refundAmount, 0);
  assert.equal(res.json().subscription.status, 'ended');
  await advance(subscriptionId, { days: 20 });
  assert.equal((await ordersOf(subscriptionId)).length, 1);
});

test('a failed first charge at the trial end goes to dunning (past_due)', async () => {
  const p = await trialProduct(7);
  const { subscriptionId } = await subscribe(t, s, { productId: p.id, cardNumber: TEST_CARDS.renewalDeclined });
  const res = (await advance(subscriptionId, { days: 7, hours: 1 })).json();
  assert.equal(res.subscription.status, 'past_due');
  assert.equal(res.subscription.trialing, false);
  assert.ok(res.subscription.nextRetryAt);
});

test('TRIAL_NOTICE_DAYS sets the lead time', async () => {
  const t2 = await createTestApp({ config: { trialNoticeDays: 7 } });
  try {
    const s2 = await createTestStore(t2);
    const p = await createSubscriptionProduct(t2, s2, { plans: [{ id: 'basic', name: '베이직', monthlyPrice: 9_900, yearlyPrice: null, trialDays: 14 }] });
    const { subscriptionId } = await subscribe(t2, s2, { productId: p.id });
    const rows = () => t2.db.selectFrom('subscription_trial_notices').select(['notice', 'due_at']).where('subscription_id', '=', subscriptionId).execute();
    assert.equal((await rows()).length, 0, 'a 14-day trial is longer than 7 days: no signup notice');
    t2.clock.advance(7 * DAY);
    assert.equal(await runTrialNotices(t2.deps, t2.clock.now()), 1);
    assert.equal(await runTrialNotices(t2.deps, t2.clock.now()), 0);
    assert.deepEqual((await rows()).map((r) => r.notice), ['lead']);
  } finally {
    await t2.close();
  }
});

test('a free trial takes no coupon; plans validate trialDays (1–365) and show it', async () => {
  const p = await trialProduct(14);
  assert.equal(p.pricing.plans[0].trialDays, 14);
  const session = await createSession(t, s.key, { productId: p.id, planId: 'basic', interval: 'monthly', successUrl: 'https://example.com/ok' });
  const res = await submitPayForm(t, session, { cardNumber: TEST_CARDS.success, couponCode: 'ANY' });
  assert.equal(res.statusCode, 422);
  assert.match(res.body, /무료 체험에는 쿠폰을 사용할 수 없습니다/);
  for (const trialDays of [0, 366]) {
    const bad = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/products',
      headers: owner(s),
      payload: { mode: 'test', type: 'subscription', name: '체험', pricing: { plans: [{ name: 'b', monthlyPrice: 1000, trialDays }] } },
    });
    assert.equal(bad.statusCode, 400, bad.body);
  }
});

test('every event a trial writes (order.paid at 0 won, trial_will_end, the conversion) matches its documented webhook schema', async () => {
  const { default: Ajv } = await import('ajv');
  const { default: addFormats } = await import('ajv-formats');
  const p = await trialProduct(5);
  const { subscriptionId } = await subscribe(t, s, { productId: p.id });
  await advance(subscriptionId, { days: 3 }); // the 'final' notice (day 2)
  await advance(subscriptionId, { days: 3 }); // the conversion (day 5)
  const doc = (await t.app.inject({ url: '/v1/openapi.json' })).json();
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  const rows = await t.db.selectFrom('events').selectAll().where('type', 'in', ['order.paid', 'subscription.updated']).execute();
  const mine = rows.filter((e) => (e.data as any).id === subscriptionId || (e.data as any).subscriptionId === subscriptionId);
  const kinds = mine.map((e) => (e.type === 'order.paid' ? `paid:${(e.data as any).amount}` : (e.data as any).change.kind)).sort();
  assert.deepEqual(kinds, ['paid:0', 'paid:9900', 'period_renewed', 'trial_will_end', 'trial_will_end']);
  for (const e of mine) {
    const validate = ajv.compile(doc.webhooks[e.type].post.requestBody.content['application/json'].schema);
    const envelope = { id: e.id, type: e.type, mode: e.mode, createdAt: e.created_at.toISOString(), data: e.data };
    assert.ok(validate(envelope), `${e.type}: ${ajv.errorsText(validate.errors)}`);
  }
});

test('an upgrade during the trial takes effect at once without a charge; the first charge at the trial end is the new price', async () => {
  const p = await createSubscriptionProduct(t, s, {
    plans: [
      { id: 'basic', name: '베이직', monthlyPrice: 9_900, yearlyPrice: null, trialDays: 10 },
      { id: 'pro', name: '프로', monthlyPrice: 19_900, yearlyPrice: null, trialDays: 10 },
    ],
  });
  const { subscriptionId } = await subscribe(t, s, { productId: p.id });
  await advance(subscriptionId, { days: 2 });
  const up = await t.app.inject({ method: 'POST', url: `/admin/v1/subscriptions/${subscriptionId}/change-plan`, headers: owner(s), payload: { planId: 'pro', interval: 'monthly' } });
  assert.equal(up.statusCode, 200, up.body);
  // The seller's upgrade raises the first charge: an offer until the buyer agrees in the portal (issue 29).
  assert.equal(up.json().timing, 'awaiting_consent');
  const ps = await t.app.inject({ method: 'POST', url: '/v1/portal-sessions', headers: post(s.key), payload: { subscriptionId } });
  const path = new URL(ps.json().url).pathname;
  const csrf = /name="csrf" value="([A-Za-z0-9]+)"/.exec((await t.app.inject({ url: path })).body)![1];
  const ok = await t.app.inject({
    method: 'POST',
    url: `${path}/subscriptions/${subscriptionId}/plan-offers/${up.json().offer.id}/accept`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ csrf }).toString(),
  });
  assert.equal(ok.statusCode, 303);
  const now = await getSubscription(t, s.key, subscriptionId);
  assert.equal(now.planId, 'pro');
  assert.equal(now.trialing, true);
  assert.equal((await ordersOf(subscriptionId)).length, 1, 'no difference order in a trial');
  await advance(subscriptionId, { days: 9 });
  const orders = await ordersOf(subscriptionId);
  assert.deepEqual(orders.map((o) => Number(o.amount)), [0, 19_900]);
});
