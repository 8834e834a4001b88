import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore } from '../helpers/app';
import { createProduct, createSession, submitPayForm } from '../checkout/factory';
import { TEST_CARDS } from '../../src/payments';

test('payment form submissions are limited per session and per address (card-testing defence)', async () => {
  const t = await createTestApp({ config: { payAttemptsPerSession: 3, payAttemptsPerIpPerHour: 5 } });
  try {
    const s = await createTestStore(t);
    const product = await createProduct(t, s);
    const session = await createSession(t, s.key, { productId: product.id });
    for (let i = 0; i < 3; i++) {
      const declined = await submitPayForm(t, session, { cardNumber: TEST_CARDS.declined });
      assert.equal(declined.statusCode, 422, 'a declined card re-renders the form');
    }
    const limited = await submitPayForm(t, session, { cardNumber: TEST_CARDS.success });
    assert.equal(limited.statusCode, 429);
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    assert.match(limited.body, /결제 시도가 너무 많습니다/);
    const orders = await t.db.selectFrom('orders').select('id').where('checkout_session_id', '=', session.id).execute();
    assert.equal(orders.length, 0, 'the refused attempt did not pay');
    // Viewing the page stays possible.
    assert.equal((await t.app.inject({ url: new URL(session.url).pathname })).statusCode, 200);

    // The same address moving to fresh sessions hits the per-address limit (5 attempts, 4 used above).
    const other = await createSession(t, s.key, { productId: product.id });
    assert.equal((await submitPayForm(t, other, { cardNumber: TEST_CARDS.declined })).statusCode, 422);
    assert.equal((await submitPayForm(t, other, { cardNumber: TEST_CARDS.success })).statusCode, 429);
  } finally {
    await t.close();
  }
});
