import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, bearer, post, type TestApp, type TestStore } from '../helpers/app';
import { createProduct, createSession, formPost, owner, payPath, submitPayForm } from '../checkout/factory';
import { startFakeToss, type FakeToss } from '../payments/fake-toss';
import { updateModeSettings } from '../../src/stores/service';
import { ManualClock } from '../../src/platform/clock';

// Issue 41: 휴대폰 결제 and 상품권 against the Toss stand-in (test/payments/fake-toss.ts, built from Toss's Payment object
// and cancel reference; test/fixtures/toss/README.md). A phone payment paid and refunded in its KST month (a cancel on
// the phone bill), one refunded after its month to the buyer's own account, a 문화상품권 payment paid and refunded, and
// partial refunds refused with a Korean message before Toss is asked. Every figure exact.

let t: TestApp;
let s: TestStore;
let fake: FakeToss;
let live: string;
const clock = new ManualClock('2026-11-10T03:00:00.000Z'); // 12:00 KST, 10 November

before(async () => {
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

const refund = (orderId: string, body: Record<string, unknown>) => t.app.inject({ method: 'POST', url: `/v1/orders/${orderId}/refund`, headers: post(live), payload: body });
const getOrder = async (id: string) => (await t.app.inject({ url: `/v1/orders/${id}`, headers: bearer(live) })).json();
const cancels = (paymentKey: string) => fake.calls.filter((c) => c.method === 'POST' && c.path === `/v1/payments/${paymentKey}/cancel`);
const eventsOf = async (orderId: string) =>
  (await t.db.selectFrom('events').select(['type', 'data']).where('store_id', '=', s.storeId).orderBy('created_at').execute()).filter((e: any) => (e.data?.id ?? e.data?.order?.id) === orderId) as Array<{ type: string; data: any }>;

/** Pays `price` won by `method` through Toss's window: launch, the window's session, the success redirect. */
async function pay(method: string, windowMethod: string, keyPart: string, price: number) {
  const product = await createProduct(t, s, { mode: 'live', price });
  const session = await createSession(t, live, { productId: product.id });
  const orderId = (await t.db.selectFrom('checkout_sessions').select('pending_order_id').where('id', '=', session.id).executeTakeFirstOrThrow()).pending_order_id!;
  const page = await t.app.inject({ url: payPath(session) });
  assert.ok(page.body.includes(`value="${method}"`), `the pay page offers ${method}`);
  const launch = await submitPayForm(t, session, { method });
  assert.equal(launch.statusCode, 200, launch.body);
  assert.ok(launch.body.includes(`"method":"${windowMethod}"`), `Toss's window is asked for ${windowMethod}`);
  const paymentKey = `tpk_${keyPart}_${orderId}`;
  fake.requestPayment({ paymentKey, orderId, amount: price });
  const res = await t.app.inject({ url: `${payPath(session)}/toss/success?${new URLSearchParams({ paymentKey, orderId, amount: String(price) })}` });
  assert.ok(res.statusCode === 200 || res.statusCode === 303, res.body);
  return { orderId, paymentKey };
}

test('휴대폰 결제: paid (method mobile_phone on the order and its events), a partial refund refused before Toss is asked, refunded in full in its month as a plain cancel', async () => {
  const { orderId, paymentKey } = await pay('mobile_phone', 'MOBILE_PHONE', 'mobilephone', 33_000);
  const order = await getOrder(orderId);
  assert.equal(order.status, 'paid');
  assert.equal(order.method, 'mobile_phone');
  assert.equal(order.amount, 33_000);
  const paid = (await eventsOf(orderId)).find((e) => e.type === 'order.paid');
  assert.equal(paid?.data.method, 'mobile_phone', 'order.paid carries the method');
  assert.deepEqual(
    fake.transactions.filter((x) => x.paymentKey === paymentKey).map((x) => [x.method, x.status, x.amount]),
    [['휴대폰', 'DONE', 33_000]],
  );

  const partial = await refund(orderId, { amount: 10_000, reason: '부분 환불' });
  assert.equal(partial.statusCode, 409, partial.body);
  assert.equal(partial.json().code, 'REFUND_PARTIAL_NOT_ALLOWED');
  assert.equal(partial.json().message, '휴대폰 결제는 부분 환불을 할 수 없습니다. 남은 금액 33,000원 전액으로만 환불할 수 있습니다.');
  assert.equal(cancels(paymentKey).length, 0, 'Toss is not asked');

  clock.advance(15 * 86_400_000); // 25 November: still November in Korea
  const full = await refund(orderId, { reason: '구매 취소' });
  assert.equal(full.statusCode, 200, full.body);
  assert.equal(full.json().refund.amount, 33_000);
  assert.equal(full.json().order.status, 'refunded');
  assert.equal(full.json().order.refundedAmount, 33_000);
  const [call] = cancels(paymentKey);
  assert.equal(call.body.refundReceiveAccount, undefined, 'inside the month the phone bill is canceled: no account');
  assert.equal(call.body.cancelAmount, 33_000);
  assert.equal(fake.payments.get(paymentKey).status, 'CANCELED');
  assert.equal(fake.payments.get(paymentKey).balanceAmount, 0);
  const refunded = (await eventsOf(orderId)).find((e) => e.type === 'order.refunded');
  assert.equal(refunded?.data.order.method, 'mobile_phone');
  assert.equal(refunded?.data.refund.amount, 33_000);
  assert.deepEqual(
    fake.transactions.filter((x) => x.paymentKey === paymentKey).map((x) => [x.method, x.status, x.amount]),
    [['휴대폰', 'DONE', 33_000], ['휴대폰', 'CANCELED', 33_000]],
  );
});

test('휴대폰 결제 after its KST month: the refund asks for the buyer\'s account (receipt says so), the buyer gives it on the receipt, and Toss is sent refundReceiveAccount', async () => {
  clock.set('2026-11-30T14:00:00.000Z'); // 23:00 KST on 30 November
  const { orderId, paymentKey } = await pay('mobile_phone', 'MOBILE_PHONE', 'mobilephone', 27_500);
  const order = await getOrder(orderId);
  const receipt = new URL(order.receiptUrl);
  const inMonth = await t.app.inject({ url: `${receipt.pathname}${receipt.search}` });
  assert.match(inMonth.body, /휴대폰 결제는 결제한 달\(2026년 11월, 한국 시간\) 안에 환불되면/);
  // A 청약철회 request filed now is approved automatically in December: it must carry the buyer's account already.
  const token = receipt.searchParams.get('t')!;
  const noAccount = await formPost(t, `${receipt.pathname}/refund-request`, { t: token, reason: '단순 변심' });
  assert.equal(noAccount.statusCode, 422, noAccount.body);
  assert.match(noAccount.body, /결제한 달이 지나 환불될 수 있는 휴대폰 결제는 환불받을 본인 계좌가 있어야 요청할 수 있습니다/);
  assert.equal((await t.db.selectFrom('refund_requests').select('id').where('order_id', '=', orderId).execute()).length, 0);

  clock.advance(2 * 3_600_000); // 01:00 KST on 1 December: the month has turned in Korea (still 30 November in UTC)
  const missing = await refund(orderId, { reason: '구매 취소' });
  assert.equal(missing.statusCode, 409, missing.body);
  assert.equal(missing.json().code, 'REFUND_ACCOUNT_REQUIRED');
  assert.match(missing.json().message, /휴대폰 결제는 결제한 달\(한국 시간\)이 지나면 결제 취소가 되지 않아, 구매자 본인 계좌로 환불합니다/);
  assert.equal(missing.json().details.reason, 'phone_after_month');
  assert.equal(cancels(paymentKey).length, 0);

  const page = await t.app.inject({ url: `${receipt.pathname}${receipt.search}` });
  assert.match(page.body, /결제한 달\(2026년 11월\)이 지나 이 결제는 취소할 수 없습니다/);
  assert.match(page.body, /id="refund-account-form"/);
  const saved = await formPost(t, `${receipt.pathname}/refund-account`, { t: token, bankCode: '88', accountNumber: '110-123-456789', holderName: '김구매' });
  assert.equal(saved.statusCode, 303, saved.body);
  const after = await t.app.inject({ url: `${receipt.pathname}${receipt.search}` });
  assert.match(after.body, /신한 \*\*\*\*6789 \(김구매\)/);

  const done = await refund(orderId, { reason: '구매 취소' });
  assert.equal(done.statusCode, 200, done.body);
  assert.equal(done.json().refund.amount, 27_500);
  assert.equal(done.json().order.status, 'refunded');
  const [call] = cancels(paymentKey);
  assert.deepEqual(call.body.refundReceiveAccount, { bank: '88', accountNumber: '110123456789', holderName: '김구매' });
  assert.equal(fake.payments.get(paymentKey).balanceAmount, 0);
  assert.deepEqual(
    fake.transactions.filter((x) => x.paymentKey === paymentKey).map((x) => [x.status, x.amount]),
    [['DONE', 27_500], ['CANCELED', 27_500]],
  );
});

test('문화상품권: paid (method culture_gift), a partial refund and a partial refund request refused, refunded in full', async () => {
  const { orderId, paymentKey } = await pay('culture_gift', 'CULTURE_GIFT_CERTIFICATE', 'culturegift', 15_000);
  const order = await getOrder(orderId);
  assert.equal(order.status, 'paid');
  assert.equal(order.method, 'culture_gift');
  assert.equal(fake.payments.get(paymentKey).method, '문화상품권');

  const partial = await refund(orderId, { amount: 5_000 });
  assert.equal(partial.statusCode, 409, partial.body);
  assert.equal(partial.json().code, 'REFUND_PARTIAL_NOT_ALLOWED');
  assert.equal(partial.json().message, '문화상품권 결제는 부분 환불을 할 수 없습니다. 남은 금액 15,000원 전액으로만 환불할 수 있습니다.');
  assert.equal(cancels(paymentKey).length, 0);

  // The buyer's own request for part of it is refused when filed: no approval is promised that Toss would refuse.
  const receipt = new URL(order.receiptUrl);
  const page = await t.app.inject({ url: `${receipt.pathname}${receipt.search}` });
  assert.match(page.body, /휴대폰·상품권 결제는 부분 환불이 되지 않아 전액으로만 환불할 수 있습니다/);
  const asked = await formPost(t, `${receipt.pathname}/refund-request`, { t: receipt.searchParams.get('t')!, amount: '5000', reason: '일부만' });
  assert.equal(asked.statusCode, 409, asked.body);
  assert.match(asked.body, /문화상품권 결제는 부분 환불을 할 수 없습니다/);
  assert.equal((await t.db.selectFrom('refund_requests').select('id').where('order_id', '=', orderId).execute()).length, 0);

  const full = await refund(orderId, {});
  assert.equal(full.statusCode, 200, full.body);
  assert.equal(full.json().refund.amount, 15_000);
  assert.equal(full.json().order.refundedAmount, 15_000);
  assert.equal(fake.payments.get(paymentKey).status, 'CANCELED');
  assert.deepEqual(
    fake.transactions.filter((x) => x.paymentKey === paymentKey).map((x) => [x.method, x.status, x.amount]),
    [['문화상품권', 'DONE', 15_000], ['문화상품권', 'CANCELED', 15_000]],
  );
});

test('any Toss payment whose lookup says isPartialCancelable: false is never sent a partial cancel (PG_REFUND_FAILED, nothing moved)', async () => {
  const { orderId, paymentKey } = await pay('card', 'CARD', 'card', 20_000);
  fake.payments.get(paymentKey).isPartialCancelable = false; // e.g. a card payment with a 과세 제외 amount
  const partial = await refund(orderId, { amount: 5_000 });
  assert.equal(partial.statusCode, 502, partial.body);
  assert.equal(partial.json().code, 'PG_REFUND_FAILED');
  assert.equal(partial.json().details.gatewayCode, 'NOT_PARTIAL_CANCELABLE');
  assert.equal(cancels(paymentKey).length, 0, 'no cancel was sent');
  assert.equal((await getOrder(orderId)).refundedAmount ?? 0, 0);
  const full = await refund(orderId, {});
  assert.equal(full.statusCode, 200, full.body);
  assert.equal(full.json().order.refundedAmount, 20_000);
});

test('reconciliation: Toss\'s transactions of 휴대폰 and 상품권 payments and cancels match our orders and refunds (no difference)', async () => {
  const reconcile = async (date: string) => {
    const res = await t.app.inject({ method: 'POST', url: '/admin/v1/reconciliations', headers: owner(s), payload: { mode: 'live', date } });
    assert.equal(res.statusCode, 202, res.body);
    await t.deps.worker.runOnce();
    return (await t.app.inject({ url: `/admin/v1/reconciliations/${res.json().id}`, headers: owner(s) })).json();
  };
  // 10 November: the first phone payment (33,000); 1 December (KST): the second one's cancel (27,500), the 문화상품권
  // payment and cancel (15,000 each) and the card payment and cancel (20,000 each).
  const nov10 = await reconcile('2026-11-10');
  assert.equal(nov10.status, 'completed', JSON.stringify(nov10));
  assert.equal(nov10.gatewayTransactions, 1);
  assert.deepEqual(nov10.differences, []);
  const dec1 = await reconcile('2026-12-01');
  assert.equal(dec1.status, 'completed', JSON.stringify(dec1));
  assert.equal(dec1.gatewayTransactions, 5);
  assert.deepEqual(dec1.differences, []);
});

test('test mode (the simulator): 게임문화상품권 and 휴대폰 approved on the test approval page; the phone payment refunded after its KST month only with the buyer\'s account', async () => {
  clock.set('2026-12-31T10:00:00.000Z'); // 19:00 KST, 31 December
  const payTest = async (method: string, price: number) => {
    const product = await createProduct(t, s, { price });
    const session = await createSession(t, s.key, { productId: product.id });
    const submitted = await submitPayForm(t, session, { method });
    assert.ok(submitted.statusCode === 303 || submitted.statusCode === 200, submitted.body);
    const orderId = (await t.db.selectFrom('checkout_sessions').select('pending_order_id').where('id', '=', session.id).executeTakeFirstOrThrow()).pending_order_id!;
    const approve = await formPost(t, `${payPath(session)}/approve`, { decision: 'approve' });
    assert.ok(approve.statusCode < 400, approve.body);
    const order = (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(s.key) })).json();
    assert.equal(order.status, 'paid');
    assert.equal(order.method, method);
    return order;
  };
  const testRefund = (orderId: string, body: Record<string, unknown>) => t.app.inject({ method: 'POST', url: `/v1/orders/${orderId}/refund`, headers: post(s.key), payload: body });

  const game = await payTest('game_gift', 9_900);
  assert.equal((await testRefund(game.id, { amount: 900 })).json().code, 'REFUND_PARTIAL_NOT_ALLOWED');
  const gameDone = await testRefund(game.id, {});
  assert.equal(gameDone.statusCode, 200, gameDone.body);
  assert.equal(gameDone.json().order.refundedAmount, 9_900);

  const phone = await payTest('mobile_phone', 4_400);
  clock.advance(5 * 3_600_000); // 00:00 KST, 1 January
  const missing = await testRefund(phone.id, {});
  assert.equal(missing.json().code, 'REFUND_ACCOUNT_REQUIRED');
  const receipt = new URL(phone.receiptUrl);
  assert.equal((await formPost(t, `${receipt.pathname}/refund-account`, { t: receipt.searchParams.get('t')!, bankCode: '20', accountNumber: '1002123456789', holderName: '이구매' })).statusCode, 303);
  const done = await testRefund(phone.id, {});
  assert.equal(done.statusCode, 200, done.body);
  assert.equal(done.json().order.refundedAmount, 4_400);
  assert.equal(done.json().order.status, 'refunded');
});
