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

// A paid session can take no further payment, so its attempt count is released when it is paid: the counters hold
// only open sessions (issue 43: an hour's entry per paid session was the server heap's remaining growth in the soak),
// and a buyer who submits the form again after paying is told it is paid, not that they tried too often.
test('a session paid on its last allowed attempt releases its count: a later submission shows the payment, not 429', async () => {
  const t = await createTestApp({ config: { payAttemptsPerSession: 3, payAttemptsPerIpPerHour: 100 } });
  try {
    const s = await createTestStore(t);
    const product = await createProduct(t, s);
    const session = await createSession(t, s.key, { productId: product.id });
    for (let i = 0; i < 2; i++) assert.equal((await submitPayForm(t, session, { cardNumber: TEST_CARDS.declined })).statusCode, 422);
    const paid = await submitPayForm(t, session, { cardNumber: TEST_CARDS.success });
    assert.ok([200, 303].includes(paid.statusCode), `paid on the third attempt (${paid.statusCode})`);
    const again = await submitPayForm(t, session, { cardNumber: TEST_CARDS.success });
    assert.notEqual(again.statusCode, 429, 'the paid session no longer counts attempts');
    assert.doesNotMatch(again.body, /결제 시도가 너무 많습니다/);
    const orders = await t.db.selectFrom('orders').select('id').where('checkout_session_id', '=', session.id).execute();
    assert.equal(orders.length, 1, 'the second submission charged nothing');

    // An open session keeps its count: the limit still stops card testing on a session not yet paid.
    const open = await createSession(t, s.key, { productId: product.id });
    for (let i = 0; i < 3; i++) assert.equal((await submitPayForm(t, open, { cardNumber: TEST_CARDS.declined })).statusCode, 422);
    assert.equal((await submitPayForm(t, open, { cardNumber: TEST_CARDS.success })).statusCode, 429);
  } finally {
    await t.close();
  }
});

test('with Redis, a paid session leaves no attempt counter behind', { skip: process.env.REDIS_URL ? false : 'REDIS_URL not set' }, async () => {
  const prefix = `t${process.pid}x${Date.now()}:`;
  const t = await createTestApp({ redis: true, config: { redisKeyPrefix: prefix } });
  try {
    const { Redis } = await import('ioredis');
    const raw = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: 1 });
    try {
      const s = await createTestStore(t);
      const product = await createProduct(t, s);
      const declined = await createSession(t, s.key, { productId: product.id });
      assert.equal((await submitPayForm(t, declined, { cardNumber: TEST_CARDS.declined })).statusCode, 422);
      const paid = await createSession(t, s.key, { productId: product.id });
      assert.ok([200, 303].includes((await submitPayForm(t, paid, { cardNumber: TEST_CARDS.success })).statusCode));
      const keys = await raw.keys(`${prefix}rl_pay_session*`);
      assert.ok(keys.some((k) => k.includes(declined.id)), `the open session's counter is kept (${keys.join(', ')})`);
      assert.ok(!keys.some((k) => k.includes(paid.id)), `the paid session's counter is gone (${keys.join(', ')})`);
      if (keys.length) await raw.del(...keys);
      const rest = await raw.keys(`${prefix}*`);
      if (rest.length) await raw.del(...rest);
    } finally {
      raw.disconnect();
    }
  } finally {
    await t.close();
  }
});
