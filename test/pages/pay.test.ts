import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, bearer, type TestApp, type TestStore } from '../helpers/app';
import {
  BUYER,
  createCoupon,
  createProduct,
  createSession,
  createSubscriptionProduct,
  formPost,
  inputValue,
  payPath,
  submitPayForm,
} from '../checkout/factory';
import { TEST_CARDS, simulatorFor } from '../../src/payments';

let t: TestApp;
let s: TestStore;
let product: any;

before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
  product = await createProduct(t, s, { name: '전자책 <특별판>', price: 15_000 });
});
after(async () => {
  await t.close();
});

const orderCount = async (sessionId: string) =>
  (await t.db.selectFrom('orders').select('id').where('checkout_session_id', '=', sessionId).execute()).length;
const soldCount = async (productId: string) => (await t.db.selectFrom('products').select('sold_count').where('id', '=', productId).executeTakeFirstOrThrow()).sold_count;

test('the page shows the product, amount, prefilled buyer, methods, coupon field and cancel link, escaped, on a phone viewport', async () => {
  const session = await createSession(t, s.key, {
    productId: product.id,
    customer: { name: '홍"길동', email: 'hong@example.com', phone: '010-1111-2222' },
    cancelUrl: 'https://example.com/cart?x=1&y=2',
  });
  const res = await t.app.inject({ url: payPath(session) });
  assert.equal(res.statusCode, 200);
  assert.match(String(res.headers['content-type']), /text\/html/);
  assert.equal(res.headers['x-frame-options'], 'DENY');
  const page = res.body;
  assert.match(page, /<html lang="ko">/);
  assert.match(page, /name="viewport" content="width=device-width, initial-scale=1"/);
  assert.ok(page.includes('전자책 &lt;특별판&gt;'), 'product name escaped');
  assert.ok(!page.includes('<특별판>'));
  assert.ok(page.includes('15,000원'));
  assert.equal(inputValue(page, 'buyerName'), '홍&quot;길동');
  assert.equal(inputValue(page, 'buyerEmail'), 'hong@example.com');
  assert.equal(inputValue(page, 'buyerPhone'), '010-1111-2222');
  for (const m of ['card', 'kakao_pay', 'naver_pay', 'toss']) assert.ok(page.includes(`name="method" value="${m}"`), m);
  assert.ok(page.includes('name="couponCode"'));
  assert.ok(page.includes('name="cardNumber"'));
  assert.ok(page.includes('href="https://example.com/cart?x=1&amp;y=2"'));
  // The page works without JavaScript: the one script is same-origin, deferred, and only enhances.
  assert.deepEqual([...page.matchAll(/<script[^>]*>/gi)].map((m) => m[0]), ['<script src="/pay-assets/pay.js" defer>']);
});

test('paying with the success card redirects (303) to successUrl with order_id and session_id added to its query', async () => {
  const session = await createSession(t, s.key, {
    productId: product.id,
    successUrl: 'https://example.com/thanks?ref=ad#top',
    metadata: { userId: 'u_1', plan: '기본' },
  });
  const res = await submitPayForm(t, session, { cardNumber: '4242 4242 4242 4242' });
  assert.equal(res.statusCode, 303, res.body);
  const to = new URL(String(res.headers.location));
  assert.equal(to.origin + to.pathname, 'https://example.com/thanks');
  assert.equal(to.searchParams.get('ref'), 'ad');
  const orderId = to.searchParams.get('order_id')!;
  assert.equal(to.searchParams.get('session_id'), session.id);
  assert.equal(to.hash, '#top');

  const read = await t.app.inject({ url: `/v1/checkout/sessions/${session.id}`, headers: bearer(s.key) });
  assert.equal(read.json().status, 'completed');
  assert.equal(read.json().orderId, orderId);

  const order = (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(s.key) })).json();
  assert.equal(order.status, 'paid');
  assert.equal(order.amount, 15_000);
  assert.equal(order.currency, 'KRW');
  assert.equal(order.method, 'card');
  assert.equal(order.productName, '전자책 <특별판>');
  assert.equal(order.checkoutSessionId, session.id);
  assert.equal(order.buyerName, BUYER.buyerName);
  assert.equal(order.buyerEmail, BUYER.buyerEmail);
  assert.equal(order.buyerPhone, '01012345678');
  assert.deepEqual(order.metadata, { userId: 'u_1', plan: '기본' });
  assert.equal(order.coupon, null);
  assert.equal(order.paidAt, t.clock.now().toISOString());
  assert.equal(order.planId, null);
  assert.equal(order.periodStart, null);
  assert.deepEqual(order.refunds, []);
  assert.equal(order.refundedAmount, null);

  // metadata round trip into the outbox: the order.paid event carries the order, metadata included
  const events = await t.db.selectFrom('events').selectAll().where('type', '=', 'order.paid').execute();
  const ev = events.find((e) => (e.data as any).id === orderId)!;
  assert.ok(ev, 'order.paid written');
  assert.equal(ev.store_id, s.storeId);
  assert.equal(ev.mode, 'test');
  assert.deepEqual((ev.data as any).metadata, { userId: 'u_1', plan: '기본' });
  assert.equal((ev.data as any).subscriptionEvent, null);
  assert.deepEqual({ ...(ev.data as any), subscriptionEvent: undefined }, { ...order, subscriptionEvent: undefined });
});

test('without successUrl the buyer sees a receipt page', async () => {
  const session = await createSession(t, s.key, { productId: product.id });
  const res = await submitPayForm(t, session, { cardNumber: TEST_CARDS.success });
  assert.equal(res.statusCode, 200);
  assert.match(res.body, /결제가 완료되었습니다/);
  assert.match(res.body, /15,000원/);
});

test('invalid buyer input re-renders the form (422) with the error next to each field and the typed values kept', async () => {
  const session = await createSession(t, s.key, { productId: product.id });
  const res = await submitPayForm(t, session, { buyerName: '', buyerEmail: 'not-an-email', buyerPhone: '12', cardNumber: '' , couponCode: 'typed' });
  assert.equal(res.statusCode, 422);
  const page = res.body;
  assert.match(page, /id="buyerName-err"[^>]*>이름을 입력해 주세요/);
  assert.match(page, /id="buyerEmail-err"[^>]*>올바른 이메일 주소/);
  assert.match(page, /id="buyerPhone-err"[^>]*>올바른 휴대폰 번호/);
  assert.match(page, /id="cardNumber-err"[^>]*>카드 번호를 입력해 주세요/);
  assert.equal(inputValue(page, 'buyerEmail'), 'not-an-email');
  assert.equal(inputValue(page, 'buyerPhone'), '12');
  assert.equal(inputValue(page, 'couponCode'), 'typed');
  assert.equal(await orderCount(session.id), 0);
});

test('a card number failing the checksum is refused next to the card field and nothing is charged', async () => {
  const session = await createSession(t, s.key, { productId: product.id });
  const res = await submitPayForm(t, session, { cardNumber: '4242 4242 4242 4241' });
  assert.equal(res.statusCode, 422);
  assert.match(res.body, /id="cardNumber-err"[^>]*>카드 번호가 올바르지 않습니다/);
  assert.equal(inputValue(res.body, 'cardNumber'), '', 'the mistyped number is not rendered back');
  assert.ok(!res.body.includes('4241'), 'no digits of it anywhere in the page');
  assert.equal(inputValue(res.body, 'buyerName'), BUYER.buyerName);
});

/** Every way the 16 digits could appear in a page: plain, grouped by 4 with spaces, dashes or HTML-encoded spaces. */
function cardDigitsIn(page: string, digits: string): string[] {
  const groups = digits.match(/\d{4}/g)!;
  const forms = [digits, groups.join(' '), groups.join('-'), groups.join('&#32;'), groups.join('&nbsp;'), digits.slice(-8), `${groups[2]} ${groups[3]}`];
  return forms.filter((f) => page.includes(f));
}

test('after a decline the card number is never rendered back: the field is empty and no digits of it are in the page', async () => {
  const sim = simulatorFor(t.clock);
  // A valid card the gateway declines at confirm (not one of the test cards the page lists).
  const typed = '5105 1051 0510 5100';
  const session = await createSession(t, s.key, { productId: product.id });
  sim.injectFailure('confirm', 'failed');
  const declined = await submitPayForm(t, session, { cardNumber: typed });
  assert.equal(declined.statusCode, 422);
  assert.match(declined.body, /결제사에서 요청을 처리하지 못했습니다/, 'the decline is shown');
  assert.equal(inputValue(declined.body, 'cardNumber'), '', 'the field holds no value');
  assert.deepEqual(cardDigitsIn(declined.body, '5105105105105100'), []);
  assert.equal(inputValue(declined.body, 'buyerEmail'), BUYER.buyerEmail, 'the other fields are kept');
  assert.equal(await orderCount(session.id), 0);

  // The listed decline card: shown in the test-card list, never as the field's value.
  const listed = await submitPayForm(t, session, { cardNumber: TEST_CARDS.declined });
  assert.match(listed.body, /카드사가 결제를 거절했습니다/);
  assert.equal(inputValue(listed.body, 'cardNumber'), '');
  assert.equal(listed.body.split(TEST_CARDS.declined.replace(/(\d{4})(?=\d)/g, '$1 ')).length, 2, 'only in the test-card list');

  // Any other error on the form (here the e-mail) does not send the typed number back either.
  const other = await submitPayForm(t, session, { cardNumber: typed, buyerEmail: 'not-an-email' });
  assert.equal(other.statusCode, 422);
  assert.equal(inputValue(other.body, 'cardNumber'), '');
  assert.deepEqual(cardDigitsIn(other.body, '5105105105105100'), []);
  // And a coupon check (the other submit button) neither.
  const coupon = await submitPayForm(t, session, { cardNumber: typed, action: 'apply_coupon', couponCode: 'NOPE' });
  assert.deepEqual(cardDigitsIn(coupon.body, '5105105105105100'), []);
});

test('declined and insufficient-funds cards show the gateway message, release the stock and allow another try', async () => {
  const p = await createProduct(t, s, { stock: 1 });
  const session = await createSession(t, s.key, { productId: p.id });
  const declined = await submitPayForm(t, session, { cardNumber: TEST_CARDS.declined });
  assert.equal(declined.statusCode, 422);
  assert.match(declined.body, /카드사가 결제를 거절했습니다/);
  const short = await submitPayForm(t, session, { cardNumber: TEST_CARDS.insufficientFunds });
  assert.match(short.body, /잔액이 부족합니다/);
  assert.equal(await soldCount(p.id), 0);
  assert.equal(await orderCount(session.id), 0);
  const ok = await submitPayForm(t, session, { cardNumber: TEST_CARDS.success });
  assert.equal(ok.statusCode, 200);
  assert.equal(await soldCount(p.id), 1);
});

test('simple pay in test mode goes through the simulated approval page; cancel keeps the form, approve pays', async () => {
  const session = await createSession(t, s.key, { productId: product.id, successUrl: 'https://example.com/ok' });
  const first = await submitPayForm(t, session, { method: 'kakao_pay' });
  assert.equal(first.statusCode, 303);
  assert.equal(first.headers.location, `${payPath(session)}/approve`);
  const approval = await t.app.inject({ url: `${payPath(session)}/approve` });
  assert.equal(approval.statusCode, 200);
  assert.match(approval.body, /카카오페이 결제 승인/);
  assert.match(approval.body, /15,000원/);

  const canceled = await formPost(t, `${payPath(session)}/approve`, { decision: 'cancel' });
  assert.equal(canceled.statusCode, 422);
  assert.match(canceled.body, /id="method-err"[^>]*>간편결제 승인이 취소되었습니다/);
  assert.equal(inputValue(canceled.body, 'buyerEmail'), BUYER.buyerEmail);
  assert.equal(await orderCount(session.id), 0);

  await submitPayForm(t, session, { method: 'naver_pay' });
  const approved = await formPost(t, `${payPath(session)}/approve`, { decision: 'approve' });
  assert.equal(approved.statusCode, 303);
  const orderId = new URL(String(approved.headers.location)).searchParams.get('order_id')!;
  const order = (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(s.key) })).json();
  assert.equal(order.method, 'naver_pay');
});

test('coupons: 적용 re-renders with the discount; the order records the coupon and the amount after it', async () => {
  const p = await createProduct(t, s, { price: 9_999 });
  await createCoupon(t, s, { code: 'Pct15', discountType: 'percent', discountValue: 15 });
  const session = await createSession(t, s.key, { productId: p.id, successUrl: 'https://example.com/ok' });
  const applied = await submitPayForm(t, session, { action: 'apply_coupon', couponCode: 'pct15' });
  assert.equal(applied.statusCode, 200);
  // floor(9,999 × 15%) = 1,499 (1,499.85 rounded down); the buyer pays 8,500
  assert.ok(applied.body.includes('-1,499원'), applied.body);
  assert.ok(applied.body.includes('카드로 8,500원 결제'));
  assert.equal(inputValue(applied.body, 'couponCode'), 'pct15');

  const bad = await submitPayForm(t, session, { action: 'apply_coupon', couponCode: 'NOPE' });
  assert.equal(bad.statusCode, 422);
  assert.match(bad.body, /id="couponCode-err"[^>]*>존재하지 않는 쿠폰 코드입니다/);

  const paid = await submitPayForm(t, session, { couponCode: 'PCT15', cardNumber: TEST_CARDS.success });
  assert.equal(paid.statusCode, 303);
  const orderId = new URL(String(paid.headers.location)).searchParams.get('order_id')!;
  const order = (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(s.key) })).json();
  assert.equal(order.amount, 8_500);
  assert.deepEqual(order.coupon, { code: 'PCT15', name: '10% 할인', discountAmount: 1_499, originalAmount: 9_999, currency: 'KRW' });
  const coupon = await t.db.selectFrom('coupons').select('redeemed_count').where('code', '=', 'PCT15').executeTakeFirstOrThrow();
  assert.equal(coupon.redeemed_count, 1);
});

test('coupon limits: usage limit, validity window and product restriction are enforced at payment', async () => {
  const p = await createProduct(t, s, { price: 5_000 });
  const other = await createProduct(t, s, { price: 5_000 });
  await createCoupon(t, s, { code: 'ONCE', discountType: 'fixed', discountValue: 7_000, maxRedemptions: 1 });
  await createCoupon(t, s, { code: 'LATER', discountType: 'fixed', discountValue: 100, validFrom: new Date(t.clock.now().getTime() + 60_000).toISOString() });
  await createCoupon(t, s, { code: 'OTHERONLY', discountType: 'fixed', discountValue: 100, productIds: [other.id] });

  const a = await createSession(t, s.key, { productId: p.id });
  const later = await submitPayForm(t, a, { couponCode: 'LATER', cardNumber: TEST_CARDS.success });
  assert.match(later.body, /사용 기간이 시작되지 않은 쿠폰/);
  const wrong = await submitPayForm(t, a, { couponCode: 'otheronly', cardNumber: TEST_CARDS.success });
  assert.match(wrong.body, /이 상품에는 사용할 수 없는 쿠폰/);

  // a fixed discount above the price brings the amount to 0, never below: nothing is charged, the order is paid
  const free = await submitPayForm(t, a, { couponCode: 'once', cardNumber: TEST_CARDS.success });
  assert.equal(free.statusCode, 200, free.body);
  const order = await t.db.selectFrom('orders').selectAll().where('checkout_session_id', '=', a.id).executeTakeFirstOrThrow();
  assert.equal(order.amount, 0);
  assert.equal(order.coupon!.discountAmount, 5_000);

  const b = await createSession(t, s.key, { productId: p.id });
  const used = await submitPayForm(t, b, { couponCode: 'ONCE', cardNumber: TEST_CARDS.success });
  assert.equal(used.statusCode, 422);
  assert.match(used.body, /사용 한도가 모두 소진된 쿠폰/);
});

test('paying a completed session shows the completed page (409) and charges nothing more', async () => {
  const session = await createSession(t, s.key, { productId: product.id, successUrl: 'https://example.com/ok' });
  assert.equal((await submitPayForm(t, session, { cardNumber: TEST_CARDS.success })).statusCode, 303);
  const again = await submitPayForm(t, session, { cardNumber: TEST_CARDS.success });
  assert.equal(again.statusCode, 409);
  assert.match(again.body, /이미 결제가 완료되었습니다/);
  assert.ok(again.body.includes('order_id='), 'links back to the shop with the order');
  assert.equal((await t.app.inject({ url: payPath(session) })).statusCode, 409);
  assert.equal(await orderCount(session.id), 1);
});

test('an unknown session id gets a 404 page', async () => {
  for (const id of ['cs_00000000000000000000000000', 'nope', '..%2f..%2fetc']) {
    const res = await t.app.inject({ url: `/pay/${id}` });
    assert.equal(res.statusCode, 404);
    assert.match(String(res.headers['content-type']), /text\/html/);
  }
});

test('double pay: two concurrent submits of one session make exactly one order and one stock decrement', async () => {
  const p = await createProduct(t, s, { stock: 5 });
  const session = await createSession(t, s.key, { productId: p.id, successUrl: 'https://example.com/ok' });
  const results = await Promise.all([0, 1, 2].map(() => submitPayForm(t, session, { cardNumber: TEST_CARDS.success })));
  const statuses = results.map((r) => r.statusCode).sort();
  assert.equal(statuses.filter((c) => c === 303).length, 1, `one redirect: ${statuses}`);
  assert.ok(statuses.every((c) => c === 303 || c === 409 || c === 202), `others see completed or processing: ${statuses}`);
  assert.equal(await orderCount(session.id), 1);
  assert.equal(await soldCount(p.id), 1);
  const events = await t.db.selectFrom('events').select('data').where('type', '=', 'order.paid').execute();
  assert.equal(events.filter((e) => (e.data as any).checkoutSessionId === session.id).length, 1);
});

test('a submit while the first is still with the gateway gets the "처리 중" page, never a second charge', async () => {
  const p = await createProduct(t, s, { stock: 5 });
  const session = await createSession(t, s.key, { productId: p.id, successUrl: 'https://example.com/ok' });
  const sim = simulatorFor(t.clock);
  const original = sim.confirmPayment;
  let confirms = 0;
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let entered!: () => void;
  const inConfirm = new Promise<void>((r) => (entered = r));
  sim.confirmPayment = async (input) => {
    confirms++;
    entered();
    await gate;
    return original.call(sim, input);
  };
  try {
    const first = submitPayForm(t, session, { cardNumber: TEST_CARDS.success });
    await inConfirm;
    const second = await submitPayForm(t, session, { cardNumber: TEST_CARDS.success });
    assert.equal(second.statusCode, 202);
    assert.match(second.body, /결제를 처리하고 있습니다/);
    assert.match(second.body, /http-equiv="refresh"/);
    assert.equal((await t.app.inject({ url: payPath(session) })).statusCode, 202);
    release();
    assert.equal((await first).statusCode, 303);
  } finally {
    sim.confirmPayment = original;
  }
  assert.equal(confirms, 1, 'the gateway was asked once');
  assert.equal(await orderCount(session.id), 1);
  assert.equal(await soldCount(p.id), 1);
});

test('the last unit bought concurrently through two sessions: one order, the other buyer sees sold out', async () => {
  const p = await createProduct(t, s, { stock: 1 });
  const a = await createSession(t, s.key, { productId: p.id });
  const b = await createSession(t, s.key, { productId: p.id });
  const [ra, rb] = await Promise.all([submitPayForm(t, a, { cardNumber: TEST_CARDS.success }), submitPayForm(t, b, { cardNumber: TEST_CARDS.success })]);
  const codes = [ra.statusCode, rb.statusCode].sort();
  assert.deepEqual(codes, [200, 409]);
  const loser = ra.statusCode === 409 ? ra : rb;
  assert.match(loser.body, /품절되었습니다/);
  assert.equal(await soldCount(p.id), 1);
  const orders = await t.db.selectFrom('orders').select('id').where('product_id', '=', p.id).execute();
  assert.equal(orders.length, 1);
});

test('an unknown gateway outcome keeps the reservation, shows "확인 중", and reconciliation releases it when nothing was charged', async () => {
  const p = await createProduct(t, s, { stock: 1 });
  const session = await createSession(t, s.key, { productId: p.id });
  const res = await submitPayForm(t, session, { cardNumber: TEST_CARDS.unknown });
  assert.equal(res.statusCode, 202);
  assert.match(res.body, /결제 결과를 확인하고 있습니다/);
  assert.equal(await soldCount(p.id), 1, 'the unit stays held while the outcome is unknown');
  // paying again is refused while it is being checked (no double charge)
  const again = await submitPayForm(t, session, { cardNumber: TEST_CARDS.success });
  assert.equal(again.statusCode, 202);
  assert.equal(await orderCount(session.id), 0);

  // the job runs a minute later: the simulator reports the payment never approved → released
  await t.deps.worker.runOnce();
  assert.equal(await soldCount(p.id), 1, 'not before its time');
  t.clock.advance(61_000);
  try {
    await t.deps.worker.runOnce();
    assert.equal(await soldCount(p.id), 0);
    const page = await t.app.inject({ url: payPath(session) });
    assert.equal(page.statusCode, 200, 'the form is back');
    const ok = await submitPayForm(t, session, { cardNumber: TEST_CARDS.success });
    assert.equal(ok.statusCode, 200);
    assert.equal(await orderCount(session.id), 1);
  } finally {
    t.clock.advance(-61_000);
  }
});

test('a subscription order records plan, interval and the billing period (one calendar month, KST), with subscriptionEvent initial', async () => {
  const sub = await createSubscriptionProduct(t, s);
  t.clock.set('2027-01-30T16:00:00.000Z'); // 2027-01-31 01:00 KST
  try {
    const session = await createSession(t, s.key, { productId: sub.id, planId: 'basic', interval: 'monthly', successUrl: 'https://example.com/ok' });
    const res = await submitPayForm(t, session, { cardNumber: TEST_CARDS.success });
    const orderId = new URL(String(res.headers.location)).searchParams.get('order_id')!;
    const order = (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(s.key) })).json();
    assert.equal(order.amount, 9_900);
    assert.equal(order.planId, 'basic');
    assert.equal(order.billingInterval, 'monthly');
    assert.equal(order.periodStart, '2027-01-30T16:00:00.000Z');
    assert.equal(order.periodEnd, '2027-02-27T16:00:00.000Z'); // 2027-02-28 01:00 KST: January 31 has no February twin
    const ev = (await t.db.selectFrom('events').select('data').where('type', '=', 'order.paid').execute()).find((e) => (e.data as any).id === orderId)!;
    assert.equal((ev.data as any).subscriptionEvent, 'initial');
  } finally {
    t.clock.set('2026-11-01T00:00:00.000Z');
  }
});

test('paying for a product that issues licenses issues one in the same transaction as the order', async () => {
  const { sql } = await import('kysely');
  const p = await createProduct(t, s, { license: { mode: 'service', maxActivations: 3 } });
  const session = await createSession(t, s.key, { productId: p.id, successUrl: 'https://example.com/ok' });
  const res = await submitPayForm(t, session, { cardNumber: TEST_CARDS.success });
  assert.equal(res.statusCode, 303, res.body);
  const orderId = new URL(String(res.headers.location)).searchParams.get('order_id')!;
  const rows = await sql<{ n: number }>`select count(*)::int as n from licenses where order_id = ${orderId}`.execute(t.db);
  assert.equal(rows.rows[0].n, 1);
});
