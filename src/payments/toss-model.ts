import type { PaymentMethod } from '../orders/tables';
import type { PaymentCancel, PaymentLookup } from './provider';

/** The parts of Toss Payments' Payment object this service reads (https://docs.tosspayments.com/reference#payment-객체). */
export interface TossPayment {
  paymentKey: string;
  orderId: string;
  status: string;
  method?: string | null;
  totalAmount: number;
  balanceAmount: number;
  approvedAt?: string | null;
  easyPay?: { provider?: string | null } | null;
  /** Card payments: `installmentPlanMonths` is 0 for 일시불, else the 할부 months. */
  card?: { installmentPlanMonths?: number | null } | null;
  cancels?: Array<{ cancelAmount: number; canceledAt?: string | null; cancelReason?: string | null; cancelStatus?: string | null; transactionKey?: string | null }> | null;
}

/** Toss Payments' Billing object (billing key issue answer). */
export interface TossBilling {
  billingKey: string;
  customerKey: string;
  cardCompany?: string | null;
  cardNumber?: string | null;
  card?: { number?: string | null } | null;
}

// Korean names are what the API returns by default; the English forms come back under `Accept-Language: en-US`.
const EASY_PAY: Record<string, PaymentMethod> = {
  카카오페이: 'kakao_pay',
  KAKAOPAY: 'kakao_pay',
  네이버페이: 'naver_pay',
  NAVERPAY: 'naver_pay',
  토스페이: 'toss',
  TOSSPAY: 'toss',
};

/**
 * Our method for a Toss payment. The wallet (easyPay.provider) wins over `method`, because a wallet paying with a
 * registered card can come back as method '카드' with easyPay set. Wallets and methods we do not offer (Samsung Pay,
 * Payco, …) are card payments underneath as far as refunds and receipts are concerned, so they map to `card`.
 */
export function mapTossMethod(payment: Pick<TossPayment, 'method' | 'easyPay'>): PaymentMethod {
  const provider = payment.easyPay?.provider?.replace(/\s/g, '').toUpperCase();
  if (provider) {
    const mapped = EASY_PAY[provider] ?? EASY_PAY[payment.easyPay!.provider!.replace(/\s/g, '')];
    if (mapped) return mapped;
  }
  return 'card';
}

/** Toss payment `status` → our lookup status. */
export function mapTossStatus(status: string): PaymentLookup['status'] {
  switch (status) {
    case 'DONE':
      return 'paid';
    case 'PARTIAL_CANCELED':
      return 'partially_canceled';
    case 'CANCELED':
      return 'canceled';
    case 'ABORTED':
    case 'EXPIRED':
      return 'failed';
    case 'READY':
    case 'IN_PROGRESS':
    case 'WAITING_FOR_DEPOSIT':
      return 'pending';
    default:
      return 'unknown';
  }
}

/**
 * Error codes after which the request may still have taken effect (or is taking effect right now), so the caller
 * must look the payment up instead of telling the buyer it failed. Everything else in a 4xx is a definite refusal.
 */
export const TOSS_AMBIGUOUS_CODES = new Set([
  // 409: an earlier request with the same Idempotency-Key is still being processed; its result is not known yet.
  'IDEMPOTENT_REQUEST_PROCESSING',
  // 400 "일시적인 오류가 발생했습니다": a temporary failure at the card company or wallet.
  'PROVIDER_ERROR',
  // Temporary-failure codes Toss documents under 500; listed so they stay ambiguous whatever status carries them.
  'FAILED_INTERNAL_SYSTEM_PROCESSING',
  'FAILED_PAYMENT_INTERNAL_SYSTEM_PROCESSING',
  'FAILED_METHOD_HANDLING',
  'FAILED_METHOD_HANDLING_CANCEL',
  'FAILED_REFUND_PROCESS',
  'COMMON_ERROR',
  'UNKNOWN_ERROR',
]);

export function isPayment(v: unknown): v is TossPayment {
  const p = v as TossPayment;
  return !!p && typeof p === 'object' && typeof p.paymentKey === 'string' && typeof p.status === 'string' && Number.isSafeInteger(p.totalAmount) && Number.isSafeInteger(p.balanceAmount);
}

export function isBilling(v: unknown): v is TossBilling {
  const b = v as TossBilling;
  return !!b && typeof b === 'object' && typeof b.billingKey === 'string' && b.billingKey.length > 0;
}

/** Toss error bodies: `{ code, message }` (v1), or `{ error: { code, message } }` (newer API versions). */
export function tossError(v: unknown): { code: string; message: string } | null {
  if (!v || typeof v !== 'object') return null;
  const o = v as Record<string, unknown>;
  const e = (o.error && typeof o.error === 'object' ? o.error : o) as Record<string, unknown>;
  return typeof e.code === 'string' ? { code: e.code, message: typeof e.message === 'string' ? e.message : e.code } : null;
}

/** A masked card number for receipts and the portal, e.g. `신한 4330-12**-****-123*`; null when Toss sent none. */
export function cardSummary(b: TossBilling): string | null {
  const number = b.card?.number ?? b.cardNumber ?? null;
  if (!number) return null;
  return b.cardCompany ? `${b.cardCompany} ${number}` : number;
}

/** A Toss Payment read as our lookup: status, amounts, and every cancel with Toss's transactionKey. */
export function lookupOf(p: TossPayment): PaymentLookup {
  const date = (v: string | null | undefined) => {
    const d = v ? new Date(v) : null;
    return d && !Number.isNaN(d.getTime()) ? d : null;
  };
  // Toss's Cancel.cancelStatus: DONE, IN_PROGRESS or ABORTED; older answers leave it out for a finished cancel.
  const status = (s: string | null | undefined): PaymentCancel['status'] => (s === 'IN_PROGRESS' ? 'in_progress' : s === 'ABORTED' ? 'aborted' : 'done');
  return {
    status: mapTossStatus(p.status),
    totalAmount: p.totalAmount,
    balanceAmount: p.balanceAmount,
    paymentKey: p.paymentKey,
    orderId: typeof p.orderId === 'string' ? p.orderId : null,
    cancels: (p.cancels ?? [])
      .filter((c) => c && Number.isSafeInteger(c.cancelAmount))
      .map((c) => ({ transactionKey: c.transactionKey ?? null, amount: c.cancelAmount, canceledAt: date(c.canceledAt), reason: c.cancelReason ?? null, status: status(c.cancelStatus) })),
  };
}
