import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ManualClock } from '../../src/platform/clock';
import { TossProvider } from '../../src/payments/toss';
import { CONFIRM_WINDOW_MS, startFakeToss, type FakeToss } from './fake-toss';

/**
 * The Toss contract: every answer of the fake (test/payments/fake-toss.ts) is held against what Toss documents,
 * as recorded in test/fixtures/toss/ (one file per endpoint, each citing its page): status codes, error codes, and
 * the field names and types of the Payment, Billing and Transaction objects. The fake is driven over plain HTTP,
 * not through our adapter, so the adapter cannot shape what the fake is checked on. A documented field the fake
 * stops sending, an error code it invents, or a status it changes fails here.
 */

const HERE = dirname(fileURLToPath(import.meta.url));
const DIR = join(HERE, '..', 'fixtures', 'toss');
const fixture = (name: string): any => JSON.parse(readFileSync(join(DIR, name), 'utf8'));
const OBJECTS: Record<string, Shape> = fixture('objects.json').objects;
const COMMON = fixture('common.json');

type Shape = string | { $ref: string } | { type: 'object'; nullable?: boolean; fields: Record<string, Shape>; optional?: string[] } | { type: 'array'; nullable?: boolean; items: Shape };

/** Problems of `value` against a documented shape, each naming the field path. */
function problems(value: unknown, shape: Shape, path = '$'): string[] {
  if (typeof shape === 'string') {
    const ok = shape.split('|').some((t) => {
      if (t === 'null') return value === null;
      if (t === 'string') return typeof value === 'string';
      if (t === 'number') return typeof value === 'number' && Number.isFinite(value);
      if (t === 'integer') return Number.isInteger(value);
      if (t === 'boolean') return typeof value === 'boolean';
      if (t === 'object') return !!value && typeof value === 'object' && !Array.isArray(value);
      if (t === 'array') return Array.isArray(value);
      throw new Error(`fixture: unknown type ${t} at ${path}`);
    });
    return ok ? [] : [`${path}: expected ${shape}, got ${value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value}`];
  }
  if ('$ref' in shape) {
    const target = OBJECTS[shape.$ref];
    if (!target) throw new Error(`fixture: unknown object ${shape.$ref}`);
    return problems(value, target, path);
  }
  if (value === null) return shape.nullable ? [] : [`${path}: null where the documentation has a value`];
  if (shape.type === 'array') {
    if (!Array.isArray(value)) return [`${path}: expected an array`];
    return value.flatMap((v, i) => problems(v, shape.items, `${path}[${i}]`));
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return [`${path}: expected an object`];
  const o = value as Record<string, unknown>;
  return Object.entries(shape.fields).flatMap(([k, s]) => {
    if (o[k] === undefined) return shape.optional?.includes(k) ? [] : [`${path}.${k}: documented field missing`];
    return problems(o[k], s, `${path}.${k}`);
  });
}

function assertShape(value: unknown, shape: Shape, what: string): void {
  const found = problems(value, shape);
  assert.deepEqual(found, [], `${what} differs from the documented shape:\n${found.join('\n')}`);
}

/** The documented errors of an endpoint fixture plus the ones every call may meet. */
function documentedErrors(name: string): Array<{ status: number; code: string }> {
  return [...fixture(name).errors, ...COMMON.errors];
}

function assertDocumentedError(res: { status: number; body: any }, name: string, code: string): void {
  assertShape(res.body, COMMON.errorBody, `${name} error body`);
  assert.equal(res.body.code, code, JSON.stringify(res.body));
  const doc = documentedErrors(name).find((e) => e.code === code);
  assert.ok(doc, `${code} is not documented for ${fixture(name).endpoint}`);
  assert.equal(res.status, doc.status, `${code}: documented HTTP ${doc.status}, the fake answered ${res.status}`);
}

const clock = new ManualClock(new Date('2026-11-25T03:00:00Z'));
let fake: FakeToss;
let auth: string;
let seq = 0;

before(async () => {
  fake = await startFakeToss({ clock });
  auth = `Basic ${Buffer.from(`${fake.secretKey}:`).toString('base64')}`;
});
after(async () => {
  await fake.close();
});
beforeEach(() => fake.setMode('ok'));

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any; text: string }> {
  const res = await fetch(`${fake.baseUrl}${path}`, {
    method,
    headers: { Authorization: auth, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, text };
}

async function confirmed(amount = 10_000, paymentKey = `tgen_contract_${++seq}`): Promise<any> {
  const r = await call('POST', '/v1/payments/confirm', { paymentKey, orderId: `ord_contract_${++seq}`, amount }, { 'Idempotency-Key': `c-${paymentKey}` });
  assert.equal(r.status, 200, r.text);
  return r.body;
}

async function issued(customerKey = `cus_contract_${++seq}`): Promise<any> {
  const r = await call('POST', '/v1/billing/authorizations/issue', { authKey: `auth_${customerKey}`, customerKey });
  assert.equal(r.status, 200, r.text);
  return r.body;
}

test('every fixture cites its source page and names its endpoint or event', () => {
  const files = readdirSync(DIR).filter((f) => f.endsWith('.json'));
  assert.ok(files.length >= 12, `${files.length} fixture files`);
  for (const f of files) {
    const x = fixture(f);
    assert.ok(Array.isArray(x.source) && x.source.length > 0, `${f}: source`);
    for (const s of x.source) assert.match(s, /^https:\/\//, `${f}: ${s}`);
    if (f.startsWith('webhook-')) assert.ok(x.event, `${f}: event`);
    else if (f !== 'objects.json' && f !== 'common.json') assert.match(x.endpoint, /^(GET|POST|DELETE) \/v1\//, `${f}: endpoint`);
  }
});

test('POST /v1/payments/confirm: a Payment with every documented field; documented errors', async () => {
  const doc = fixture('confirm.json');
  for (const key of [`tgen_card_${++seq}`, `tgen_kakaopay_${++seq}`, `tgen_tosspay_regcard_${++seq}`, `tgen_transfer_${++seq}`, `tgen_mobilephone_${++seq}`, `tgen_culturegift_${++seq}`]) {
    const p = await confirmed(12_000, key);
    assertShape(p, doc.response.body, `confirm (${key})`);
  }
  const dup = await confirmed(1000);
  assertDocumentedError(await call('POST', '/v1/payments/confirm', { paymentKey: dup.paymentKey, orderId: dup.orderId, amount: 1000 }), 'confirm.json', 'ALREADY_PROCESSED_PAYMENT');
  assertDocumentedError(await call('POST', '/v1/payments/confirm', { paymentKey: `tgen_x_${++seq}`, orderId: 'a b', amount: 1000 }), 'confirm.json', 'INVALID_ORDER_ID');
  assertDocumentedError(await call('POST', '/v1/payments/confirm', { paymentKey: `tgen_x_${++seq}`, orderId: dup.orderId, amount: 1000 }), 'confirm.json', 'DUPLICATED_ORDER_ID');
  const late = `tgen_late_${++seq}`;
  fake.requestPayment({ paymentKey: late, orderId: `ord_late_${seq}`, amount: 1000 });
  clock.advance(CONFIRM_WINDOW_MS + 1);
  assertDocumentedError(await call('POST', '/v1/payments/confirm', { paymentKey: late, orderId: `ord_late_${seq}`, amount: 1000 }), 'confirm.json', 'NOT_FOUND_PAYMENT_SESSION');
  fake.setMode('decline');
  assertDocumentedError(await call('POST', '/v1/payments/confirm', { paymentKey: `tgen_x_${++seq}`, orderId: `ord_dec_${seq}`, amount: 1000 }), 'confirm.json', 'REJECT_CARD_PAYMENT');
});

test('a wallet paid with a registered card is documented as method 간편결제 with card filled and easyPay.amount 0', async () => {
  const p = await confirmed(30_000, `tgen_naverpay_regcard_${++seq}`);
  assert.equal(p.method, '간편결제');
  assert.equal(p.easyPay.provider, '네이버페이');
  assert.equal(p.easyPay.amount, 0);
  assert.equal(p.card.amount, 30_000);
  const money = await confirmed(30_000, `tgen_naverpay_${++seq}`);
  assert.equal(money.card, null);
  assert.equal(money.easyPay.amount, 30_000);
});

test('GET /v1/payments/{paymentKey} and /v1/payments/orders/{orderId}: the same Payment; NOT_FOUND_PAYMENT', async () => {
  const p = await confirmed();
  const byKey = await call('GET', `/v1/payments/${p.paymentKey}`);
  assert.equal(byKey.status, fixture('get-payment.json').response.status);
  assertShape(byKey.body, fixture('get-payment.json').response.body, 'lookup by paymentKey');
  const byOrder = await call('GET', `/v1/payments/orders/${p.orderId}`);
  assert.equal(byOrder.status, fixture('get-payment-by-order.json').response.status);
  assertShape(byOrder.body, fixture('get-payment-by-order.json').response.body, 'lookup by orderId');
  assert.deepEqual(byOrder.body, byKey.body);
  assertDocumentedError(await call('GET', '/v1/payments/tgen_nope'), 'get-payment.json', 'NOT_FOUND_PAYMENT');
  assertDocumentedError(await call('GET', '/v1/payments/orders/ord_nope'), 'get-payment-by-order.json', 'NOT_FOUND_PAYMENT');
});

test('POST /v1/payments/{paymentKey}/cancel: Payment with the cancel last in cancels; documented errors', async () => {
  const doc = fixture('cancel.json');
  const p = await confirmed(10_000);
  const path = `/v1/payments/${p.paymentKey}/cancel`;
  const part = await call('POST', path, { cancelReason: '고객 요청', cancelAmount: 4000, refundableAmount: 10_000 }, { 'Idempotency-Key': `rf-${seq}` });
  assert.equal(part.status, doc.response.status, part.text);
  assertShape(part.body, doc.response.body, 'partial cancel');
  assert.equal(part.body.status, 'PARTIAL_CANCELED');
  assert.equal(part.body.balanceAmount, 6000);
  assert.equal(part.body.cancels.at(-1).refundableAmount, 6000);
  assertDocumentedError(await call('POST', path, { cancelReason: 'r', cancelAmount: 1000, refundableAmount: 10_000 }), 'cancel.json', 'NOT_MATCHES_REFUNDABLE_AMOUNT');
  assertDocumentedError(await call('POST', path, { cancelReason: 'r', cancelAmount: 7000 }), 'cancel.json', 'NOT_CANCELABLE_AMOUNT');
  assertDocumentedError(await call('POST', path, { cancelReason: 'r'.repeat(201), cancelAmount: 1000 }), 'cancel.json', 'INVALID_REQUEST');
  const full = await call('POST', path, { cancelReason: 'r'.repeat(200) });
  assert.equal(full.status, 200, full.text);
  assertShape(full.body, doc.response.body, 'full cancel');
  assert.equal(full.body.status, 'CANCELED');
  assertDocumentedError(await call('POST', path, { cancelReason: 'r' }), 'cancel.json', 'ALREADY_CANCELED_PAYMENT');
  assertDocumentedError(await call('POST', '/v1/payments/tgen_nope/cancel', { cancelReason: 'r' }), 'cancel.json', 'NOT_FOUND_PAYMENT');
  const other = await confirmed(5000);
  fake.setMode('decline');
  assertDocumentedError(await call('POST', `/v1/payments/${other.paymentKey}/cancel`, { cancelReason: 'r' }), 'cancel.json', 'NOT_CANCELABLE_PAYMENT');
});

test('a merchant-admin cancel (cancelAtToss) leaves the same documented Payment shape', async () => {
  const p = await confirmed(8000);
  const after = fake.cancelAtToss(p.paymentKey, 3000);
  assertShape(after, fixture('get-payment.json').response.body, 'after a merchant-admin cancel');
  assert.equal((await call('GET', `/v1/payments/${p.paymentKey}`)).body.balanceAmount, 5000);
});

test('billing: issue answers a Billing, charge a BILLING Payment, delete an empty 200; documented errors', async () => {
  const b = await issued('cus_contract_billing');
  assertShape(b, fixture('billing-issue.json').response.body, 'billing key issue');
  fake.setMode('decline');
  assertDocumentedError(await call('POST', '/v1/billing/authorizations/issue', { authKey: 'a', customerKey: 'c' }), 'billing-issue.json', 'REJECT_CARD_COMPANY');
  fake.setMode('ok');
  const path = `/v1/billing/${b.billingKey}`;
  const order = `ord_contract_bill_${++seq}`;
  const charge = await call('POST', path, { customerKey: 'cus_contract_billing', amount: 9900, orderId: order, orderName: '월간 구독' }, { 'Idempotency-Key': `chg-${seq}` });
  assert.equal(charge.status, fixture('billing-charge.json').response.status, charge.text);
  assertShape(charge.body, fixture('billing-charge.json').response.body, 'billing charge');
  assert.equal(charge.body.type, 'BILLING');
  assertDocumentedError(await call('POST', path, { customerKey: 'cus_other', amount: 9900, orderId: `o_${++seq}_xx`, orderName: 'x' }), 'billing-charge.json', 'NOT_MATCHES_CUSTOMER_KEY');
  assertDocumentedError(await call('POST', path, { customerKey: 'cus_contract_billing', amount: 9900, orderId: order, orderName: 'x' }), 'billing-charge.json', 'DUPLICATED_ORDER_ID');
  fake.setMode('decline');
  assertDocumentedError(await call('POST', path, { customerKey: 'cus_contract_billing', amount: 9900, orderId: `o_${++seq}_xx`, orderName: 'x' }), 'billing-charge.json', 'REJECT_CARD_PAYMENT');
  fake.setMode('ok');
  const del = await call('DELETE', path);
  assert.equal(del.status, fixture('billing-delete.json').response.status, del.text);
  assert.equal(del.text, '');
  assertDocumentedError(await call('DELETE', path), 'billing-delete.json', 'NOT_FOUND_BILLING');
  assertDocumentedError(await call('POST', path, { customerKey: 'cus_contract_billing', amount: 9900, orderId: `o_${++seq}_xx`, orderName: 'x' }), 'billing-charge.json', 'NOT_FOUND_BILLING');
});

test('GET /v1/transactions: documented Transaction items, paged; INVALID_TRANSACTION_KEY', async () => {
  const doc = fixture('transactions.json');
  const p = await confirmed(6000);
  fake.cancelAtToss(p.paymentKey, 1000);
  const day = new Date(clock.now().getTime() + 9 * 3600_000).toISOString().slice(0, 10);
  const q = `startDate=${day}T00:00:00&endDate=${day}T23:59:59.999`;
  const r = await call('GET', `/v1/transactions?${q}`);
  assert.equal(r.status, doc.response.status, r.text);
  assertShape(r.body, doc.response.body, 'transactions');
  assert.ok(r.body.some((t: any) => t.paymentKey === p.paymentKey && t.status === 'PARTIAL_CANCELED' && t.amount === 1000), 'the merchant-admin cancel is listed');
  const page = await call('GET', `/v1/transactions?${q}&limit=1`);
  assert.equal(page.body.length, 1);
  const next = await call('GET', `/v1/transactions?${q}&limit=1&startingAfter=${page.body[0].transactionKey}`);
  assert.notEqual(next.body[0]?.transactionKey, page.body[0].transactionKey);
  assertDocumentedError(await call('GET', `/v1/transactions?${q}&startingAfter=nope`), 'transactions.json', 'INVALID_TRANSACTION_KEY');
});

test('GET /v1/transactions: limit defaults to 100 and is at most 5000, as documented', async () => {
  const { limit } = fixture('transactions.json').request.limits;
  assert.deepEqual(limit, { default: 100, max: 5000 });
  const day = new Date(clock.now().getTime() + 9 * 3600_000).toISOString().slice(0, 10);
  const q = `startDate=${day}T00:00:00&endDate=${day}T23:59:59.999`;
  assert.equal((await call('GET', `/v1/transactions?${q}&limit=${limit.max}`)).status, 200);
  assertDocumentedError(await call('GET', `/v1/transactions?${q}&limit=${limit.max + 1}`), 'transactions.json', 'INVALID_REQUEST');
  assertDocumentedError(await call('GET', `/v1/transactions?${q}&limit=0`), 'transactions.json', 'INVALID_REQUEST');
});

test('GET /v1/settlements: documented Settlement records (fee, VAT on the fee, payout date), paged by page/size ≤ 5000', async () => {
  const doc = fixture('settlements.json');
  const p = await confirmed(34_000);
  fake.cancelAtToss(p.paymentKey, 4000);
  const day = new Date(clock.now().getTime() + 9 * 3600_000).toISOString().slice(0, 10);
  const r = await call('GET', `/v1/settlements?startDate=${day}&endDate=${day}`);
  assert.equal(r.status, doc.response.status, r.text);
  assertShape(r.body, doc.response.body, 'settlements');
  const sale = r.body.find((x: any) => x.paymentKey === p.paymentKey && x.cancel === null);
  assert.ok(sale, 'the approval has its settlement record');
  assert.equal(sale.amount, 34_000);
  assert.equal(sale.fee, sale.supplyAmount + sale.vat, 'the fee is its supply amount plus VAT');
  assert.equal(sale.payOutAmount, sale.amount - sale.fee);
  assert.equal(sale.soldDate, day);
  assert.ok(sale.paidOutDate > sale.soldDate);
  assert.ok(r.body.some((x: any) => x.paymentKey === p.paymentKey && x.cancel?.cancelAmount === 4000), 'the cancel has its own record');
  // By payout date: the same records under the day they are paid out.
  const out = await call('GET', `/v1/settlements?startDate=${sale.paidOutDate}&endDate=${sale.paidOutDate}&dateType=paidOutDate`);
  assert.ok(out.body.some((x: any) => x.transactionKey === sale.transactionKey));
  const one = await call('GET', `/v1/settlements?startDate=${day}&endDate=${day}&size=1&page=2`);
  assert.equal(one.body.length, 1);
  assert.notEqual(one.body[0].transactionKey, r.body[0].transactionKey);
  assert.deepEqual(doc.request.limits.size, { default: 100, max: 5000 });
  assert.equal((await call('GET', `/v1/settlements?startDate=${day}&endDate=${day}&size=5000`)).status, 200);
  assertDocumentedError(await call('GET', `/v1/settlements?startDate=${day}&endDate=${day}&size=5001`), 'settlements.json', 'INVALID_REQUEST');
  assertDocumentedError(await call('GET', `/v1/settlements?startDate=${day}&endDate=${day}&page=0`), 'settlements.json', 'INVALID_REQUEST');
});

test('a second MID (자동결제): each key sees only its own payments, billing keys, transactions and settlements', async () => {
  const two = await startFakeToss({ clock, billingMid: true });
  try {
    const as = (key: string) => ({ Authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` });
    const get = async (path: string, key: string) => {
      const res = await fetch(`${two.baseUrl}${path}`, { headers: as(key) });
      return { status: res.status, body: await res.json() };
    };
    const post = async (path: string, key: string, body: unknown) => {
      const res = await fetch(`${two.baseUrl}${path}`, { method: 'POST', headers: { ...as(key), 'Content-Type': 'application/json', 'Idempotency-Key': `k-${path}` }, body: JSON.stringify(body) });
      return { status: res.status, body: await res.json() };
    };
    const billing = two.billing!;
    const issue = await post('/v1/billing/authorizations/issue', billing.secretKey, { authKey: 'auth_mid', customerKey: 'cus_mid' });
    assert.equal(issue.status, 200);
    assert.equal(issue.body.mId, billing.mId);
    const charge = { customerKey: 'cus_mid', amount: 9900, orderId: 'ord_mid_1', orderName: '구독' };
    assertDocumentedError(await post(`/v1/billing/${issue.body.billingKey}`, two.secretKey, charge), 'billing-charge.json', 'NOT_FOUND_BILLING');
    const paid = await post(`/v1/billing/${issue.body.billingKey}`, billing.secretKey, charge);
    assert.equal(paid.status, 200);
    assert.equal(paid.body.mId, billing.mId);
    assertDocumentedError(await get(`/v1/payments/${paid.body.paymentKey}`, two.secretKey), 'get-payment.json', 'NOT_FOUND_PAYMENT');
    assert.equal((await get(`/v1/payments/${paid.body.paymentKey}`, billing.secretKey)).status, 200);
    const day = new Date(clock.now().getTime() + 9 * 3600_000).toISOString().slice(0, 10);
    const q = `startDate=${day}T00:00:00&endDate=${day}T23:59:59.999`;
    assert.equal((await get(`/v1/transactions?${q}`, two.secretKey)).body.length, 0);
    assert.equal((await get(`/v1/transactions?${q}`, billing.secretKey)).body.length, 1);
    assert.equal((await get(`/v1/settlements?startDate=${day}&endDate=${day}`, billing.secretKey)).body[0].mId, billing.mId);
    assert.deepEqual(two.calls.map((c) => c.merchant), ['billing', 'payments', 'billing', 'payments', 'billing', 'payments', 'billing', 'billing']);
  } finally {
    await two.close();
  }
});

test('common: Basic auth, Idempotency-Key of at most 300 characters, replay, 409 while the first is processing', async () => {
  const bad = await fetch(`${fake.baseUrl}/v1/payments/tgen_x`, { headers: { Authorization: 'Basic eA==' } });
  assertDocumentedError({ status: bad.status, body: await bad.json() }, 'get-payment.json', 'UNAUTHORIZED_KEY');
  const key = `tgen_idem_${++seq}`;
  const body = { paymentKey: key, orderId: `ord_idem_${seq}`, amount: 1000 };
  assertDocumentedError(await call('POST', '/v1/payments/confirm', body, { 'Idempotency-Key': 'k'.repeat(COMMON.idempotency.maxLength + 1) }), 'confirm.json', 'INVALID_IDEMPOTENCY_KEY');
  const hold = fake.hold('confirm');
  const first = call('POST', '/v1/payments/confirm', body, { 'Idempotency-Key': 'same' });
  await hold.arrived;
  assertDocumentedError(await call('POST', '/v1/payments/confirm', body, { 'Idempotency-Key': 'same' }), 'confirm.json', 'IDEMPOTENT_REQUEST_PROCESSING');
  hold.release();
  const a = await first;
  const b = await call('POST', '/v1/payments/confirm', body, { 'Idempotency-Key': 'same' });
  assert.equal(b.status, 200);
  assert.deepEqual(b.body, a.body, 'the first answer is replayed');
  fake.answerNext('confirm', { status: 403, code: 'FORBIDDEN_CONSECUTIVE_REQUEST', message: '반복적인 요청은 허용되지 않습니다. 잠시 후 다시 시도해주세요.' });
  assertDocumentedError(await call('POST', '/v1/payments/confirm', { ...body, paymentKey: `${key}_2`, orderId: `ord_idem2_${seq}` }), 'confirm.json', 'FORBIDDEN_CONSECUTIVE_REQUEST');
  fake.setMode('error500');
  assertDocumentedError(await call('GET', `/v1/payments/${key}`), 'get-payment.json', 'FAILED_INTERNAL_SYSTEM_PROCESSING');
});

test('webhook bodies: PAYMENT_STATUS_CHANGED, CANCEL_STATUS_CHANGED and BILLING_DELETED as documented', async () => {
  const p = await confirmed(5000);
  fake.cancelAtToss(p.paymentKey, 5000);
  for (const [file, body] of [
    ['webhook-payment-status-changed.json', fake.webhook('PAYMENT_STATUS_CHANGED', p.paymentKey)],
    ['webhook-cancel-status-changed.json', fake.webhook('CANCEL_STATUS_CHANGED', p.paymentKey)],
    ['webhook-billing-deleted.json', fake.webhook('BILLING_DELETED', (await issued()).billingKey)],
  ] as const) {
    const doc = fixture(file);
    assertShape(body, doc.body, file);
    assert.equal(body.eventType, doc.event);
    // Microseconds, KST, no offset: "Formatted in ISO 8601 yyyy-MM-dd'T'HH:mm:ss.SSSSSS" (docs.tosspayments.com/en/webhooks).
    assert.match(body.createdAt, new RegExp(doc.createdAtPattern));
    assert.match(body.createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}$/);
  }
});

test('가상계좌: confirm answers WAITING_FOR_DEPOSIT with virtualAccount and secret; the deposit is DONE with a DEPOSIT_CALLBACK body as documented; a deposited one cancels only with refundReceiveAccount', async () => {
  const p = await confirmed(12_000, `tgen_vaccount_${++seq}`);
  assertShape(p, fixture('confirm.json').response.body, 'confirm (가상계좌)');
  assert.equal(p.status, 'WAITING_FOR_DEPOSIT');
  assert.equal(p.method, '가상계좌');
  assert.equal(p.approvedAt, null);
  assert.equal(typeof p.secret, 'string');
  const doc = fixture('webhook-deposit-callback.json');
  const body = fake.deposit(p.paymentKey);
  assertShape(body, doc.body, 'webhook-deposit-callback.json');
  assert.equal(body.secret, p.secret);
  assert.equal(body.status, 'DONE');
  const after = await call('GET', `/v1/payments/${p.paymentKey}`);
  assert.equal((after.body as any).status, 'DONE');
  assertDocumentedError(await call('POST', `/v1/payments/${p.paymentKey}/cancel`, { cancelReason: 'r', cancelAmount: 1000 }), 'cancel.json', 'INVALID_REFUND_ACCOUNT_INFO');
  const ok = await call('POST', `/v1/payments/${p.paymentKey}/cancel`, { cancelReason: 'r', cancelAmount: 1000, refundReceiveAccount: { bank: '88', accountNumber: '110123456789', holderName: '김구매' } });
  assert.equal(ok.status, 200);
  assert.equal((ok.body as any).balanceAmount, 11_000);
});

test('every error the fake can answer is documented for some endpoint with the same HTTP status', () => {
  const src = readFileSync(join(HERE, 'fake-toss.ts'), 'utf8');
  const all = readdirSync(DIR)
    .filter((f) => f.endsWith('.json') && f !== 'objects.json')
    .flatMap((f) => (fixture(f).errors ?? []) as Array<{ status: number; code: string }>);
  const found = [...src.matchAll(/err\((\d{3}), '([A-Z_]+)'/g), ...src.matchAll(/status: (\d{3}), body: \{ code: '([A-Z_]+)'/g)];
  assert.ok(found.length >= 15, `found ${found.length} error answers in the fake`);
  for (const [, status, code] of found) {
    assert.ok(all.some((e) => e.code === code && e.status === Number(status)), `the fake answers ${status} ${code}, which no fixture documents`);
  }
});

test('what our adapter sends matches the documented requests (field names and types)', async () => {
  const toss = new TossProvider({ secretKey: fake.secretKey, baseUrl: fake.baseUrl, clock });
  fake.calls.length = 0;
  const key = `tgen_req_${++seq}`;
  assert.equal((await toss.confirmPayment({ paymentKey: key, orderId: `ord_req_${seq}`, amount: 10_000, idempotencyKey: `c-${key}` })).status, 'succeeded');
  assert.equal((await toss.refund({ paymentKey: key, amount: 3000, reason: 'r', idempotencyKey: `rf-${key}` })).status, 'succeeded');
  const b = await toss.issueBillingKey({ authKey: `auth_req_${seq}`, customerKey: `cus_req_${seq}` });
  if (b.status !== 'succeeded') return assert.fail(JSON.stringify(b));
  await toss.chargeBillingKey({ billingKey: b.value.billingKey, customerKey: `cus_req_${seq}`, amount: 1000, orderId: `ord_reqb_${seq}`, orderName: '구독', idempotencyKey: `chg-${seq}` });
  const byPath: Array<[RegExp, string]> = [
    [/^\/v1\/payments\/confirm$/, 'confirm.json'],
    [/^\/v1\/payments\/[^/]+\/cancel$/, 'cancel.json'],
    [/^\/v1\/billing\/authorizations\/issue$/, 'billing-issue.json'],
    [/^\/v1\/billing\/[^/]+$/, 'billing-charge.json'],
  ];
  assert.equal(fake.calls.length, 4);
  // refundableAmount is deprecated ("이 파라미터는 더 이상 사용을 권장하지 않습니다. 안전하게 취소하려면 멱등키를 대신
  // 사용해주세요", reference #결제-취소): the cancel's Idempotency-Key protects it, so it is never sent.
  const cancelCall = fake.calls.find((c) => c.path.endsWith('/cancel'))!;
  assert.equal('refundableAmount' in cancelCall.body, false, 'no deprecated refundableAmount in the cancel');
  for (const c of fake.calls) {
    const file = byPath.find(([re]) => re.test(c.path))![1];
    const shape = fixture(file).request.body;
    assertShape(c.body, shape, `our ${file} request`);
    const extra = Object.keys(c.body).filter((k) => !(k in shape.fields));
    assert.deepEqual(extra, [], `${file}: undocumented fields sent`);
    assert.equal(c.headers.authorization, `Basic ${Buffer.from(`${fake.secretKey}:`).toString('base64')}`);
    assert.ok(c.headers['idempotency-key'] && c.headers['idempotency-key'].length <= COMMON.idempotency.maxLength, `${file}: Idempotency-Key sent, at most 300 characters`);
  }
});

test('POST /v1/cash-receipts and its cancel: a CashReceipt with every documented field; a replayed key issues once; amount-less cancel takes the rest', async () => {
  const shape = fixture('cash-receipts.json').response.body;
  const body = { amount: 30_000, orderId: `ord_cr_${++seq}`, orderName: '테스트 상품', customerIdentityNumber: '01012345678', type: '소득공제', taxFreeAmount: 0 };
  const first = await call('POST', '/v1/cash-receipts', body, { 'Idempotency-Key': `cr-${seq}` });
  assert.equal(first.status, 200, first.text);
  assertShape(first.body, shape, 'CashReceipt');
  assert.equal(first.body.transactionType, 'CONFIRM');
  assert.equal(first.body.amount, 30_000);
  const again = await call('POST', '/v1/cash-receipts', body, { 'Idempotency-Key': `cr-${seq}` });
  assert.equal(again.body.receiptKey, first.body.receiptKey, 'the same key answers the first issue');
  assert.equal([...fake.cashReceipts.values()].filter((r) => r.orderId === body.orderId).length, 1);
  assertDocumentedError(await call('POST', '/v1/cash-receipts', { ...body, type: '미발행' }), 'cash-receipts.json', 'INVALID_REQUEST');
  const part = await call('POST', `/v1/cash-receipts/${first.body.receiptKey}/cancel`, { amount: 10_000 });
  assert.equal(part.status, 200, part.text);
  assertShape(part.body, shape, 'CashReceipt (cancel)');
  assert.equal(part.body.transactionType, 'CANCEL');
  assert.equal(part.body.amount, 10_000);
  assertDocumentedError(await call('POST', `/v1/cash-receipts/${first.body.receiptKey}/cancel`, { amount: 25_000 }), 'cash-receipts.json', 'INVALID_REQUEST');
  const rest = await call('POST', `/v1/cash-receipts/${first.body.receiptKey}/cancel`, {});
  assert.equal(rest.body.amount, 20_000, 'no amount: the whole rest');
  assert.equal(fake.cashReceipts.get(first.body.receiptKey)!.amount, 0);
  assertDocumentedError(await call('POST', '/v1/cash-receipts/cr_unknown/cancel', {}), 'cash-receipts.json', 'NOT_FOUND');
});

test('what our adapter sends to the cash-receipt API matches the documented requests', async () => {
  const toss = new TossProvider({ secretKey: fake.secretKey, baseUrl: fake.baseUrl, clock });
  fake.calls.length = 0;
  const r = await toss.issueCashReceipt({ orderId: `ord_crq_${++seq}`, orderName: '상품', amount: 5000, type: '지출증빙', identity: '1234567890', idempotencyKey: `cr-req-${seq}` });
  if (r.status !== 'succeeded') return assert.fail(JSON.stringify(r));
  assert.equal((await toss.cancelCashReceipt({ receiptKey: r.value.receiptKey, amount: 2000, idempotencyKey: `crc-${seq}` })).status, 'succeeded');
  assert.equal((await toss.cancelCashReceipt({ receiptKey: r.value.receiptKey, idempotencyKey: `crc2-${seq}` })).status, 'succeeded');
  const [issue, partial, full] = fake.calls;
  assert.deepEqual(Object.keys(issue.body).sort(), ['amount', 'customerIdentityNumber', 'orderId', 'orderName', 'taxFreeAmount', 'type']);
  assert.equal(issue.headers['idempotency-key'], `cr-req-${seq}`);
  assert.deepEqual(partial.body, { amount: 2000 });
  assert.deepEqual(full.body, {}, 'no amount: a full cancel');
  assert.equal(fake.cashReceipts.get(r.value.receiptKey)!.amount, 0);
});
