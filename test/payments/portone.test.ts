import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/platform/clock';
import { PortOneProvider, portOneRefundRef } from '../../src/payments/portone';
import { PORTONE_SLOW_CALL_MIN_MS } from '../../src/payments/portone-http';
import { believePortOneWebhook, verifyPortOneWebhook } from '../../src/payments/portone-webhook';
import { startFakePortOne, type FakePortOne } from './fake-portone';

/**
 * The PortOne V2 provider against the fake built from PortOne's OpenAPI (test/payments/fake-portone.ts). Each test
 * names the behaviour a seller relies on: a payment taken once, never believed from the browser or a webhook alone,
 * refunded at most once, charged at most once per renewal.
 */
let fake: FakePortOne;
let portone: PortOneProvider;
/** Only for answers the fake holds back: the deadline is the only way out, so a short one keeps the test quick. */
let impatient: PortOneProvider;
const clock = new ManualClock('2026-11-20T03:00:00.000Z');
const GENEROUS_MS = 10_000;
const SHORT_MS = 300;

before(async () => {
  fake = await startFakePortOne({ clock });
  portone = new PortOneProvider({ apiSecret: fake.apiSecret, storeId: fake.storeId, baseUrl: fake.baseUrl, timeoutMs: GENEROUS_MS, slowTimeoutMs: GENEROUS_MS, clock });
  impatient = new PortOneProvider({ apiSecret: fake.apiSecret, storeId: fake.storeId, baseUrl: fake.baseUrl, timeoutMs: SHORT_MS, slowTimeoutMs: SHORT_MS, clock });
});
after(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.calls.length = 0;
  fake.beforeAnswer = null;
});

let seq = 0;
const orderId = () => `ord_portone_${++seq}_${Date.now().toString(36)}`;
const confirm = (id: string, amount: number) => ({ paymentKey: id, orderId: id, amount, idempotencyKey: `idem-${id}` });
const paidEvents = (id: string) => fake.events.filter((e) => e.paymentEvent.paymentId === id && e.paymentEvent.type === 'PAID').length;

test('confirm reads the payment back (PortOne auth, our store id) and takes PortOne paidAt, method and 할부', async () => {
  const id = orderId();
  assert.deepEqual(fake.browserPay({ paymentId: id, amount: 55000, installmentMonth: 3 }), { ok: true, txId: fake.payments.get(id).transactionId });
  const r = await portone.confirmPayment(confirm(id, 55000));
  assert.equal(r.status, 'succeeded', JSON.stringify(r));
  if (r.status !== 'succeeded') return;
  assert.equal(r.value.paymentKey, id);
  assert.equal(r.value.method, 'card');
  assert.equal(r.value.installmentMonths, 3);
  assert.equal(r.value.approvedAt.toISOString(), fake.payments.get(id).paidAt);
  const call = fake.calls[0];
  assert.equal(call.method, 'GET');
  assert.equal(call.path, `/payments/${id}?storeId=${encodeURIComponent(fake.storeId)}`);
  assert.equal(call.headers.authorization, `PortOne ${fake.apiSecret}`);
  // A confirm is a read: nothing was posted to PortOne.
  assert.ok(fake.calls.every((c) => c.method === 'GET'));
});

test('double submits: one paymentId is paid once; every confirm of it sees that one payment', async () => {
  const id = orderId();
  assert.equal(fake.browserPay({ paymentId: id, amount: 12000 }).ok, true);
  // The buyer's second click opens the window again for the same paymentId: PortOne refuses to take it twice.
  assert.deepEqual(fake.browserPay({ paymentId: id, amount: 12000 }), { ok: false, code: 'ALREADY_PAID' });
  const results = await Promise.all([1, 2, 3, 4].map(() => portone.confirmPayment(confirm(id, 12000))));
  for (const r of results) assert.equal(r.status, 'succeeded', JSON.stringify(r));
  assert.equal(new Set(results.map((r) => (r.status === 'succeeded' ? r.value.paymentKey : null))).size, 1);
  assert.equal(paidEvents(id), 1);
});

test('a redirect naming another paymentId than the order is refused without asking PortOne', async () => {
  const id = orderId();
  fake.browserPay({ paymentId: id, amount: 5000 });
  const r = await portone.confirmPayment({ paymentKey: id, orderId: orderId(), amount: 5000, idempotencyKey: 'x' });
  assert.equal(r.status, 'failed');
  if (r.status === 'failed') assert.equal(r.code, 'ORDER_MISMATCH');
  assert.equal(fake.calls.length, 0);
});

test('a tampered amount (or currency) is refused, and the money PortOne took for it is given back in full', async () => {
  const id = orderId();
  // The buyer edited the page: PortOne charged 100원 for an order of 15,000원.
  fake.browserPay({ paymentId: id, amount: 100 });
  const r = await portone.confirmPayment(confirm(id, 15000));
  assert.equal(r.status, 'failed');
  if (r.status === 'failed') assert.equal(r.code, 'AMOUNT_MISMATCH');
  const p = fake.payments.get(id);
  assert.equal(p.status, 'CANCELLED');
  const cancelCall = fake.calls.find((c) => c.op === 'cancel');
  assert.equal(cancelCall?.body.currentCancellableAmount, 100);

  const usd = orderId();
  fake.browserPay({ paymentId: usd, amount: 15000, currency: 'USD' });
  const r2 = await portone.confirmPayment(confirm(usd, 15000));
  assert.equal(r2.status, 'failed');
  if (r2.status === 'failed') assert.equal(r2.code, 'AMOUNT_MISMATCH');
  assert.equal(fake.payments.get(usd).status, 'CANCELLED');
});

test('nothing paid: an unknown paymentId, a window left open (READY) and a PG failure are definite failures', async () => {
  const none = await portone.confirmPayment(confirm(orderId(), 1000));
  assert.equal(none.status, 'failed');
  if (none.status === 'failed') assert.equal(none.code, 'PAYMENT_NOT_FOUND');
  const key = fake.issueBillingKey({ customerId: 'cus_fail' });
  const id = orderId();
  fake.declineNext('F113', '한도초과');
  const charged = await portone.chargeBillingKey({ billingKey: key, customerKey: 'cus_fail', amount: 9900, orderId: id, orderName: '정기결제', idempotencyKey: 'k' });
  assert.equal(charged.status, 'failed');
  if (charged.status === 'failed') assert.equal(charged.code, 'PG_F113');
  const again = await portone.confirmPayment(confirm(id, 9900));
  assert.equal(again.status, 'failed');
});

test('a lost answer is unknown, and reading the payment back settles it', async () => {
  const id = orderId();
  fake.browserPay({ paymentId: id, amount: 20000 });
  const held = fake.hold('get_payment');
  const r = await impatient.confirmPayment(confirm(id, 20000));
  assert.equal(r.status, 'unknown', JSON.stringify(r));
  held.release();
  await held.arrived;
  // Reconciliation (or the buyer's retry) reads the payment by our order id.
  const looked = await portone.lookupPaymentByOrderId(id);
  assert.equal(looked.status, 'succeeded');
  if (looked.status === 'succeeded') {
    assert.equal(looked.value.status, 'paid');
    assert.equal(looked.value.totalAmount, 20000);
    assert.equal(looked.value.balanceAmount, 20000);
  }
  const retried = await portone.confirmPayment(confirm(id, 20000));
  assert.equal(retried.status, 'succeeded');
});

test('5xx without a documented error type, an unparsable body and a closed port are unknown, never failed', async () => {
  const id = orderId();
  fake.browserPay({ paymentId: id, amount: 3000 });
  fake.answerNext('get_payment', { status: 500, type: 'INTERNAL_SERVER_ERROR' });
  const r = await portone.confirmPayment(confirm(id, 3000));
  assert.equal(r.status, 'unknown', JSON.stringify(r));
  const closed = new PortOneProvider({ apiSecret: 'x', storeId: fake.storeId, baseUrl: 'http://127.0.0.1:9', timeoutMs: GENEROUS_MS, clock });
  assert.equal((await closed.confirmPayment(confirm(id, 3000))).status, 'unknown');
});

test('credentials: PortOne accepting the secret (a 404 for a made-up paymentId) vs refusing it (401 UNAUTHORIZED)', async () => {
  const ok = await portone.verifyCredentials();
  assert.equal(ok.status, 'succeeded');
  const wrong = new PortOneProvider({ apiSecret: 'not-the-secret', storeId: fake.storeId, baseUrl: fake.baseUrl, timeoutMs: GENEROUS_MS, clock });
  const r = await wrong.verifyCredentials();
  assert.equal(r.status, 'failed');
  if (r.status === 'failed') assert.equal(r.code, 'UNAUTHORIZED');
});

test('a partial then a full refund, each guarded by the balance PortOne holds, each done once however often retried', async () => {
  const id = orderId();
  fake.browserPay({ paymentId: id, amount: 10000 });
  const first = { paymentKey: id, amount: 3000, reason: '부분 환불: 색상 불량', idempotencyKey: `refund-${id}-1` };
  const r1 = await portone.refund(first);
  assert.equal(r1.status, 'succeeded', JSON.stringify(r1));
  if (r1.status === 'succeeded') assert.equal(r1.value.balanceAmount, 7000);
  const sent = fake.calls.find((c) => c.op === 'cancel')!.body;
  assert.equal(sent.amount, 3000);
  assert.equal(sent.currentCancellableAmount, 10000);
  assert.ok(sent.reason.startsWith('부분 환불: 색상 불량 ') && sent.reason.endsWith(portOneRefundRef(first.idempotencyKey)));
  assert.equal(fake.payments.get(id).status, 'PARTIAL_CANCELLED');

  // The same refund again (a retry after our process lost the answer): found, not cancelled twice.
  const again = await portone.refund(first);
  assert.equal(again.status, 'succeeded');
  assert.equal(fake.payments.get(id).cancellations.length, 1);

  const full = await portone.refund({ paymentKey: id, amount: 7000, reason: '나머지 환불', idempotencyKey: `refund-${id}-2` });
  assert.equal(full.status, 'succeeded', JSON.stringify(full));
  if (full.status === 'succeeded') assert.equal(full.value.balanceAmount, 0);
  assert.equal(fake.payments.get(id).status, 'CANCELLED');
  const lookup = await portone.lookupPayment(id);
  assert.equal(lookup.status, 'succeeded');
  if (lookup.status === 'succeeded') {
    assert.equal(lookup.value.status, 'canceled');
    assert.deepEqual(lookup.value.cancels.map((c) => [c.amount, c.status]), [[3000, 'done'], [7000, 'done']]);
  }
  const over = await portone.refund({ paymentKey: id, amount: 1, reason: '초과', idempotencyKey: `refund-${id}-3` });
  assert.equal(over.status, 'failed');
});

test('a cancel made in PortOne\'s console meanwhile: the balance no longer matches, so PortOne refuses and we do not cancel blindly', async () => {
  const id = orderId();
  fake.browserPay({ paymentId: id, amount: 10000 });
  // Our refund read the balance (10,000) … and before its cancel arrives the seller cancels 4,000 in the console.
  fake.beforeAnswer = async (call) => {
    if (call.op === 'get_payment' && fake.payments.get(id).amount.cancelled === 0) fake.cancelInConsole(id, 4000);
  };
  const r = await portone.refund({ paymentKey: id, amount: 8000, reason: '환불', idempotencyKey: `refund-${id}` });
  fake.beforeAnswer = null;
  assert.notEqual(r.status, 'succeeded', JSON.stringify(r));
  const p = fake.payments.get(id);
  assert.equal(p.amount.cancelled, 4000, 'only the console cancel happened');
  assert.equal(fake.calls.filter((c) => c.op === 'cancel').length, 1);
  assert.equal(fake.calls.find((c) => c.op === 'cancel')!.body.currentCancellableAmount, 10000);
});

test('가상계좌: issued on confirm, paid only by the deposit a verified webhook reports and the read-back confirms', async () => {
  const id = orderId();
  fake.browserPay({ paymentId: id, amount: 33000, method: 'virtual_account' });
  const issued = await portone.confirmPayment(confirm(id, 33000));
  assert.equal(issued.status, 'succeeded', JSON.stringify(issued));
  if (issued.status !== 'succeeded') return;
  const account = issued.value.awaitingDeposit;
  assert.ok(account);
  assert.equal(account.bankCode, '88'); // PortOne's SHINHAN
  assert.equal(account.accountNumber, fake.payments.get(id).method.accountNumber);
  assert.equal(account.dueAt.toISOString(), fake.payments.get(id).method.expiredAt);
  assert.equal(issued.value.method, 'virtual_account');
  const before = await portone.lookupPayment(id);
  assert.equal(before.status === 'succeeded' && before.value.status, 'pending');

  const delivery = fake.deposit(id);
  const checked = await verifyPortOneWebhook(fake.webhookSecret, delivery.body, delivery.headers);
  assert.equal(checked.ok, true, JSON.stringify(checked));
  if (!checked.ok || checked.hint.kind !== 'payment') return;
  assert.equal(checked.hint.type, 'Transaction.Paid');
  assert.equal(checked.hint.paymentId, id);
  assert.equal(checked.hint.webhookId, delivery.headers['webhook-id']);
  const believed = await believePortOneWebhook(portone, checked.hint, fake.storeId);
  assert.equal(believed.status, 'succeeded');
  if (believed.status === 'succeeded') {
    assert.equal(believed.value.status, 'paid');
    assert.equal(believed.value.totalAmount, 33000);
  }

  // Refunding a deposited 가상계좌 goes to the buyer's own account, in PortOne's bank names.
  const refund = await portone.refund({ paymentKey: id, amount: 33000, reason: '주문 취소', idempotencyKey: `refund-${id}`, refundReceiveAccount: { bankCode: '06', accountNumber: '12345678901234', holderName: '김구매' } });
  assert.equal(refund.status, 'succeeded', JSON.stringify(refund));
  assert.deepEqual(fake.calls.find((c) => c.op === 'cancel')!.body.refundAccount, { bank: 'KOOKMIN', number: '12345678901234', holderName: '김구매' });
});

test('forged webhooks are refused: another secret, an edited body, a replay from long ago, no signature headers', async () => {
  const id = orderId();
  fake.browserPay({ paymentId: id, amount: 1000, method: 'virtual_account' });
  const forged = fake.webhook('Transaction.Paid', id, { secret: `whsec_${Buffer.from('an attacker secret of 24b').toString('base64')}` });
  const r1 = await verifyPortOneWebhook(fake.webhookSecret, forged.body, forged.headers);
  assert.deepEqual([r1.ok, !r1.ok && r1.code], [false, 'INVALID_SIGNATURE']);

  const genuine = fake.webhook('Transaction.Paid', id);
  const edited = genuine.body.replace(id, 'ord_someone_else');
  assert.equal((await verifyPortOneWebhook(fake.webhookSecret, edited, genuine.headers)).ok, false);

  const old = fake.webhook('Transaction.Paid', id, { at: new Date(Date.now() - 60 * 60_000) });
  const r3 = await verifyPortOneWebhook(fake.webhookSecret, old.body, old.headers);
  assert.equal(r3.ok, false);
  if (!r3.ok) assert.match(r3.message, /TIMESTAMP_TOO_OLD/);

  assert.equal((await verifyPortOneWebhook(fake.webhookSecret, genuine.body, { 'content-type': 'application/json' })).ok, false);
  // The genuine one passes — and still says nothing until read back: the payment is only issued, not paid.
  const ok = await verifyPortOneWebhook(fake.webhookSecret, genuine.body, genuine.headers);
  assert.equal(ok.ok, true);
  if (ok.ok && ok.hint.kind === 'payment') {
    const read = await believePortOneWebhook(portone, ok.hint, fake.storeId);
    assert.equal(read.status === 'succeeded' && read.value.status, 'pending');
    const otherStore = await believePortOneWebhook(portone, ok.hint, 'store-another');
    assert.equal(otherStore.status, 'failed');
  }
});

test('a webhook type PortOne adds later is verified and ignored, as its guide asks', async () => {
  const d = fake.webhook('Transaction.SomethingNew', orderId());
  const r = await verifyPortOneWebhook(fake.webhookSecret, d.body, d.headers);
  assert.equal(r.ok && r.hint.kind, 'ignored');
});

test('billing key: believed only once PortOne shows it issued for this customer; first charge and a renewal', async () => {
  const key = fake.issueBillingKey({ customerId: 'cus_sub_1', cardNumber: '5365100099991234' });
  const wrongCustomer = await portone.issueBillingKey({ authKey: key, customerKey: 'cus_other' });
  assert.equal(wrongCustomer.status, 'failed');
  const made = await portone.issueBillingKey({ authKey: 'billing-key-made-up', customerKey: 'cus_sub_1' });
  assert.equal(made.status, 'failed');
  const issued = await portone.issueBillingKey({ authKey: key, customerKey: 'cus_sub_1' });
  assert.equal(issued.status, 'succeeded', JSON.stringify(issued));
  if (issued.status === 'succeeded') assert.deepEqual(issued.value, { billingKey: key, cardSummary: 'KB국민카드 ****1234' });

  const firstId = orderId();
  const first = await portone.chargeBillingKey({ billingKey: key, customerKey: 'cus_sub_1', amount: 9900, orderId: firstId, orderName: '월간 구독', idempotencyKey: `charge-${firstId}` });
  assert.equal(first.status, 'succeeded', JSON.stringify(first));
  const sent = fake.calls.find((c) => c.op === 'billing_charge')!;
  assert.equal(sent.path, `/payments/${firstId}/billing-key`);
  assert.deepEqual(sent.body, { storeId: fake.storeId, billingKey: key, orderName: '월간 구독', customer: { id: 'cus_sub_1' }, amount: { total: 9900 }, currency: 'KRW' });
  if (first.status === 'succeeded') assert.equal(first.value.approvedAt.toISOString(), fake.payments.get(firstId).paidAt);

  clock.advance(30 * 86_400_000);
  const renewalId = orderId();
  const renewal = await portone.chargeBillingKey({ billingKey: key, customerKey: 'cus_sub_1', amount: 9900, orderId: renewalId, orderName: '월간 구독', idempotencyKey: `charge-${renewalId}` });
  assert.equal(renewal.status, 'succeeded', JSON.stringify(renewal));
  assert.equal(paidEvents(firstId) + paidEvents(renewalId), 2);

  // The same renewal retried (a second worker, a restart): PortOne refuses a second payment of the paymentId.
  const retried = await portone.chargeBillingKey({ billingKey: key, customerKey: 'cus_sub_1', amount: 9900, orderId: renewalId, orderName: '월간 구독', idempotencyKey: `charge-${renewalId}` });
  assert.equal(retried.status, 'succeeded');
  assert.equal(paidEvents(renewalId), 1);

  // Ended: deleted at PortOne, deleting again is fine, charging it is refused.
  assert.equal((await portone.deleteBillingKey({ billingKey: key })).status, 'succeeded');
  assert.equal((await portone.deleteBillingKey({ billingKey: key })).status, 'succeeded');
  const afterDelete = await portone.chargeBillingKey({ billingKey: key, customerKey: 'cus_sub_1', amount: 9900, orderId: orderId(), orderName: '월간 구독', idempotencyKey: 'late' });
  assert.equal(afterDelete.status, 'failed');
  if (afterDelete.status === 'failed') assert.equal(afterDelete.code, 'BILLING_KEY_ALREADY_DELETED');
});

test('two workers charging the same renewal at once: one payment', async () => {
  const key = fake.issueBillingKey({ customerId: 'cus_race' });
  const id = orderId();
  const input = { billingKey: key, customerKey: 'cus_race', amount: 4900, orderId: id, orderName: '구독', idempotencyKey: `charge-${id}` };
  const [a, b] = await Promise.all([portone.chargeBillingKey(input), portone.chargeBillingKey(input)]);
  assert.equal(a.status, 'succeeded', JSON.stringify(a));
  assert.equal(b.status, 'succeeded', JSON.stringify(b));
  assert.equal(paidEvents(id), 1);
});

test('billing charges wait PortOne\'s 60 s; reads wait the normal deadline', async () => {
  const asked: number[] = [];
  const timers = { setTimeout: (fn: () => void, ms: number) => (asked.push(ms), setTimeout(fn, 1e9)), clearTimeout: (h: unknown) => clearTimeout(h as NodeJS.Timeout) };
  const p = new PortOneProvider({ apiSecret: fake.apiSecret, storeId: fake.storeId, baseUrl: fake.baseUrl, timers, clock });
  const key = fake.issueBillingKey({ customerId: 'cus_t' });
  await p.chargeBillingKey({ billingKey: key, customerKey: 'cus_t', amount: 1000, orderId: orderId(), orderName: 't', idempotencyKey: 't' });
  assert.deepEqual(asked, [PORTONE_SLOW_CALL_MIN_MS, 10_000]);
});

test('a charge whose answer is cut after PortOne took the money: read back, succeeded once', async () => {
  const key = fake.issueBillingKey({ customerId: 'cus_cut' });
  const id = orderId();
  fake.beforeAnswer = (call) => (call.op === 'billing_charge' ? 'drop' : undefined);
  const r = await portone.chargeBillingKey({ billingKey: key, customerKey: 'cus_cut', amount: 7000, orderId: id, orderName: '구독', idempotencyKey: `charge-${id}` });
  fake.beforeAnswer = null;
  assert.equal(r.status, 'succeeded', JSON.stringify(r));
  assert.equal(paidEvents(id), 1);
});

test('reconciliation: the day\'s approvals and cancels from PortOne\'s ledger, paged, showing what our books lack', async () => {
  const day = new Date('2026-12-24T15:00:00.000Z'); // 2026-12-25 00:00 KST
  clock.set(new Date(day.getTime() - 3_600_000));
  const before = orderId();
  fake.browserPay({ paymentId: before, amount: 1000 }); // the day before: not listed
  clock.set(new Date(day.getTime() + 3_600_000));
  const a = orderId();
  const b = orderId();
  fake.browserPay({ paymentId: a, amount: 10000 });
  clock.advance(60_000);
  fake.browserPay({ paymentId: b, amount: 5000 });
  clock.advance(60_000);
  await portone.refund({ paymentKey: a, amount: 2000, reason: '부분 환불', idempotencyKey: `r-${a}` });
  clock.advance(60_000);
  fake.cancelInConsole(b, 5000, '콘솔에서 취소'); // made outside our API: our books do not have it
  clock.set(new Date(day.getTime() + 30 * 3_600_000)); // the next day: not listed
  fake.browserPay({ paymentId: orderId(), amount: 777 });

  const range = { startDate: day, endDate: new Date(day.getTime() + 86_400_000 - 1) };
  const pages = [];
  let after: string | undefined;
  for (;;) {
    const page = await portone.listTransactions({ ...range, startingAfter: after, limit: 2 });
    assert.equal(page.status, 'succeeded', JSON.stringify(page));
    if (page.status !== 'succeeded') return;
    pages.push(page.value.transactions);
    if (!page.value.nextStartingAfter) break;
    after = page.value.nextStartingAfter;
  }
  assert.deepEqual(pages.map((p) => p.length), [2, 2, 0]);
  const all = pages.flat();
  assert.deepEqual(all.map((t) => [t.orderId, t.kind, t.amount]), [[a, 'approval', 10000], [b, 'approval', 5000], [a, 'cancel', 2000], [b, 'cancel', 5000]]);
  const sent = JSON.parse(new URL(fake.calls.find((c) => c.op === 'events')!.path, 'http://x').searchParams.get('requestBody')!);
  assert.deepEqual(sent, { storeId: fake.storeId, from: range.startDate.toISOString(), until: range.endDate.toISOString(), size: 2 });

  // Our books: both approvals and the refund we made. The console cancel is the mismatch reconciliation reports.
  const books = [`${a}:approval:10000`, `${b}:approval:5000`, `${a}:cancel:2000`];
  assert.deepEqual(all.map((t) => `${t.orderId}:${t.kind}:${t.amount}`).filter((l) => !books.includes(l)), [`${b}:cancel:5000`]);
});

test('what the PortOne rail does not do yet says so (never a pretend success)', async () => {
  assert.equal((await portone.listSettlements({ startDate: '2026-12-01', endDate: '2026-12-01', page: 1, size: 10 })).status, 'failed');
  assert.equal((await portone.issueCashReceipt({ orderId: 'x', orderName: 'x', amount: 1, type: '소득공제', identity: '0100001234', idempotencyKey: 'x' })).status, 'failed');
});

test('a refund cut off between PortOne\'s cancel and our record: a restarted process retrying it cancels nothing more', async () => {
  const id = orderId();
  fake.browserPay({ paymentId: id, amount: 10000 });
  const refund = { paymentKey: id, amount: 4000, reason: '부분 환불', idempotencyKey: `refund-${id}` };
  // PortOne cancels, then the connection dies before the answer (our process crashed, or the network cut).
  fake.beforeAnswer = (call) => (call.op === 'cancel' ? 'drop' : undefined);
  const cut = await portone.refund(refund);
  fake.beforeAnswer = null;
  // Read back: the cancellation carrying this refund's reference is there, so it is known to have happened.
  assert.equal(cut.status, 'succeeded', JSON.stringify(cut));
  // The restarted process (a new provider, nothing in memory) retries the refund it had recorded as in flight.
  const restarted = new PortOneProvider({ apiSecret: fake.apiSecret, storeId: fake.storeId, baseUrl: fake.baseUrl, timeoutMs: GENEROUS_MS, clock });
  const retried = await restarted.refund(refund);
  assert.equal(retried.status, 'succeeded');
  if (retried.status === 'succeeded') assert.equal(retried.value.balanceAmount, 6000);
  assert.equal(fake.payments.get(id).cancellations.length, 1);
  assert.equal(fake.payments.get(id).amount.cancelled, 4000);
});
