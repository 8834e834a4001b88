import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/platform/clock';
import { TossProvider } from '../../src/payments/toss';
import type { Timers } from '../../src/payments/toss-http';
import { CONFIRM_WINDOW_MS, startFakeToss, type FakeToss } from './fake-toss';

// Toss's documented limits the adapter must respect (issue 20, item 5), against the fake built from the fixtures.

/** Deadlines the test moves by hand: no real waiting for "slow" answers. */
class ManualTimers implements Timers {
  #now = 0;
  #seq = 0;
  #pending = new Map<number, { at: number; fn: () => void }>();
  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.#seq;
    this.#pending.set(id, { at: this.#now + ms, fn });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.#pending.delete(handle as number);
  }
  advance(ms: number): void {
    this.#now += ms;
    for (const [id, t] of [...this.#pending]) {
      if (t.at <= this.#now) {
        this.#pending.delete(id);
        t.fn();
      }
    }
  }
}

const clock = new ManualClock(new Date('2026-11-25T01:00:00Z'));
let fake: FakeToss;
let toss: TossProvider;
let seq = 0;

before(async () => {
  fake = await startFakeToss({ clock });
  toss = new TossProvider({ secretKey: fake.secretKey, baseUrl: fake.baseUrl, timeoutMs: 10_000, clock });
});
after(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.setMode('ok');
  fake.calls.length = 0;
});

async function paid(amount: number): Promise<string> {
  const key = `tgen_lim_${++seq}`;
  const r = await toss.confirmPayment({ paymentKey: key, orderId: `ord_lim_${seq}`, amount, idempotencyKey: `c-${key}` });
  assert.equal(r.status, 'succeeded', JSON.stringify(r));
  return key;
}

async function billingKey(customerKey: string): Promise<string> {
  const r = await toss.issueBillingKey({ authKey: `auth_${customerKey}`, customerKey });
  assert.equal(r.status, 'succeeded', JSON.stringify(r));
  return r.status === 'succeeded' ? r.value.billingKey : '';
}

test('a billing charge answering after 20 s succeeds: charges have their own deadline of at least 60 s', async () => {
  const customerKey = `cus_slow_${++seq}`;
  const key = await billingKey(customerKey);
  const timers = new ManualTimers();
  // Confirm keeps its own 10 s deadline; the charge must not inherit it.
  const slowToss = new TossProvider({ secretKey: fake.secretKey, baseUrl: fake.baseUrl, timeoutMs: 10_000, clock, timers });
  const hold = fake.hold('billing_charge');
  const pending = slowToss.chargeBillingKey({ billingKey: key, customerKey, amount: 9900, orderId: `ord_slow_${seq}`, orderName: '월간 구독', idempotencyKey: `chg-slow-${seq}` });
  await hold.arrived;
  timers.advance(20_000); // Toss is still working on it 20 s later
  hold.release();
  const r = await pending;
  assert.equal(r.status, 'succeeded', JSON.stringify(r));
});

test('confirm keeps its own shorter deadline', async () => {
  const timers = new ManualTimers();
  const t2 = new TossProvider({ secretKey: fake.secretKey, baseUrl: fake.baseUrl, timeoutMs: 10_000, clock, timers });
  const hold = fake.hold('confirm');
  const key = `tgen_slowconfirm_${++seq}`;
  const pending = t2.confirmPayment({ paymentKey: key, orderId: `ord_sc_${seq}`, amount: 1000, idempotencyKey: `c-${key}` });
  await hold.arrived;
  timers.advance(10_000);
  const r = await pending;
  hold.release();
  assert.equal(r.status, 'unknown');
});

test('a slow charge retried with the same Idempotency-Key while Toss still works on it is IDEMPOTENT_REQUEST_PROCESSING → unknown, charged once', async () => {
  const customerKey = `cus_dup_${++seq}`;
  const key = await billingKey(customerKey);
  const input = { billingKey: key, customerKey, amount: 4900, orderId: `ord_dup_${seq}`, orderName: '구독', idempotencyKey: `chg-dup-${seq}` };
  const hold = fake.hold('billing_charge');
  const first = toss.chargeBillingKey(input);
  await hold.arrived;
  const second = await toss.chargeBillingKey(input);
  assert.equal(second.status, 'unknown', JSON.stringify(second));
  hold.release();
  assert.equal((await first).status, 'succeeded');
  assert.equal([...fake.payments.values()].filter((p) => p.orderId === input.orderId).length, 1);
});

test('403 FORBIDDEN_CONSECUTIVE_REQUEST and other "try again later" answers are unknown, not final failures', async () => {
  const key = await paid(5000);
  for (const e of [
    { status: 403, code: 'FORBIDDEN_CONSECUTIVE_REQUEST', message: '반복적인 요청은 허용되지 않습니다. 잠시 후 다시 시도해주세요.' },
    { status: 400, code: 'PROVIDER_ERROR', message: '일시적인 오류가 발생했습니다. 잠시 후 다시 시도해주세요.' },
  ]) {
    fake.answerNext('cancel', e);
    const r = await toss.refund({ paymentKey: key, amount: 1000, reason: 'r', idempotencyKey: `rf-${e.code}` });
    assert.equal(r.status, 'unknown', `${e.code}: ${JSON.stringify(r)}`);
  }
  fake.answerNext('billing_charge', { status: 403, code: 'FORBIDDEN_CONSECUTIVE_REQUEST', message: '반복적인 요청은 허용되지 않습니다. 잠시 후 다시 시도해주세요.' });
  const customerKey = `cus_fcr_${++seq}`;
  const bk = await billingKey(customerKey);
  const c = await toss.chargeBillingKey({ billingKey: bk, customerKey, amount: 1000, orderId: `ord_fcr_${seq}`, orderName: '구독', idempotencyKey: `chg-fcr-${seq}` });
  assert.equal(c.status, 'unknown');
});

test('cancelReason is cut to Toss\'s 200 characters; a retry after "already canceled" still finds the cancel', async () => {
  const key = await paid(8000);
  const reason = '가'.repeat(300);
  const r = await toss.refund({ paymentKey: key, amount: 8000, reason, idempotencyKey: `rf-long-${seq}` });
  assert.equal(r.status, 'succeeded', JSON.stringify(r));
  assert.equal(fake.calls.at(-1)!.body.cancelReason, '가'.repeat(200));
  const again = await toss.refund({ paymentKey: key, amount: 8000, reason, idempotencyKey: `rf-long-other-${seq}` });
  assert.equal(again.status, 'succeeded', JSON.stringify(again));
});

test('cancels never send the deprecated refundableAmount; the Idempotency-Key keeps a retry from cancelling twice, and more than Toss holds is refused', async () => {
  // Toss: "이 파라미터는 더 이상 사용을 권장하지 않습니다. 안전하게 취소하려면 멱등키를 대신 사용해주세요"
  // (https://docs.tosspayments.com/reference#결제-취소, refundableAmount).
  const key = await paid(10_000);
  const r = await toss.refund({ paymentKey: key, amount: 4000, reason: 'r', idempotencyKey: `rf-part-${seq}` });
  assert.equal(r.status, 'succeeded', JSON.stringify(r));
  assert.deepEqual(fake.calls.at(-1)!.body, { cancelReason: 'r', cancelAmount: 4000 });
  const again = await toss.refund({ paymentKey: key, amount: 4000, reason: 'r', idempotencyKey: `rf-part-${seq}` });
  assert.equal(again.status, 'succeeded');
  assert.equal(fake.payments.get(key).balanceAmount, 6000, 'the retry was replayed, not cancelled again');
  // A cancel made elsewhere (merchant admin) leaves less at Toss than our books think: asking for more is refused.
  fake.cancelAtToss(key, 3000);
  const over = await toss.refund({ paymentKey: key, amount: 6000, reason: 'r', idempotencyKey: `rf-over-${seq}` });
  assert.equal(over.status === 'failed' && over.code, 'NOT_CANCELABLE_AMOUNT');
  const rest = await toss.refund({ paymentKey: key, amount: 3000, reason: 'r', idempotencyKey: `rf-rest-${seq}` });
  assert.equal(rest.status, 'succeeded');
  assert.deepEqual(fake.calls.at(-1)!.body, { cancelReason: 'r', cancelAmount: 3000 });
});

test('billing-key issue sends an Idempotency-Key; a retry of the same authKey sends the same one and gets the same key', async () => {
  const a = await toss.issueBillingKey({ authKey: 'auth_idem', customerKey: 'cus_idem' });
  const first = fake.calls.at(-1)!;
  assert.ok(first.headers['idempotency-key'], 'an Idempotency-Key was sent');
  const b = await toss.issueBillingKey({ authKey: 'auth_idem', customerKey: 'cus_idem' });
  assert.equal(fake.calls.at(-1)!.headers['idempotency-key'], first.headers['idempotency-key']);
  assert.deepEqual(b, a);
  const explicit = await toss.issueBillingKey({ authKey: 'auth_idem2', customerKey: 'cus_idem', idempotencyKey: 'issue-1' });
  assert.equal(explicit.status, 'succeeded');
  assert.equal(fake.calls.at(-1)!.headers['idempotency-key'], 'issue-1');
});

test('an Idempotency-Key over 300 characters is INVALID_IDEMPOTENCY_KEY, a definite refusal', async () => {
  const key = `tgen_longidem_${++seq}`;
  const r = await toss.confirmPayment({ paymentKey: key, orderId: `ord_li_${seq}`, amount: 1000, idempotencyKey: 'k'.repeat(301) });
  assert.equal(r.status === 'failed' && r.code, 'INVALID_IDEMPOTENCY_KEY');
  assert.equal(fake.payments.has(key), false);
});

test('confirm more than 10 minutes after the payment request is NOT_FOUND_PAYMENT_SESSION (the fake runs on the injected clock)', async () => {
  const late = `tgen_late_${++seq}`;
  fake.requestPayment({ paymentKey: late, orderId: `ord_late_${seq}`, amount: 3000 });
  clock.advance(CONFIRM_WINDOW_MS + 1000);
  const r = await toss.confirmPayment({ paymentKey: late, orderId: `ord_late_${seq}`, amount: 3000, idempotencyKey: `c-${late}` });
  assert.equal(r.status === 'failed' && r.code, 'NOT_FOUND_PAYMENT_SESSION');
  const inTime = `tgen_intime_${++seq}`;
  fake.requestPayment({ paymentKey: inTime, orderId: `ord_intime_${seq}`, amount: 3000 });
  clock.advance(CONFIRM_WINDOW_MS - 1000);
  const ok = await toss.confirmPayment({ paymentKey: inTime, orderId: `ord_intime_${seq}`, amount: 3000, idempotencyKey: `c-${inTime}` });
  assert.equal(ok.status, 'succeeded');
});

test('a wallet paid with a registered card: method 간편결제, card filled, easyPay.amount 0 → the wallet is the method', async () => {
  const key = `tgen_tosspay_regcard_${++seq}`;
  const r = await toss.confirmPayment({ paymentKey: key, orderId: `ord_wallet_${seq}`, amount: 50_000, idempotencyKey: `c-${key}` });
  assert.equal(r.status, 'succeeded', JSON.stringify(r));
  if (r.status !== 'succeeded') return;
  const p = fake.payments.get(key);
  assert.equal(p.method, '간편결제');
  assert.equal(p.easyPay.amount, 0);
  assert.equal(p.card.amount, 50_000);
  assert.equal(r.value.method, 'toss');
  assert.equal(r.value.installmentMonths, 0);
});

test('deleting a billing key at Toss: the key stops charging; deleting it again still reads as deleted', async () => {
  const customerKey = `cus_del_${++seq}`;
  const key = await billingKey(customerKey);
  const d = await toss.deleteBillingKey({ billingKey: key });
  assert.deepEqual(d, { status: 'succeeded', value: { deleted: true } });
  assert.equal(fake.calls.at(-1)!.method, 'DELETE');
  assert.equal(fake.calls.at(-1)!.path, `/v1/billing/${key}`);
  assert.equal(fake.billingKeys.has(key), false);
  const charge = await toss.chargeBillingKey({ billingKey: key, customerKey, amount: 1000, orderId: `ord_del_${seq}`, orderName: '구독', idempotencyKey: `chg-del-${seq}` });
  assert.equal(charge.status === 'failed' && charge.code, 'NOT_FOUND_BILLING');
  assert.equal((await toss.deleteBillingKey({ billingKey: key })).status, 'succeeded');
  fake.setMode('error500');
  assert.equal((await toss.deleteBillingKey({ billingKey: 'bk_any' })).status, 'unknown');
});

test('transactions: approvals and cancels of a KST period, paged with startingAfter', async () => {
  const day = new Date(clock.now().getTime() + 9 * 3600_000).toISOString().slice(0, 10);
  const range = { startDate: new Date(`${day}T00:00:00+09:00`), endDate: new Date(`${day}T23:59:59.999+09:00`) };
  const key = await paid(7000);
  fake.cancelAtToss(key, 2000);
  const all: string[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await toss.listTransactions({ ...range, startingAfter: after, limit: 2 });
    assert.equal(page.status, 'succeeded', JSON.stringify(page));
    if (page.status !== 'succeeded') break;
    for (const t of page.value.transactions) all.push(`${t.paymentKey}:${t.status}:${t.amount}`);
    if (!page.value.nextStartingAfter) break;
    after = page.value.nextStartingAfter;
  }
  assert.ok(all.includes(`${key}:DONE:7000`), 'the approval is listed');
  assert.ok(all.includes(`${key}:PARTIAL_CANCELED:2000`), 'the cancel is listed');
  const bad = await toss.listTransactions({ ...range, limit: 10, startingAfter: 'nope' });
  assert.equal(bad.status === 'failed' && bad.code, 'INVALID_TRANSACTION_KEY');
});
