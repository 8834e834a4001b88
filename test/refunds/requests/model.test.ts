import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../../src/platform/errors';
import { assertApprovable, assertHoldable, autoApproveAt, statutoryAt, type RefundRequestRow } from '../../../src/refunds/requests/model';
import { businessDaysAfter, kstStartOf, nthBusinessDayAfter } from '../../../src/platform/calendar';

const at = (s: string) => new Date(s);

const row = (o: Partial<RefundRequestRow> = {}): RefundRequestRow => ({
  id: 'rr_1', store_id: 'st_1', mode: 'test', order_id: 'ord_1', subscription_id: null, status: 'requested', amount: 10_000, currency: 'KRW',
  reason: null, statutory: false, requested_at: at('2026-11-02T00:00:00Z'), decided_at: null, decision_reason: null, refund_id: null,
  auto_approve_at: null, seller_reminded_at: null, source: 'receipt', created_at: at('2026-11-02T00:00:00Z'), updated_at: at('2026-11-02T00:00:00Z'),
  decided_by: null, approved_amount: null, approving_since: null, ...o,
});
const paid = { status: 'paid', amount: 10_000, refunded_amount: null, settlement_id: null };
const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof ApiError, String(e));
    return e.code;
  }
  return 'OK';
};

test('statutoryAt: inside max(7, refundDays); use bars withdrawal only when the restriction was marked AND a trial offered', () => {
  const paidAt = at('2026-11-02T01:00:00Z'); // Monday 10:00 KST; day 7 = Monday 11-09
  const base = { paidAt, refundDays: 7, used: false, trialOffered: false, usageRestrictionMarked: false };
  assert.equal(statutoryAt(at('2026-11-09T14:59:59Z'), base).statutory, true);
  assert.equal(statutoryAt(at('2026-11-09T15:00:00Z'), base).statutory, false);
  assert.equal(statutoryAt(at('2026-11-12T00:00:00Z'), { ...base, refundDays: 14 }).statutory, true);
  assert.equal(statutoryAt(at('2026-11-03T00:00:00Z'), { ...base, used: true }).statutory, true, 'use alone does not bar withdrawal');
  assert.equal(statutoryAt(at('2026-11-03T00:00:00Z'), { ...base, used: true, usageRestrictionMarked: true }).statutory, true, 'no trial offered');
  assert.equal(statutoryAt(at('2026-11-03T00:00:00Z'), { ...base, used: true, trialOffered: true }).statutory, true, 'restriction not marked');
  assert.equal(statutoryAt(at('2026-11-03T00:00:00Z'), { ...base, used: true, trialOffered: true, usageRestrictionMarked: true }).statutory, false);
  assert.equal(statutoryAt(at('2026-11-03T00:00:00Z'), { ...base, trialOffered: true, usageRestrictionMarked: true }).statutory, true, 'unused');
});

test('autoApproveAt: 12:00 KST inside the 3rd KST business day after filing (the filing day not counted), never at its end', () => {
  assert.equal(autoApproveAt(at('2026-11-02T01:00:00Z')).toISOString(), '2026-11-05T03:00:00.000Z'); // Mon → Tue, Wed, Thu 12:00 KST
  assert.equal(autoApproveAt(at('2026-11-02T16:00:00Z')).toISOString(), '2026-11-06T03:00:00.000Z'); // 01:00 KST Tue → Fri 12:00 KST
  // Wednesday 2026-11-04: Thu (1), Fri (2), weekend skipped, Mon 11-09 (3) → Mon 12:00 KST, before 24:00 of the third day
  assert.equal(autoApproveAt(at('2026-11-04T01:00:00Z')).toISOString(), '2026-11-09T03:00:00.000Z');
  // Wednesday 2026-09-23 before 추석 (09-24..09-26 holidays and the weekend): Mon 28 (1), Tue 29 (2), Wed 30 (3)
  assert.equal(autoApproveAt(at('2026-09-23T01:00:00Z')).toISOString(), '2026-09-30T03:00:00.000Z');
  // Friday 2026-12-24 before Christmas (a holiday) and the weekend: Mon 28 (1), Tue 29 (2), Wed 30 (3)
  assert.equal(autoApproveAt(at('2026-12-24T01:00:00Z')).toISOString(), '2026-12-30T03:00:00.000Z');
  // Always strictly inside the 3rd business day: after its start, before its end.
  for (const t of ['2026-11-04T14:59:59Z', '2026-11-04T15:00:00Z', '2026-11-06T10:00:00Z', '2026-09-23T01:00:00Z']) {
    const a = autoApproveAt(at(t));
    assert.ok(a > kstStartOf(nthBusinessDayAfter(at(t), 3)) && a < businessDaysAfter(at(t), 3), t);
  }
});

test('assertHoldable: reason, then actionable, then the statutory lock', () => {
  assert.equal(code(() => assertHoldable(row({ statutory: true, status: 'approved' }), ' ')), 'REFUND_REASON_REQUIRED');
  assert.equal(code(() => assertHoldable(row({ statutory: true, status: 'approved' }), 'x')), 'REFUND_REQUEST_NOT_ACTIONABLE');
  assert.equal(code(() => assertHoldable(row({ approving_since: at('2026-11-02T00:00:00Z') }), 'x')), 'REFUND_REQUEST_NOT_ACTIONABLE');
  assert.equal(code(() => assertHoldable(row({ statutory: true }), 'x')), 'REFUND_STATUTORY_LOCKED');
  assert.equal(assertHoldable(row({ status: 'held' }), '  확인 중 '), '확인 중');
});

test('assertApprovable: the documented order of checks', () => {
  const f = (o: Partial<Parameters<typeof assertApprovable>[0]> = {}) => () => assertApprovable({ request: row(), order: paid, amount: undefined, confirmAmount: false, auto: false, ...o });
  assert.equal(code(f({ amount: 0, request: row({ status: 'rejected' }) })), 'REFUND_AMOUNT_INVALID');
  assert.equal(code(f({ request: row({ status: 'rejected', approving_since: at('2026-11-02T00:00:00Z') }) })), 'REFUND_REQUEST_NOT_ACTIONABLE');
  assert.equal(code(f({ request: row({ approving_since: at('2026-11-02T00:00:00Z'), statutory: true }), amount: 1 })), 'REFUND_IN_PROGRESS');
  assert.equal(code(f({ request: row({ statutory: true }), amount: 5_000 })), 'REFUND_STATUTORY_LOCKED');
  assert.equal(code(f({ request: row({ statutory: true }), amount: 5_000, auto: true, confirmAmount: true })), 'OK', 'the auto-approval may refund what is left');
  assert.equal(code(f({ amount: 5_000, order: { ...paid, status: 'refunded' } })), 'REFUND_AMOUNT_MISMATCH');
  assert.equal(code(f({ order: { ...paid, status: 'refunded', settlement_id: 's' } })), 'REFUND_NOT_PAID');
  assert.equal(code(f({ order: { ...paid, settlement_id: 's', refunded_amount: 10_000 } })), 'REFUND_SETTLED');
  assert.equal(code(f({ order: { ...paid, refunded_amount: 10_000 } })), 'REFUND_NONE_LEFT');
  assert.equal(code(f({ amount: 9_000, confirmAmount: true, order: { ...paid, refunded_amount: 2_000 } })), 'REFUND_AMOUNT_EXCEEDS');
  assert.equal(code(f({ order: { ...paid, refunded_amount: 2_000 } })), 'REFUND_EXCEEDS');
  assert.equal(assertApprovable({ request: row(), order: paid, amount: undefined, confirmAmount: false, auto: false }), 10_000);
  assert.equal(code(f({ amount: 0, request: row({ subscription_id: 'sub_1' }) })), 'SUBSCRIPTION_REFUND_AMOUNT_INVALID');
});
