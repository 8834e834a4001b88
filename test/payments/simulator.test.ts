import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/platform/clock';
import { SimulatorProvider, type AuthorizeResult } from '../../src/payments/simulator';
import { TEST_CARDS } from '../../src/payments/simulator-cards';
import { isLuhnValid, normalizeCardNumber } from '../../src/payments/card';
import type { PaymentMethod } from '../../src/payments/method';

const ORDER = 'ord_simulator_test_1';

function setup() {
  const clock = new ManualClock();
  return { clock, sim: new SimulatorProvider({ clock }) };
}

function keyOf(r: AuthorizeResult): string {
  assert.equal(r.ok, true, JSON.stringify(r));
  return (r as { paymentKey: string }).paymentKey;
}

function authorizeCard(sim: SimulatorProvider, cardNumber: string, amount = 15000, orderId = ORDER): string {
  return keyOf(sim.authorize({ method: 'card', cardNumber, amount, orderId }));
}

const confirm = (sim: SimulatorProvider, paymentKey: string, amount = 15000, orderId = ORDER) =>
  sim.confirmPayment({ paymentKey, orderId, amount, idempotencyKey: `confirm-${paymentKey}` });

test('the documented test cards are Luhn-valid and normalization strips spaces and dashes', () => {
  for (const n of Object.values(TEST_CARDS)) assert.ok(isLuhnValid(n), n);
  assert.equal(normalizeCardNumber('4242 4242-4242 4242'), TEST_CARDS.success);
  assert.ok(!isLuhnValid('4242424242424241'), 'wrong check digit');
  assert.ok(!isLuhnValid('424242424242'), '12 digits is too short');
  assert.ok(!isLuhnValid('42424242424242424242'), '20 digits is too long');
  assert.ok(!isLuhnValid('4242x24242424242'));
});

test('success card confirms with the clock time and card method', async () => {
  const { sim, clock } = setup();
  const key = authorizeCard(sim, '4242 4242 4242 4242');
  const r = await confirm(sim, key);
  // 일시불 (0) unless the buyer chose 할부 months.
  assert.deepEqual(r, { status: 'succeeded', value: { paymentKey: key, approvedAt: clock.now(), method: 'card', installmentMonths: 0 } });
});

test('any other Luhn-valid card number succeeds', async () => {
  const { sim } = setup();
  const r = await confirm(sim, authorizeCard(sim, '5555-5555-5555-4444'));
  assert.equal(r.status, 'succeeded');
});

test('declined card fails with REJECT_CARD_PAYMENT and a Korean message', async () => {
  const { sim } = setup();
  const r = await confirm(sim, authorizeCard(sim, TEST_CARDS.declined));
  assert.deepEqual(r, { status: 'failed', code: 'REJECT_CARD_PAYMENT', message: '카드사에서 결제를 거절했습니다.' });
});

test('insufficient-funds card fails with NOT_ENOUGH_BALANCE', async () => {
  const { sim } = setup();
  const r = await confirm(sim, authorizeCard(sim, TEST_CARDS.insufficientFunds));
  assert.deepEqual(r, { status: 'failed', code: 'NOT_ENOUGH_BALANCE', message: '잔액이 부족합니다.' });
});

test('unknown card answers unknown, every time, and a lookup finds it never approved', async () => {
  const { sim } = setup();
  const key = authorizeCard(sim, TEST_CARDS.unknown);
  assert.equal((await confirm(sim, key)).status, 'unknown');
  assert.equal((await confirm(sim, key)).status, 'unknown');
  const lookup = await sim.lookupPayment(key);
  assert.equal(lookup.status, 'succeeded');
  assert.equal(lookup.status === 'succeeded' && lookup.value.status, 'failed');
});

test('malformed or non-Luhn card numbers are refused at authorize, on the cardNumber field', () => {
  const { sim } = setup();
  for (const cardNumber of [undefined, '', '4242424242424241', '1234', 'abcd abcd abcd abcd', '42424242424242424242']) {
    const r = sim.authorize({ method: 'card', cardNumber, amount: 1000, orderId: ORDER });
    assert.deepEqual(r, { ok: false, field: 'cardNumber', code: 'INVALID_CARD_NUMBER', message: '카드 번호가 올바르지 않습니다.' }, String(cardNumber));
  }
});

test('simple-pay methods: approval confirms with that method, denial is refused on the method field', async () => {
  const { sim } = setup();
  for (const method of ['kakao_pay', 'naver_pay', 'toss'] as PaymentMethod[]) {
    const denied = sim.authorize({ method, approved: false, amount: 9900, orderId: ORDER });
    assert.deepEqual(denied, { ok: false, field: 'method', code: 'PAY_PROCESS_CANCELED', message: '간편결제 승인이 취소되었습니다.' });
    const key = keyOf(sim.authorize({ method, approved: true, amount: 9900, orderId: ORDER }));
    const r = await confirm(sim, key, 9900);
    assert.equal(r.status, 'succeeded');
    assert.equal(r.status === 'succeeded' && r.value.method, method);
  }
});

test('confirm refuses an amount or order id other than the authorized one', async () => {
  const { sim } = setup();
  const key = authorizeCard(sim, TEST_CARDS.success, 15000, ORDER);
  const wrongAmount = await confirm(sim, key, 14000, ORDER);
  assert.equal(wrongAmount.status, 'failed');
  assert.equal(wrongAmount.status === 'failed' && wrongAmount.code, 'INVALID_REQUEST');
  const wrongOrder = await confirm(sim, key, 15000, 'ord_someone_else');
  assert.equal(wrongOrder.status === 'failed' && wrongOrder.code, 'INVALID_REQUEST');
  // A key whose amount was edited in transit is refused too (the MAC covers it).
  const edited = key.replace('_15000_', '_100_');
  const forged = await confirm(sim, edited, 100, ORDER);
  assert.equal(forged.status === 'failed' && forged.code, 'INVALID_REQUEST');
  // And the genuine request still goes through afterwards.
  assert.equal((await confirm(sim, key, 15000, ORDER)).status, 'succeeded');
});

test('confirm of a key the simulator never issued fails', async () => {
  const { sim } = setup();
  const r = await confirm(sim, 'tgen_not_a_simulator_key');
  assert.equal(r.status, 'failed');
});

test('confirm is idempotent by payment key: a second confirm returns the same success', async () => {
  const { sim, clock } = setup();
  const key = authorizeCard(sim, TEST_CARDS.success);
  const first = await confirm(sim, key);
  clock.advance(60_000);
  const second = await confirm(sim, key);
  assert.deepEqual(second, first);
});

test('a key confirmed by another simulator instance (another process, a restart) still confirms', async () => {
  const a = setup();
  const b = setup();
  const key = authorizeCard(a.sim, TEST_CARDS.success);
  assert.equal((await confirm(b.sim, key)).status, 'succeeded');
});

test('refund: partial then rest, over-refund refused, retry with the same idempotency key does not refund twice', async () => {
  const { sim, clock } = setup();
  const key = authorizeCard(sim, TEST_CARDS.success, 10000);
  await confirm(sim, key, 10000);
  clock.advance(1000);
  const r1 = await sim.refund({ paymentKey: key, amount: 3000, reason: '부분 환불', idempotencyKey: 'rf1' });
  assert.deepEqual(r1, { status: 'succeeded', value: { refundedAt: clock.now(), balanceAmount: 7000 } });
  const again = await sim.refund({ paymentKey: key, amount: 3000, reason: '부분 환불', idempotencyKey: 'rf1' });
  assert.deepEqual(again, r1);
  const over = await sim.refund({ paymentKey: key, amount: 8000, reason: '초과', idempotencyKey: 'rf2' });
  assert.equal(over.status === 'failed' && over.code, 'NOT_CANCELABLE_AMOUNT');
  const rest = await sim.refund({ paymentKey: key, amount: 7000, reason: '나머지', idempotencyKey: 'rf3' });
  assert.equal(rest.status === 'succeeded' && rest.value.balanceAmount, 0);
  const lookup = await sim.lookupPayment(key);
  assert.deepEqual(lookup, { status: 'succeeded', value: { status: 'canceled', totalAmount: 10000, balanceAmount: 0, paymentKey: key, orderId: null, cancels: [] } });
  const afterAll = await sim.refund({ paymentKey: key, amount: 1, reason: '또', idempotencyKey: 'rf4' });
  assert.equal(afterAll.status === 'failed' && afterAll.code, 'ALREADY_CANCELED_PAYMENT');
});

test('refund of a declined payment fails: nothing was taken', async () => {
  const { sim } = setup();
  const key = authorizeCard(sim, TEST_CARDS.declined);
  await confirm(sim, key);
  const r = await sim.refund({ paymentKey: key, amount: 15000, reason: 'x', idempotencyKey: 'rf' });
  assert.equal(r.status, 'failed');
});

test('lookup reports paid, partially canceled and the amounts', async () => {
  const { sim } = setup();
  const key = authorizeCard(sim, TEST_CARDS.success, 20000);
  await confirm(sim, key, 20000);
  assert.deepEqual(await sim.lookupPayment(key), { status: 'succeeded', value: { status: 'paid', totalAmount: 20000, balanceAmount: 20000, paymentKey: key, orderId: null, cancels: [] } });
  await sim.refund({ paymentKey: key, amount: 5000, reason: 'x', idempotencyKey: 'k' });
  assert.deepEqual(await sim.lookupPayment(key), { status: 'succeeded', value: { status: 'partially_canceled', totalAmount: 20000, balanceAmount: 15000, paymentKey: key, orderId: null, cancels: [] } });
  const missing = await sim.lookupPayment('nope');
  assert.equal(missing.status, 'failed');
});

test('billing: authKey sim_auth_<card> issues a key; charges follow the card and are idempotent by key', async () => {
  const { sim } = setup();
  const issued = await sim.issueBillingKey({ authKey: `sim_auth_${TEST_CARDS.success}`, customerKey: 'cus_1' });
  assert.equal(issued.status, 'succeeded');
  if (issued.status !== 'succeeded') return;
  assert.equal(issued.value.cardSummary, '카드 ****4242');
  const input = { billingKey: issued.value.billingKey, customerKey: 'cus_1', amount: 9900, orderId: 'ord_renewal_1', orderName: '월간 구독', idempotencyKey: 'chg1' };
  const c1 = await sim.chargeBillingKey(input);
  assert.equal(c1.status, 'succeeded');
  assert.deepEqual(await sim.chargeBillingKey(input), c1, 'same idempotency key, same charge');
  const c2 = await sim.chargeBillingKey({ ...input, idempotencyKey: 'chg2', orderId: 'ord_renewal_2' });
  assert.notEqual(c2.status === 'succeeded' && c2.value.paymentKey, c1.status === 'succeeded' && c1.value.paymentKey);
  // The charge's payment can be refunded like any other.
  const paymentKey = c1.status === 'succeeded' ? c1.value.paymentKey : '';
  const refund = await sim.refund({ paymentKey, amount: 9900, reason: '해지', idempotencyKey: 'rf' });
  assert.equal(refund.status, 'succeeded');

  const declinedKey = await sim.issueBillingKey({ authKey: `sim_auth_${TEST_CARDS.declined}`, customerKey: 'cus_2' });
  assert.equal(declinedKey.status, 'succeeded');
  const declined = await sim.chargeBillingKey({ ...input, billingKey: declinedKey.status === 'succeeded' ? declinedKey.value.billingKey : '', idempotencyKey: 'chg3' });
  assert.deepEqual(declined, { status: 'failed', code: 'REJECT_CARD_PAYMENT', message: '카드사에서 결제를 거절했습니다.' });

  const shortKey = await sim.issueBillingKey({ authKey: `sim_auth_${TEST_CARDS.insufficientFunds}`, customerKey: 'cus_3' });
  const short = await sim.chargeBillingKey({ ...input, billingKey: shortKey.status === 'succeeded' ? shortKey.value.billingKey : '', idempotencyKey: 'chg4' });
  assert.equal(short.status === 'failed' && short.code, 'NOT_ENOUGH_BALANCE');

  const unknownKey = await sim.issueBillingKey({ authKey: `sim_auth_${TEST_CARDS.unknown}`, customerKey: 'cus_4' });
  const unknown = await sim.chargeBillingKey({ ...input, billingKey: unknownKey.status === 'succeeded' ? unknownKey.value.billingKey : '', idempotencyKey: 'chg5' });
  assert.equal(unknown.status, 'unknown');

  const bad = await sim.issueBillingKey({ authKey: 'sim_auth_1234', customerKey: 'cus_5' });
  assert.equal(bad.status === 'failed' && bad.code, 'INVALID_CARD_NUMBER');
});

test('injected failures hit the next call of that operation only, and do not consume state', async () => {
  const { sim } = setup();
  const key = authorizeCard(sim, TEST_CARDS.success);
  await confirm(sim, key);
  sim.injectFailure('refund', 'unknown');
  const r1 = await sim.refund({ paymentKey: key, amount: 1000, reason: 'x', idempotencyKey: 'a' });
  assert.equal(r1.status, 'unknown');
  // The timed-out refund did not happen, so retrying the same key refunds once.
  const r2 = await sim.refund({ paymentKey: key, amount: 1000, reason: 'x', idempotencyKey: 'a' });
  assert.equal(r2.status === 'succeeded' && r2.value.balanceAmount, 14000);
  sim.injectFailure('refund', 'failed');
  const r3 = await sim.refund({ paymentKey: key, amount: 1000, reason: 'x', idempotencyKey: 'b' });
  assert.equal(r3.status === 'failed' && r3.code, 'SIMULATED_FAILURE');
});

test('listTransactions: approvals and cancels this simulator made, in the range, paged with startingAfter like Toss', async () => {
  const { clock, sim } = setup();
  const a = authorizeCard(sim, TEST_CARDS.success, 15000, 'ord_sim_tx_a');
  assert.equal((await sim.confirmPayment({ paymentKey: a, orderId: 'ord_sim_tx_a', amount: 15000, idempotencyKey: 'a' })).status, 'succeeded');
  clock.advance(1000);
  assert.equal((await sim.refund({ paymentKey: a, amount: 15000, reason: 'x', idempotencyKey: 'ra' })).status, 'succeeded');
  const range = { startDate: new Date(clock.now().getTime() - 60_000), endDate: clock.now() };
  const p1 = await sim.listTransactions({ ...range, limit: 1 });
  assert.equal(p1.status, 'succeeded');
  const v1 = (p1 as any).value;
  assert.deepEqual(v1.transactions.map((x: any) => [x.kind, x.status, x.amount, x.orderId, x.paymentKey]), [['approval', 'DONE', 15000, 'ord_sim_tx_a', a]]);
  const p2 = (await sim.listTransactions({ ...range, limit: 1, startingAfter: v1.nextStartingAfter })) as any;
  assert.deepEqual(p2.value.transactions.map((x: any) => [x.kind, x.status, x.amount]), [['cancel', 'CANCELED', 15000]]);
  assert.equal(((await sim.listTransactions({ ...range, limit: 1, startingAfter: p2.value.nextStartingAfter })) as any).value.nextStartingAfter, null);
  assert.deepEqual(((await sim.listTransactions({ startDate: new Date(0), endDate: new Date(1), limit: 5 })) as any).value.transactions, []);
  const bad = await sim.listTransactions({ ...range, limit: 5, startingAfter: 'nope' });
  assert.equal(bad.status === 'failed' && bad.code, 'INVALID_TRANSACTION_KEY');
});

test('a deposited 가상계좌 carries the 현금영수증 asked with the payment in its lookup, also after a restart when handed back', async () => {
  const clock = new ManualClock(new Date('2026-11-01T00:00:00Z'));
  const sim = new SimulatorProvider({ clock });
  const auth = sim.authorize({ method: 'virtual_account', amount: 12_000, orderId: 'ord_va_cr_1' });
  assert.ok(auth.ok);
  const confirmed = await sim.confirmPayment({ paymentKey: auth.paymentKey, orderId: 'ord_va_cr_1', amount: 12_000, idempotencyKey: 'c1', cashReceipt: { type: '지출증빙', identity: '1234567890' } });
  assert.equal(confirmed.status, 'succeeded');
  const waiting = await sim.lookupPayment(auth.paymentKey);
  assert.equal(waiting.status === 'succeeded' && waiting.value.cashReceipt, undefined, 'nothing issued before the deposit');
  assert.equal((await sim.testDeposit(auth.paymentKey)).status, 'succeeded');
  const after = await sim.lookupPayment(auth.paymentKey);
  assert.ok(after.status === 'succeeded' && after.value.cashReceipt);
  assert.equal(after.value.cashReceipt.type, '지출증빙');
  assert.match(after.value.cashReceipt.issueNumber!, /^T\d{8}$/);
  assert.equal(after.value.cashReceipt.amount, 12_000);

  // Another process (or a restart) knows only the key: the caller hands the choice back with the deposit.
  const auth2 = sim.authorize({ method: 'virtual_account', amount: 8_000, orderId: 'ord_va_cr_2' });
  assert.ok(auth2.ok);
  await sim.confirmPayment({ paymentKey: auth2.paymentKey, orderId: 'ord_va_cr_2', amount: 8_000, idempotencyKey: 'c2', cashReceipt: { type: '소득공제', identity: '01012345678' } });
  const restarted = new SimulatorProvider({ clock });
  await restarted.testDeposit(auth2.paymentKey, { cashReceipt: { type: '소득공제', identity: '' } });
  const look = await restarted.lookupPayment(auth2.paymentKey);
  assert.ok(look.status === 'succeeded' && look.value.cashReceipt?.type === '소득공제');
  // None asked: none issued.
  const auth3 = sim.authorize({ method: 'virtual_account', amount: 8_000, orderId: 'ord_va_cr_3' });
  assert.ok(auth3.ok);
  await sim.confirmPayment({ paymentKey: auth3.paymentKey, orderId: 'ord_va_cr_3', amount: 8_000, idempotencyKey: 'c3' });
  await sim.testDeposit(auth3.paymentKey);
  const none = await sim.lookupPayment(auth3.paymentKey);
  assert.equal(none.status === 'succeeded' && none.value.cashReceipt, undefined);
});

test('a 현금영수증 issued on its own: once per idempotency key', async () => {
  const sim = new SimulatorProvider({ clock: new ManualClock(new Date('2026-11-01T00:00:00Z')) });
  const input = { orderId: 'ord_sim_cr', orderName: '상품', amount: 5000, type: '소득공제' as const, identity: '01012345678', idempotencyKey: 'k1' };
  const a = await sim.issueCashReceipt(input);
  const b = await sim.issueCashReceipt(input);
  assert.ok(a.status === 'succeeded' && b.status === 'succeeded');
  assert.deepEqual(a.value, b.value);
  assert.match(a.value.issueNumber!, /^T\d{8}$/);
  assert.equal((await sim.cancelCashReceipt({ receiptKey: a.value.receiptKey, amount: 1000, idempotencyKey: 'x' })).status, 'succeeded');
});
