import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, type TestApp, type TestStore } from '../helpers/app';
import { createSession, owner, payPath } from '../checkout/factory';
import { createSubscriptionProduct, subscribe } from '../subscriptions/factory';
import { runMailOnce, renderRow } from '../../src/mail/dispatch';

/**
 * What the pay page and the contract mails tell a subscriber is what then happens (issue 38 items 2-4): the price
 * after a scheduled increase, the withdrawal deadline of the receipt, and a long trial's conversion.
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
const schedule = (productId: string, body: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: `/admin/v1/products/${productId}/plans/basic/price-changes`, headers: owner(s), payload: body });
const advance = (id: string, days: number) => t.app.inject({ method: 'POST', url: `/admin/v1/subscriptions/${id}/test-clock/advance`, headers: owner(s), payload: { days } });
const text = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');

async function startedMail(subscriptionId: string) {
  await runMailOnce(t.deps, t.clock.now());
  const rows = await t.db.selectFrom('mail_outbox').selectAll().where('kind', '=', 'subscription_started').execute();
  const row = rows.find((r) => (r.data as any).subscriptionId === subscriptionId);
  assert.ok(row, 'a subscription-started mail');
  return row;
}
async function inEnglish(row: any, subscriptionId: string) {
  await t.db.updateTable('subscriptions').set({ locale: 'en' }).where('id', '=', subscriptionId).execute();
  const { mail } = await renderRow(t.deps, row);
  await t.db.updateTable('subscriptions').set({ locale: 'ko' }).where('id', '=', subscriptionId).execute();
  return mail.text;
}

test('a buyer who subscribes after an increase is scheduled: the pay page shows both prices and the date alike, the started mail the 12,900 that the first renewal then charges', async () => {
  // Issue 38 item 2: the summary said "자동 결제 금액 매월 9,900원, 다음 결제일 2027년 1월 2일" (12,900 only at the end of the
  // consent sentence) and the started mail said the first recurring charge on 2027-01-02 was 9,900; it charged 12,900.
  t.clock.set(new Date('2026-12-01T00:00:00Z'));
  const p = await createSubscriptionProduct(t, s);
  const sch = await schedule(p.id, { monthlyPrice: 12_900, effectiveAt: '2027-01-01T15:00:00.000Z' });
  assert.equal(sch.statusCode, 201, sch.body);
  // 2026-12-02 07:15 KST, as in the issue.
  t.clock.set(new Date('2026-12-01T22:15:00Z'));
  const session = await createSession(t, s.key, { productId: p.id, planId: 'basic', interval: 'monthly', successUrl: 'https://example.com/ok' });
  const page = (await t.app.inject({ url: payPath(session) })).body;
  const dd = (id: string) => text(new RegExp(`<dd id="${id}">([\\s\\S]*?)</dd>`).exec(page)?.[1] ?? '').trim();
  assert.equal(dd('recurring-amount'), '매월 9,900원');
  assert.equal(dd('recurring-new-amount'), '매월 12,900원', 'the new price is a row of its own, like the current one');
  assert.match(page, /<dt>2027년 1월 2일 결제부터<\/dt><dd id="recurring-new-amount">/, 'with the date of the change');
  assert.equal(dd('recurring-next'), '2027년 1월 2일 · 12,900원', 'the next charge with what it takes');
  assert.match(text(page), /가격 인상 예정: .*2027년 1월 2일 결제부터 매월 9,900원에서 매월 12,900원/);

  const sub = await subscribe(t, s, { productId: p.id });
  const row = await startedMail(sub.subscriptionId);
  const ko = row.text_body!;
  assert.match(ko, /첫 정기결제는 2027년 1월 2일 오전 7:15 KST에 12,900원입니다/, ko);
  assert.match(ko, /지금 가격: 매월 9,900원/);
  assert.match(ko, /2027년 1월 2일 오전 7:15 KST 결제부터: 매월 12,900원/);
  assert.doesNotMatch(ko, /정기결제 금액: 매월 9,900원/);
  const en = await inEnglish(row, sub.subscriptionId);
  assert.match(en, /The first recurring payment is ₩12,900 on Jan 2, 2027, 7:15 AM KST/, en);

  // What the mail said is what the renewal charges.
  const r = (await advance(sub.subscriptionId, 32)).json();
  const renewals = await t.db.selectFrom('orders').select('amount').where('subscription_id', '=', sub.subscriptionId).where('id', '!=', sub.orderId).execute();
  assert.deepEqual(renewals.map((o) => Number(o.amount)), [12_900]);
  assert.equal(r.subscription.currentPeriodStart, '2027-01-01T22:15:00.000Z', 'the renewal the mail named');
  assert.equal(r.subscription.amount, 12_900);
});

test('the mails\' withdrawal deadline is the receipt\'s (end of day, 23:59 KST) and they say a withdrawal ends the subscription', async () => {
  // Issue 38 item 3: paid 2026-12-02 07:15 KST, the mails said "12월 9일 오전 7:15 KST", the receipt "오후 11:59".
  t.clock.set(new Date('2026-12-01T22:15:00Z'));
  const p = await createSubscriptionProduct(t, s, { name: '철회 확인' });
  const sub = await subscribe(t, s, { productId: p.id });
  const row = await startedMail(sub.subscriptionId);
  const ko = row.text_body!;
  const receiptUrl = /영수증 보기: (\S+)/.exec(ko)?.[1];
  assert.ok(receiptUrl, ko);
  const receipt = text((await t.app.inject({ url: new URL(receiptUrl).pathname + new URL(receiptUrl).search })).body);
  assert.match(receipt, /2026년 12월 9일 오후 11:59/, 'the receipt\'s deadline');
  assert.match(ko, /결제일로부터 7일 이내\(2026년 12월 9일 오후 11:59 KST까지\)/, ko);
  assert.doesNotMatch(ko, /12월 9일 오전 7:15/);
  assert.match(ko, /청약철회하면 환불과 함께 구독이 바로 종료되며/);
  const en = await inEnglish(row, sub.subscriptionId);
  assert.match(en, /until the end of Dec 9, 2026 \(11:59 PM KST\)/, en);
  assert.match(en, /Withdrawing from a subscription ends the subscription at once/);
});

test('a 60-day trial\'s started mail says a fresh consent will be asked and the trial ends unpaid without it; a 14-day trial\'s mail promises its charge', async () => {
  // Issue 38 item 4: a 60-day trial's mail said "그때 첫 정기결제 9,900원이 이루어집니다" (first charge 2027-01-31),
  // but without a fresh consent inside the last 30 days the trial ends unpaid (src/subscriptions/trials/consent.ts).
  t.clock.set(new Date('2026-12-01T22:15:00Z'));
  const long = await createSubscriptionProduct(t, s, { name: '긴 체험', plans: [{ id: 'basic', name: '베이직', monthlyPrice: 9_900, yearlyPrice: 99_000, trialDays: 60 }] });
  const short = await createSubscriptionProduct(t, s, { name: '짧은 체험', plans: [{ id: 'basic', name: '베이직', monthlyPrice: 9_900, yearlyPrice: 99_000, trialDays: 14 }] });
  const a = await subscribe(t, s, { productId: long.id });
  const b = await subscribe(t, s, { productId: short.id });
  const longMail = (await startedMail(a.subscriptionId)).text_body!;
  assert.match(longMail, /체험 종료 30일 전부터 유료 전환 동의를 다시 요청합니다/, longMail);
  assert.match(longMail, /동의하지 않으면 결제 없이 체험 종료와 함께 구독이 종료됩니다/);
  assert.doesNotMatch(longMail, /그때 첫 정기결제 9,900원이\(가\) 이루어집니다\. 체험 기간 중/);
  assert.doesNotMatch(longMail, /첫 정기결제는 .*에 9,900원입니다/, 'no unconditional promise in the contract notes either');
  const en = await inEnglish(await startedMail(a.subscriptionId), a.subscriptionId);
  assert.match(en, /we will ask you again to confirm the paid subscription/);
  const shortMail = (await startedMail(b.subscriptionId)).text_body!;
  assert.match(shortMail, /그때 첫 정기결제 9,900원이\(가\) 이루어집니다/);
  // And what the long trial's mail says happens: no consent, the trial ends unpaid.
  const r = (await advance(a.subscriptionId, 61)).json();
  assert.equal(r.subscription.status, 'ended');
  assert.equal(r.subscription.endReason, 'trial_not_confirmed');
  const paid = await t.db.selectFrom('orders').select('amount').where('subscription_id', '=', a.subscriptionId).execute();
  assert.deepEqual(paid.map((o) => Number(o.amount)), [0]);
  void DAY;
});
