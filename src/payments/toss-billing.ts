/**
 * Toss 자동결제 (billing): issue a billing key from the card registration's authKey, charge it (on the slow deadline;
 * "already processed" or a duplicate order id found again by order id), and delete it when a subscription ends.
 */
import { createHash } from 'node:crypto';
import type { BillingKeyResult, ConfirmResult, IssueBillingKeyInput, Outcome } from './provider';
import { cardSummary, isBilling, isPayment } from './toss-model';
import { UNKNOWN, type TossClient } from './toss-http';
import { approved, settleAlreadyProcessed } from './toss-payments';

export async function issueBillingKey(client: TossClient, input: IssueBillingKeyInput): Promise<Outcome<BillingKeyResult>> {
  // An authKey is single-use, so (customerKey, authKey) names one issue: retries after a lost answer get the same key.
  const idempotencyKey = input.idempotencyKey ?? `billing-issue-${createHash('sha256').update(`${input.customerKey}:${input.authKey}`).digest('hex').slice(0, 48)}`;
  const reply = await client.call('POST', '/v1/billing/authorizations/issue', { authKey: input.authKey, customerKey: input.customerKey }, idempotencyKey);
  if (reply.kind === 'unknown') return { status: 'unknown', message: reply.message };
  if (reply.kind === 'error') return { status: 'failed', code: reply.code, message: reply.message };
  if (!isBilling(reply.body)) return { status: 'unknown', message: `${UNKNOWN} (빌링키 응답 형식 오류)` };
  return { status: 'succeeded', value: { billingKey: reply.body.billingKey, cardSummary: cardSummary(reply.body) } };
}

export async function chargeBillingKey(
  client: TossClient,
  input: { billingKey: string; customerKey: string; amount: number; orderId: string; orderName: string; idempotencyKey: string },
): Promise<Outcome<ConfirmResult>> {
  const body = { customerKey: input.customerKey, amount: input.amount, orderId: input.orderId, orderName: input.orderName };
  const reply = await client.call('POST', `/v1/billing/${encodeURIComponent(input.billingKey)}`, body, input.idempotencyKey, true);
  if (reply.kind === 'unknown') return { status: 'unknown', message: reply.message };
  if (reply.kind === 'ok') {
    return isPayment(reply.body) ? approved(client, reply.body, input) : { status: 'unknown', message: `${UNKNOWN} (결제 정보 형식 오류)` };
  }
  if (reply.code === 'ALREADY_PROCESSED_PAYMENT' || reply.code === 'DUPLICATED_ORDER_ID') {
    // Our order ids are unique per charge, so either answer means an earlier attempt of this very charge got there;
    // we hold no payment key for it yet, so the order id finds it.
    return settleAlreadyProcessed(client, await client.getPayment(`/v1/payments/orders/${encodeURIComponent(input.orderId)}`), input, reply);
  }
  return { status: 'failed', code: reply.code, message: reply.message };
}

/**
 * DELETE /v1/billing/{billingKey}: the card stops being chargeable at Toss. A key Toss no longer knows
 * (NOT_FOUND_BILLING) is as deleted as it gets, so that reads as succeeded too.
 */
export async function deleteBillingKey(client: TossClient, input: { billingKey: string }): Promise<Outcome<{ deleted: true }>> {
  const reply = await client.call('DELETE', `/v1/billing/${encodeURIComponent(input.billingKey)}`);
  if (reply.kind === 'unknown') return { status: 'unknown', message: reply.message };
  if (reply.kind === 'error') {
    if (reply.code === 'NOT_FOUND_BILLING' || reply.code === 'NOT_FOUND') return { status: 'succeeded', value: { deleted: true } };
    return { status: 'failed', code: reply.code, message: reply.message };
  }
  return { status: 'succeeded', value: { deleted: true } };
}
