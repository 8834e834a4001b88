/**
 * The simulator's billing keys: issue (from the test card registration's `sim_auth_<cardNumber>`), charge (the way
 * that card confirms; idempotent by idempotency key) and delete. A billing key carries its card's outcome, so
 * renewals decline, run short or time out as the card says, and `renewalDeclined` declines every later charge.
 */
import { randomBytes } from 'node:crypto';
import type { BillingKeyResult, ConfirmResult, Outcome } from './provider';
import { normalizeCardNumber } from './card';
import { cardOutcome, FAILURES, TEST_CARDS, UNKNOWN_MESSAGE, type SimOutcome } from './simulator-cards';
import { makeKey } from './simulator-keys';
import type { SimulatorMemory } from './simulator-memory';

export async function issueBillingKey(mem: SimulatorMemory, input: { authKey: string; customerKey: string }): Promise<Outcome<BillingKeyResult>> {
  const injected = mem.takeInjected<BillingKeyResult>('issueBillingKey');
  if (injected) return injected;
  const m = /^sim_auth_(.+)$/.exec(input.authKey);
  const digits = m ? normalizeCardNumber(m[1]) : '';
  const cardSays = m ? cardOutcome(digits) : null;
  if (!cardSays) return { status: 'failed', code: 'INVALID_CARD_NUMBER', message: '카드 번호가 올바르지 않습니다.' };
  const outcome: SimOutcome = digits === TEST_CARDS.renewalDeclined ? 'declined' : cardSays;
  return {
    status: 'succeeded',
    value: { billingKey: `sim_bill_${outcome}_${randomBytes(8).toString('hex')}`, cardSummary: `카드 ****${digits.slice(-4)}` },
  };
}

export async function chargeBillingKey(
  mem: SimulatorMemory,
  input: { billingKey: string; customerKey: string; amount: number; orderId: string; orderName: string; idempotencyKey: string },
): Promise<Outcome<ConfirmResult>> {
  const previous = mem.charges.get(input.idempotencyKey);
  if (previous) return previous;
  const injected = mem.takeInjected<ConfirmResult>('chargeBillingKey');
  if (injected) return injected;
  const m = /^sim_bill_(success|declined|insufficient|unknown|refundfail|refundlost)_[0-9a-f]{16}$/.exec(input.billingKey);
  if (!m) return { status: 'failed', code: 'INVALID_BILLING_KEY', message: '빌링키가 올바르지 않습니다.' };
  if (!Number.isSafeInteger(input.amount) || input.amount <= 0) {
    return { status: 'failed', code: 'INVALID_REQUEST', message: '결제 금액이 올바르지 않습니다.' };
  }
  const outcome = m[1] as SimOutcome;
  // A timed-out charge is not remembered: retrying with the same idempotency key times out again, as the card says.
  if (outcome === 'unknown') return { status: 'unknown', message: UNKNOWN_MESSAGE };
  let result: Outcome<ConfirmResult>;
  if (outcome === 'declined' || outcome === 'insufficient') result = { status: 'failed', ...FAILURES[outcome] };
  else {
    // The payment carries the card's outcome, so refunds of renewals fail or time out the way the card says.
    const paymentKey = makeKey(outcome, 'card', input.amount, input.orderId);
    const state = mem.approve(paymentKey, 'card', input.amount, input.orderId);
    result = { status: 'succeeded', value: { paymentKey, approvedAt: state.approvedAt, method: 'card' } };
  }
  mem.charges.set(input.idempotencyKey, result);
  return result;
}
