/**
 * Toss payments: confirm (and reading an approved Payment against what we asked for, 가상계좌 issue included),
 * cancel (refunds, with Toss's 200-character reason limit and "already canceled" checked against the payment), and
 * lookups by payment key or order id. "Already processed" answers are settled by looking the payment up.
 */
import type { ConfirmInput, ConfirmResult, Outcome, PaymentLookup, RefundInput, RefundResult } from './provider';
import { cashReceiptOf, isPayment, lookupOf, mapTossMethod, mapTossStatus, type TossPayment } from './toss-model';
import { UNKNOWN, type TossClient } from './toss-http';
import { formatUsd, gatewayAmount, type Presentment } from './foreign';

/** Toss takes at most 200 characters of `cancelReason` (Payment cancel API); longer reasons are refused. */
export const TOSS_CANCEL_REASON_MAX = 200;

/** The reason as Toss may take it: at most 200 characters (code points, so a Korean or emoji reason is never split). */
export function tossCancelReason(reason: string): string {
  const chars = Array.from(reason);
  return chars.length <= TOSS_CANCEL_REASON_MAX ? reason : chars.slice(0, TOSS_CANCEL_REASON_MAX).join('');
}

/** A Payment answer to confirm/charge, held against what we asked for. */
export function approved(client: TossClient, p: TossPayment, expected: { orderId: string; amount: number; presentment?: Presentment | null }): Outcome<ConfirmResult> {
  // A PayPal payment is approved in USD (cents here): its total and currency are held against the USD amount asked for.
  const want = expected.presentment ?? null;
  const usd = p.currency === 'USD';
  if (want ? !usd || p.totalAmount !== want.amount : usd || p.totalAmount !== expected.amount) {
    const got = usd ? formatUsd(p.totalAmount) : `${p.totalAmount}원`;
    const asked = want ? formatUsd(want.amount) : `${expected.amount}원`;
    return { status: 'failed', code: 'AMOUNT_MISMATCH', message: `결제사 승인 금액(${got})이 주문 금액(${asked})과 다릅니다.` };
  }
  if (p.orderId !== expected.orderId) {
    return { status: 'failed', code: 'ORDER_MISMATCH', message: '결제사 응답의 주문 번호가 요청과 다릅니다.' };
  }
  const status = mapTossStatus(p.status);
  // 가상계좌: confirm issues the account (WAITING_FOR_DEPOSIT) and nothing is paid until DEPOSIT_CALLBACK
  // (https://docs.tosspayments.com/guides/learn/virtual-account-webhook).
  if (p.status === 'WAITING_FOR_DEPOSIT' && p.virtualAccount) {
    const dueAt = new Date(p.virtualAccount.dueDate ?? '');
    if (!p.virtualAccount.accountNumber || !p.virtualAccount.bankCode || Number.isNaN(dueAt.getTime())) return { status: 'unknown', message: `${UNKNOWN} (가상계좌 정보 형식 오류)` };
    return {
      status: 'succeeded',
      value: {
        paymentKey: p.paymentKey,
        approvedAt: client.clock.now(),
        method: 'virtual_account',
        installmentMonths: null,
        awaitingDeposit: { bankCode: p.virtualAccount.bankCode, accountNumber: p.virtualAccount.accountNumber, holderName: p.virtualAccount.customerName ?? null, dueAt, secret: p.secret ?? null },
      },
    };
  }
  // DONE, or already (partly) canceled afterwards: either way it was approved.
  if (status !== 'paid' && status !== 'partially_canceled' && status !== 'canceled') {
    return status === 'failed'
      ? { status: 'failed', code: `PAYMENT_${p.status}`, message: '결제가 승인되지 않았습니다.' }
      : { status: 'unknown', message: `${UNKNOWN} (결제 상태: ${p.status})` };
  }
  const approvedAt = p.approvedAt ? new Date(p.approvedAt) : null;
  return {
    status: 'succeeded',
    value: {
      paymentKey: p.paymentKey,
      approvedAt: approvedAt && !Number.isNaN(approvedAt.getTime()) ? approvedAt : client.clock.now(),
      method: mapTossMethod(p),
      // Toss's Payment.card.installmentPlanMonths: 0 for 일시불; absent for wallets paid without a card.
      installmentMonths: typeof p.card?.installmentPlanMonths === 'number' ? p.card.installmentPlanMonths : null,
      // 계좌이체: the 현금영수증 the buyer chose in the window is issued with the payment (Payment.cashReceipt).
      cashReceipt: cashReceiptOf(p),
      presentment: usd ? { amount: p.totalAmount, currency: 'USD' } : null,
    },
  };
}

/** After "already processed": approved for exactly this order and amount → succeeded; ended unpaid → failed; else unknown. */
export function settleAlreadyProcessed(
  client: TossClient,
  found: Outcome<TossPayment>,
  expected: { orderId: string; amount: number; presentment?: Presentment | null },
  reply: { code: string; message: string },
): Outcome<ConfirmResult> {
  if (found.status !== 'succeeded') return { status: 'unknown', message: found.message };
  const result = approved(client, found.value, expected);
  if (result.status === 'succeeded') return result;
  if (mapTossStatus(found.value.status) === 'failed' && found.value.orderId === expected.orderId) {
    return { status: 'failed', code: reply.code, message: reply.message };
  }
  return { status: 'unknown', message: `${UNKNOWN} (이미 처리된 결제: ${found.value.status}, ${found.value.totalAmount}원)` };
}

export async function confirmPayment(client: TossClient, input: ConfirmInput): Promise<Outcome<ConfirmResult>> {
  // PayPal: the amount Toss's window was opened with, in USD with cents (e.g. 28.89), never the won price.
  const amount = input.presentment ? gatewayAmount(input.presentment.amount, input.presentment.currency) : input.amount;
  const reply = await client.call('POST', '/v1/payments/confirm', { paymentKey: input.paymentKey, orderId: input.orderId, amount }, input.idempotencyKey);
  if (reply.kind === 'unknown') return { status: 'unknown', message: reply.message };
  if (reply.kind === 'ok') {
    return isPayment(reply.body) ? approved(client, reply.body, input) : { status: 'unknown', message: `${UNKNOWN} (결제 정보 형식 오류)` };
  }
  if (reply.code === 'ALREADY_PROCESSED_PAYMENT') {
    // Most likely our own earlier confirm whose answer was lost: the payment itself says whether it went through.
    return settleAlreadyProcessed(client, await client.getPayment(`/v1/payments/${encodeURIComponent(input.paymentKey)}`), input, reply);
  }
  return { status: 'failed', code: reply.code, message: reply.message };
}

export async function refund(client: TossClient, input: RefundInput): Promise<Outcome<RefundResult>> {
  const path = `/v1/payments/${encodeURIComponent(input.paymentKey)}/cancel`;
  // Toss refuses a cancelReason over 200 characters; the full reason stays on our refund record. No
  // `refundableAmount`: Toss deprecated it ("이 파라미터는 더 이상 사용을 권장하지 않습니다. 안전하게 취소하려면 멱등키를
  // 대신 사용해주세요", https://docs.tosspayments.com/reference#결제-취소); the Idempotency-Key below keeps a retried
  // cancel from cancelling twice, and a cancel that exceeds the balance Toss holds is refused (NOT_CANCELABLE_AMOUNT).
  const body: Record<string, unknown> = { cancelReason: tossCancelReason(input.reason), cancelAmount: input.amount };
  // PayPal: the cancel is in USD and names its currency ("PayPal 해외간편결제 부분 취소에는 필수 값입니다", Payment cancel API
  // `currency`); sent on every PayPal cancel, full ones too, so the amount is never read as won.
  if (input.presentment) {
    body.cancelAmount = gatewayAmount(input.presentment.amount, input.presentment.currency);
    body.currency = input.presentment.currency;
  }
  // A deposited 가상계좌 goes back to the buyer's own account (https://docs.tosspayments.com/reference#결제-취소,
  // refundReceiveAccount { bank, accountNumber, holderName }).
  if (input.refundReceiveAccount) {
    body.refundReceiveAccount = { bank: input.refundReceiveAccount.bankCode, accountNumber: input.refundReceiveAccount.accountNumber, holderName: input.refundReceiveAccount.holderName };
  }
  const reply = await client.call('POST', path, body, input.idempotencyKey);
  if (reply.kind === 'unknown') return { status: 'unknown', message: reply.message };
  if (reply.kind === 'ok') {
    if (!isPayment(reply.body)) return { status: 'unknown', message: `${UNKNOWN} (결제 정보 형식 오류)` };
    return { status: 'succeeded', value: { refundedAt: lastCancelAt(client, reply.body), balanceAmount: reply.body.balanceAmount } };
  }
  if (reply.code === 'ALREADY_CANCELED_PAYMENT') {
    // "Already canceled" may be this very refund, retried after a lost answer: believe it only when the cancel is there.
    const found = await client.getPayment(`/v1/payments/${encodeURIComponent(input.paymentKey)}`);
    if (found.status !== 'succeeded') return { status: 'unknown', message: found.message };
    // Toss does not echo our idempotency key in `cancels`, so amount and reason (as sent) identify this refund.
    const sentReason = tossCancelReason(input.reason);
    const cancel = [...(found.value.cancels ?? [])]
      .reverse()
      .find((c) => c.cancelAmount === (input.presentment?.amount ?? input.amount) && (c.cancelReason ?? sentReason) === sentReason && (c.cancelStatus ?? 'DONE') === 'DONE');
    if (!cancel) return { status: 'unknown', message: `${UNKNOWN} (이미 취소된 결제이나 이 환불 금액의 취소 내역이 없습니다)` };
    const at = cancel.canceledAt ? new Date(cancel.canceledAt) : null;
    return { status: 'succeeded', value: { refundedAt: at && !Number.isNaN(at.getTime()) ? at : client.clock.now(), balanceAmount: found.value.balanceAmount } };
  }
  return { status: 'failed', code: reply.code, message: reply.message };
}

function lastCancelAt(client: TossClient, p: TossPayment): Date {
  const last = p.cancels?.length ? p.cancels[p.cancels.length - 1] : null;
  const at = last?.canceledAt ? new Date(last.canceledAt) : null;
  return at && !Number.isNaN(at.getTime()) ? at : client.clock.now();
}

export async function lookupPayment(client: TossClient, paymentKey: string): Promise<Outcome<PaymentLookup>> {
  const found = await client.getPayment(`/v1/payments/${encodeURIComponent(paymentKey)}`);
  return found.status === 'succeeded' ? { status: 'succeeded', value: lookupOf(found.value) } : found;
}

export async function lookupPaymentByOrderId(client: TossClient, orderId: string): Promise<Outcome<PaymentLookup>> {
  const found = await client.getPayment(`/v1/payments/orders/${encodeURIComponent(orderId)}`);
  return found.status === 'succeeded' ? { status: 'succeeded', value: lookupOf(found.value) } : found;
}
