import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ManualClock } from '../../src/platform/clock';
import { startFakePortOne, type FakePortOne } from './fake-portone';
import { portoneErrorSchemaFor, portoneErrorStatus, portoneResponseSchema, portoneSchemaErrors } from './portone-openapi';

/**
 * The fake PortOne against PortOne's published OpenAPI document: every answer of every operation the provider uses,
 * driven over plain HTTP (not through our adapter), must fit the response schema of its operation and status; every
 * error must be of the operation's documented union with the status its schema documents; the request examples in
 * test/fixtures/portone/ (from PortOne's guides) must fit the request schemas the fake validates against.
 */
let fake: FakePortOne;
const clock = new ManualClock('2026-11-20T03:00:00.000Z');
const FIXTURES = join(import.meta.dirname, '../fixtures/portone');

before(async () => {
  fake = await startFakePortOne({ clock });
});
after(async () => {
  await fake.close();
});

async function call(method: string, path: string, body?: unknown, auth = `PortOne ${fake.apiSecret}`): Promise<{ status: number; body: any }> {
  const res = await fetch(`${fake.baseUrl}${path}`, {
    method,
    headers: { Authorization: auth, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/** The answer fits the document: a 2xx its response schema, an error its union member and documented status. */
function holds(openapiPath: string, method: string, errorUnion: string, answer: { status: number; body: any }): void {
  if (answer.status >= 200 && answer.status < 300) {
    const schema = portoneResponseSchema(openapiPath, method, answer.status);
    assert.ok(schema, `${method} ${openapiPath} documents no ${answer.status}`);
    assert.deepEqual(portoneSchemaErrors(schema, answer.body), [], `${method} ${openapiPath} ${answer.status} vs ${schema}`);
    return;
  }
  const member = portoneErrorSchemaFor(errorUnion, answer.body.type);
  assert.ok(member, `${answer.body.type} is not in ${errorUnion}`);
  assert.equal(answer.status, portoneErrorStatus(member), `${member}'s documented status`);
  assert.ok(portoneResponseSchema(openapiPath, method, answer.status), `${method} ${openapiPath} documents no ${answer.status}`);
  assert.deepEqual(portoneSchemaErrors(member, answer.body), []);
}

test('GET /payments/{paymentId}: PaidPayment, VirtualAccountIssuedPayment, PartialCancelledPayment, CancelledPayment, FailedPayment; PAYMENT_NOT_FOUND; UNAUTHORIZED', async () => {
  const P = '/payments/{paymentId}';
  fake.browserPay({ paymentId: 'c_paid', amount: 10000 });
  fake.browserPay({ paymentId: 'c_easy', amount: 10000, method: 'kakaopay' });
  fake.browserPay({ paymentId: 'c_va', amount: 10000, method: 'virtual_account' });
  fake.browserPay({ paymentId: 'c_part', amount: 10000 });
  fake.cancelInConsole('c_part', 1000);
  fake.browserPay({ paymentId: 'c_full', amount: 10000 });
  fake.cancelInConsole('c_full', 10000);
  const key = fake.issueBillingKey({ customerId: 'c' });
  fake.declineNext();
  await call('POST', '/payments/c_failed/billing-key', { billingKey: key, orderName: 'x', amount: { total: 1000 }, currency: 'KRW' });
  const statuses = [];
  for (const id of ['c_paid', 'c_easy', 'c_va', 'c_part', 'c_full', 'c_failed']) {
    const a = await call('GET', `/payments/${id}`);
    holds(P, 'get', 'GetPaymentError', a);
    statuses.push(a.body.status);
  }
  assert.deepEqual(statuses, ['PAID', 'PAID', 'VIRTUAL_ACCOUNT_ISSUED', 'PARTIAL_CANCELLED', 'CANCELLED', 'FAILED']);
  holds(P, 'get', 'GetPaymentError', await call('GET', '/payments/nope'));
  const unauthorized = await call('GET', '/payments/c_paid', undefined, 'PortOne wrong');
  assert.equal(unauthorized.status, 401);
  holds(P, 'get', 'GetPaymentError', unauthorized);
});

test('POST /payments/{paymentId}/cancel: CancelPaymentResponse, and each documented refusal with its status', async () => {
  const P = '/payments/{paymentId}/cancel';
  fake.browserPay({ paymentId: 'k_1', amount: 10000 });
  const answers = [
    await call('POST', '/payments/k_1/cancel', { reason: '고객 요청', currentCancellableAmount: 9999, amount: 3000 }),
    await call('POST', '/payments/k_1/cancel', { reason: '고객 요청', currentCancellableAmount: 10000, amount: 3000 }),
    await call('POST', '/payments/k_1/cancel', { reason: '고객 요청', amount: 8000 }),
    await call('POST', '/payments/k_1/cancel', { amount: 1000 }),
    await call('POST', '/payments/k_1/cancel', { reason: '나머지' }),
    await call('POST', '/payments/k_1/cancel', { reason: '또' }),
    await call('POST', '/payments/none/cancel', { reason: 'x' }),
  ];
  for (const a of answers) holds(P, 'post', 'CancelPaymentError', a);
  assert.deepEqual(
    answers.map((a) => a.body.type ?? a.body.cancellation.status),
    ['CANCELLABLE_AMOUNT_CONSISTENCY_BROKEN', 'SUCCEEDED', 'CANCEL_AMOUNT_EXCEEDS_CANCELLABLE_AMOUNT', 'INVALID_REQUEST', 'SUCCEEDED', 'PAYMENT_ALREADY_CANCELLED', 'PAYMENT_NOT_FOUND'],
  );
  fake.browserPay({ paymentId: 'k_va', amount: 5000, method: 'virtual_account' });
  holds(P, 'post', 'CancelPaymentError', await call('POST', '/payments/k_va/cancel', { reason: 'x' })); // not paid yet
  fake.deposit('k_va');
  const noAccount = await call('POST', '/payments/k_va/cancel', { reason: 'x' });
  assert.equal(noAccount.body.type, 'INVALID_REQUEST');
  const withAccount = await call('POST', '/payments/k_va/cancel', { reason: 'x', refundAccount: { bank: 'KOOKMIN', number: '123', holderName: '홍길동' } });
  holds(P, 'post', 'CancelPaymentError', withAccount);
  assert.equal(withAccount.status, 200);
});

test('POST /payments/{paymentId}/billing-key, GET and DELETE /billing-keys/{billingKey}', async () => {
  const key = fake.issueBillingKey({ customerId: 'cus' });
  const pay = (id: string, billingKey = key) => call('POST', `/payments/${id}/billing-key`, { billingKey, orderName: '월간 이용권 정기결제', customer: { id: 'cus' }, amount: { total: 8900 }, currency: 'KRW' });
  const P = '/payments/{paymentId}/billing-key';
  const answers = [await pay('b_1'), await pay('b_1'), await pay('b_2', 'billing-key-unknown'), await call('POST', '/payments/b_3/billing-key', { billingKey: key })];
  fake.declineNext('F113', '한도초과');
  answers.push(await pay('b_4'));
  for (const a of answers) holds(P, 'post', 'PayWithBillingKeyError', a);
  assert.deepEqual(answers.map((a) => a.body.type ?? 'OK'), ['OK', 'ALREADY_PAID', 'BILLING_KEY_NOT_FOUND', 'INVALID_REQUEST', 'PG_PROVIDER']);
  assert.deepEqual([answers[4].body.pgCode, answers[4].body.pgMessage], ['F113', '한도초과']);

  const K = '/billing-keys/{billingKey}';
  holds(K, 'get', 'GetBillingKeyInfoError', await call('GET', `/billing-keys/${key}`));
  holds(K, 'delete', 'DeleteBillingKeyError', await call('DELETE', `/billing-keys/${key}`));
  const deleted = await call('GET', `/billing-keys/${key}`);
  holds(K, 'get', 'GetBillingKeyInfoError', deleted);
  assert.equal(deleted.body.status, 'DELETED');
  const again = await call('DELETE', `/billing-keys/${key}`);
  holds(K, 'delete', 'DeleteBillingKeyError', again);
  assert.equal(again.body.type, 'BILLING_KEY_ALREADY_DELETED');
  holds(K, 'get', 'GetBillingKeyInfoError', await call('GET', '/billing-keys/unknown'));
  const charged = await pay('b_5');
  assert.equal(charged.body.type, 'BILLING_KEY_ALREADY_DELETED');
  holds(P, 'post', 'PayWithBillingKeyError', charged);
});

test('GET /payment-events-by-cursor: PaymentEventWithCursor items, paged by cursor, size at most 1000', async () => {
  const P = '/payment-events-by-cursor';
  const q = (body: unknown) => `${P}?requestBody=${encodeURIComponent(JSON.stringify(body))}`;
  const first = await call('GET', q({ size: 3 }));
  holds(P, 'get', 'GetAllPaymentEventsError', first);
  assert.equal(first.body.items.length, 3);
  const next = await call('GET', q({ size: 3, cursor: first.body.items[2].cursor }));
  holds(P, 'get', 'GetAllPaymentEventsError', next);
  assert.notEqual(next.body.items[0].cursor, first.body.items[2].cursor);
  const types = new Set([...first.body.items, ...next.body.items].map((i: any) => i.paymentEvent.type));
  assert.ok(types.size >= 2);
  holds(P, 'get', 'GetAllPaymentEventsError', await call('GET', q({ size: 1001 })));
});

test('the request examples of PortOne\'s guides (fixtures) fit the request schemas the fake holds our requests to', () => {
  let checked = 0;
  for (const f of readdirSync(FIXTURES).filter((n) => n.endsWith('.json'))) {
    const fx = JSON.parse(readFileSync(join(FIXTURES, f), 'utf8'));
    assert.ok(Array.isArray(fx.source) && fx.source.length > 0, `${f} cites its sources`);
    for (const [name, r] of Object.entries<any>(fx.requests ?? {})) {
      assert.deepEqual(portoneSchemaErrors(r.schema, r.example), [], `${f} ${name}`);
      checked++;
    }
    for (const [status, r] of Object.entries<any>(fx.responses ?? {})) {
      if (r.type) assert.equal(portoneErrorStatus(r.schema), Number(status.split(' ').pop()), `${f} ${r.schema}`);
    }
  }
  assert.ok(checked >= 4);
  // And a body the guides would not send is refused by the same schema (the check is not vacuous).
  assert.notDeepEqual(portoneSchemaErrors('CancelPaymentBody', { amount: 3000 }), []);
  assert.notDeepEqual(portoneSchemaErrors('BillingKeyPaymentInput', { billingKey: 'k', orderName: 'x', amount: { total: 1 }, currency: 'WON' }), []);
});
