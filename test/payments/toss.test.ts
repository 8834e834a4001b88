import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { ManualClock } from '../../src/platform/clock';
import { TossProvider } from '../../src/payments/toss';
import { TOSS_TRANSACTIONS_TIMEOUT_MS } from '../../src/payments/toss-reconciliation';
import { startFakeToss, type FakeToss } from './fake-toss';

let fake: FakeToss;
/** Answers are awaited with a generous deadline: a loaded machine must not turn a success into `unknown`. */
let toss: TossProvider;
/**
 * Only for calls the fake never answers (modes 'timeout' and 'lost_answer'): there the deadline is the only way out, so a short one
 * just keeps the test quick, and load can only make it later, never change the outcome.
 */
let impatient: TossProvider;
const clock = new ManualClock();
const GENEROUS_MS = 10_000;
const SHORT_MS = 300;

before(async () => {
  fake = await startFakeToss({ secretKey: 'test_sk_zXLkKEypNArWmo50nX3lmeaxYG5R' });
  toss = new TossProvider({ secretKey: fake.secretKey, baseUrl: fake.baseUrl, timeoutMs: GENEROUS_MS, clock });
  impatient = new TossProvider({ secretKey: fake.secretKey, baseUrl: fake.baseUrl, timeoutMs: SHORT_MS, slowTimeoutMs: SHORT_MS, clock });
});
after(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.setMode('ok');
  fake.calls.length = 0;
});

let seq = 0;
const orderId = () => `ord_toss_test_${++seq}`;
const confirmInput = (paymentKey: string, amount = 15000, id = orderId()) => ({ paymentKey, orderId: id, amount, idempotencyKey: `idem-${paymentKey}` });

async function paid(amount = 10000): Promise<string> {
  const key = `tgen_paid_${++seq}`;
  const r = await toss.confirmPayment(confirmInput(key, amount));
  assert.equal(r.status, 'succeeded');
  return key;
}

test('confirm: Basic auth of "secretKey:", JSON body { paymentKey, orderId, amount }, success with Toss approvedAt and method', async () => {
  const input = confirmInput('tgen_card_1', 15000);
  const r = await toss.confirmPayment(input);
  assert.equal(r.status, 'succeeded', JSON.stringify(r));
  if (r.status !== 'succeeded') return;
  assert.equal(r.value.paymentKey, 'tgen_card_1');
  assert.equal(r.value.method, 'card');
  assert.equal(r.value.approvedAt.getTime(), new Date(fake.payments.get('tgen_card_1').approvedAt).getTime());
  const call = fake.calls[0];
  assert.equal(call.method, 'POST');
  assert.equal(call.path, '/v1/payments/confirm');
  assert.equal(call.headers.authorization, `Basic ${Buffer.from('test_sk_zXLkKEypNArWmo50nX3lmeaxYG5R:').toString('base64')}`);
  assert.match(call.headers['content-type'] ?? '', /^application\/json/);
  assert.equal(call.headers['idempotency-key'], input.idempotencyKey);
  assert.deepEqual(call.body, { paymentKey: 'tgen_card_1', orderId: input.orderId, amount: 15000 });
});

test('confirm of an easy-pay payment reports the wallet as the method', async () => {
  for (const [key, method] of [
    ['tgen_kakaopay_1', 'kakao_pay'],
    ['tgen_naverpay_1', 'naver_pay'],
    ['tgen_tosspay_1', 'toss'],
  ] as const) {
    const r = await toss.confirmPayment(confirmInput(key));
    assert.equal(r.status === 'succeeded' && r.value.method, method, key);
  }
});

test('a wrong secret key is a definite failure with Toss code UNAUTHORIZED_KEY', async () => {
  const wrong = new TossProvider({ secretKey: 'test_sk_wrong', baseUrl: fake.baseUrl, timeoutMs: GENEROUS_MS });
  const r = await wrong.confirmPayment(confirmInput('tgen_wrong_key'));
  assert.equal(r.status, 'failed');
  assert.equal(r.status === 'failed' && r.code, 'UNAUTHORIZED_KEY');
  assert.equal(fake.payments.has('tgen_wrong_key'), false);
});

test('decline → failed with Toss code and message', async () => {
  fake.setMode('decline');
  const r = await toss.confirmPayment(confirmInput('tgen_declined'));
  assert.deepEqual(r, { status: 'failed', code: 'REJECT_CARD_PAYMENT', message: '한도초과 혹은 잔액부족으로 결제에 실패했습니다.' });
});

test('timeout → unknown, within the configured deadline', async () => {
  fake.setMode('timeout');
  const started = performance.now();
  const r = await impatient.confirmPayment(confirmInput('tgen_timeout'));
  assert.equal(r.status, 'unknown');
  const waited = performance.now() - started;
  // It waited for the answer until its deadline (not less), then gave up by itself (the fake never answers).
  assert.ok(waited >= SHORT_MS - 20, `waited ${Math.round(waited)} ms`);
  assert.ok(waited < GENEROUS_MS, `gave up after ${Math.round(waited)} ms`);
});

test('HTTP 500 → unknown', async () => {
  fake.setMode('error500');
  const r = await toss.confirmPayment(confirmInput('tgen_500'));
  assert.equal(r.status, 'unknown');
  if (r.status === 'unknown') assert.match(r.message, /FAILED_INTERNAL_SYSTEM_PROCESSING/);
});

test('connection refused → unknown', async () => {
  const port = await new Promise<number>((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
  const closed = new TossProvider({ secretKey: 'test_sk_x', baseUrl: `http://127.0.0.1:${port}`, timeoutMs: GENEROUS_MS });
  assert.equal((await closed.confirmPayment(confirmInput('tgen_refused'))).status, 'unknown');
  assert.equal((await closed.refund({ paymentKey: 'k', amount: 1, reason: 'r', idempotencyKey: 'i' })).status, 'unknown');
  assert.equal((await closed.lookupPayment('k')).status, 'unknown');
});

test('unparsable body → unknown, even with a 200', async () => {
  const { createServer: createHttp } = await import('node:http');
  const server = createHttp((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<html>gateway maintenance</html>');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const p = new TossProvider({ secretKey: 'test_sk_x', baseUrl: `http://127.0.0.1:${(server.address() as { port: number }).port}`, timeoutMs: GENEROUS_MS });
  try {
    assert.equal((await p.confirmPayment(confirmInput('tgen_html'))).status, 'unknown');
  } finally {
    await new Promise<void>((r) => server.close(() => r()));
  }
});

test('already processed → lookup → succeeded when the payment is DONE for this order and amount', async () => {
  fake.setMode('already_processed');
  const input = confirmInput('tgen_lost_answer', 22000);
  const r = await toss.confirmPayment(input);
  assert.equal(r.status, 'succeeded', JSON.stringify(r));
  assert.deepEqual(
    fake.calls.map((c) => `${c.method} ${c.path}`),
    ['POST /v1/payments/confirm', 'GET /v1/payments/tgen_lost_answer'],
  );
  // Confirming again (e.g. a double click) lands on the same payment, not a second charge.
  fake.setMode('ok');
  const again = await toss.confirmPayment({ ...input, idempotencyKey: 'another-key' });
  assert.equal(again.status, 'succeeded');
  assert.equal([...fake.payments.values()].filter((p) => p.orderId === input.orderId).length, 1);
});

test('already processed but the payment belongs to another amount → not reported as paid', async () => {
  fake.setMode('ok');
  const key = 'tgen_other_amount';
  await toss.confirmPayment(confirmInput(key, 5000, 'ord_first_owner'));
  const r = await toss.confirmPayment(confirmInput(key, 50000, 'ord_first_owner'));
  assert.notEqual(r.status, 'succeeded');
});

test('a lost confirm answer is recovered by retrying with the same Idempotency-Key', async () => {
  fake.setMode('lost_answer');
  const input = confirmInput('tgen_retry_same_key', 12000);
  assert.equal((await impatient.confirmPayment(input)).status, 'unknown');
  assert.equal(fake.payments.get('tgen_retry_same_key').status, 'DONE', 'the gateway did approve it');
  fake.setMode('ok');
  const retry = await toss.confirmPayment(input);
  assert.equal(retry.status, 'succeeded');
});

test('confirm answered with another totalAmount → failed AMOUNT_MISMATCH', async () => {
  fake.setMode('amount_mismatch');
  const r = await toss.confirmPayment(confirmInput('tgen_mismatch', 15000));
  assert.equal(r.status, 'failed');
  assert.equal(r.status === 'failed' && r.code, 'AMOUNT_MISMATCH');
});

test('cancel sends cancelReason, cancelAmount and Idempotency-Key; a retry with the same key cancels once', async () => {
  const key = await paid(10000);
  fake.calls.length = 0;
  const input = { paymentKey: key, amount: 4000, reason: '고객 요청', idempotencyKey: 'rf_01' };
  const r1 = await toss.refund(input);
  assert.equal(r1.status, 'succeeded', JSON.stringify(r1));
  assert.equal(r1.status === 'succeeded' && r1.value.balanceAmount, 6000);
  const call = fake.calls[0];
  assert.equal(call.path, `/v1/payments/${key}/cancel`);
  assert.deepEqual(call.body, { cancelReason: '고객 요청', cancelAmount: 4000 });
  assert.equal(call.headers['idempotency-key'], 'rf_01');

  const r2 = await toss.refund(input);
  assert.deepEqual(r2, r1);
  const payment = fake.payments.get(key);
  assert.equal(payment.cancels.length, 1, 'one cancel only');
  assert.equal(payment.balanceAmount, 6000);
  assert.equal(payment.status, 'PARTIAL_CANCELED');
});

test('a cancel whose answer was lost is settled by retrying with the same Idempotency-Key', async () => {
  const key = await paid(8000);
  fake.setMode('lost_answer');
  const input = { paymentKey: key, amount: 8000, reason: '전액 환불', idempotencyKey: 'rf_lost' };
  assert.equal((await impatient.refund(input)).status, 'unknown');
  fake.setMode('ok');
  const retry = await toss.refund(input);
  assert.equal(retry.status === 'succeeded' && retry.value.balanceAmount, 0);
  assert.equal(fake.payments.get(key).cancels.length, 1);
});

test('ALREADY_CANCELED_PAYMENT → lookup: succeeded when this cancel is there, unknown otherwise', async () => {
  const key = await paid(7000);
  assert.equal((await toss.refund({ paymentKey: key, amount: 7000, reason: 'r', idempotencyKey: 'first' })).status, 'succeeded');
  // Same refund retried under a new key (e.g. the first key was lost): Toss says already canceled; the cancel is there.
  const same = await toss.refund({ paymentKey: key, amount: 7000, reason: 'r', idempotencyKey: 'second' });
  assert.equal(same.status, 'succeeded', JSON.stringify(same));
  assert.equal(same.status === 'succeeded' && same.value.balanceAmount, 0);
  // A different refund of an already fully canceled payment cannot be matched to a cancel: flag it.
  const other = await toss.refund({ paymentKey: key, amount: 3000, reason: 'r', idempotencyKey: 'third' });
  assert.equal(other.status, 'unknown');
});

test('cancel refusals are definite failures; cancel timeouts and 500s are unknown', async () => {
  const key = await paid(5000);
  const over = await toss.refund({ paymentKey: key, amount: 6000, reason: 'r', idempotencyKey: 'over' });
  assert.equal(over.status === 'failed' && over.code, 'NOT_CANCELABLE_AMOUNT');
  const missing = await toss.refund({ paymentKey: 'tgen_nope', amount: 1000, reason: 'r', idempotencyKey: 'nope' });
  assert.equal(missing.status === 'failed' && missing.code, 'NOT_FOUND_PAYMENT');
  fake.setMode('timeout');
  assert.equal((await impatient.refund({ paymentKey: key, amount: 1000, reason: 'r', idempotencyKey: 't' })).status, 'unknown');
  fake.setMode('error500');
  assert.equal((await toss.refund({ paymentKey: key, amount: 1000, reason: 'r', idempotencyKey: 'e' })).status, 'unknown');
  assert.equal(fake.payments.get(key).balanceAmount, 5000);
});

test('lookup maps Toss status and amounts', async () => {
  const key = await paid(9000);
  const orderId = fake.payments.get(key).orderId;
  assert.deepEqual(await toss.lookupPayment(key), { status: 'succeeded', value: { status: 'paid', totalAmount: 9000, balanceAmount: 9000, paymentKey: key, orderId, cancels: [], cashReceipt: null, partialCancelable: true } });
  await toss.refund({ paymentKey: key, amount: 1000, reason: 'r', idempotencyKey: `lk-${key}` });
  const [c] = fake.payments.get(key).cancels;
  const cancels = [{ transactionKey: c.transactionKey, amount: 1000, canceledAt: new Date(c.canceledAt), reason: 'r', status: 'done' }];
  assert.deepEqual(await toss.lookupPayment(key), { status: 'succeeded', value: { status: 'partially_canceled', totalAmount: 9000, balanceAmount: 8000, paymentKey: key, orderId, cancels, cashReceipt: null, partialCancelable: true } });
  // By our order id: the same payment, found through GET /v1/payments/orders/{orderId}.
  assert.deepEqual(await toss.lookupPaymentByOrderId(orderId), await toss.lookupPayment(key));
  assert.equal(fake.calls.at(-2)?.path, `/v1/payments/orders/${orderId}`);
  const missing = await toss.lookupPayment('tgen_missing');
  assert.equal(missing.status === 'failed' && missing.code, 'NOT_FOUND_PAYMENT');
  assert.equal(fake.calls.at(-1)?.method, 'GET');
});

test('billing: issue a key with authKey + customerKey, charge it with Idempotency-Key, a retry charges once', async () => {
  const issued = await toss.issueBillingKey({ authKey: 'auth_abc', customerKey: 'cus_billing_1' });
  assert.equal(issued.status, 'succeeded', JSON.stringify(issued));
  if (issued.status !== 'succeeded') return;
  assert.equal(issued.value.cardSummary, '신한 43301234****123*');
  assert.deepEqual(fake.calls[0].body, { authKey: 'auth_abc', customerKey: 'cus_billing_1' });
  assert.equal(fake.calls[0].path, '/v1/billing/authorizations/issue');

  const input = { billingKey: issued.value.billingKey, customerKey: 'cus_billing_1', amount: 9900, orderId: orderId(), orderName: '프로 월간 구독', idempotencyKey: 'chg_1' };
  const c1 = await toss.chargeBillingKey(input);
  assert.equal(c1.status, 'succeeded', JSON.stringify(c1));
  const call = fake.calls.at(-1)!;
  assert.equal(call.path, `/v1/billing/${issued.value.billingKey}`);
  assert.deepEqual(call.body, { customerKey: 'cus_billing_1', amount: 9900, orderId: input.orderId, orderName: '프로 월간 구독' });
  assert.equal(call.headers['idempotency-key'], 'chg_1');
  assert.deepEqual(await toss.chargeBillingKey(input), c1);
  assert.equal([...fake.payments.values()].filter((p) => p.orderId === input.orderId).length, 1);

  const wrongCustomer = await toss.chargeBillingKey({ ...input, customerKey: 'cus_other', orderId: orderId(), idempotencyKey: 'chg_2' });
  assert.equal(wrongCustomer.status === 'failed' && wrongCustomer.code, 'NOT_MATCHES_CUSTOMER_KEY');
  fake.setMode('decline');
  const declined = await toss.chargeBillingKey({ ...input, orderId: orderId(), idempotencyKey: 'chg_3' });
  assert.equal(declined.status === 'failed' && declined.code, 'REJECT_CARD_PAYMENT');
  fake.setMode('timeout');
  assert.equal((await impatient.chargeBillingKey({ ...input, orderId: orderId(), idempotencyKey: 'chg_4' })).status, 'unknown');
});

test('billing charge answered "already processed" is looked up by order id', async () => {
  const issued = await toss.issueBillingKey({ authKey: 'auth_def', customerKey: 'cus_billing_2' });
  if (issued.status !== 'succeeded') return assert.fail(JSON.stringify(issued));
  fake.setMode('already_processed');
  const id = orderId();
  const r = await toss.chargeBillingKey({ billingKey: issued.value.billingKey, customerKey: 'cus_billing_2', amount: 4900, orderId: id, orderName: '구독', idempotencyKey: 'chg_ap' });
  assert.equal(r.status, 'succeeded', JSON.stringify(r));
  assert.equal(fake.calls.at(-1)?.path, `/v1/payments/orders/${id}`);
  // A retry of the same charge under a fresh idempotency key meets DUPLICATED_ORDER_ID and resolves to the same payment.
  fake.setMode('ok');
  const retry = await toss.chargeBillingKey({ billingKey: issued.value.billingKey, customerKey: 'cus_billing_2', amount: 4900, orderId: id, orderName: '구독', idempotencyKey: 'chg_ap_2' });
  assert.deepEqual(retry, r);
  // But a charge for another amount under the same order id is not taken for this one.
  const other = await toss.chargeBillingKey({ billingKey: issued.value.billingKey, customerKey: 'cus_billing_2', amount: 9900, orderId: id, orderName: '구독', idempotencyKey: 'chg_ap_3' });
  assert.equal(other.status, 'unknown');
  assert.equal([...fake.payments.values()].filter((p) => p.orderId === id).length, 1);
});

test('confirm "already processed" for a payment that ended unpaid is a definite failure', async () => {
  const key = 'tgen_aborted';
  await toss.confirmPayment(confirmInput(key, 3000, 'ord_aborted_1'));
  fake.payments.get(key).status = 'ABORTED';
  const r = await toss.confirmPayment({ ...confirmInput(key, 3000, 'ord_aborted_1'), idempotencyKey: 'a-new-attempt' });
  assert.equal(r.status === 'failed' && r.code, 'ALREADY_PROCESSED_PAYMENT');
});

test('the secret key never appears in outcome messages', async () => {
  fake.setMode('error500');
  const r = await toss.confirmPayment(confirmInput('tgen_secret_check'));
  assert.ok(!JSON.stringify(r).includes(fake.secretKey));
  assert.ok(!JSON.stringify(r).includes(Buffer.from(`${fake.secretKey}:`).toString('base64')));
  const { inspect } = await import('node:util');
  assert.ok(!inspect(toss, { showHidden: true, depth: 5 }).includes(fake.secretKey));
  assert.ok(!JSON.stringify(toss).includes(fake.secretKey));
});

test('transactions: GET /v1/transactions with KST startDate/endDate, limit and startingAfter; approvals and cancels read from the documented array', async () => {
  const day = { startDate: new Date('2026-10-31T15:00:00.000Z'), endDate: new Date('2026-11-01T14:59:59.999Z') };
  fake.transactions.length = 0;
  const input = confirmInput('tgen_tx_a');
  assert.equal((await toss.confirmPayment(input)).status, 'succeeded');
  assert.equal((await toss.refund({ paymentKey: 'tgen_tx_a', amount: 1_000, reason: '부분 취소', idempotencyKey: 'tx-cancel-a' })).status, 'succeeded');
  // The fake stamps transactions with real time: ask for the real KST day around now.
  const now = Date.now();
  const range = { startDate: new Date(now - 3_600_000), endDate: new Date(now + 3_600_000) };
  const first = await toss.listTransactions({ ...range, limit: 1 });
  assert.equal(first.status, 'succeeded');
  const call = fake.calls.find((c) => c.path === '/v1/transactions')!;
  assert.equal(call.method, 'GET');
  assert.match(call.query.get('startDate')!, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/, 'KST wall-clock time, no offset');
  assert.equal(call.query.get('startDate'), new Date(range.startDate.getTime() + 9 * 3_600_000).toISOString().slice(0, 23));
  assert.equal(call.query.get('limit'), '1');
  const page1 = (first as any).value;
  assert.equal(page1.transactions.length, 1);
  assert.deepEqual({ ...page1.transactions[0], transactionAt: undefined }, {
    transactionKey: fake.transactions[0].transactionKey, paymentKey: 'tgen_tx_a', orderId: input.orderId, kind: 'approval', status: 'DONE', amount: input.amount, transactionAt: undefined,
  });
  assert.equal(page1.nextStartingAfter, fake.transactions[0].transactionKey, 'a full page: continue after its last key');
  const second = (await toss.listTransactions({ ...range, limit: 1, startingAfter: page1.nextStartingAfter })) as any;
  assert.equal(fake.calls.filter((c) => c.path === '/v1/transactions')[1].query.get('startingAfter'), page1.nextStartingAfter);
  assert.equal(second.value.transactions[0].kind, 'cancel');
  assert.equal(second.value.transactions[0].status, 'PARTIAL_CANCELED');
  assert.equal(second.value.transactions[0].amount, 1_000);
  const third = (await toss.listTransactions({ ...range, limit: 1, startingAfter: second.value.nextStartingAfter })) as any;
  assert.deepEqual(third.value, { transactions: [], nextStartingAfter: null });
  // Another day holds nothing of it; an unknown cursor is Toss's INVALID_TRANSACTION_KEY, a definite failure.
  assert.deepEqual(((await toss.listTransactions({ ...day, limit: 10 })) as any).value.transactions, []);
  const bad = await toss.listTransactions({ ...range, limit: 10, startingAfter: 'NO_SUCH_KEY' });
  assert.deepEqual(bad.status === 'failed' && bad.code, 'INVALID_TRANSACTION_KEY');
});

test('transactions have their own deadline (at least 60 s by default), not the confirm timeout', async () => {
  assert.ok(TOSS_TRANSACTIONS_TIMEOUT_MS >= 60_000);
  const own = new TossProvider({ secretKey: fake.secretKey, baseUrl: fake.baseUrl, timeoutMs: SHORT_MS, slowTimeoutMs: SHORT_MS * 3, clock });
  fake.setMode('timeout');
  const started = performance.now();
  const r = await own.listTransactions({ startDate: new Date(0), endDate: new Date(1), limit: 10 });
  assert.equal(r.status, 'unknown');
  const waited = performance.now() - started;
  assert.ok(waited >= SHORT_MS * 3 - 20, `waited ${Math.round(waited)} ms: the transactions deadline, not the confirm one`);
});
