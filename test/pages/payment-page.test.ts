import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, bearer, type TestApp, type TestStore } from '../helpers/app';
import { BUYER, createCoupon, createProduct, createSession, createSubscriptionProduct, formPost, inputValue, payPath, submitPayForm } from '../checkout/factory';
import { TEST_CARDS, simulatorFor } from '../../src/payments';
import { getOrderPayment } from '../../src/orders/service';

let t: TestApp;
let s: TestStore;
before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
});
after(async () => {
  await t.close();
});

const orderCount = async (sessionId: string) => (await t.db.selectFrom('orders').select('id').where('checkout_session_id', '=', sessionId).execute()).length;
const noAgreements = { agreeTerms: '', agreePrivacy: '', agreeThirdParty: '' };

test('the page shows the description, the refund terms from refundPolicy, the agreements with their texts, the expiry time in 오전/오후', async () => {
  const p = await createProduct(t, s, {
    name: '데스크톱 앱',
    description: '기기 3대까지 쓰는 영구 라이선스입니다.',
    refundPolicy: { refundDays: 14, trialOffered: true, usageRestrictionMarked: true },
    license: { mode: 'service', maxActivations: 3, validityDays: null },
  });
  const session = await createSession(t, s.key, { productId: p.id });
  const page = (await t.app.inject({ url: payPath(session) })).body;
  assert.match(page, /id="product-description">기기 3대까지 쓰는 영구 라이선스입니다/);
  assert.match(page, /결제일로부터 14일 이내에는 청약철회/);
  assert.match(page, /활성화해 사용한 뒤에는 청약철회가 제한됩니다/);
  assert.match(page, /‘사용’은 이 주문의 라이선스 키를 기기에서 활성화한 것을 말합니다/);
  for (const name of ['agreeAll', 'agreeTerms', 'agreePrivacy', 'agreeThirdParty']) assert.match(page, new RegExp(`type="checkbox" name="${name}"`));
  assert.match(page, /전자금융거래 이용약관 동의/);
  assert.match(page, /<details><summary>내용 보기[\s\S]*?수집 항목: 이름, 이메일, 휴대폰 번호/, 'texts readable without JavaScript');
  assert.match(page, /제공받는 자: 주식회사 테스트상점\(판매자\)/);
  // The test clock is 2026-11-01T00:00Z: the session ends at 00:30Z, 9:30 in the morning in Korea.
  assert.match(page, /<strong>오전 9:30<\/strong>까지 사용할 수 있습니다/);
  assert.match(page, /data-remaining="1800"/);
  assert.ok(!/\b(AM|PM)\b/.test(page));

  const short = await createProduct(t, s, { refundPolicy: { refundDays: 3 } });
  const s2 = await createSession(t, s.key, { productId: short.id });
  assert.match((await t.app.inject({ url: payPath(s2) })).body, /결제일로부터 7일 이내에는/, 'never under the statutory 7 days');
  const sub = await createSubscriptionProduct(t, s, { refundPolicy: { penaltyRate: 10, clawbackDisclosed: true } });
  const s3 = await createSession(t, s.key, { productId: sub.id, planId: 'basic', interval: 'yearly' });
  const subPage = (await t.app.inject({ url: payPath(s3) })).body;
  assert.match(subPage, /남은 금액의 10% 위약금/);
  assert.match(subPage, /할인된 연간 요금제를 중도 해지하면/);
  assert.ok(!subPage.includes('name="installment"'), 'no 할부 for subscriptions');
});

test('paying needs every required agreement, checked on the server: 422 without them, nothing charged; "전체 동의" alone is enough', async () => {
  const p = await createProduct(t, s);
  const session = await createSession(t, s.key, { productId: p.id, successUrl: 'https://example.com/ok' });
  const refused = await submitPayForm(t, session, { cardNumber: TEST_CARDS.success, ...noAgreements, agreeTerms: 'on', agreePrivacy: 'on' });
  assert.equal(refused.statusCode, 422);
  assert.match(refused.body, /id="agreements-err"[^>]*>결제를 진행하려면 필수 약관에 모두 동의해 주세요/);
  assert.match(refused.body, /name="agreeTerms" id="agreeTerms" value="on" checked/, 'ticked boxes stay ticked');
  assert.equal(inputValue(refused.body, 'buyerPhone'), BUYER.buyerPhone);
  assert.equal(await orderCount(session.id), 0);

  const paid = await submitPayForm(t, session, { cardNumber: TEST_CARDS.success, ...noAgreements, agreeAll: 'on' });
  assert.equal(paid.statusCode, 303, paid.body);
  assert.equal(await orderCount(session.id), 1);
  const attempt = (await t.db.selectFrom('checkout_sessions').select('attempt').where('id', '=', session.id).executeTakeFirstOrThrow()).attempt;
  assert.equal(attempt?.agreedAt, t.clock.now().toISOString(), 'the consent time is kept with the attempt');
});

test('할부 is offered and accepted only for card payments of 50,000원 or more, and reaches the gateway', async () => {
  const big = await createProduct(t, s, { price: 50_000 });
  const small = await createProduct(t, s, { price: 49_000 });
  const bigSession = await createSession(t, s.key, { productId: big.id, successUrl: 'https://example.com/ok' });
  const bigPage = (await t.app.inject({ url: payPath(bigSession) })).body;
  assert.match(bigPage, /<select id="installment" name="installment">/);
  assert.match(bigPage, /<option value="0" selected>일시불<\/option>/);
  assert.match(bigPage, /<option value="12">12개월<\/option>/);
  const smallSession = await createSession(t, s.key, { productId: small.id });
  assert.ok(!(await t.app.inject({ url: payPath(smallSession) })).body.includes('name="installment"'));

  const wallet = await submitPayForm(t, bigSession, { method: 'kakao_pay', installment: '3' });
  assert.equal(wallet.statusCode, 422);
  assert.match(wallet.body, /id="installment-err"[^>]*>할부는 50,000원 이상 카드 결제에서만/);
  const under = await submitPayForm(t, smallSession, { cardNumber: TEST_CARDS.success, installment: '3' });
  assert.equal(under.statusCode, 422);
  assert.equal(await orderCount(smallSession.id), 0);

  const sim = simulatorFor(t.clock);
  const seen: unknown[] = [];
  const confirm = sim.confirmPayment.bind(sim);
  sim.confirmPayment = async (input) => {
    seen.push(input.installmentMonths);
    return confirm(input);
  };
  try {
    const paid = await submitPayForm(t, bigSession, { cardNumber: TEST_CARDS.success, installment: '3' });
    assert.equal(paid.statusCode, 303, paid.body);
  } finally {
    sim.confirmPayment = confirm;
  }
  assert.deepEqual(seen, [3], 'the provider is asked for 3 months');
  const auth = sim.authorize({ method: 'card', cardNumber: TEST_CARDS.success, amount: 10_000, orderId: 'ord_x' });
  assert.ok(auth.ok);
  const refused = await sim.confirmPayment({ paymentKey: auth.paymentKey, orderId: 'ord_x', amount: 10_000, idempotencyKey: 'k1', installmentMonths: 3 });
  assert.equal(refused.status === 'failed' && refused.code, 'INVALID_CARD_INSTALLMENT_PLAN', 'the simulator refuses 할부 under 50,000원 as a card company would');
});

test('the 할부 months the gateway approved stay with the order: the buyer\'s receipt and the seller\'s order page say how the card was charged', async () => {
  const big = await createProduct(t, s, { price: 60_000 });
  const pay = async (fields: Record<string, string>) => {
    const session = await createSession(t, s.key, { productId: big.id, successUrl: 'https://example.com/ok' });
    const paid = await submitPayForm(t, session, fields);
    assert.equal(paid.statusCode, 303, paid.body);
    const orderId = new URL(String(paid.headers.location)).searchParams.get('order_id')!;
    const order = (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(s.key) })).json();
    const receiptUrl = new URL(order.receiptUrl);
    const receipt = await t.app.inject({ url: receiptUrl.pathname + receiptUrl.search });
    assert.equal(receipt.statusCode, 200);
    const row = await t.db.selectFrom('orders').select('installment_months').where('id', '=', orderId).executeTakeFirstOrThrow();
    const method = /<dd id="payment-method">([^<]*)<\/dd>/.exec(receipt.body)?.[1];
    // The seller's dashboard order page reads it from here.
    const seller = await getOrderPayment(t.deps, { storeId: s.storeId, mode: 'test', productIds: null }, orderId);
    assert.equal(seller.installmentMonths, row.installment_months);
    return { months: row.installment_months, method };
  };
  assert.deepEqual(await pay({ cardNumber: TEST_CARDS.success, installment: '3' }), { months: 3, method: '신용·체크카드 (3개월 할부)' });
  assert.deepEqual(await pay({ cardNumber: TEST_CARDS.success }), { months: 0, method: '신용·체크카드 (일시불)' });
  // An easy-pay wallet has no card 할부: nothing is claimed about it.
  const wallet = await createSession(t, s.key, { productId: big.id, successUrl: 'https://example.com/ok' });
  await submitPayForm(t, wallet, { method: 'kakao_pay' });
  const approved = await formPost(t, `${payPath(wallet)}/approve`, { decision: 'approve' });
  assert.equal(approved.statusCode, 303, approved.body);
  const walletOrder = await t.db.selectFrom('orders').select('installment_months').where('checkout_session_id', '=', wallet.id).executeTakeFirstOrThrow();
  assert.equal(walletOrder.installment_months, null);
});

test('Enter pays: the payment form has one submit button, labelled with method and amount; the coupon has a form of its own', async () => {
  const p = await createProduct(t, s, { price: 12_000 });
  // A coupon that can apply to the product: the page offers the coupon field only then.
  await createCoupon(t, s, { code: 'ENTER10', productIds: [p.id] });
  const session = await createSession(t, s.key, { productId: p.id });
  const page = (await t.app.inject({ url: payPath(session) })).body;
  const payForm = /<form[^>]*id="pay-form"[\s\S]*?<\/form>/.exec(page)![0];
  assert.deepEqual([...payForm.matchAll(/<button[^>]*>([^<]*)<\/button>/g)].map((m) => m[1]), ['카드로 12,000원 결제']);
  assert.ok(!payForm.includes('apply_coupon'));
  const couponForm = /<form[^>]*id="coupon-form"[\s\S]*?<\/form>/.exec(page)![0];
  assert.match(couponForm, /name="couponCode"/);
  assert.match(couponForm, /name="action" value="apply_coupon"/);
  assert.match(payForm, /"text":"카카오페이로 12,000원 결제"|&quot;카카오페이로 12,000원 결제&quot;/);
  const kakao = await submitPayForm(t, session, { method: 'kakao_pay', buyerName: '' });
  assert.match(kakao.body, /<button class="pay" id="pay-button" type="submit">카카오페이로 12,000원 결제<\/button>/, 'the server renders the chosen method');
});

test('a decline says the card company refused and suggests another card or method; nothing is charged', async () => {
  const p = await createProduct(t, s);
  const session = await createSession(t, s.key, { productId: p.id });
  const res = await submitPayForm(t, session, { cardNumber: TEST_CARDS.declined });
  assert.equal(res.statusCode, 422);
  assert.match(res.body, /role="alert" id="banner">카드사가 결제를 거절했습니다\. 결제되지 않았으니 다른 카드나 다른 결제 수단으로 다시 시도해 주세요\./);
  const short = await submitPayForm(t, session, { cardNumber: TEST_CARDS.insufficientFunds });
  assert.match(short.body, /카드사가 결제를 거절했습니다 \(잔액이 부족합니다\)\. 결제되지 않았으니 다른 카드나/);
  assert.equal(await orderCount(session.id), 0);
});

test('the phone number is shown back as typed after a wallet approval is canceled (the order keeps its digits)', async () => {
  const p = await createProduct(t, s);
  const session = await createSession(t, s.key, { productId: p.id, successUrl: 'https://example.com/ok' });
  await submitPayForm(t, session, { method: 'kakao_pay', buyerPhone: '010 9876-5432' });
  const canceled = await formPost(t, `${payPath(session)}/approve`, { decision: 'cancel' });
  assert.equal(inputValue(canceled.body, 'buyerPhone'), '010 9876-5432');
  await submitPayForm(t, session, { method: 'kakao_pay', buyerPhone: '010 9876-5432' });
  const approval = await t.app.inject({ url: `${payPath(session)}/approve` });
  assert.match(approval.body, /카카오페이로 15,000원 결제 승인/);
  const paid = await formPost(t, `${payPath(session)}/approve`, { decision: 'approve' });
  const orderId = new URL(String(paid.headers.location)).searchParams.get('order_id');
  const order = (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(s.key) })).json();
  assert.equal(order.buyerPhone, '01098765432', 'documented: digits only');
});

test('unknown outcome (gateway timeout): the page refreshes itself, says how long, and ends on a clear failure with a way back once reconciliation releases it', async () => {
  const p = await createProduct(t, s);
  const session = await createSession(t, s.key, { productId: p.id, cancelUrl: 'https://example.com/cart' });
  const first = await submitPayForm(t, session, { cardNumber: TEST_CARDS.unknown });
  assert.equal(first.statusCode, 202);
  assert.match(first.body, new RegExp(`<meta http-equiv="refresh" content="10;url=/pay/${session.id}\\?checking=1">`));
  assert.match(first.body, /보통 1~2분 안에 끝나며/);
  assert.match(first.body, /10초마다 저절로 새로 고쳐집니다/);
  assert.match(first.body, /data-status-url="\/pay\/[^"]+\/status"/);
  assert.match(first.body, /href="https:\/\/example.com\/cart"/);
  const status = await t.app.inject({ url: `${payPath(session)}/status` });
  assert.deepEqual(status.json(), { status: 'checking' });
  const still = await t.app.inject({ url: `${payPath(session)}?checking=1` });
  assert.equal(still.statusCode, 202, 'a refresh before reconciliation keeps waiting');

  t.clock.advance(61_000);
  try {
    await t.deps.worker.runOnce();
    assert.deepEqual((await t.app.inject({ url: `${payPath(session)}/status` })).json(), { status: 'done' });
    const end = await t.app.inject({ url: `${payPath(session)}?checking=1` });
    assert.equal(end.statusCode, 200);
    assert.match(end.body, /결제가 승인되지 않았습니다/);
    assert.match(end.body, /청구되지 않았습니다/);
    assert.match(end.body, new RegExp(`href="/pay/${session.id}">다시 결제하기`));
    assert.match(end.body, /href="https:\/\/example.com\/cart">상점으로 돌아가기/);
    assert.ok(!end.body.includes('id="pay-form"'), 'not a bare form');
    assert.equal(await orderCount(session.id), 0);
  } finally {
    t.clock.advance(-61_000);
  }
});

test('unknown outcome that the gateway then confirms: the refresh lands on the successUrl (or the receipt)', async () => {
  const p = await createProduct(t, s);
  for (const successUrl of ['https://example.com/thanks', undefined]) {
    const session = await createSession(t, s.key, { productId: p.id, ...(successUrl ? { successUrl } : {}) });
    simulatorFor(t.clock).injectFailure('confirm', 'unknown');
    assert.equal((await submitPayForm(t, session, { cardNumber: TEST_CARDS.success })).statusCode, 202);
    t.clock.advance(61_000);
    try {
      await t.deps.worker.runOnce();
      const end = await t.app.inject({ url: `${payPath(session)}?checking=1` });
      if (successUrl) {
        assert.equal(end.statusCode, 303);
        assert.match(String(end.headers.location), /^https:\/\/example.com\/thanks\?order_id=ord_/);
      } else {
        assert.equal(end.statusCode, 200);
        assert.match(end.body, /결제가 완료되었습니다/);
        assert.match(end.body, /영수증 페이지 열기/);
      }
      assert.equal(await orderCount(session.id), 1);
    } finally {
      t.clock.advance(-61_000);
    }
  }
});

test('favicon and the enhancement script are served (no 404); pages link the icon', async () => {
  const ico = await t.app.inject({ url: '/favicon.ico' });
  assert.equal(ico.statusCode, 200);
  assert.match(String(ico.headers['content-type']), /image\/svg\+xml/);
  assert.equal((await t.app.inject({ url: '/favicon.svg' })).statusCode, 200);
  const js = await t.app.inject({ url: '/pay-assets/pay.js' });
  assert.equal(js.statusCode, 200);
  assert.match(String(js.headers['content-type']), /javascript/);
  const p = await createProduct(t, s);
  const session = await createSession(t, s.key, { productId: p.id });
  const page = await t.app.inject({ url: payPath(session) });
  assert.match(page.body, /<link rel="icon" href="\/favicon.svg"/);
  assert.match(String(page.headers['content-security-policy']), /script-src 'self'/);
});

test("live: the chosen 할부 is fixed in Toss's payment window (card.cardInstallmentPlan), 일시불 for 50,000원 or more when none was chosen", async () => {
  const { tossPaymentRequest } = await import('../../src/pages/pay/toss-view');
  const ctx = { session: { id: 'cs_x', pending_order_id: 'ord_x' }, product: { name: '상품' } } as never;
  const attempt = { buyerName: '김', buyerEmail: 'a@b.co', buyerPhone: '01012345678', method: 'card' as const, couponCode: null };
  assert.deepEqual(tossPaymentRequest(ctx, { ...attempt, installmentMonths: 6 }, 60_000, 'https://pay.example').card, { flowMode: 'DEFAULT', cardInstallmentPlan: 6 });
  assert.deepEqual(tossPaymentRequest(ctx, attempt, 60_000, 'https://pay.example').card, { flowMode: 'DEFAULT', cardInstallmentPlan: 0 });
  assert.deepEqual(tossPaymentRequest(ctx, attempt, 10_000, 'https://pay.example').card, { flowMode: 'DEFAULT' });
  assert.deepEqual(tossPaymentRequest(ctx, { ...attempt, method: 'kakao_pay' }, 60_000, 'https://pay.example').card, { flowMode: 'DIRECT', easyPay: 'KAKAOPAY' });
});
