import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, bearer, post, type TestApp, type TestStore } from '../helpers/app';
import { createCoupon, createProduct, createSession, formPost, payPath, submitPayForm } from '../checkout/factory';
import { startFakeToss, type FakeToss } from '../payments/fake-toss';
import { updateModeSettings } from '../../src/stores/service';
import { ManualClock } from '../../src/platform/clock';
import { withdrawalWindowEnd } from '../../src/platform/calendar';
import { COPY } from '../../src/pages/receipt/copy';

// 가상계좌: the order waits for the deposit (awaiting_deposit, order.awaiting_deposit), becomes paid only on a deposit
// notification whose secret is the payment's own AND a Toss lookup saying DONE (once, however often repeated), expires
// at its due date with its stock and coupon given back, and is refunded to the buyer's own account.

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

const refund = (key: string, orderId: string, body: Record<string, unknown>) => t.app.inject({ method: 'POST', url: `/v1/orders/${orderId}/refund`, headers: post(key), payload: body });
const getOrder = async (key: string, id: string) => (await t.app.inject({ url: `/v1/orders/${id}`, headers: bearer(key) })).json();
const soldCount = async (productId: string) => (await t.db.selectFrom('products').select('sold_count').where('id', '=', productId).executeTakeFirstOrThrow()).sold_count;
const events = async (orderId: string) =>
  (await t.db.selectFrom('events').select(['type', 'data']).where('store_id', '=', s.storeId).orderBy('created_at').execute()).filter((e: any) => e.data?.id === orderId).map((e) => e.type);
const webhook = (mode: string, body: unknown) => t.app.inject({ method: 'POST', url: `/gateway/toss/webhook/${s.storeId}/${mode}`, payload: body as any });

async function liveVirtualAccount(price = 30_000) {
  const product = await createProduct(t, s, { mode: 'live', price, stock: 3 });
  const session = await createSession(t, live, { productId: product.id });
  const orderId = (await t.db.selectFrom('checkout_sessions').select('pending_order_id').where('id', '=', session.id).executeTakeFirstOrThrow()).pending_order_id;
  const launch = await submitPayForm(t, session, { method: 'virtual_account' });
  assert.equal(launch.statusCode, 200, launch.body);
  assert.ok(launch.body.includes('"method":"VIRTUAL_ACCOUNT"'));
  assert.ok(launch.body.includes('"virtualAccount":{"cashReceipt":{"type":"미발행"},"useEscrow":false,"validHours":72}'), 'no 현금영수증 asked: 미발행');
  const paymentKey = `tpk_vaccount_${orderId}`;
  fake.requestPayment({ paymentKey, orderId, amount: price });
  const res = await t.app.inject({ url: `${payPath(session)}/toss/success?${new URLSearchParams({ paymentKey, orderId, amount: String(price) })}` });
  return { product, session, orderId, paymentKey, res };
}

test('live: the account is issued (awaiting_deposit with bank, number, holder, due date; order.awaiting_deposit); a forged callback changes nothing; the real one pays once however often repeated; the refund goes to the buyer\'s account', async () => {
  const { product, orderId, paymentKey, res } = await liveVirtualAccount();
  assert.equal(res.statusCode, 200, res.body);
  assert.match(res.body, /가상계좌가 발급되었습니다/);
  const payment = fake.payments.get(paymentKey);
  assert.ok(res.body.includes(payment.virtualAccount.accountNumber), 'the page shows the account number');
  assert.match(res.body, /우리/);
  let order = await getOrder(live, orderId);
  assert.equal(order.status, 'awaiting_deposit');
  assert.equal(order.method, 'virtual_account');
  assert.equal(order.paidAt, null);
  assert.equal(order.licenses.length, 0);
  assert.deepEqual(
    { bank: order.virtualAccount.bankName, number: order.virtualAccount.accountNumber, holder: order.virtualAccount.holderName, due: order.virtualAccount.dueAt, set: order.virtualAccount.refundAccountSet },
    { bank: '우리', number: payment.virtualAccount.accountNumber, holder: '김구매', due: new Date(payment.virtualAccount.dueDate).toISOString(), set: false },
  );
  assert.deepEqual(await events(orderId), ['order.awaiting_deposit']);
  assert.equal(await soldCount(product.id), 1, 'the unit stays reserved while waiting');
  // nothing to refund before the deposit
  assert.equal((await refund(live, orderId, {})).json().code, 'REFUND_NOT_PAID');

  // A forged callback (wrong secret) is refused before anything is asked of Toss, and changes nothing.
  const lookups = () => fake.calls.filter((c) => c.method === 'GET' && c.path === `/v1/payments/${paymentKey}`).length;
  const before = lookups();
  const forged = await webhook('live', { createdAt: '2026-11-01T09:00:00.000000', secret: 'ps_forged', orderId, status: 'DONE', transactionKey: 'X' });
  assert.equal(forged.statusCode, 200);
  await t.deps.worker.runOnce();
  assert.equal(lookups(), before);
  assert.equal((await getOrder(live, orderId)).status, 'awaiting_deposit');
  // The right secret while Toss still says WAITING_FOR_DEPOSIT: Toss is asked, nothing is recorded.
  const early = await webhook('live', { createdAt: '2026-11-01T09:00:00.000000', secret: payment.secret, orderId, status: 'DONE', transactionKey: 'X' });
  assert.equal(early.statusCode, 200);
  await t.deps.worker.runOnce();
  assert.equal(lookups(), before + 1);
  assert.equal((await getOrder(live, orderId)).status, 'awaiting_deposit');

  // The buyer deposits two days later; Toss posts DEPOSIT_CALLBACK, three times over.
  t.clock.advance(2 * 86_400_000);
  const callback = fake.deposit(paymentKey);
  for (let i = 0; i < 3; i++) assert.equal((await webhook('live', callback)).statusCode, 200);
  await t.deps.worker.runOnce();
  order = await getOrder(live, orderId);
  assert.equal(order.status, 'paid');
  assert.equal(order.paidAt, t.clock.now().toISOString(), 'paid at the deposit (withdrawal windows start here)');
  assert.equal(order.virtualAccount.depositedAt, t.clock.now().toISOString());
  assert.deepEqual(await events(orderId), ['order.awaiting_deposit', 'order.paid'], 'one order.paid for three callbacks');
  // The withdrawal window counts from the deposit, not from the account's issue two days earlier.
  const fromDeposit = COPY.ko.endOfDay(withdrawalWindowEnd(t.clock.now(), 7));
  const fromIssue = COPY.ko.endOfDay(withdrawalWindowEnd(new Date(order.createdAt), 7));
  assert.notEqual(fromDeposit, fromIssue);
  const paidReceipt = (await t.app.inject({ url: new URL(order.receiptUrl).pathname + new URL(order.receiptUrl).search })).body;
  assert.ok(paidReceipt.includes(`청약철회 기간: ${fromDeposit}까지`), 'the receipt states the window from the deposit');

  // Refund: the seller is told to get the buyer's account first; the buyer enters it on the receipt page (validated).
  const missing = await refund(live, orderId, { amount: 10_000, reason: '부분 환불' });
  assert.equal(missing.statusCode, 409, missing.body);
  assert.equal(missing.json().code, 'REFUND_ACCOUNT_REQUIRED');
  assert.equal(fake.calls.filter((c) => c.path === `/v1/payments/${paymentKey}/cancel`).length, 0);
  const receipt = new URL(order.receiptUrl);
  const token = receipt.searchParams.get('t')!;
  const page = await t.app.inject({ url: `${receipt.pathname}${receipt.search}` });
  assert.match(page.body, /환불 계좌/);
  assert.match(page.body, /아직 환불 계좌가 없습니다/);
  const bad = await formPost(t, `${receipt.pathname}/refund-account`, { t: token, bankCode: '99', accountNumber: '12-34', holderName: '' });
  assert.equal(bad.statusCode, 422);
  assert.match(bad.body, /환불받을 은행을 선택해 주세요/);
  assert.match(bad.body, /숫자 8~20자리/);
  assert.match(bad.body, /예금주를/);
  const wrongToken = await formPost(t, `${receipt.pathname}/refund-account`, { t: 'nope', bankCode: '88', accountNumber: '110-123-456789', holderName: '김구매' });
  assert.equal(wrongToken.statusCode, 404);
  const saved = await formPost(t, `${receipt.pathname}/refund-account`, { t: token, bankCode: '88', accountNumber: '110-123-456789', holderName: '김구매' });
  assert.equal(saved.statusCode, 303);
  const after = await t.app.inject({ url: `${receipt.pathname}${receipt.search}` });
  assert.match(after.body, /신한 \*\*\*\*6789 \(김구매\)/);
  assert.ok(!after.body.includes('110123456789'), 'the full account number is never shown back');
  const sealed = await t.db.selectFrom('order_virtual_accounts').select('refund_account_sealed').where('order_id', '=', orderId).executeTakeFirstOrThrow();
  assert.ok(!String(sealed.refund_account_sealed).includes('110123456789'), 'stored sealed');

  const part = await refund(live, orderId, { amount: 10_000, reason: '부분 환불' });
  assert.equal(part.statusCode, 200, part.body);
  const cancel = fake.calls.filter((c) => c.path === `/v1/payments/${paymentKey}/cancel`).at(-1)!;
  assert.deepEqual(cancel.body.refundReceiveAccount, { bank: '88', accountNumber: '110123456789', holderName: '김구매' });
  const rest = await refund(live, orderId, { reason: '나머지 환불' });
  assert.equal(rest.statusCode, 200, rest.body);
  assert.equal(rest.json().order.status, 'refunded');
  assert.equal(fake.payments.get(paymentKey).status, 'CANCELED');
});

test('a virtual account not deposited by its due date expires: order expired, order.expired, its stock and coupon given back; a late callback changes nothing', async () => {
  const coupon = await createCoupon(t, s, { mode: 'live', code: 'VA10', maxRedemptions: 1 });
  const product = await createProduct(t, s, { mode: 'live', price: 20_000, stock: 1 });
  const session = await createSession(t, live, { productId: product.id });
  const orderId = (await t.db.selectFrom('checkout_sessions').select('pending_order_id').where('id', '=', session.id).executeTakeFirstOrThrow()).pending_order_id;
  const launch = await submitPayForm(t, session, { method: 'virtual_account', couponCode: 'VA10' });
  assert.equal(launch.statusCode, 200, launch.body);
  const paymentKey = `tpk_vaccount_${orderId}`;
  const res = await t.app.inject({ url: `${payPath(session)}/toss/success?${new URLSearchParams({ paymentKey, orderId, amount: '18000' })}` });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal((await getOrder(live, orderId)).status, 'awaiting_deposit');
  assert.equal(await soldCount(product.id), 1);
  const redeemed = async () => (await t.db.selectFrom('coupons').select('redeemed_count').where('id', '=', coupon.id).executeTakeFirstOrThrow()).redeemed_count;
  assert.equal(await redeemed(), 1);
  // sold out meanwhile: nobody else can buy the unit the account holds
  const other = await createSession(t, live, { productId: product.id }).catch(() => null);
  assert.equal(other, null);

  t.clock.advance(71 * 3_600_000);
  await t.deps.worker.runOnce();
  assert.equal((await getOrder(live, orderId)).status, 'awaiting_deposit', 'not before the due date');
  t.clock.advance(2 * 3_600_000);
  await t.deps.worker.runOnce();
  const order = await getOrder(live, orderId);
  assert.equal(order.status, 'expired');
  assert.equal(await soldCount(product.id), 0, 'the unit is for sale again');
  assert.equal(await redeemed(), 0, 'the coupon redemption is given back');
  assert.deepEqual(await events(orderId), ['order.awaiting_deposit', 'order.expired']);
  await t.deps.worker.runOnce();
  assert.equal(await soldCount(product.id), 0, 'expiry runs once');
  // A callback after expiry (even a genuine one) changes nothing.
  const callback = fake.deposit(paymentKey);
  await webhook('live', callback);
  await t.deps.worker.runOnce();
  assert.equal((await getOrder(live, orderId)).status, 'expired');
});

test('test mode: 가상계좌 through the simulator; the receipt\'s button makes the deposit arrive; the console call does too', async () => {
  const product = await createProduct(t, s, { price: 12_000, stock: 5 });
  const session = await createSession(t, s.key, { productId: product.id });
  const submitted = await submitPayForm(t, session, { method: 'virtual_account' });
  assert.equal(submitted.statusCode, 303, submitted.body);
  const approval = await t.app.inject({ url: `${payPath(session)}/approve` });
  assert.match(approval.body, /가상계좌 발급/);
  const issued = await formPost(t, `${payPath(session)}/approve`, { decision: 'approve' });
  assert.equal(issued.statusCode, 200, issued.body);
  assert.match(issued.body, /가상계좌가 발급되었습니다/);
  const orderId = (await t.db.selectFrom('checkout_sessions').select('order_id').where('id', '=', session.id).executeTakeFirstOrThrow()).order_id!;
  // coming back to the payment page shows the account again, not "already paid"
  const again = await t.app.inject({ url: payPath(session) });
  assert.match(again.body, /가상계좌가 발급되었습니다/);
  assert.doesNotMatch(again.body, /이미 결제가 완료되었습니다/);
  let order = await getOrder(s.key, orderId);
  assert.equal(order.status, 'awaiting_deposit');
  assert.equal(order.virtualAccount.bankName, '신한');
  const receipt = new URL(order.receiptUrl);
  const page = await t.app.inject({ url: `${receipt.pathname}${receipt.search}` });
  assert.match(page.body, /입금하기 \(테스트 모드\)/);
  assert.ok(page.body.includes(order.virtualAccount.accountNumber));
  // The buyer deposits a few minutes later (events are listed by their time; the same instant would not order them).
  t.clock.advance(5 * 60_000);
  const deposit = await formPost(t, `${receipt.pathname}/test-deposit`, { t: receipt.searchParams.get('t')! });
  assert.equal(deposit.statusCode, 303);
  order = await getOrder(s.key, orderId);
  assert.equal(order.status, 'paid');
  assert.deepEqual(await events(orderId), ['order.awaiting_deposit', 'order.paid']);
  // twice: nothing more
  await formPost(t, `${receipt.pathname}/test-deposit`, { t: receipt.searchParams.get('t')! });
  assert.deepEqual(await events(orderId), ['order.awaiting_deposit', 'order.paid']);
  // the live receipt has no deposit button and its route answers 404
  const liveOrder = await t.db.selectFrom('orders').select(['id', 'receipt_token']).where('mode', '=', 'live').where('method', '=', 'virtual_account').executeTakeFirstOrThrow();
  const liveTry = await formPost(t, `/receipt/${liveOrder.id}/test-deposit`, { t: liveOrder.receipt_token });
  assert.equal(liveTry.statusCode, 404);
  // the console call does the same for another order
  const s2 = await createSession(t, s.key, { productId: product.id });
  await submitPayForm(t, s2, { method: 'virtual_account' });
  await formPost(t, `${payPath(s2)}/approve`, { decision: 'approve' });
  const order2 = (await t.db.selectFrom('checkout_sessions').select('order_id').where('id', '=', s2.id).executeTakeFirstOrThrow()).order_id!;
  const owner = { authorization: `Bearer ${s.ownerToken}` };
  const viaConsole = await t.app.inject({ method: 'POST', url: `/admin/v1/orders/${order2}/test-deposit`, headers: owner });
  assert.equal(viaConsole.statusCode, 200, viaConsole.body);
  assert.equal(viaConsole.json().status, 'paid');
  const liveViaConsole = await t.app.inject({ method: 'POST', url: `/admin/v1/orders/${liveOrder.id}/test-deposit`, headers: owner });
  assert.equal(liveViaConsole.statusCode, 404);
  // refund in test mode needs the account too, then goes through
  assert.equal((await refund(s.key, orderId, {})).json().code, 'REFUND_ACCOUNT_REQUIRED');
  await formPost(t, `${receipt.pathname}/refund-account`, { t: receipt.searchParams.get('t')!, bankCode: '06', accountNumber: '12345678901', holderName: '김구매' });
  const r = await refund(s.key, orderId, {});
  assert.equal(r.statusCode, 200, r.body);
});
