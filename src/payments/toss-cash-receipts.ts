/**
 * Toss 현금영수증 issued on their own, after the payment (POST /v1/cash-receipts) and their cancels or reductions
 * (POST /v1/cash-receipts/{receiptKey}/cancel). A payment's own receipt comes with the Payment (toss-model.ts).
 */
import type { CancelCashReceiptInput, CashReceiptIssued, IssueCashReceiptInput, Outcome } from './provider';
import { cashReceiptOf, type TossPayment } from './toss-model';
import { UNKNOWN, type TossClient } from './toss-http';

/**
 * POST /v1/cash-receipts (https://docs.tosspayments.com/reference#현금영수증-발급-요청; body amount, orderId, orderName,
 * customerIdentityNumber, type 소득공제 | 지출증빙, taxFreeAmount; the answer is a CashReceipt with receiptKey,
 * issueNumber, receiptUrl, amount). The Idempotency-Key makes a retry after a lost answer the same issue.
 */
export async function issueCashReceipt(client: TossClient, input: IssueCashReceiptInput): Promise<Outcome<CashReceiptIssued>> {
  const body = { amount: input.amount, orderId: input.orderId, orderName: input.orderName.slice(0, 100), customerIdentityNumber: input.identity, type: input.type, taxFreeAmount: 0 };
  const reply = await client.call('POST', '/v1/cash-receipts', body, input.idempotencyKey);
  if (reply.kind === 'unknown') return { status: 'unknown', message: reply.message };
  if (reply.kind === 'error') return { status: 'failed', code: reply.code, message: reply.message };
  const issued = cashReceiptOf({ cashReceipt: reply.body as TossPayment['cashReceipt'] });
  if (!issued) return { status: 'unknown', message: `${UNKNOWN} (현금영수증 형식 오류)` };
  return { status: 'succeeded', value: issued };
}

/**
 * POST /v1/cash-receipts/{receiptKey}/cancel (https://docs.tosspayments.com/reference#현금영수증-발급-취소-요청):
 * `amount` cancels that much, none cancels the whole receipt ("요청할 때 amount 값을 따로 보내지 않으면 전액 취소됩니다").
 */
export async function cancelCashReceipt(client: TossClient, input: CancelCashReceiptInput): Promise<Outcome<{ canceledAt: Date }>> {
  const body = input.amount === undefined ? {} : { amount: input.amount };
  const reply = await client.call('POST', `/v1/cash-receipts/${encodeURIComponent(input.receiptKey)}/cancel`, body, input.idempotencyKey);
  if (reply.kind === 'unknown') return { status: 'unknown', message: reply.message };
  if (reply.kind === 'error') return { status: 'failed', code: reply.code, message: reply.message };
  const at = typeof (reply.body as { requestedAt?: unknown })?.requestedAt === 'string' ? new Date((reply.body as { requestedAt: string }).requestedAt) : null;
  return { status: 'succeeded', value: { canceledAt: at && !Number.isNaN(at.getTime()) ? at : client.clock.now() } };
}
