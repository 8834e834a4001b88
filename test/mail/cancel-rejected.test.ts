import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, createTestApp, createTestStore, type TestApp, type TestStore } from '../helpers/app';
import { owner } from '../checkout/factory';
import { createSubscriptionProduct, subscribe } from '../subscriptions/factory';
import { act, file } from '../refunds/requests/helpers';
import { runMailOnce } from '../../src/mail/dispatch';
import { cancelledAwaitingSeller, kst } from './cancel-rejected-setup';

/**
 * Issue 29 item 3: a portal cancel whose refund awaits the seller keeps the service; when the seller rejects that
 * request the subscription runs to its period end (`cancel_refund_rejected`). The buyer's mail used to be the generic
 * "the seller rejected your refund request", which left them to guess whether the service had ended; it now says the
 * request was rejected, that the service continues until the period end (KST) and that it then ends without charges.
 */
let t: TestApp;
let s: TestStore;
before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
});
after(async () => t?.close());

const mailsOf = (to: string, kind: string) => t.db.selectFrom('mail_outbox').selectAll().where('recipient', '=', to).where('kind', '=', kind).execute();

test('the seller rejects the refund of a portal cancel: the mail says rejected, the service runs until the period end (KST) and then ends with no further charge', async () => {
  const email = 'rejected-cancel@example.com';
  const sub = await cancelledAwaitingSeller(t, s, email);
  const rejected = await act({ t, s }, sub.requestId, 'reject', { reason: '이번 달 사용량이 많아 환불이 어렵습니다' });
  assert.equal(rejected.statusCode, 200, rejected.body);
  await runMailOnce(t.deps, t.clock.now());
  const mails = await mailsOf(email, 'refund_request_decided');
  assert.equal(mails.length, 1);
  const m = mails[0];
  assert.match(m.subject ?? '', /환불 요청이 거절되었습니다 · 구독은 기간 끝까지 이용할 수 있습니다/);
  const text = m.text_body ?? '';
  assert.match(text, /판매자가 클라우드 백업 구독 해지와 함께 하신 환불 요청을 거절했습니다/);
  // The period end: 2027-04-02 10:00 KST (the monthly period bought on 2027-03-02 10:00 KST).
  assert.match(text, /구독은 바로 끝나지 않고 2027년 4월 2일 오전 10:00 KST까지 그대로 이용하실 수 있습니다\. 그때 구독이 종료되며, 더는 결제되지 않습니다\./);
  assert.match(text, /이용 종료: 2027년 4월 2일 오전 10:00 KST/);
  assert.match(text, new RegExp(`요청 금액: ${sub.amount.toLocaleString('en-US')}원`));
  assert.match(text, /거절 사유: 이번 달 사용량이 많아 환불이 어렵습니다/);
  assert.match(m.html_body ?? '', /<th>이용 종료<\/th><td>2027년 4월 2일 오전 10:00 KST<\/td>/);
});

test('in English the same facts; a request filed on the receipt page and rejected keeps the plain rejection mail', async () => {
  const email = 'rejected-cancel-en@example.com';
  const sub = await cancelledAwaitingSeller(t, s, email, 'en');
  assert.equal((await act({ t, s }, sub.requestId, 'reject', { reason: 'used' })).statusCode, 200);
  await runMailOnce(t.deps, t.clock.now());
  const [m] = await mailsOf(email, 'refund_request_decided');
  assert.match(m.text_body ?? '', /you can keep using it until Apr 2, 2027, 10:00 AM KST\. It ends then, and you are not charged again\./);

  // A request filed on the order's receipt page (day 10: outside the window, the seller decides) and rejected: it is
  // about the order only, the subscription runs on and renews; the mail stays the plain rejection.
  const other = 'receipt-reject@example.com';
  t.clock.set(kst('2027-03-02T10:00:00'));
  const p = await createSubscriptionProduct(t, s, { name: '다른 구독' });
  const sub2 = await subscribe(t, s, { productId: p.id, buyerEmail: other });
  assert.equal((await t.app.inject({ method: 'POST', url: `/admin/v1/subscriptions/${sub2.subscriptionId}/test-clock/advance`, headers: owner(s), payload: { days: 10 } })).statusCode, 200);
  const order = (await t.app.inject({ url: `/v1/orders/${sub2.orderId}`, headers: bearer(s.key) })).json();
  const req = await file({ t, s }, order, { amount: '1000' });
  assert.equal(req.statutory, false);
  assert.equal((await act({ t, s }, req.id, 'reject', { reason: 'x' })).statusCode, 200);
  await runMailOnce(t.deps, t.clock.now());
  const [g] = await mailsOf(other, 'refund_request_decided');
  assert.match(g.subject ?? '', /환불 요청이 거절되었습니다$/);
  assert.doesNotMatch(g.text_body ?? '', /이용 종료|기간 끝/);
});
