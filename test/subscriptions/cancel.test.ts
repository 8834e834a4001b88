import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { createTestApp, createTestStore, bearer, post, type TestApp, type TestStore } from '../helpers/app';
import { createSubscriptionProduct, subscribe, getSubscription, eventsOf } from './factory';
import { simulatorFor } from '../../src/payments';
import { refundOrder } from '../../src/refunds/service';
import { licenseOf, nonce } from '../licenses/factory';

let t: TestApp;
let s: TestStore;

before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
});
after(async () => {
  await t.close();
});

const DAY = 86_400_000;
/** A KST wall-clock time as an instant. */
const kst = (v: string) => new Date(`${v}+09:00`);

async function newSubscription(o: { at: Date; interval?: 'monthly' | 'yearly'; product?: Record<string, unknown>; email?: string }) {
  t.clock.set(o.at);
  const product = await createSubscriptionProduct(t, s, o.product ?? {});
  const sub = await subscribe(t, s, { productId: product.id, interval: o.interval ?? 'monthly', ...(o.email ? { buyerEmail: o.email } : {}) });
  return { ...sub, productId: product.id };
}

async function preview(id: string, key = s.key) {
  const res = await t.app.inject({ url: `/v1/subscriptions/${id}/cancel-preview`, headers: bearer(key) });
  return res;
}

function cancel(id: string, body: Record<string, unknown>, key = s.key, idem?: string) {
  return t.app.inject({ method: 'POST', url: `/v1/subscriptions/${id}/cancel`, headers: post(key, idem), payload: body });
}

async function order(id: string) {
  const res = await t.app.inject({ url: `/v1/orders/${id}`, headers: bearer(s.key) });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

test('worked example 1 over HTTP: 9,900 monthly cancelled on day 3, unused → preview 9,900 initial_full; immediate cancel refunds it and ends the subscription', async () => {
  const sub = await newSubscription({ at: kst('2026-11-02T10:00:00') });
  t.clock.set(kst('2026-11-04T15:00:00'));
  const res = await preview(sub.subscriptionId);
  assert.equal(res.statusCode, 200, res.body);
  const p = res.json();
  assert.equal(p.mode, 'test');
  assert.equal(p.pendingRefundRequest, null);
  assert.equal(p.periodEnd.effectiveAt, kst('2026-12-02T10:00:00').toISOString());
  assert.deepEqual(p.immediate, {
    refundAmount: 9_900,
    currency: 'KRW',
    fullRefund: true,
    reason: 'initial_full',
    breakdown: [{ orderId: sub.orderId, amount: 9_900, currency: 'KRW' }],
    deduction: 0,
    deductionCurrency: 'KRW',
    deductionCap: 9_900,
    deductionCapCurrency: 'KRW',
    penalty: 0,
    penaltyCurrency: 'KRW',
    clawback: 0,
    clawbackCurrency: 'KRW',
    usedDays: 3,
    totalDays: 30,
    statutory: true,
    requiresApproval: false,
    blockedReason: null,
  });

  const c = await cancel(sub.subscriptionId, { timing: 'immediate', reason: '더 이상 필요 없음' });
  assert.equal(c.statusCode, 200, c.body);
  const r = c.json();
  assert.equal(r.timing, 'immediate');
  assert.equal(r.refundAmount, 9_900);
  assert.equal(r.currency, 'KRW');
  assert.equal(r.refundOrderId, sub.orderId);
  assert.deepEqual(r.refundedOrderIds, [sub.orderId]);
  assert.equal(r.subscription.status, 'ended');
  assert.equal(r.subscription.endReason, 'canceled');

  const read = await getSubscription(t, s.key, sub.subscriptionId);
  assert.equal(read.status, 'ended');
  const o = await order(sub.orderId);
  assert.equal(o.status, 'refunded');
  assert.equal(o.refundedAmount, 9_900);
  const ended = (await eventsOf(t, 'subscription.ended')).filter((e) => e.id === sub.subscriptionId);
  assert.equal(ended.length, 1);
  assert.equal(ended[0].endReason, 'canceled');
  assert.equal(ended[0].status, 'ended');
});

test('worked example 2 over HTTP: day 12 of a 31-day period → deduction 3,832, penalty 606, refund 5,462 prorated, requires approval; the seller\'s cancel refunds exactly that', async () => {
  const sub = await newSubscription({ at: kst('2026-12-01T10:00:00') });
  t.clock.set(kst('2026-12-12T11:00:00'));
  const p = (await preview(sub.subscriptionId)).json().immediate;
  assert.equal(p.usedDays, 12);
  assert.equal(p.totalDays, 31);
  assert.equal(p.deduction, 3_832);
  assert.equal(p.penalty, 606);
  assert.equal(p.refundAmount, 5_462);
  assert.equal(p.reason, 'prorated');
  assert.equal(p.statutory, false);
  assert.equal(p.requiresApproval, true);
  const c = await cancel(sub.subscriptionId, { timing: 'immediate' });
  assert.equal(c.statusCode, 200, c.body);
  assert.equal(c.json().refundAmount, 5_462);
  const o = await order(sub.orderId);
  assert.equal(o.refundedAmount, 5_462);
  assert.equal(o.status, 'paid');
});

test('worked example 3 over HTTP: 99,000 yearly after 3 months and 19 days with a disclosed clawback → 56,727; without → 62,123', async () => {
  const withC = await newSubscription({ at: kst('2027-01-10T10:00:00'), interval: 'yearly', product: { refundPolicy: { clawbackDisclosed: true } } });
  const without = await newSubscription({ at: kst('2027-01-10T10:00:00'), interval: 'yearly' });
  t.clock.set(kst('2027-04-28T12:00:00'));
  const a = (await preview(withC.subscriptionId)).json().immediate;
  assert.equal(a.usedDays, 109);
  assert.equal(a.totalDays, 360);
  assert.equal(a.deduction, 29_975);
  assert.equal(a.clawback, 5_995);
  assert.equal(a.penalty, 6_303);
  assert.equal(a.refundAmount, 56_727);
  const b = (await preview(without.subscriptionId)).json().immediate;
  assert.equal(b.clawback, 0);
  assert.equal(b.penalty, 6_902);
  assert.equal(b.refundAmount, 62_123);
  const c = await cancel(withC.subscriptionId, { timing: 'immediate' });
  assert.equal(c.statusCode, 200, c.body);
  assert.equal(c.json().refundAmount, 56_727);
  assert.equal((await order(withC.orderId)).refundedAmount, 56_727);
});

test('usage evidence: a license activated in the window makes it statutory_full (no trial), or prorated without penalty (trial and marked restriction); the cancel expires the license', async () => {
  for (const [policy, reason] of [[{}, 'statutory_full'], [{ trialOffered: true, usageRestrictionMarked: true }, 'prorated']] as const) {
    const sub = await newSubscription({ at: kst('2026-11-02T10:00:00'), product: { license: { mode: 'service' }, refundPolicy: policy } });
    t.clock.set(kst('2026-11-03T10:00:00'));
    const before = (await preview(sub.subscriptionId)).json().immediate;
    assert.equal(before.reason, 'initial_full');
    const lic = await licenseOf(t, sub.orderId);
    const act = await t.app.inject({ method: 'POST', url: '/v1/licenses/activate', payload: { key: lic.key, productId: sub.productId, nonce: nonce() } });
    assert.equal(act.statusCode, 200, act.body);
    t.clock.set(kst('2026-11-04T10:00:00'));
    const p = (await preview(sub.subscriptionId)).json().immediate;
    assert.equal(p.reason, reason);
    assert.equal(p.statutory, true);
    assert.equal(p.penalty, 0);
    assert.equal(p.requiresApproval, false);
    assert.equal(p.refundAmount, reason === 'statutory_full' ? 9_900 : 9_900 - Math.floor((9_900 * 3) / 30));
    const c = await cancel(sub.subscriptionId, { timing: 'immediate' });
    assert.equal(c.json().refundAmount, p.refundAmount);
    const license = (await t.app.inject({ url: `/v1/licenses/${lic.id}`, headers: bearer(s.key) })).json();
    assert.ok(['expired', 'revoked'].includes(license.status), license.status);
  }
});

test('period_end schedules (cancel_scheduled event), a second request answers ALREADY_CANCELED, immediate still works after it', async () => {
  const sub = await newSubscription({ at: kst('2026-11-03T10:00:00') });
  const c = await cancel(sub.subscriptionId, { timing: 'period_end', reason: '다른 서비스로 이동' });
  assert.equal(c.statusCode, 200, c.body);
  const r = c.json();
  assert.deepEqual({ timing: r.timing, refundAmount: r.refundAmount, refundOrderId: r.refundOrderId, refundedOrderIds: r.refundedOrderIds }, { timing: 'period_end', refundAmount: 0, refundOrderId: null, refundedOrderIds: [] });
  assert.equal(r.subscription.status, 'active');
  assert.equal(r.subscription.cancelAtPeriodEnd, true);
  assert.ok(r.subscription.canceledAt);
  const updated = (await eventsOf(t, 'subscription.updated')).filter((e) => e.id === sub.subscriptionId);
  assert.equal(updated.at(-1).change.kind, 'cancel_scheduled');
  const again = await cancel(sub.subscriptionId, { timing: 'period_end' });
  assert.equal(again.statusCode, 409);
  assert.equal(again.json().code, 'ALREADY_CANCELED');
  const now = await cancel(sub.subscriptionId, { timing: 'immediate' });
  assert.equal(now.statusCode, 200, now.body);
  assert.equal(now.json().refundAmount, 9_900);
});

test('ALREADY_ENDED on any cancel of an ended subscription; the preview shows it as blockedReason', async () => {
  const sub = await newSubscription({ at: kst('2026-11-03T10:00:00') });
  assert.equal((await cancel(sub.subscriptionId, { timing: 'immediate' })).statusCode, 200);
  for (const timing of ['immediate', 'period_end']) {
    const r = await cancel(sub.subscriptionId, { timing });
    assert.equal(r.statusCode, 409);
    assert.equal(r.json().code, 'ALREADY_ENDED');
  }
  const p = (await preview(sub.subscriptionId)).json().immediate;
  assert.equal(p.blockedReason.code, 'ALREADY_ENDED');
  assert.equal(p.refundAmount, 0);
  assert.equal(p.reason, 'nothing_refundable');
});

test('SUBSCRIPTION_NOT_FOUND: unknown id, another mode\'s key, a key limited to other products (preview and cancel)', async () => {
  const sub = await newSubscription({ at: kst('2026-11-03T10:00:00') });
  const live = await s.newKey({ mode: 'live' });
  const other = await s.newKey({ productIds: ['prod_other'] });
  for (const [id, key] of [['sub_nope', s.key], [sub.subscriptionId, live.key], [sub.subscriptionId, other.key]] as const) {
    const p = await preview(id, key);
    assert.equal(p.statusCode, 404);
    assert.equal(p.json().code, 'SUBSCRIPTION_NOT_FOUND');
    const c = await cancel(id, { timing: 'immediate' }, key);
    assert.equal(c.statusCode, 404);
    assert.equal(c.json().code, 'SUBSCRIPTION_NOT_FOUND');
  }
});

test('VALIDATION_FAILED: missing or unknown timing, unknown fields', async () => {
  const sub = await newSubscription({ at: kst('2026-11-03T10:00:00') });
  for (const body of [{}, { timing: 'now' }, { timing: 'immediate', refund: 1 }]) {
    const r = await cancel(sub.subscriptionId, body);
    assert.equal(r.statusCode, 400);
    assert.equal(r.json().code, 'VALIDATION_FAILED');
  }
});

test('REFUND_REQUEST_PENDING: an active refund request blocks the immediate cancel and shows in the preview', async () => {
  const sub = await newSubscription({ at: kst('2026-11-03T10:00:00') });
  const now = t.clock.now();
  await t.db
    .insertInto('refund_requests')
    .values({ id: 'rr_test_pending', store_id: s.storeId, mode: 'test', order_id: sub.orderId, subscription_id: null, status: 'requested', amount: 9_900, currency: 'KRW', reason: '환불 원함', statutory: true, requested_at: now, decided_at: null, decision_reason: null, refund_id: null, auto_approve_at: null, source: 'receipt', created_at: now, updated_at: now })
    .execute();
  const p = (await preview(sub.subscriptionId)).json();
  assert.equal(p.immediate.blockedReason.code, 'REFUND_REQUEST_PENDING');
  assert.equal(p.pendingRefundRequest.id, 'rr_test_pending');
  assert.equal(p.pendingRefundRequest.status, 'requested');
  const r = await cancel(sub.subscriptionId, { timing: 'immediate' });
  assert.equal(r.statusCode, 409);
  assert.equal(r.json().code, 'REFUND_REQUEST_PENDING');
  // A period-end cancel is not a refund: allowed.
  assert.equal((await cancel(sub.subscriptionId, { timing: 'period_end' })).statusCode, 200);
});

test('REFUND_IN_PROGRESS: a refund of the period\'s order whose outcome is unknown blocks the immediate cancel', async () => {
  const sub = await newSubscription({ at: kst('2026-11-03T10:00:00') });
  simulatorFor(t.clock).injectFailure('refund', 'unknown');
  await assert.rejects(refundOrder(t.deps, { storeId: s.storeId, mode: 'test', orderId: sub.orderId, amount: 1_000, source: 'api' }), { code: 'PG_REFUND_AMBIGUOUS' });
  const p = (await preview(sub.subscriptionId)).json().immediate;
  assert.equal(p.blockedReason.code, 'REFUND_REQUEST_PENDING');
  const r = await cancel(sub.subscriptionId, { timing: 'immediate' });
  assert.equal(r.statusCode, 409);
  assert.equal(r.json().code, 'REFUND_IN_PROGRESS');
});

test('SUBSCRIPTION_REFUND_SETTLED: the period\'s order is in a settlement round', async () => {
  const sub = await newSubscription({ at: kst('2026-11-03T10:00:00') });
  await t.db.updateTable('orders').set({ settlement_id: 'stl_test' }).where('id', '=', sub.orderId).execute();
  assert.equal((await preview(sub.subscriptionId)).json().immediate.blockedReason.code, 'SUBSCRIPTION_REFUND_SETTLED');
  const r = await cancel(sub.subscriptionId, { timing: 'immediate' });
  assert.equal(r.statusCode, 409);
  assert.equal(r.json().code, 'SUBSCRIPTION_REFUND_SETTLED');
});

test('everything paid for the period refunded already: the refund itself ended the subscription (issue 29); preview and cancel agree', async () => {
  // Before issue 29 this left the subscription active with a preview of 0 (no blockedReason) and a cancel answering
  // 409 SUBSCRIPTION_REFUND_NONE_LEFT: no refund and no way to end it now.
  const sub = await newSubscription({ at: kst('2026-11-03T10:00:00') });
  await refundOrder(t.deps, { storeId: s.storeId, mode: 'test', orderId: sub.orderId, source: 'api' });
  assert.equal((await getSubscription(t, s.key, sub.subscriptionId)).endReason, 'withdrawn');
  const p = (await preview(sub.subscriptionId)).json().immediate;
  assert.equal(p.refundAmount, 0);
  assert.equal(p.blockedReason.code, 'ALREADY_ENDED');
  const r = await cancel(sub.subscriptionId, { timing: 'immediate' });
  assert.equal(r.statusCode, 409);
  assert.equal(r.json().code, 'ALREADY_ENDED');
});

test('ORDER_NOT_FOUND: an order of the refund plan no longer in the store and mode (answered by the refunds engine)', async () => {
  const sub = await newSubscription({ at: kst('2026-11-03T10:00:00') });
  // Only reachable when the data moved under the subscription; simulated by moving the order to the other mode.
  await t.db.updateTable('orders').set({ mode: 'live' }).where('id', '=', sub.orderId).execute();
  const r = await cancel(sub.subscriptionId, { timing: 'immediate' });
  assert.equal(r.statusCode, 404);
  assert.equal(r.json().code, 'ORDER_NOT_FOUND');
  assert.equal((await getSubscription(t, s.key, sub.subscriptionId)).status, 'active');
});

test('PG_REFUND_FAILED: the gateway refuses → 502, the subscription stays active, and a retry refunds exactly once', async () => {
  const sub = await newSubscription({ at: kst('2026-11-03T10:00:00') });
  simulatorFor(t.clock).injectFailure('refund', 'failed');
  const r = await cancel(sub.subscriptionId, { timing: 'immediate' });
  assert.equal(r.statusCode, 502);
  assert.equal(r.json().code, 'PG_REFUND_FAILED');
  assert.equal((await getSubscription(t, s.key, sub.subscriptionId)).status, 'active');
  const again = await cancel(sub.subscriptionId, { timing: 'immediate' });
  assert.equal(again.statusCode, 200, again.body);
  assert.equal(again.json().refundAmount, 9_900);
  assert.equal((await order(sub.orderId)).refundedAmount, 9_900);
});

test('PG_REFUND_AMBIGUOUS: the refund outcome is unknown → 502, the subscription has ended, reconciliation owns the refund', async () => {
  const sub = await newSubscription({ at: kst('2026-11-03T10:00:00') });
  simulatorFor(t.clock).injectFailure('refund', 'unknown');
  const r = await cancel(sub.subscriptionId, { timing: 'immediate' });
  assert.equal(r.statusCode, 502);
  assert.equal(r.json().code, 'PG_REFUND_AMBIGUOUS');
  assert.equal((await getSubscription(t, s.key, sub.subscriptionId)).status, 'ended');
  const refunds = await t.db.selectFrom('order_refunds').select(['status', 'amount', 'source']).where('order_id', '=', sub.orderId).execute();
  assert.deepEqual(refunds, [{ status: 'unknown', amount: 9_900, source: 'subscription_cancel' }]);
  const again = await cancel(sub.subscriptionId, { timing: 'immediate' });
  assert.equal(again.json().code, 'ALREADY_ENDED');
});

test('concurrent immediate cancels with different Idempotency-Keys refund once: one 200, the others 409', async () => {
  const sub = await newSubscription({ at: kst('2026-11-03T10:00:00') });
  const answers = await Promise.all(Array.from({ length: 6 }, () => cancel(sub.subscriptionId, { timing: 'immediate' })));
  const ok = answers.filter((a) => a.statusCode === 200);
  assert.equal(ok.length, 1, answers.map((a) => a.body).join('\n'));
  for (const a of answers.filter((x) => x.statusCode !== 200)) {
    assert.equal(a.statusCode, 409);
    assert.ok(['ALREADY_ENDED', 'REFUND_IN_PROGRESS'].includes(a.json().code), a.body);
  }
  const refunds = await t.db.selectFrom('order_refunds').select(['amount', 'status']).where('order_id', '=', sub.orderId).execute();
  assert.deepEqual(refunds, [{ amount: 9_900, status: 'succeeded' }]);
});

test('a claim left by a process that died mid-cancel is resumed with its own plan once its lease passes, never recomputed', async () => {
  const sub = await newSubscription({ at: kst('2026-12-01T10:00:00') });
  t.clock.set(kst('2026-12-12T11:00:00'));
  const planned = (await preview(sub.subscriptionId)).json().immediate.refundAmount;
  // What a crash right after the refund leaves: the claim `refunding` and the refund done, the subscription active.
  const now = t.clock.now();
  await t.db
    .insertInto('subscription_cancellations')
    .values({ id: 'scx_crashed', subscription_id: sub.subscriptionId, store_id: s.storeId, mode: 'test', actor: 'seller', reason: null, status: 'refunding', preview: JSON.stringify({}), plan: JSON.stringify([{ orderId: sub.orderId, amount: planned }]), refund_amount: planned, refunded_order_ids: JSON.stringify([]), refund_request_id: null, locked_until: new Date(now.getTime() + 60_000), error_code: null, created_at: now, updated_at: now })
    .execute();
  await refundOrder(t.deps, { storeId: s.storeId, mode: 'test', orderId: sub.orderId, amount: planned, source: 'subscription_cancel' });
  const during = await cancel(sub.subscriptionId, { timing: 'immediate' });
  assert.equal(during.json().code, 'REFUND_IN_PROGRESS');
  t.clock.advance(3 * 60_000);
  const after = await cancel(sub.subscriptionId, { timing: 'immediate' });
  assert.equal(after.statusCode, 200, after.body);
  assert.equal(after.json().refundAmount, planned);
  assert.equal(after.json().subscription.status, 'ended');
  assert.equal((await order(sub.orderId)).refundedAmount, planned);
});

test('the worker resumes a claim whose process died (no retry needed): same plan, subscription ended, preview blocked meanwhile', async () => {
  const sub = await newSubscription({ at: kst('2026-12-01T10:00:00') });
  t.clock.set(kst('2026-12-12T11:00:00'));
  const planned = (await preview(sub.subscriptionId)).json().immediate.refundAmount;
  const now = t.clock.now();
  await t.db
    .insertInto('subscription_cancellations')
    .values({ id: 'scx_crashed_2', subscription_id: sub.subscriptionId, store_id: s.storeId, mode: 'test', actor: 'seller', reason: null, status: 'refunding', preview: JSON.stringify({}), plan: JSON.stringify([{ orderId: sub.orderId, amount: planned }]), refund_amount: planned, refunded_order_ids: JSON.stringify([]), refund_request_id: null, locked_until: new Date(now.getTime() + 60_000), error_code: null, created_at: now, updated_at: now })
    .execute();
  const during = (await preview(sub.subscriptionId)).json().immediate;
  assert.equal(during.blockedReason.code, 'REFUND_REQUEST_PENDING');
  await t.deps.worker.runOnce();
  assert.equal((await getSubscription(t, s.key, sub.subscriptionId)).status, 'active', 'the lease still holds');
  t.clock.advance(3 * 60_000);
  await t.deps.worker.runOnce();
  assert.equal((await getSubscription(t, s.key, sub.subscriptionId)).status, 'ended');
  assert.equal((await order(sub.orderId)).refundedAmount, planned);
  await t.deps.worker.runOnce();
  assert.equal((await order(sub.orderId)).refundedAmount, planned);
});

test('property: an executed immediate cancel refunds exactly what the preview showed at that moment, never more than paid', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.record({
        interval: fc.constantFrom<'monthly' | 'yearly'>('monthly', 'yearly'),
        startDay: fc.integer({ min: 0, max: 364 }),
        elapsedHours: fc.integer({ min: 0, max: 24 * 360 }),
        refundDays: fc.integer({ min: 0, max: 20 }),
        clawback: fc.boolean(),
        penaltyRate: fc.integer({ min: 0, max: 10 }),
      }),
      async (c) => {
        const start = new Date(Date.UTC(2027, 0, 1, 1) + c.startDay * DAY);
        const sub = await newSubscription({
          at: start,
          interval: c.interval,
          product: { refundPolicy: { refundDays: c.refundDays, clawbackDisclosed: c.clawback, penaltyRate: c.penaltyRate } },
        });
        const periodEnd = new Date((await getSubscription(t, s.key, sub.subscriptionId)).currentPeriodEnd).getTime();
        t.clock.set(Math.min(start.getTime() + c.elapsedHours * 3_600_000, periodEnd - 1));
        const p = (await preview(sub.subscriptionId)).json().immediate;
        const r = await cancel(sub.subscriptionId, { timing: 'immediate' });
        assert.equal(r.statusCode, 200, r.body);
        const body = r.json();
        assert.equal(body.refundAmount, p.refundAmount);
        assert.deepEqual(body.refundedOrderIds, p.breakdown.map((b: any) => b.orderId));
        const o = await order(sub.orderId);
        assert.equal(o.refundedAmount ?? 0, p.refundAmount);
        assert.ok((o.refundedAmount ?? 0) <= o.amount);
      },
    ),
    { numRuns: 12 },
  );
});
