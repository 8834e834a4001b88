import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore } from '../helpers/app';
import { createCoupon, createProduct, createSession, submitPayForm } from '../checkout/factory';
import { TEST_CARDS } from '../../src/payments';

/**
 * Applying a coupon charges nothing: it must not use up the payment attempts a session has (a buyer retyping a code
 * was answered 429 before paying). Coupon tries have their own limits against guessing codes.
 */
const apply = (t: Awaited<ReturnType<typeof createTestApp>>, session: { url: string }, code: string) => submitPayForm(t, session, { action: 'apply_coupon', couponCode: code, cardNumber: '' });

test('coupon tries do not count as payment attempts; their own per-session limit answers beside the coupon field', async () => {
  const t = await createTestApp({ config: { payAttemptsPerSession: 3, couponTriesPerSession: 5 } });
  try {
    const s = await createTestStore(t);
    const product = await createProduct(t, s, { price: 20_000 });
    await createCoupon(t, s, { code: 'SAVE10' });
    const session = await createSession(t, s.key, { productId: product.id, successUrl: 'http://localhost/thanks' });
    for (const code of ['SAVE01', 'SAVE1O', 'SAVEIO', 'SAVE11']) {
      const wrong = await apply(t, session, code);
      assert.equal(wrong.statusCode, 422, 'an unknown code is said on the form');
    }
    const right = await apply(t, session, 'SAVE10');
    assert.equal(right.statusCode, 200, 'the fifth try, within the coupon limit, applies');
    assert.match(right.body, /쿠폰이 적용되어 2,000원 할인됩니다/);

    const over = await apply(t, session, 'SAVE10');
    assert.equal(over.statusCode, 429);
    assert.ok(Number(over.headers['retry-after']) >= 1);
    assert.match(over.body, /쿠폰 입력 시도가 너무 많습니다\. \d+분 뒤에 다시 입력해 주세요/);
    assert.doesNotMatch(over.body, /쿠폰이 적용되어/, 'over the limit a code is not looked up, so a guess learns nothing');
    assert.match(over.body, /name="buyerEmail"[^>]*value="buyer@example.com"/, 'the rest of the form is kept');

    // Six coupon tries, and the session's three payment attempts are all still there: a decline, a decline, a payment.
    for (let i = 0; i < 2; i++) assert.equal((await submitPayForm(t, session, { cardNumber: TEST_CARDS.declined })).statusCode, 422);
    const paid = await submitPayForm(t, session, { cardNumber: TEST_CARDS.success, couponCode: 'SAVE10' });
    assert.equal(paid.statusCode, 303, paid.body);
    const order = await t.db.selectFrom('orders').select(['amount']).where('checkout_session_id', '=', session.id).executeTakeFirstOrThrow();
    assert.equal(Number(order.amount), 18_000, 'the coupon typed with the payment still applies');
  } finally {
    await t.close();
  }
});

test('coupon tries are limited per client address across sessions', async () => {
  const t = await createTestApp({ config: { couponTriesPerIpPerHour: 3 } });
  try {
    const s = await createTestStore(t);
    const product = await createProduct(t, s);
    await createCoupon(t, s, { code: 'SAVE10' });
    for (let i = 0; i < 3; i++) {
      const session = await createSession(t, s.key, { productId: product.id, successUrl: 'http://localhost/thanks' });
      assert.equal((await apply(t, session, `GUESS${i}`)).statusCode, 422);
    }
    const fresh = await createSession(t, s.key, { productId: product.id, successUrl: 'http://localhost/thanks' });
    assert.equal((await apply(t, fresh, 'SAVE10')).statusCode, 429, 'a new session does not reset the address limit');
    assert.equal((await submitPayForm(t, fresh, { cardNumber: TEST_CARDS.success })).statusCode, 303, 'paying is still possible');
  } finally {
    await t.close();
  }
});
