import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, createTestApp, createTestStore, type TestApp, type TestStore } from '../helpers/app';
import { owner } from '../checkout/factory';
import { createSubscriptionProduct, subscribe } from '../subscriptions/factory';
import { runMailOnce } from '../../src/mail/dispatch';

/**
 * The mail tests elsewhere feed hand-written events; here the trial and price-change code write their own events and
 * the buyer's mails follow from them: a trial's start and its conversion notice, and a plan price increase's notice.
 */
let t: TestApp;
let s: TestStore;
before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
});
after(async () => t?.close());

const mailsOf = (to: string) => t.db.selectFrom('mail_outbox').selectAll().where('recipient', '=', to).orderBy('created_at').orderBy('id').execute();

test('a 14-day trial mails its start (when the trial ends and what is charged then) and its conversion notice, from the trial code\'s own events', async () => {
  const p = await createSubscriptionProduct(t, s, { plans: [{ id: 'basic', name: '베이직', monthlyPrice: 9_900, yearlyPrice: 99_000, trialDays: 14 }] });
  const email = 'trial-mail@example.com';
  await subscribe(t, s, { productId: p.id, buyerEmail: email });
  await runMailOnce(t.deps, t.clock.now());
  const mails = await mailsOf(email);
  assert.deepEqual(mails.map((m) => m.kind).sort(), ['subscription_started', 'trial_will_end']);
  for (const m of mails) assert.equal(m.status, 'captured', 'test mode keeps, never sends');
  const started = mails.find((m) => m.kind === 'subscription_started')!;
  assert.match(started.text_body ?? '', /무료 체험이 2026년 11월 15일[^\n]*에 끝나며, 그때 첫 정기결제 9,900원/);
  const notice = mails.find((m) => m.kind === 'trial_will_end')!;
  assert.match(notice.text_body ?? '', /9,900원/);
  assert.match(notice.text_body ?? '', /2026년 11월 15일/);
});

test('a scheduled plan price increase mails each subscriber its notice with the new price and the consequence of not agreeing', async () => {
  const p = await createSubscriptionProduct(t, s, { plans: [{ id: 'basic', name: '베이직', monthlyPrice: 9_900, yearlyPrice: 99_000 }] });
  const email = 'price-mail@example.com';
  const { subscriptionId } = await subscribe(t, s, { productId: p.id, buyerEmail: email });
  const effectiveAt = new Date(t.clock.now().getTime() + 31 * 86_400_000).toISOString();
  const res = await t.app.inject({ method: 'POST', url: `/admin/v1/products/${p.id}/plans/basic/price-changes`, headers: owner(s), payload: { monthlyPrice: 12_900, effectiveAt } });
  assert.equal(res.statusCode, 201, res.body);
  await runMailOnce(t.deps, t.clock.now());
  const notice = (await mailsOf(email)).filter((m) => m.kind === 'price_change_scheduled');
  assert.equal(notice.length, 1, 'one notice for the one subscriber');
  assert.match(notice[0].text_body ?? '', /12,900원/);
  // Issue 29 item 5: the mail said the subscription ends "at the end of the current period" (2026-12-01), but it renews
  // once more at 9,900 and ends at the renewal that would charge the new price, 2027-01-01; it now says this buyer's
  // date, the cycle and the payment method.
  const text = notice[0].text_body ?? '';
  assert.match(text, /현재 가격: 매월 9,900원/);
  assert.match(text, /새 가격: 매월 12,900원/);
  assert.match(text, /새 가격 첫 결제일: 2027년 1월 1일/);
  assert.match(text, /결제 수단: 카드 4242/);
  assert.match(text, /동의하지 않으시면 2027년 1월 1일[^\n]*까지 지금 가격으로 이용하신 뒤 그날 구독이 종료되며, 새 가격으로 결제되지 않습니다/);
  // Its portal link opens until that date (it said 7 days).
  const ps = await t.db.selectFrom('portal_sessions').select('expires_at').where('subscription_id', '=', subscriptionId).executeTakeFirstOrThrow();
  assert.equal(ps.expires_at.toISOString(), '2027-01-01T00:00:00.000Z');
  assert.match(notice[0].text_body ?? '', /\/portal\//, 'the link where the buyer agrees');
});

test('a plan renamed after payment: the subscription-started mail and both receipts keep the name the buyer bought (terms as sold, migration 074)', async () => {
  const p = await createSubscriptionProduct(t, s, { plans: [{ id: 'basic', name: '베이직', monthlyPrice: 9_900, yearlyPrice: 99_000 }] });
  const email = 'renamed-plan@example.com';
  const { orderId, subscriptionId } = await subscribe(t, s, { productId: p.id, buyerEmail: email });
  // The seller renames the plan (and the product) before the mail goes out.
  const patched = await t.app.inject({
    method: 'PATCH',
    url: `/admin/v1/products/${p.id}`,
    headers: owner(s),
    payload: { name: '새 이름 멤버십', pricing: { plans: [{ id: 'basic', name: '스탠다드', monthlyPrice: 9_900, yearlyPrice: 99_000 }] } },
  });
  assert.equal(patched.statusCode, 200, patched.body);
  assert.equal(patched.json().pricing.plans[0].name, '스탠다드');
  await runMailOnce(t.deps, t.clock.now());
  const started = (await mailsOf(email)).find((m) => m.kind === 'subscription_started')!;
  assert.ok(started, 'the started mail was written');
  assert.match(started.text_body ?? '', /플랜: 베이직/);
  assert.match(started.text_body ?? '', /상품: 멤버십/);
  assert.doesNotMatch(started.text_body ?? '', /스탠다드|새 이름/);
  assert.match(started.html_body ?? '', /<th>플랜<\/th><td>베이직<\/td>/);

  const receipt = async (id: string) => {
    const o = (await t.app.inject({ url: `/v1/orders/${id}`, headers: bearer(s.key) })).json();
    const u = new URL(o.receiptUrl);
    return (await t.app.inject({ url: u.pathname + u.search })).body;
  };
  const first = await receipt(orderId);
  assert.match(first, /id="plan-name">베이직 · 매월</);
  assert.doesNotMatch(first, /스탠다드/);
  // The renewal after the rename is sold under the subscription's terms: still 베이직.
  const adv = await t.app.inject({ method: 'POST', url: `/admin/v1/subscriptions/${subscriptionId}/test-clock/advance`, headers: owner(s), payload: { days: 31 } });
  assert.equal(adv.statusCode, 200, adv.body);
  const renewal = await t.db.selectFrom('orders').select(['id', 'terms']).where('subscription_id', '=', subscriptionId).where('subscription_event', '=', 'renewal').executeTakeFirstOrThrow();
  assert.equal((renewal.terms as any).plan.name, '베이직');
  assert.match(await receipt(renewal.id), /id="plan-name">베이직 · 매월</);
});

test('a plan chosen in a plan change and renamed before the renewal: the renewal order names it as it was chosen', async () => {
  const p = await createSubscriptionProduct(t, s, {
    plans: [
      { id: 'basic', name: '베이직', monthlyPrice: 9_900, yearlyPrice: 99_000 },
      { id: 'lite', name: '라이트', monthlyPrice: 4_900, yearlyPrice: 49_000 },
    ],
  });
  const { subscriptionId } = await subscribe(t, s, { productId: p.id, buyerEmail: 'renamed-change@example.com' });
  // A cheaper plan needs no consent: scheduled for the next renewal.
  const change = await t.app.inject({ method: 'POST', url: `/admin/v1/subscriptions/${subscriptionId}/change-plan`, headers: owner(s), payload: { planId: 'lite', interval: 'monthly' } });
  assert.equal(change.statusCode, 200, change.body);
  assert.equal(change.json().timing, 'next_renewal');
  const patched = await t.app.inject({
    method: 'PATCH',
    url: `/admin/v1/products/${p.id}`,
    headers: owner(s),
    payload: { pricing: { plans: [{ id: 'basic', name: '베이직', monthlyPrice: 9_900, yearlyPrice: 99_000 }, { id: 'lite', name: '미니', monthlyPrice: 4_900, yearlyPrice: 49_000 }] } },
  });
  assert.equal(patched.statusCode, 200, patched.body);
  const adv = await t.app.inject({ method: 'POST', url: `/admin/v1/subscriptions/${subscriptionId}/test-clock/advance`, headers: owner(s), payload: { days: 31 } });
  assert.equal(adv.statusCode, 200, adv.body);
  const renewal = await t.db.selectFrom('orders').select(['amount', 'terms']).where('subscription_id', '=', subscriptionId).where('subscription_event', '=', 'renewal').executeTakeFirstOrThrow();
  assert.equal(Number(renewal.amount), 4_900);
  assert.equal((renewal.terms as any).plan.id, 'lite');
  assert.equal((renewal.terms as any).plan.name, '라이트');
});
