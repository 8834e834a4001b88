import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, bearer, type TestApp, type TestStore } from '../helpers/app';
import { AGREED, createSession, submitPayForm } from '../checkout/factory';
import { createSubscriptionProduct, getSubscription, subscribe } from './factory';
import { completePayment } from '../../src/checkout/service';
import { simulatorFor, TEST_CARDS } from '../../src/payments';
import type { CheckoutAttempt } from '../../src/checkout/tables';
import { CONSENT_VERSION } from '../../src/subscriptions/consent';

let t: TestApp;
let s: TestStore;

before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
});
after(async () => {
  await t.close();
});

const { agreeRecurring: _ticked, ...withoutConsent } = AGREED;

test('the subscription payment page refuses to pay without the separate recurring-charge consent ("전체 동의" does not give it): 422, a Korean message, nothing charged', async () => {
  const p = await createSubscriptionProduct(t, s);
  const session = await createSession(t, s.key, { productId: p.id, planId: 'basic', interval: 'monthly' });
  const page = await t.app.inject({ url: new URL(session.url).pathname });
  assert.match(page.body, /<input type="checkbox" name="agreeRecurring" id="agreeRecurring" value="on">/, 'unticked');
  assert.match(page.body, /id="recurring-amount">매월 9,900원</);
  assert.match(page.body, /id="recurring-next">2026년 12월 1일</);

  const variants: Record<string, string>[] = [{ ...withoutConsent, agreeRecurring: '' }, { agreeAll: 'on', agreeRecurring: '' }];
  for (const fields of variants) {
    const res = await submitPayForm(t, session, { cardNumber: TEST_CARDS.success, ...fields });
    assert.equal(res.statusCode, 422);
    assert.match(res.body, /id="agreeRecurring-err" role="alert">정기결제에 동의해 주세요/);
  }
  assert.equal(await t.db.selectFrom('orders').select('id').where('checkout_session_id', '=', session.id).executeTakeFirst(), undefined);
  assert.equal(await t.db.selectFrom('subscriptions').select('id').where('checkout_session_id', '=', session.id).executeTakeFirst(), undefined);
});

test('completePayment itself refuses a subscription payment whose attempt carries no consent (RECURRING_CONSENT_REQUIRED), before anything is reserved or charged', async () => {
  const p = await createSubscriptionProduct(t, s);
  const session = await createSession(t, s.key, { productId: p.id, planId: 'basic', interval: 'monthly' });
  const row = await t.db.selectFrom('checkout_sessions').selectAll().where('id', '=', session.id).executeTakeFirstOrThrow();
  const sim = simulatorFor(t.clock);
  const auth = sim.authorize({ method: 'card', cardNumber: TEST_CARDS.success, amount: 9_900, orderId: row.pending_order_id });
  assert.ok(auth.ok);
  const attempt: CheckoutAttempt = { buyerName: '김구매', buyerEmail: 'b@example.com', buyerPhone: '01012345678', method: 'card', couponCode: null, agreedAt: t.clock.now().toISOString() };
  const r = await completePayment(t.deps, { sessionId: session.id, attempt, provider: sim, paymentKey: auth.paymentKey, expectedAmount: 9_900, billingAuthKey: `sim_auth_${TEST_CARDS.success}` });
  assert.equal(r.kind, 'refused');
  assert.equal((r as any).code, 'RECURRING_CONSENT_REQUIRED');
  const after = await t.db.selectFrom('checkout_sessions').select(['status', 'payment']).where('id', '=', session.id).executeTakeFirstOrThrow();
  assert.equal(after.status, 'open');
  assert.equal(after.payment, null, 'nothing reserved');
});

test('the consent is kept with the subscription: the sentence shown (today\'s amount, the first recurring date, the cycle, how to cancel), its time and version', async () => {
  const p = await createSubscriptionProduct(t, s);
  const { subscriptionId } = await subscribe(t, s, { productId: p.id });
  const sub = await getSubscription(t, s.key, subscriptionId);
  assert.equal(sub.trialEndsAt, null);
  assert.equal(sub.trialing, false);
  assert.deepEqual(sub.recurringConsent, {
    text: '오늘 9,900원이 결제되고, 2026년 12월 1일부터 매월 9,900원이 등록한 카드로 자동 결제되는 것에 동의합니다. 구독 관리 페이지에서 언제든 해지할 수 있으며, 해지하면 다음 결제일부터 결제되지 않습니다.',
    consentedAt: t.clock.now().toISOString(),
  });
  const row = await t.db.selectFrom('subscriptions').select('recurring_consent').where('id', '=', subscriptionId).executeTakeFirstOrThrow();
  assert.equal(row.recurring_consent!.version, CONSENT_VERSION);
  // The list view carries it too.
  const list = (await t.app.inject({ url: `/v1/subscriptions?productId=${p.id}`, headers: bearer(s.key) })).json();
  assert.equal(list.data[0].recurringConsent.text, sub.recurringConsent.text);
});
