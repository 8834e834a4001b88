import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, createTestApp, createTestStore, type TestApp, type TestStore } from '../helpers/app';
import { createCoupon, createProduct, createSession, createSubscriptionProduct, formPost, payPath, submitPayForm } from '../checkout/factory';
import { startFakeToss, type FakeToss } from '../payments/fake-toss';
import { updateModeSettings } from '../../src/stores/service';
import { ManualClock } from '../../src/platform/clock';

/**
 * The payment page offers only what can complete, and tells what will happen before the buyer pays.
 * - Before: subscription and trial pages offered 계좌이체 and 가상계좌 and refused them with 422 after the form was
 *   filled ("구독은 매 결제일에 등록한 카드로 자동결제됩니다…"); a 0원 trial page showed a coupon field that refuses every code.
 * - Before: with cashReceiptMandatory, a 120,000원 계좌이체 with "신청 안 함" was issued a 현금영수증 to 010-000-1234, but the
 *   page never said so, nor that the buyer may give their own number.
 */

let t: TestApp;
let s: TestStore;
let fake: FakeToss;
let live: string;
before(async () => {
  const clock = new ManualClock();
  fake = await startFakeToss({ kind: 'live', clock });
  t = await createTestApp({ clock, config: { tossApiBaseUrl: fake.baseUrl, tossTimeoutMs: 10_000 } });
  s = await createTestStore(t);
  await updateModeSettings(t.deps, s.storeId, 'live', { paymentProvider: 'toss', tossClientKey: fake.clientKey, tossSecretKey: fake.secretKey });
  live = (await s.newKey({ mode: 'live' })).key;
});
after(async () => {
  await t.close();
  await fake.close();
});

const offered = (page: string) => [...page.matchAll(/name="method" value="([a-z_]+)"/g)].map((m) => m[1]);
const setMandatory = (on: boolean) =>
  t.app.inject({ method: 'PATCH', url: '/admin/v1/store', headers: { ...bearer(s.ownerToken), 'content-type': 'application/json' }, payload: { cashReceiptMandatory: on } });

test('subscription and trial pages offer only the methods that make a billing key (card), test and live; a one-time page offers all; the server still refuses a bank method', async () => {
  const sub = await createSubscriptionProduct(t, s);
  const trial = await createSubscriptionProduct(t, s, { plans: [{ id: 'basic', name: '베이직', monthlyPrice: 9_900, yearlyPrice: 99_000, trialDays: 14 }] });
  const once = await createProduct(t, s, { price: 20_000 });
  for (const productId of [sub.id, trial.id]) {
    const session = await createSession(t, s.key, { productId, planId: 'basic', interval: 'monthly' });
    const page = (await t.app.inject({ url: payPath(session) })).body;
    assert.deepEqual(offered(page), ['card'], 'only the card the renewals charge');
    assert.doesNotMatch(page, /name="cashReceiptType"/);
    // Defence kept: a hand-made POST with a bank method is still refused, and nothing is charged.
    const bank = await submitPayForm(t, session, { method: 'transfer' });
    assert.equal(bank.statusCode, 422);
    // 휴대폰 and 상품권 are one-time only (issue 41: Toss documents no 자동결제 billing key for them).
    for (const method of ['mobile_phone', 'culture_gift']) assert.equal((await submitPayForm(t, session, { method })).statusCode, 422, method);
  }
  const liveSub = await createSubscriptionProduct(t, s, { mode: 'live' });
  const liveSession = await createSession(t, live, { productId: liveSub.id, planId: 'basic', interval: 'monthly' });
  assert.deepEqual(offered((await t.app.inject({ url: payPath(liveSession) })).body), ['card'], 'Toss registers a card for 자동결제');
  const onceSession = await createSession(t, s.key, { productId: once.id });
  assert.deepEqual(offered((await t.app.inject({ url: payPath(onceSession) })).body), ['card', 'kakao_pay', 'naver_pay', 'toss', 'transfer', 'virtual_account', 'mobile_phone', 'culture_gift', 'book_gift', 'game_gift']);
});

test('no coupon field where no coupon can apply (a 0원 trial; a store without a usable coupon for the product); shown where one can; a typed code keeps its message', async () => {
  const trial = await createSubscriptionProduct(t, s, { plans: [{ id: 'basic', name: '베이직', monthlyPrice: 9_900, yearlyPrice: 99_000, trialDays: 30 }] });
  const p = await createProduct(t, s, { price: 15_000 });
  const other = await createProduct(t, s, { price: 15_000 });
  await createCoupon(t, s, { code: 'TRIAL10' });
  const trialPage = (await t.app.inject({ url: payPath(await createSession(t, s.key, { productId: trial.id, planId: 'basic', interval: 'monthly' })) })).body;
  assert.match(trialPage, /id="trial-days"/);
  assert.doesNotMatch(trialPage, /id="coupon-form"/, 'a 0원 trial: no coupon can apply');
  assert.doesNotMatch(trialPage, /id="couponCode"/);

  // Only coupons for another product, one archived, one used up: none can apply to p.
  await createCoupon(t, s, { code: 'OTHER', productIds: [other.id] });
  const used = await createCoupon(t, s, { code: 'ONCE', productIds: [p.id], maxRedemptions: 1 });
  await t.db.updateTable('coupons').set({ redeemed_count: 1 }).where('id', '=', used.id).execute();
  await t.db.updateTable('coupons').set({ product_ids: JSON.stringify([other.id]) as any }).where('code', '=', 'TRIAL10').execute();
  const session = await createSession(t, s.key, { productId: p.id });
  assert.doesNotMatch((await t.app.inject({ url: payPath(session) })).body, /id="coupon-form"/);
  // A typed code still gets its answer (the server refuses it and says why).
  const typed = await formPost(t, payPath(session), { action: 'apply_coupon', couponCode: 'NOPE' });
  assert.equal(typed.statusCode, 422);
  assert.match(typed.body, /id="couponCode-err"/);
  // A coupon that applies: the field is there.
  await createCoupon(t, s, { code: 'P15', productIds: [p.id] });
  assert.match((await t.app.inject({ url: payPath(session) })).body, /id="coupon-form"/);
});

test('현금영수증 의무발행: the notice (self-issue number 010-000-1234, or your own number) is on the page only when the store, the amount after the coupon and a bank method make it apply', async () => {
  const big = await createProduct(t, s, { price: 120_000 });
  const small = await createProduct(t, s, { price: 99_000 });
  await createCoupon(t, s, { code: 'BIG30', productIds: [big.id], discountType: 'fixed', discountValue: 30_000 });
  const notice = /id="cash-receipt-mandatory"/;
  const bigSession = await createSession(t, s.key, { productId: big.id });
  assert.doesNotMatch((await t.app.inject({ url: payPath(bigSession) })).body, notice, 'the store is not 의무발행');
  assert.equal((await setMandatory(true)).statusCode, 200);
  try {
    const page = (await t.app.inject({ url: payPath(bigSession) })).body;
    assert.match(page, notice);
    const text = /<p class="banner info" id="cash-receipt-mandatory">([^<]*)<\/p>/.exec(page)![1];
    assert.match(text, /"신청 안 함"을 선택해도 현금영수증이 국세청 자진발급번호\(010-000-1234\)로 발급됩니다/);
    assert.match(text, /본인 명의로 받으려면/);
    // Inside the 현금영수증 fieldset, which the layout shows only with 계좌이체·가상계좌 chosen (CSS, no script needed).
    const fieldset = /<fieldset class="cash-fields"[\s\S]*?<\/fieldset>/.exec(page)![0];
    assert.match(fieldset, notice);
    // The amount after the coupon decides: 120,000 − 30,000 = 90,000원 is under the threshold.
    const couponed = await formPost(t, payPath(bigSession), { action: 'apply_coupon', couponCode: 'BIG30' });
    assert.equal(couponed.statusCode, 200);
    assert.match(couponed.body, /id="total">90,000원/);
    assert.doesNotMatch(couponed.body, notice);
    const smallSession = await createSession(t, s.key, { productId: small.id });
    assert.doesNotMatch((await t.app.inject({ url: payPath(smallSession) })).body, notice, '99,000원: not mandatory');

    // What the page said is what happens: "신청 안 함" on a 120,000원 transfer is issued to the self-issue number.
    const submitted = await submitPayForm(t, bigSession, { method: 'transfer', cashReceiptType: 'none' });
    assert.equal(submitted.statusCode, 303, submitted.body);
    const done = await formPost(t, `${payPath(bigSession)}/approve`, { decision: 'approve' });
    assert.ok(done.statusCode === 200 || done.statusCode === 303, done.body);
    const orderId = (await t.db.selectFrom('checkout_sessions').select('order_id').where('id', '=', bigSession.id).executeTakeFirstOrThrow()).order_id!;
    const order = (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(s.key) })).json();
    assert.equal(order.cashReceipt.requestedBy, 'mandatory');
  } finally {
    await setMandatory(false);
  }
});
