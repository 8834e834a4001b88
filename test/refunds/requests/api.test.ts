import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, post } from '../../helpers/app';
import { owner } from '../../checkout/factory';
import { simulatorFor } from '../../../src/payments';
import { reconcileRefund } from '../../../src/refunds/reconcile';
import { act, buy, DAY, events, file, fileRaw, getOrder, getRequest, product, setup, type Ctx } from './helpers';

let c: Ctx;
let p: any;
let other: any;

before(async () => {
  c = await setup();
  p = await product(c, { name: '전자책', price: 10_000 });
  other = await product(c, { name: '다른 상품', price: 5_000 });
});
after(async () => {
  await c.t.close();
});

/** A non-statutory request: the order was paid long enough ago that the withdrawal window has closed. */
async function lateRequest(fields: { amount?: string; reason?: string } = {}, productId = p.id) {
  const order = await buy(c, productId);
  c.t.clock.advance(30 * DAY);
  const rr = await file(c, order, { reason: '단순 변심', ...fields });
  assert.equal(rr.statutory, false);
  return { order, rr };
}

test('a request filed on the receipt page is listed with every documented field and a refund_request.created event', async () => {
  const order = await buy(c, p.id);
  const rr = await file(c, order, { amount: '4000', reason: '중복 결제' });
  assert.deepEqual(Object.keys(rr).sort(), [
    'amount', 'approvedAmount', 'autoApproveAt', 'createdAt', 'currency', 'decidedAt', 'decidedBy', 'decisionReason', 'id', 'mode', 'orderId', 'processing',
    'reason', 'refundId', 'requestedAt', 'source', 'statutory', 'status', 'subscriptionId', 'updatedAt',
  ].sort());
  assert.match(rr.id, /^rr_[0-9a-z]{26}$/);
  assert.equal(rr.mode, 'test');
  assert.equal(rr.orderId, order.id);
  assert.equal(rr.status, 'requested');
  assert.equal(rr.amount, 4_000);
  assert.equal(rr.currency, 'KRW');
  assert.equal(rr.reason, '중복 결제');
  assert.equal(rr.statutory, true, 'filed on the day of payment: inside the 7-day window');
  assert.equal(rr.source, 'receipt');
  for (const k of ['subscriptionId', 'decidedAt', 'decidedBy', 'decisionReason', 'approvedAmount', 'refundId']) assert.equal(rr[k], null, k);
  assert.equal(rr.processing, false);
  assert.deepEqual(await getRequest(c, rr.id), rr);
  const created = (await events(c, 'refund_request.created')).filter((e) => e.id === rr.id);
  assert.equal(created.length, 1);
  assert.equal(created[0].status, 'requested');
});

test('an empty amount asks for everything still refundable', async () => {
  const order = await buy(c, p.id);
  const rr = await file(c, order);
  assert.equal(rr.amount, 10_000);
  assert.equal(rr.reason, null);
});

test('GET /v1/refund-requests: newest first, page/limit, status and orderId filters; unknown filters refused', async () => {
  const a = await lateRequest();
  c.t.clock.advance(1000);
  const b = await lateRequest();
  const all = (await c.t.app.inject({ url: '/v1/refund-requests?limit=2', headers: bearer(c.s.key) })).json();
  assert.deepEqual(all.data.map((r: any) => r.id), [b.rr.id, a.rr.id]);
  assert.equal(all.limit, 2);
  assert.ok(all.total >= 2);
  const byOrder = (await c.t.app.inject({ url: `/v1/refund-requests?orderId=${a.order.id}`, headers: bearer(c.s.key) })).json();
  assert.deepEqual(byOrder.data.map((r: any) => r.id), [a.rr.id]);
  await act(c, a.rr.id, 'hold', { reason: '확인 중' });
  const held = (await c.t.app.inject({ url: '/v1/refund-requests?status=held', headers: bearer(c.s.key) })).json();
  assert.ok(held.data.every((r: any) => r.status === 'held'));
  assert.ok(held.data.some((r: any) => r.id === a.rr.id));
  assert.equal((await c.t.app.inject({ url: '/v1/refund-requests?status=nope', headers: bearer(c.s.key) })).statusCode, 400);
  assert.equal((await c.t.app.inject({ url: '/v1/refund-requests?sort=createdAt', headers: bearer(c.s.key) })).statusCode, 400);
});

test('a key limited to other products sees none of these requests: REFUND_REQUEST_NOT_FOUND on read, approve, hold and reject', async () => {
  const { rr } = await lateRequest();
  const limited = await c.s.newKey({ productIds: [other.id] });
  const get = await c.t.app.inject({ url: `/v1/refund-requests/${rr.id}`, headers: bearer(limited.key) });
  assert.equal(get.statusCode, 404);
  assert.equal(get.json().code, 'REFUND_REQUEST_NOT_FOUND');
  const list = (await c.t.app.inject({ url: '/v1/refund-requests', headers: bearer(limited.key) })).json();
  assert.ok(list.data.every((r: any) => r.id !== rr.id));
  for (const action of ['approve', 'hold', 'reject'] as const) {
    const res = await act(c, rr.id, action, { reason: 'x' }, limited.key);
    assert.equal(res.statusCode, 404, action);
    assert.equal(res.json().code, 'REFUND_REQUEST_NOT_FOUND');
  }
  const missing = await act(c, 'rr_missing', 'approve', {});
  assert.equal(missing.json().code, 'REFUND_REQUEST_NOT_FOUND');
  assert.equal((await getRequest(c, rr.id)).status, 'requested');
});

test('hold and reject: REFUND_REASON_REQUIRED (missing, blank), then hold, reject, and REFUND_REQUEST_NOT_ACTIONABLE once final', async () => {
  const { rr } = await lateRequest();
  for (const body of [{}, { reason: '   ' }, { reason: '' }]) {
    for (const action of ['hold', 'reject'] as const) {
      const res = await act(c, rr.id, action, body);
      assert.equal(res.statusCode, 400, `${action} ${JSON.stringify(body)}`);
      assert.equal(res.json().code, 'REFUND_REASON_REQUIRED');
      assert.match(res.json().message, /사유/);
    }
  }
  const held = await act(c, rr.id, 'hold', { reason: '사용 이력 확인 중' });
  assert.equal(held.statusCode, 200, held.body);
  assert.equal(held.json().status, 'held');
  assert.equal(held.json().decisionReason, '사용 이력 확인 중');
  assert.equal(held.json().decidedAt, null);
  c.t.clock.advance(1000); // events of one millisecond have no order among themselves
  const rejected = await act(c, rr.id, 'reject', { reason: '이미 사용한 상품입니다' });
  assert.equal(rejected.statusCode, 200, rejected.body);
  assert.equal(rejected.json().status, 'rejected');
  assert.equal(rejected.json().decidedBy, 'api');
  assert.ok(rejected.json().decidedAt);
  for (const action of ['hold', 'reject', 'approve'] as const) {
    const res = await act(c, rr.id, action, { reason: '다시' });
    assert.equal(res.statusCode, 409, action);
    assert.equal(res.json().code, 'REFUND_REQUEST_NOT_ACTIONABLE');
  }
  const updates = (await events(c, 'refund_request.updated')).filter((e) => e.id === rr.id);
  assert.deepEqual(updates.map((e) => [e.previousStatus, e.status]), [['requested', 'held'], ['held', 'rejected']]);
});

test('approve refunds the order: request approved with refundId, order shows the refund, order.refunded and refund_request.updated sent', async () => {
  const { order, rr } = await lateRequest({ amount: '3000' });
  await act(c, rr.id, 'hold', { reason: '확인 중' });
  c.t.clock.advance(1000);
  const res = await act(c, rr.id, 'approve', { reason: '확인 완료' });
  assert.equal(res.statusCode, 200, res.body);
  const body = res.json();
  assert.equal(body.refundRequest.status, 'approved');
  assert.equal(body.refundRequest.approvedAmount, 3_000);
  assert.equal(body.refundRequest.refundId, body.refund.id);
  assert.equal(body.refundRequest.decidedBy, 'api');
  assert.equal(body.refundRequest.decisionReason, '확인 완료');
  assert.equal(body.refund.amount, 3_000);
  assert.equal(body.refund.status, 'succeeded');
  assert.equal(body.order.refundedAmount, 3_000);
  assert.equal(body.order.status, 'paid');
  const after = await getOrder(c, order.id);
  assert.deepEqual(after.refunds.map((r: any) => r.amount), [3_000]);
  const refunded = (await events(c, 'order.refunded')).filter((e) => e.order.id === order.id);
  assert.equal(refunded.length, 1);
  const updated = (await events(c, 'refund_request.updated')).filter((e) => e.id === rr.id);
  assert.deepEqual(updated.map((e) => e.status), ['held', 'approved']);
  // approved is final
  const again = await act(c, rr.id, 'approve', {});
  assert.equal(again.json().code, 'REFUND_REQUEST_NOT_ACTIONABLE');
});

test('approve checks the amount: REFUND_AMOUNT_INVALID, REFUND_AMOUNT_MISMATCH without confirmAmount, REFUND_AMOUNT_EXCEEDS above the refundable amount', async () => {
  const { order, rr } = await lateRequest({ amount: '6000' });
  for (const amount of [0, -100]) {
    const res = await act(c, rr.id, 'approve', { amount, confirmAmount: true });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().code, 'REFUND_AMOUNT_INVALID');
  }
  const mismatch = await act(c, rr.id, 'approve', { amount: 5_000 });
  assert.equal(mismatch.statusCode, 409);
  assert.equal(mismatch.json().code, 'REFUND_AMOUNT_MISMATCH');
  assert.equal(mismatch.json().details.requestedAmount, 6_000);
  const exceeds = await act(c, rr.id, 'approve', { amount: 10_001, confirmAmount: true });
  assert.equal(exceeds.statusCode, 400);
  assert.equal(exceeds.json().code, 'REFUND_AMOUNT_EXCEEDS');
  assert.equal(exceeds.json().details.refundableAmount, 10_000);
  // confirmed: a different amount is refunded
  const ok = await act(c, rr.id, 'approve', { amount: 5_000, confirmAmount: true });
  assert.equal(ok.statusCode, 200, ok.body);
  assert.equal(ok.json().refundRequest.amount, 6_000);
  assert.equal(ok.json().refundRequest.approvedAmount, 5_000);
  assert.equal((await getOrder(c, order.id)).refundedAmount, 5_000);
});

test('approve answers the order-state codes in order: REFUND_NOT_PAID, REFUND_SETTLED, REFUND_NONE_LEFT, REFUND_EXCEEDS', async () => {
  // These states cannot arise while a request is active through the API alone (a direct refund answers
  // REFUND_REQUEST_PENDING), so the order row is moved underneath the request as another process (settlement,
  // a subscription cancel) would.
  const set = (id: string, v: Record<string, unknown>) => c.t.db.updateTable('orders').set(v as any).where('id', '=', id).execute();
  const { order, rr } = await lateRequest();
  await set(order.id, { refunded_amount: 2_000 });
  const exceeds = await act(c, rr.id, 'approve', {});
  assert.equal(exceeds.statusCode, 400);
  assert.equal(exceeds.json().code, 'REFUND_EXCEEDS', 'the amount asked for (10,000) is above what is left (8,000)');
  await set(order.id, { refunded_amount: 10_000 });
  assert.equal((await act(c, rr.id, 'approve', {})).json().code, 'REFUND_NONE_LEFT');
  await set(order.id, { settlement_id: 'stl_test' });
  assert.equal((await act(c, rr.id, 'approve', {})).json().code, 'REFUND_SETTLED');
  await set(order.id, { status: 'refunded' });
  const notPaid = await act(c, rr.id, 'approve', {});
  assert.equal(notPaid.statusCode, 409);
  assert.equal(notPaid.json().code, 'REFUND_NOT_PAID');
  assert.equal((await getRequest(c, rr.id)).processing, false, 'a refused approval leaves no claim behind');
});

test('a request of a subscription answers the subscription variants of the amount, none-left and settled codes', async () => {
  const { order, rr } = await lateRequest();
  await c.t.db.updateTable('refund_requests').set({ subscription_id: 'sub_test' }).where('id', '=', rr.id).execute();
  assert.equal((await act(c, rr.id, 'approve', { amount: 0, confirmAmount: true })).json().code, 'SUBSCRIPTION_REFUND_AMOUNT_INVALID');
  await c.t.db.updateTable('orders').set({ refunded_amount: 10_000 }).where('id', '=', order.id).execute();
  assert.equal((await act(c, rr.id, 'approve', {})).json().code, 'SUBSCRIPTION_REFUND_NONE_LEFT');
  await c.t.db.updateTable('orders').set({ settlement_id: 'stl_test' }).where('id', '=', order.id).execute();
  assert.equal((await act(c, rr.id, 'approve', {})).json().code, 'SUBSCRIPTION_REFUND_SETTLED');
});

test('PG_REFUND_FAILED leaves the request actionable; a later approval refunds it', async () => {
  const { order, rr } = await lateRequest();
  simulatorFor(c.t.clock).injectFailure('refund', 'failed');
  const failed = await act(c, rr.id, 'approve', {});
  assert.equal(failed.statusCode, 502, failed.body);
  assert.equal(failed.json().code, 'PG_REFUND_FAILED');
  const still = await getRequest(c, rr.id);
  assert.equal(still.status, 'requested');
  assert.equal(still.processing, false);
  const ok = await act(c, rr.id, 'approve', {});
  assert.equal(ok.statusCode, 200, ok.body);
  assert.equal((await getOrder(c, order.id)).status, 'refunded');
});

test('PG_REFUND_AMBIGUOUS keeps the request processing (REFUND_IN_PROGRESS / NOT_ACTIONABLE meanwhile) until reconciliation settles the refund, then it is approved', async () => {
  const { order, rr } = await lateRequest();
  simulatorFor(c.t.clock).injectFailure('refund', 'unknown');
  const ambiguous = await act(c, rr.id, 'approve', {});
  assert.equal(ambiguous.statusCode, 502, ambiguous.body);
  assert.equal(ambiguous.json().code, 'PG_REFUND_AMBIGUOUS');
  const processing = await getRequest(c, rr.id);
  assert.equal(processing.status, 'requested');
  assert.equal(processing.processing, true);
  const second = await act(c, rr.id, 'approve', {});
  assert.equal(second.statusCode, 409);
  assert.equal(second.json().code, 'REFUND_IN_PROGRESS');
  assert.equal((await act(c, rr.id, 'hold', { reason: '보류' })).json().code, 'REFUND_REQUEST_NOT_ACTIONABLE');
  // a direct refund is still refused: the request is active
  const direct = await c.t.app.inject({ method: 'POST', url: `/v1/orders/${order.id}/refund`, headers: post(c.s.key), payload: {} });
  assert.equal(direct.json().code, 'REFUND_REQUEST_PENDING');
  // reconciliation (the refund engine's job) settles the refund; the follow task finishes the request
  for (let i = 0; i < 4 && (await getRequest(c, rr.id)).status !== 'approved'; i++) {
    c.t.clock.advance(10 * 60_000);
    await c.t.deps.worker.runOnce();
  }
  const done = await getRequest(c, rr.id);
  assert.equal(done.status, 'approved');
  assert.equal(done.processing, false);
  assert.ok(done.refundId);
  assert.equal((await getOrder(c, order.id)).refundedAmount, 10_000);
});

test('a refund settled by reconciliation before the request caught up: another approval answers REFUND_IN_PROGRESS, never a second refund', async () => {
  const { order, rr } = await lateRequest({ amount: '4000' });
  simulatorFor(c.t.clock).injectFailure('refund', 'unknown');
  assert.equal((await act(c, rr.id, 'approve', {})).json().code, 'PG_REFUND_AMBIGUOUS');
  // Reconciliation (the refund engine) records the refund as succeeded; the request's follow task has not run yet.
  const [unknown] = await c.t.db.selectFrom('order_refunds').select('id').where('refund_request_id', '=', rr.id).execute();
  assert.equal(await reconcileRefund(c.t.deps, unknown.id), 'succeeded');
  const counted = await c.t.db.selectFrom('order_refunds').select('reconcile_attempts').where('id', '=', unknown.id).executeTakeFirstOrThrow();
  assert.equal(counted.reconcile_attempts, 1, 'the attempt is counted on the refund');
  assert.equal((await getOrder(c, order.id)).refundedAmount, 4_000);
  const again = await act(c, rr.id, 'approve', {});
  assert.equal(again.statusCode, 409, again.body);
  assert.equal(again.json().code, 'REFUND_IN_PROGRESS');
  assert.equal((await getOrder(c, order.id)).refundedAmount, 4_000, 'refunded once');
  await c.t.deps.worker.runOnce();
  const done = await getRequest(c, rr.id);
  assert.equal(done.status, 'approved');
  assert.equal(done.refundId, unknown.id);
});

test('concurrent approvals of one request (different Idempotency-Keys) refund it once', async () => {
  const { order, rr } = await lateRequest({ amount: '4000' });
  const answers = await Promise.all(Array.from({ length: 8 }, () => act(c, rr.id, 'approve', {})));
  const ok = answers.filter((r) => r.statusCode === 200);
  assert.equal(ok.length, 1, answers.map((r) => r.body).join('\n'));
  for (const r of answers.filter((x) => x.statusCode !== 200)) assert.ok(['REFUND_IN_PROGRESS', 'REFUND_REQUEST_NOT_ACTIONABLE'].includes(r.json().code), r.body);
  const after = await getOrder(c, order.id);
  assert.equal(after.refundedAmount, 4_000);
  const refunds = await c.t.db.selectFrom('order_refunds').select(['status', 'amount']).where('order_id', '=', order.id).execute();
  assert.deepEqual(refunds.filter((r) => r.status === 'succeeded').map((r) => r.amount), [4_000]);
});

test('a direct refund of an order with an active request answers REFUND_REQUEST_PENDING; after the buyer cancels it goes through', async () => {
  const { order, rr } = await lateRequest();
  const refused = await c.t.app.inject({ method: 'POST', url: `/v1/orders/${order.id}/refund`, headers: post(c.s.key), payload: { amount: 1_000 } });
  assert.equal(refused.statusCode, 409);
  assert.equal(refused.json().code, 'REFUND_REQUEST_PENDING');
  const u = new URL(order.receiptUrl);
  const cancel = await c.t.app.inject({
    method: 'POST',
    url: `${u.pathname}/refund-request/cancel`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ t: u.searchParams.get('t')! }).toString(),
  });
  assert.equal(cancel.statusCode, 303, cancel.body);
  const canceled = await getRequest(c, rr.id);
  assert.equal(canceled.status, 'canceled');
  assert.equal(canceled.decidedBy, 'buyer');
  const ok = await c.t.app.inject({ method: 'POST', url: `/v1/orders/${order.id}/refund`, headers: post(c.s.key), payload: { amount: 1_000 } });
  assert.equal(ok.statusCode, 200, ok.body);
});

test('approve replays its answer for the same Idempotency-Key', async () => {
  const { rr } = await lateRequest();
  const headers = post(c.s.key, `approve-${rr.id}`);
  const first = await c.t.app.inject({ method: 'POST', url: `/v1/refund-requests/${rr.id}/approve`, headers, payload: {} });
  assert.equal(first.statusCode, 200, first.body);
  const again = await c.t.app.inject({ method: 'POST', url: `/v1/refund-requests/${rr.id}/approve`, headers, payload: {} });
  assert.equal(again.statusCode, 200);
  assert.equal(again.headers['idempotent-replayed'], 'true');
  assert.equal(again.json().refund.id, first.json().refund.id);
});

test('the seller console lists, reads and acts on requests of both modes with the owner token', async () => {
  const { order, rr } = await lateRequest();
  const list = await c.t.app.inject({ url: `/admin/v1/refund-requests?orderId=${order.id}`, headers: owner(c.s) });
  assert.equal(list.statusCode, 200, list.body);
  assert.deepEqual(list.json().data.map((r: any) => r.id), [rr.id]);
  assert.equal((await c.t.app.inject({ url: `/admin/v1/refund-requests?mode=live&orderId=${order.id}`, headers: owner(c.s) })).json().total, 0);
  assert.equal((await c.t.app.inject({ url: `/admin/v1/refund-requests/${rr.id}`, headers: owner(c.s) })).json().id, rr.id);
  const hold = await c.t.app.inject({ method: 'POST', url: `/admin/v1/refund-requests/${rr.id}/hold`, headers: owner(c.s), payload: { reason: '콘솔에서 보류' } });
  assert.equal(hold.statusCode, 200, hold.body);
  assert.equal(hold.json().decidedBy, 'console');
  const approve = await c.t.app.inject({ method: 'POST', url: `/admin/v1/refund-requests/${rr.id}/approve`, headers: owner(c.s), payload: {} });
  assert.equal(approve.statusCode, 200, approve.body);
  assert.equal(approve.json().refundRequest.status, 'approved');
  assert.equal(approve.json().refundRequest.decidedBy, 'console');
  const unauth = await c.t.app.inject({ url: '/admin/v1/refund-requests', headers: bearer(c.s.key) });
  assert.equal(unauth.statusCode, 401);
});

test('a request cannot be filed twice for one order, nor above the refundable amount', async () => {
  const order = await buy(c, p.id);
  await file(c, order, { amount: '1000' });
  const twice = await fileRaw(c, order, { amount: '1000' });
  assert.equal(twice.statusCode, 409);
  assert.match(twice.body, /이미 처리 중인 환불 요청이 있습니다/);
  const other2 = await buy(c, p.id);
  const tooMuch = await fileRaw(c, other2, { amount: '10001' });
  assert.equal(tooMuch.statusCode, 409);
  assert.match(tooMuch.body, /환불 가능한 금액\(10,000원\) 이하/);
  const words = await fileRaw(c, other2, { amount: '만원' });
  assert.equal(words.statusCode, 409);
  assert.match(words.body, /숫자로 입력/);
  const zero = await fileRaw(c, other2, { amount: '0' });
  assert.match(zero.body, /1원 이상/);
});
