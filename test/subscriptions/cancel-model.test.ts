import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { computeCancel, type CancelInput, type CancelOrderInput } from '../../src/subscriptions/cancel/model';
import { monthCycleUse, periodDays } from '../../src/subscriptions/cancel/days';
import { periodEnd } from '../../src/checkout/model';

/** A KST wall-clock time as an instant. */
const kst = (s: string) => new Date(`${s}+09:00`);

const policy = { refundDays: 7, trialOffered: true, usageRestrictionMarked: true, clawbackDisclosed: false, penaltyRate: 10 };

function order(over: Partial<CancelOrderInput> & { periodStart: Date; interval: 'monthly' | 'yearly' }): CancelOrderInput {
  const { interval, ...rest } = over;
  return {
    id: 'ord_1',
    amount: 9_900,
    refundedAmount: 0,
    paidAt: over.periodStart,
    periodEnd: periodEnd(over.periodStart, interval),
    subscriptionEvent: 'initial',
    settled: false,
    refundInFlight: false,
    used: false,
    ...rest,
  };
}

function input(o: CancelOrderInput, interval: 'monthly' | 'yearly', now: Date, extra: Partial<CancelInput> = {}): CancelInput {
  return {
    subscription: { status: 'active', billingInterval: interval, currentPeriodStart: o.periodStart, currentPeriodEnd: o.periodEnd },
    orders: [o],
    activeRefundRequest: false,
    policy,
    monthlyListPrice: 9_900,
    now,
    ...extra,
  };
}

test('worked example 1: 9,900 monthly cancelled on day 3, unused → 9,900 initial_full, statutory, no approval', () => {
  const o = order({ periodStart: kst('2026-01-05T10:00:00'), interval: 'monthly' });
  const { immediate } = computeCancel(input(o, 'monthly', kst('2026-01-07T15:00:00')));
  assert.equal(immediate.refundAmount, 9_900);
  assert.equal(immediate.reason, 'initial_full');
  assert.equal(immediate.fullRefund, true);
  assert.equal(immediate.statutory, true);
  assert.equal(immediate.requiresApproval, false);
  assert.equal(immediate.usedDays, 3);
  assert.equal(immediate.totalDays, 31);
  assert.deepEqual(immediate.breakdown, [{ orderId: 'ord_1', amount: 9_900, currency: 'KRW' }]);
  assert.equal(immediate.blockedReason, null);
});

test('worked example 2: day 12 of a 31-day period, used → deduction 3,832, penalty 606, refund 5,462 prorated, requires approval', () => {
  const o = order({ periodStart: kst('2026-01-05T10:00:00'), interval: 'monthly', used: true });
  const { immediate } = computeCancel(input(o, 'monthly', kst('2026-01-16T09:00:00')));
  assert.equal(immediate.usedDays, 12);
  assert.equal(immediate.totalDays, 31);
  assert.equal(immediate.deduction, 3_832);
  assert.equal(immediate.penalty, 606);
  assert.equal(immediate.clawback, 0);
  assert.equal(immediate.refundAmount, 5_462);
  assert.equal(immediate.reason, 'prorated');
  assert.equal(immediate.statutory, false);
  assert.equal(immediate.requiresApproval, true);
  assert.equal(immediate.fullRefund, false);
  assert.equal(immediate.deductionCap, 9_900);
});

test('worked example 3: 99,000 yearly after 3 months and 19 days (u = 109, Dm = 30) with a disclosed clawback → 56,727; without → 62,123', () => {
  const o = order({ periodStart: kst('2026-01-10T10:00:00'), interval: 'yearly', amount: 99_000, used: true });
  const now = kst('2026-04-28T12:00:00');
  assert.deepEqual(monthCycleUse(o.periodStart, now, 12), { k: 3, dm: 30, d: 19, u: 109 });
  const withClawback = computeCancel(input(o, 'yearly', now, { policy: { ...policy, clawbackDisclosed: true } })).immediate;
  assert.equal(withClawback.deduction, 29_975);
  assert.equal(withClawback.clawback, 5_995);
  assert.equal(withClawback.penalty, 6_303);
  assert.equal(withClawback.refundAmount, 56_727);
  assert.equal(withClawback.usedDays, 109);
  assert.equal(withClawback.totalDays, 360);
  assert.equal(withClawback.reason, 'prorated');
  const without = computeCancel(input(o, 'yearly', now)).immediate;
  assert.equal(without.clawback, 0);
  assert.equal(without.penalty, 6_902);
  assert.equal(without.refundAmount, 62_123);
});

test('in the window and used, without a trial and a marked restriction → statutory_full', () => {
  const o = order({ periodStart: kst('2026-01-05T10:00:00'), interval: 'monthly', used: true });
  const now = kst('2026-01-08T10:00:00');
  const r = computeCancel(input(o, 'monthly', now, { policy: { ...policy, trialOffered: false } })).immediate;
  assert.equal(r.reason, 'statutory_full');
  assert.equal(r.refundAmount, 9_900);
  // With a trial and a marked restriction, use inside the window gives a prorated refund without penalty.
  const p = computeCancel(input(o, 'monthly', now)).immediate;
  assert.equal(p.reason, 'prorated');
  assert.equal(p.statutory, true);
  assert.equal(p.penalty, 0);
  assert.equal(p.requiresApproval, false);
  assert.equal(p.refundAmount, 9_900 - Math.floor((9_900 * 4) / 31));
});

test('a renewal in its window and unused → renewal_full', () => {
  const o = order({ periodStart: kst('2026-02-05T10:00:00'), interval: 'monthly', subscriptionEvent: 'renewal' });
  const r = computeCancel(input(o, 'monthly', kst('2026-02-06T10:00:00'))).immediate;
  assert.equal(r.reason, 'renewal_full');
  assert.equal(r.refundAmount, 9_900);
});

test('W = max(7, refundDays) ends 24:00 KST and rolls a weekend to the next business day', () => {
  // Paid Wed 2026-01-07; +7 = Wed 01-14 → window open until 01-15 00:00 KST.
  const o = order({ periodStart: kst('2026-01-07T10:00:00'), interval: 'monthly' });
  assert.equal(computeCancel(input(o, 'monthly', kst('2026-01-14T23:59:59'))).immediate.reason, 'initial_full');
  assert.equal(computeCancel(input(o, 'monthly', kst('2026-01-15T00:00:00'))).immediate.reason, 'prorated');
  // Paid Sat 2026-01-03: +7 = Sat 01-10 → rolls to Mon 01-12.
  const s = order({ periodStart: kst('2026-01-03T10:00:00'), interval: 'monthly' });
  assert.equal(computeCancel(input(s, 'monthly', kst('2026-01-12T20:00:00'))).immediate.reason, 'initial_full');
  // refundDays 14 replaces the 7.
  const long = input(o, 'monthly', kst('2026-01-20T10:00:00'), { policy: { ...policy, refundDays: 14 } });
  assert.equal(computeCancel(long).immediate.reason, 'initial_full');
});

test('blocked in the design order: ALREADY_ENDED, then REFUND_REQUEST_PENDING, then SUBSCRIPTION_REFUND_SETTLED', () => {
  const o = order({ periodStart: kst('2026-01-05T10:00:00'), interval: 'monthly', settled: true, refundInFlight: true });
  const now = kst('2026-01-07T10:00:00');
  const ended = input(o, 'monthly', now, { activeRefundRequest: true });
  ended.subscription.status = 'ended';
  assert.equal(computeCancel(ended).immediate.blockedReason?.code, 'ALREADY_ENDED');
  const pending = computeCancel(input(o, 'monthly', now, { activeRefundRequest: true }));
  assert.equal(pending.immediate.blockedReason?.code, 'REFUND_REQUEST_PENDING');
  assert.equal(pending.blockedBy, 'REFUND_REQUEST_PENDING');
  const inFlight = computeCancel(input(o, 'monthly', now));
  assert.equal(inFlight.immediate.blockedReason?.code, 'REFUND_REQUEST_PENDING');
  assert.equal(inFlight.blockedBy, 'REFUND_IN_PROGRESS');
  const settled = computeCancel(input({ ...o, refundInFlight: false }, 'monthly', now));
  assert.equal(settled.immediate.blockedReason?.code, 'SUBSCRIPTION_REFUND_SETTLED');
  for (const r of [pending, inFlight, settled]) {
    assert.equal(r.immediate.refundAmount, 0);
    assert.equal(r.immediate.reason, 'nothing_refundable');
  }
});

test('past_due with no paid order covering now → 0, reason past_due', () => {
  const o = order({ periodStart: kst('2026-01-05T10:00:00'), interval: 'monthly' });
  const i = input(o, 'monthly', kst('2026-02-07T10:00:00'));
  i.subscription.status = 'past_due';
  const r = computeCancel(i).immediate;
  assert.equal(r.reason, 'past_due');
  assert.equal(r.refundAmount, 0);
  assert.equal(r.blockedReason, null);
});

test('already refunded money is not refunded again: P = paid − refunded', () => {
  const o = order({ periodStart: kst('2026-01-05T10:00:00'), interval: 'monthly', refundedAmount: 9_000 });
  assert.equal(computeCancel(input(o, 'monthly', kst('2026-01-06T10:00:00'))).immediate.refundAmount, 900);
  const all = order({ periodStart: kst('2026-01-05T10:00:00'), interval: 'monthly', refundedAmount: 9_900 });
  assert.equal(computeCancel(input(all, 'monthly', kst('2026-01-06T10:00:00'))).immediate.reason, 'nothing_refundable');
});

test('period days are KST calendar days: Jan 31 start ends Feb 28 (28 days)', () => {
  const start = kst('2026-01-31T10:00:00');
  assert.deepEqual(periodDays(start, periodEnd(start, 'monthly'), kst('2026-02-01T01:00:00')), { usedDays: 2, totalDays: 28 });
});

test('property: the refund never exceeds paid minus refunded, withheld parts never exceed the cap, the penalty stays ≤ 10% of R', () => {
  const day = 86_400_000;
  fc.assert(
    fc.property(
      fc.record({
        amount: fc.integer({ min: 0, max: 2_000_000 }),
        refundedPart: fc.integer({ min: 0, max: 100 }),
        interval: fc.constantFrom<'monthly' | 'yearly'>('monthly', 'yearly'),
        startOffsetDays: fc.integer({ min: 0, max: 900 }),
        elapsedMs: fc.integer({ min: 0, max: 400 * day }),
        used: fc.boolean(),
        trial: fc.boolean(),
        marked: fc.boolean(),
        clawback: fc.boolean(),
        refundDays: fc.integer({ min: 0, max: 30 }),
        penaltyRate: fc.integer({ min: 0, max: 10 }),
        monthly: fc.option(fc.integer({ min: 0, max: 300_000 }), { nil: null }),
        event: fc.constantFrom<'initial' | 'renewal'>('initial', 'renewal'),
      }),
      (c) => {
        const periodStart = new Date(Date.UTC(2025, 0, 1) + c.startOffsetDays * day + 3_600_000 * 5);
        const refunded = Math.floor((c.amount * c.refundedPart) / 100);
        const o = order({ periodStart, interval: c.interval, amount: c.amount, refundedAmount: refunded, used: c.used, subscriptionEvent: c.event });
        const now = new Date(periodStart.getTime() + c.elapsedMs);
        const r = computeCancel(
          input(o, c.interval, now, {
            policy: { refundDays: c.refundDays, trialOffered: c.trial, usageRestrictionMarked: c.marked, clawbackDisclosed: c.clawback, penaltyRate: c.penaltyRate },
            monthlyListPrice: c.monthly,
          }),
        );
        const im = r.immediate;
        const P = now < o.periodEnd ? c.amount - refunded : 0;
        assert.ok(im.refundAmount >= 0 && im.refundAmount <= P, `refund ${im.refundAmount} > ${P}`);
        assert.ok(Number.isInteger(im.refundAmount));
        assert.equal(im.breakdown.reduce((s, b) => s + b.amount, 0), im.refundAmount);
        if (im.refundAmount > 0) {
          assert.ok(im.deduction + im.clawback + im.penalty <= im.deductionCap);
          assert.equal(im.refundAmount + im.deduction + im.clawback + im.penalty, P);
          assert.ok(im.penalty <= Math.floor(((P - im.deduction - im.clawback) * 10) / 100));
        }
      },
    ),
    { numRuns: 2_000 },
  );
});
