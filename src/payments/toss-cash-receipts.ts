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
  const request = { amount: input.amount, orderId: input.orderId, orderName: input.orderName.slice(0, 100), customerIdentityNumber: input.identity, type: input.type, taxFreeAmount: 0 };
  const reply = await client.call('POST', '/v1/cash-receipts', request, input.idempotencyKey);
  if (reply.kind === 'unknown') return { status: 'unknown', message: reply.message };
  if (reply.kind === 'error') return { status: 'failed', code: reply.code, message: reply.message };
  const answer = reply.body as TossCashReceipt;
  // CashReceipt.issueStatus FAILED with its `failure` { code, message } (components.schemas.CashReceipt of the
  // 2022-11-16 reference): Toss took the request and refused the receipt; nothing was issued.
  if (answer?.issueStatus === 'FAILED') {
    return { status: 'failed', code: String(answer.failure?.code ?? 'CASH_RECEIPT_FAILED'), message: String(answer.failure?.message ?? '현금영수증 발급이 거절되었습니다.') };
  }
  const issued = cashReceiptOf({ cashReceipt: answer });
  if (!issued) return { status: 'unknown', message: `${UNKNOWN} (현금영수증 형식 오류)` };
  return { status: 'succeeded', value: { ...issued, identityMasked: maskedIdentity(answer.customerIdentityNumber), issueStatus: typeof answer.issueStatus === 'string' ? answer.issueStatus : null } };
}

/** The CashReceipt object of the answer (fields beyond Payment.cashReceipt's). */
type TossCashReceipt = TossPayment['cashReceipt'] & { issueStatus?: string | null; customerIdentityNumber?: string | null; failure?: { code?: unknown; message?: unknown } | null };

/**
 * CashReceipt.customerIdentityNumber as we keep it: Toss's own masked form (e.g. `010****1234`) as it comes; a number
 * that comes unmasked is masked here, so a full number is never stored.
 */
export function maskedIdentity(v: unknown): string | null {
  if (typeof v !== 'string' || !v) return null;
  if (v.includes('*')) return v;
  const d = v.replace(/\D/g, '');
  if (d.length <= 4) return '*'.repeat(d.length);
  return `${d.slice(0, 3)}${'*'.repeat(Math.max(0, d.length - 7))}${d.slice(-4)}`;
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
