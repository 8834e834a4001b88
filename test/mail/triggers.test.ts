import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, post, type TestApp, type TestStore } from '../helpers/app';
import { createProduct, owner } from '../checkout/factory';
import { buy } from '../refunds/factory';
import { createSubscriptionProduct, subscribe } from '../subscriptions/factory';
import { TEST_CARDS } from '../../src/payments';
import { runBilling } from '../../src/subscriptions/renewal/service';
import { fileRequest } from '../../src/refunds/requests/buyer-receipt';
import { writeEvent } from '../../src/platform/events';
import { subscriptionView } from '../../src/subscriptions/model';
import { runMailOnce } from '../../src/mail/dispatch';
import { runRenewalNoticesOnce } from '../../src/mail/renewal-notice';
import { MAIL_KINDS } from '../../src/mail/kinds';

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

async function mailsOf(kind: string) {
  return t.db.selectFrom('mail_outbox').selectAll().where('kind', '=', kind).orderBy('created_at').orderBy('id').execute();
}
async function eventOf(id: string) {
  return t.db.selectFrom('events').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}
/** Renders and keeps every due mail (test mode), then returns the kept mail of that id. */
async function captured(id: string) {
  await runMailOnce(t.deps, t.clock.now());
  return t.db.selectFrom('mail_outbox').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}
function setMails(patch: Record<string, boolean>) {
  return t.app.inject({ method: 'PATCH', url: '/admin/v1/store', headers: owner(s), payload: { buyerMails: patch } });
}

test('the store settings list every mail kind, all on by default; PATCH turns one off and leaves the others', async () => {
  const res = await t.app.inject({ url: '/admin/v1/store', headers: owner(s) });
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(res.json().buyerMails, Object.fromEntries(MAIL_KINDS.map((k) => [k, true])));
  const off = await setMails({ refund_completed: false });
  assert.equal(off.statusCode, 200, off.body);
  assert.equal(off.json().buyerMails.refund_completed, false);
  assert.equal(off.json().buyerMails.order_confirmation, true);
  assert.equal((await setMails({ refund_completed: true })).json().buyerMails.refund_completed, true);
  assert.equal((await setMails({ no_such_kind: false } as any)).statusCode, 400);
});

test('order.paid of a one-time order writes exactly one order confirmation in its transaction; kept in test mode with the licence key, receipt link and footer', async () => {
  const p = await createProduct(t, s, { license: { mode: 'service' } });
  const orderId = await buy(t, s, p.id);
  const mails = (await mailsOf('order_confirmation')).filter((m) => (m.data as any).id === orderId);
  assert.equal(mails.length, 1);
  const ev = await eventOf(mails[0].event_id);
  assert.equal(ev.type, 'order.paid');
  assert.equal(mails[0].recipient, (ev.data as any).buyerEmail);
  assert.equal(mails[0].status, 'pending');
  const m = await captured(mails[0].id);
  assert.equal(m.status, 'captured', 'test mode keeps the mail and never sends it');
  const key = (ev.data as any).licenses[0].key as string;
  assert.ok(key);
  assert.match(m.subject!, /\[테스트 상점\] 주문이 완료되었습니다/);
  for (const body of [m.text_body!, m.html_body!]) {
    assert.ok(body.includes(key), 'the licence key is in the mail');
    assert.ok(body.includes(`/receipt/${orderId}?t=`), 'the receipt link is in the mail');
    assert.ok(body.includes('123-45-67891'), 'the 사업자 정보 footer is in the mail');
    assert.ok(body.includes('15,000원'));
  }
  assert.doesNotMatch(m.html_body!, /<img|<script/i, 'no images (tracking pixels) and no scripts');
});

test('a kind the store turned off is not written; turning it on again writes the next one', async () => {
  const p = await createProduct(t, s, {});
  assert.equal((await setMails({ order_confirmation: false })).statusCode, 200);
  const a = await buy(t, s, p.id);
  assert.equal((await mailsOf('order_confirmation')).filter((m) => (m.data as any).id === a).length, 0);
  assert.equal((await setMails({ order_confirmation: true })).statusCode, 200);
  const b = await buy(t, s, p.id);
  assert.equal((await mailsOf('order_confirmation')).filter((m) => (m.data as any).id === b).length, 1);
});

test('a rolled-back change leaves no mail: the mail is written in the event\'s transaction', async () => {
  const before = await t.db.selectFrom('mail_outbox').select('id').execute();
  await assert.rejects(
    t.db.transaction().execute(async (trx) => {
      await writeEvent(trx, t.clock, { storeId: s.storeId, mode: 'test', type: 'order.paid', data: { id: 'ord_x', buyerEmail: 'x@example.com', productName: 'x', amount: 1 } });
      assert.equal((await trx.selectFrom('mail_outbox').select('id').execute()).length, before.length + 1);
      throw new Error('roll back');
    }),
  );
  assert.equal((await t.db.selectFrom('mail_outbox').select('id').execute()).length, before.length);
});

test('refunds: order.refunded -> refund completed (amount, total refunded); a filed request -> received; a rejection -> decided with the reason', async () => {
  const p = await createProduct(t, s, {});
  const orderId = await buy(t, s, p.id);
  const r = await t.app.inject({ method: 'POST', url: `/v1/orders/${orderId}/refund`, headers: post(s.key), payload: { amount: 5_000, reason: '부분 환불' } });
  assert.ok(r.statusCode < 300, r.body);
  const refunded = (await mailsOf('refund_completed')).filter((m) => (m.data as any).order.id === orderId);
  assert.equal(refunded.length, 1);
  const m = await captured(refunded[0].id);
  assert.match(m.text_body!, /환불 금액: 5,000원/);
  assert.match(m.text_body!, /누적 환불 금액: 5,000원/);

  const order2 = await buy(t, s, p.id);
  // Past the 청약철회 window, so the seller may decide (a statutory request is decided by its auto-approval).
  t.clock.advance(10 * DAY);
  const { receipt_token } = await t.db.selectFrom('orders').select('receipt_token').where('id', '=', order2).executeTakeFirstOrThrow();
  const req = await fileRequest(t.deps, order2, receipt_token, { amount: 15_000, reason: '마음이 바뀌었어요' });
  assert.ok(req);
  const received = (await mailsOf('refund_request_received')).filter((x) => (x.data as any).id === req.id);
  assert.equal(received.length, 1);
  assert.equal(received[0].recipient, (await t.db.selectFrom('orders').select('buyer_email').where('id', '=', order2).executeTakeFirstOrThrow()).buyer_email);
  const rej = await t.app.inject({ method: 'POST', url: `/v1/refund-requests/${req.id}/reject`, headers: post(s.key), payload: { reason: '이미 사용한 상품입니다' } });
  assert.equal(rej.statusCode, 200, rej.body);
  const decided = (await mailsOf('refund_request_decided')).filter((x) => (x.data as any).id === req.id);
  assert.equal(decided.length, 1);
  const d = await captured(decided[0].id);
  assert.match(d.subject!, /거절/);
  assert.match(d.text_body!, /이미 사용한 상품입니다/);
  t.clock.set('2026-11-01T00:00:00.000Z');
});

test('subscriptions: started, renewal receipt, payment failed (portal link that opens), cancellation confirmed, ended; one mail each', async () => {
  const p = await createSubscriptionProduct(t, s, { license: { mode: 'service' } });
  const { subscriptionId, orderId } = await subscribe(t, s, { productId: p.id });
  const started = (await mailsOf('subscription_started')).filter((m) => (m.data as any).id === orderId);
  assert.equal(started.length, 1);
  assert.equal((await mailsOf('order_confirmation')).filter((m) => (m.data as any).id === orderId).length, 0, 'a subscription start is not also an order confirmation');
  const sm = await captured(started[0].id);
  assert.match(sm.text_body!, /결제 주기: 매월/);
  assert.match(sm.text_body!, /다음 결제일: /);
  assert.match(sm.text_body!, /라이선스 키:/);

  const sub = await t.db.selectFrom('subscriptions').selectAll().where('id', '=', subscriptionId).executeTakeFirstOrThrow();
  t.clock.set(new Date(sub.current_period_end.getTime() + 1_000));
  await runBilling(t.deps, t.clock.now());
  const renewals = (await mailsOf('renewal_receipt')).filter((m) => (m.data as any).subscriptionId === subscriptionId);
  assert.equal(renewals.length, 1);
  assert.match((await captured(renewals[0].id)).subject!, /정기결제 영수증/);

  const cancel = await t.app.inject({ method: 'POST', url: `/v1/subscriptions/${subscriptionId}/cancel`, headers: post(s.key), payload: { timing: 'period_end' } });
  assert.equal(cancel.statusCode, 200, cancel.body);
  const canceled = (await mailsOf('cancellation_confirmed')).filter((m) => (m.data as any).id === subscriptionId);
  assert.equal(canceled.length, 1);
  assert.match((await captured(canceled[0].id)).text_body!, /이용 종료: /);
  const after = await t.db.selectFrom('subscriptions').selectAll().where('id', '=', subscriptionId).executeTakeFirstOrThrow();
  t.clock.set(new Date(after.current_period_end.getTime() + 1_000));
  await runBilling(t.deps, t.clock.now());
  const ended = (await mailsOf('subscription_ended')).filter((m) => (m.data as any).id === subscriptionId);
  assert.equal(ended.length, 1);
  assert.match((await captured(ended[0].id)).text_body!, /해지되었습니다/);
  t.clock.set('2026-11-01T00:00:00.000Z');
});

test('a failed renewal mails payment failed with the next retry and a portal link the buyer can open', async () => {
  const p = await createSubscriptionProduct(t, s, {});
  const { subscriptionId } = await subscribe(t, s, { productId: p.id, cardNumber: TEST_CARDS.renewalDeclined });
  const sub = await t.db.selectFrom('subscriptions').selectAll().where('id', '=', subscriptionId).executeTakeFirstOrThrow();
  t.clock.set(new Date(sub.current_period_end.getTime() + 1_000));
  await runBilling(t.deps, t.clock.now());
  const failed = (await mailsOf('payment_failed')).filter((m) => (m.data as any).id === subscriptionId);
  assert.equal(failed.length, 1);
  const m = await captured(failed[0].id);
  assert.match(m.text_body!, /다음 재시도: /);
  const link = /카드 변경하기: (\S+)/.exec(m.text_body!)?.[1];
  assert.ok(link, m.text_body!);
  const page = await t.app.inject({ url: new URL(link).pathname });
  assert.equal(page.statusCode, 200, 'the portal link in the mail opens the portal');
  t.clock.set('2026-11-01T00:00:00.000Z');
});

test('yearly plans: the renewal notice is written once per period MAIL_RENEWAL_NOTICE_DAYS before, and mailed; monthly plans get none', async () => {
  const p = await createSubscriptionProduct(t, s, {});
  const yearly = await subscribe(t, s, { productId: p.id, interval: 'yearly' });
  const monthly = await subscribe(t, s, { productId: p.id, interval: 'monthly' });
  const sub = await t.db.selectFrom('subscriptions').selectAll().where('id', '=', yearly.subscriptionId).executeTakeFirstOrThrow();
  const days = t.deps.config.mailRenewalNoticeDays;
  assert.equal(days, 30);
  t.clock.set(new Date(sub.current_period_end.getTime() - days * DAY - 1_000));
  assert.equal(await runRenewalNoticesOnce(t.deps, t.clock.now()), 0, 'not yet');
  t.clock.set(new Date(sub.current_period_end.getTime() - days * DAY + 1_000));
  assert.equal(await runRenewalNoticesOnce(t.deps, t.clock.now()), 1);
  assert.equal(await runRenewalNoticesOnce(t.deps, t.clock.now()), 0, 'safe to run twice');
  const events = (await t.db.selectFrom('events').select('data').where('type', '=', 'subscription.updated').execute()).map((e) => e.data as any).filter((d) => d.change.kind === 'renewal_upcoming');
  assert.deepEqual(events.map((e) => e.id), [yearly.subscriptionId]);
  assert.deepEqual(events[0].change, { kind: 'renewal_upcoming', renewsAt: sub.current_period_end.toISOString(), amount: 99_000 });
  const mails = await mailsOf('renewal_upcoming');
  assert.equal(mails.length, 1);
  assert.ok(!mails.some((m) => (m.data as any).id === monthly.subscriptionId));
  const m = await captured(mails[0].id);
  assert.match(m.text_body!, /99,000원/);
  t.clock.set('2026-11-01T00:00:00.000Z');
});

test('trial and price-change notices the other modules emit are mailed: trial_will_end, price_change_scheduled, price_change_accepted; subscription.ended by price_change_declined says no charge', async () => {
  const p = await createSubscriptionProduct(t, s, {});
  const { subscriptionId } = await subscribe(t, s, { productId: p.id });
  const row = await t.db.selectFrom('subscriptions').selectAll().where('id', '=', subscriptionId).executeTakeFirstOrThrow();
  const emit = (type: string, data: Record<string, unknown>) =>
    t.db.transaction().execute((trx) => writeEvent(trx, t.clock, { storeId: s.storeId, mode: 'test', type, data: { ...subscriptionView(row), ...data } }));
  await emit('subscription.updated', { change: { kind: 'trial_will_end', trialEndsAt: '2026-12-01T00:00:00.000Z', amount: 9_900, currency: 'KRW', interval: 'monthly' } });
  await emit('subscription.updated', {
    change: { kind: 'price_change_scheduled', priceChangeId: 'pc_1', planId: 'basic', currentAmount: 9_900, newAmount: 12_900, effectiveAt: '2027-01-01T00:00:00.000Z', decideBy: '2026-12-31T00:00:00.000Z' },
  });
  await emit('subscription.updated', { change: { kind: 'price_change_accepted', priceChangeId: 'pc_1', newAmount: 12_900, effectiveAt: '2027-01-01T00:00:00.000Z' } });
  await emit('subscription.ended', { status: 'ended', endReason: 'price_change_declined', endedAt: '2027-01-01T00:00:00.000Z' });
  await emit('subscription.updated', { change: { kind: 'card_updated' } });
  const ofSub = async (kind: string) => (await mailsOf(kind)).filter((m) => (m.data as any).id === subscriptionId);
  const [trial] = await ofSub('trial_will_end');
  assert.match((await captured(trial.id)).text_body!, /첫 결제일: 2026년 12월 1일/);
  const [price] = await ofSub('price_change_scheduled');
  const pm = await captured(price.id);
  assert.match(pm.text_body!, /12,900원/);
  // This buyer's own dates (issue 29 item 5): the first charge at the new price, and the end without consent, are `decideBy`.
  assert.match(pm.text_body!, /새 가격 첫 결제일: 2026년 12월 31일/);
  assert.match(pm.text_body!, /동의하지 않으시면 2026년 12월 31일[^\n]*까지 지금 가격으로 이용하신 뒤 그날 구독이 종료되며, 새 가격으로 결제되지 않습니다/);
  assert.match(pm.text_body!, /새 가격에 동의하기: http/);
  assert.equal((await ofSub('price_change_accepted')).length, 1);
  const [ended] = await ofSub('subscription_ended');
  assert.match((await captured(ended.id)).text_body!, /새 가격에 동의하지 않으셔서.*결제되지 않았습니다/);
  const all = await t.db.selectFrom('mail_outbox').select('kind').where('event_type', 'like', 'subscription.%').execute();
  assert.ok(!all.some((m) => !MAIL_KINDS.includes(m.kind as any)), 'card_updated writes no mail');
});

test('a seller-issued key: the confirmation waits for it (rendered at send time) and carries it once issued', async () => {
  const { createProduct: createLicenseProduct } = await import('../licenses/factory');
  const { insertPaidOrder } = await import('../refunds/factory');
  const { loadOrderView } = await import('../../src/orders/service');
  const { applyIssuedKey } = await import('../../src/licenses/issue-repo');
  const { keyColumns } = await import('../../src/licenses/keys');
  const productId = await createLicenseProduct(t, s.storeId, { licenseMode: 'seller', name: '판매자 발급 앱' });
  const orderId = await insertPaidOrder(t, s.storeId, productId, { licenses: true });
  await t.db.transaction().execute(async (trx) => {
    const order = (await loadOrderView(trx, orderId, t.deps))!;
    assert.equal(order.licenses[0].status, 'pending');
    await writeEvent(trx, t.clock, { storeId: s.storeId, mode: 'test', type: 'order.paid', data: { ...order, subscriptionEvent: null } });
  });
  const [mail] = (await mailsOf('order_confirmation')).filter((m) => (m.data as any).id === orderId);
  assert.equal((await captured(mail.id)).status, 'pending', 'waits while the seller has not issued the key');
  const lic = await t.db.selectFrom('licenses').select('id').where('order_id', '=', orderId).executeTakeFirstOrThrow();
  await applyIssuedKey(t.db, lic.id, keyColumns(t.deps.config.masterKey, 'SELLER-KEY-0001'), { expiresAt: null, maxActivations: 3 }, t.clock.now());
  t.clock.advance(60_000);
  const m = await captured(mail.id);
  assert.equal(m.status, 'captured');
  assert.ok(m.text_body!.includes('SELLER-KEY-0001'), 'the key issued after the payment is in the mail');
  t.clock.set('2026-11-01T00:00:00.000Z');
});
