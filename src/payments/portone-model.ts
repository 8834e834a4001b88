/**
 * PortOne V2's objects as this adapter reads them (schemas of PortOne's published OpenAPI, src/schema/v2.openapi.yml
 * in portone-io/developers.portone.io: `Payment` = one of PaidPayment, VirtualAccountIssuedPayment, CancelledPayment,
 * PartialCancelledPayment, FailedPayment, ReadyPayment, PayPendingPayment by `status`; `PaymentAmount`;
 * `PaymentCancellation` by `status`; `PaymentMethod` by `type`; `Bank`), and how they become our provider's types.
 * Only the fields we read are typed; the guards check exactly those, so an answer of another shape reads as unknown.
 */
import type { PaymentMethod } from './method';
import type { PaymentCancel, PaymentLookup, VirtualAccountIssued } from './provider';
import { isOwnKey, ownValue } from '../platform/lookup';

export interface PortOneAmount {
  total: number;
  paid: number;
  cancelled: number;
}

export interface PortOneCancellation {
  status: 'SUCCEEDED' | 'REQUESTED' | 'FAILED' | string;
  id: string;
  totalAmount: number;
  reason: string;
  cancelledAt?: string;
  requestedAt: string;
}

export interface PortOnePayment {
  status: 'PAID' | 'VIRTUAL_ACCOUNT_ISSUED' | 'CANCELLED' | 'PARTIAL_CANCELLED' | 'FAILED' | 'READY' | 'PAY_PENDING' | string;
  id: string;
  transactionId: string;
  storeId: string;
  currency: string;
  amount: PortOneAmount;
  method?: {
    type: string;
    provider?: string;
    bank?: string;
    accountNumber?: string;
    remitteeName?: string;
    expiredAt?: string;
    installment?: { month: number };
    card?: { name?: string; number?: string; publisher?: string };
  };
  /** SelectedChannel: which PG channel took it; `type` TEST (no money moves) or LIVE. */
  channel?: { type?: string; key?: string; pgProvider?: string };
  paidAt?: string;
  requestedAt: string;
  statusChangedAt: string;
  cancelledAt?: string;
  billingKey?: string;
  cancellations?: PortOneCancellation[];
  failure?: { reason?: string; pgCode?: string; pgMessage?: string };
}

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

export function isPortOnePayment(v: unknown): v is PortOnePayment {
  if (!isObj(v) || typeof v.status !== 'string' || typeof v.id !== 'string' || typeof v.currency !== 'string') return false;
  const a = v.amount;
  if (!isObj(a) || typeof a.total !== 'number' || typeof a.paid !== 'number' || typeof a.cancelled !== 'number') return false;
  if (v.cancellations !== undefined && (!Array.isArray(v.cancellations) || !v.cancellations.every((c) => isObj(c) && typeof c.status === 'string' && typeof c.totalAmount === 'number'))) return false;
  return v.method === undefined || (isObj(v.method) && typeof v.method.type === 'string');
}

/** What PortOne still lets be cancelled: the paid amount less what was cancelled (PaymentAmount.paid − cancelled). */
export function cancellableOf(p: PortOnePayment): number {
  return Math.max(0, p.amount.paid - p.amount.cancelled);
}

/** PortOne's EasyPayProvider → our method; an easy pay we do not offer is none of ours (null). */
const EASY_PAY: Readonly<Record<string, PaymentMethod>> = { KAKAOPAY: 'kakao_pay', NAVERPAY: 'naver_pay', TOSSPAY: 'toss' };

/**
 * PaymentMethod.type (PaymentMethodCard, PaymentMethodEasyPay, PaymentMethodTransfer, PaymentMethodVirtualAccount …) →
 * our PaymentMethod. Null for what our payment page never offers (휴대폰 PaymentMethodMobile, 상품권, 편의점, crypto)
 * and for a payment without `method`.
 */
export function mapPortOneMethod(p: Pick<PortOnePayment, 'method'>): PaymentMethod | null {
  switch (p.method?.type) {
    case 'PaymentMethodCard':
      return 'card';
    case 'PaymentMethodEasyPay':
      return ownValue(EASY_PAY, p.method.provider ?? '') ?? null;
    case 'PaymentMethodTransfer':
      return 'transfer';
    case 'PaymentMethodVirtualAccount':
      return 'virtual_account';
    default:
      return null;
  }
}

/** Payment.status → our lookup status. */
export function mapPortOneStatus(status: string): PaymentLookup['status'] {
  switch (status) {
    case 'PAID':
      return 'paid';
    case 'PARTIAL_CANCELLED':
      return 'partially_canceled';
    case 'CANCELLED':
      return 'canceled';
    case 'FAILED':
      return 'failed';
    case 'READY':
    case 'PAY_PENDING':
    case 'VIRTUAL_ACCOUNT_ISSUED':
      return 'pending';
    default:
      return 'unknown';
  }
}

function date(s: string | undefined): Date | null {
  const d = s ? new Date(s) : null;
  return d && !Number.isNaN(d.getTime()) ? d : null;
}

export function cancelOf(c: PortOneCancellation): PaymentCancel {
  return {
    transactionKey: c.id ?? null,
    amount: c.totalAmount,
    canceledAt: date(c.cancelledAt),
    reason: c.reason ?? null,
    status: c.status === 'SUCCEEDED' ? 'done' : c.status === 'REQUESTED' ? 'in_progress' : 'aborted',
  };
}

export function lookupOfPortOne(p: PortOnePayment): PaymentLookup {
  const cancels = (p.cancellations ?? []).map(cancelOf).sort((a, b) => (a.canceledAt?.getTime() ?? 0) - (b.canceledAt?.getTime() ?? 0));
  return {
    status: mapPortOneStatus(p.status),
    totalAmount: p.amount.total,
    // Before the payment is paid nothing can be cancelled; afterwards the balance is paid − cancelled.
    balanceAmount: p.status === 'PAID' || p.status === 'PARTIAL_CANCELLED' ? cancellableOf(p) : 0,
    paymentKey: p.id,
    orderId: p.id,
    cancels,
  };
}

export function paidAtOf(p: PortOnePayment): Date | null {
  return date(p.paidAt);
}

/**
 * 금융결제원 bank codes (what our records and Toss use, src/payments/banks.ts) → PortOne's `Bank` enum (v2.openapi.yml
 * `Bank`), for 가상계좌 refund accounts (CancelPaymentBodyRefundAccount.bank) and issued accounts
 * (PaymentMethodVirtualAccount.bank).
 */
export const PORTONE_BANKS: Readonly<Record<string, string>> = {
  '02': 'KDB',
  '03': 'IBK',
  '06': 'KOOKMIN',
  '07': 'SUHYUP',
  '11': 'NONGHYUP',
  '12': 'LOCAL_NONGHYUP',
  '20': 'WOORI',
  '23': 'STANDARD_CHARTERED',
  '27': 'CITI',
  '31': 'DAEGU',
  '32': 'BUSAN',
  '34': 'KWANGJU',
  '35': 'JEJU',
  '37': 'JEONBUK',
  '39': 'KYONGNAM',
  '45': 'KFCC',
  '48': 'SHINHYUP',
  '50': 'SAVINGS_BANK',
  '54': 'HSBC',
  '64': 'NFCF',
  '71': 'POST',
  '81': 'HANA',
  '88': 'SHINHAN',
  '89': 'K_BANK',
  '90': 'KAKAO',
  '92': 'TOSS',
};

export const portOneBankOf = (code: string): string | null => ownValue(PORTONE_BANKS, code) ?? null;

/** PortOne's Bank enum value → our bank code (the value itself when not in our table). */
export function bankCodeOfPortOne(bank: string | undefined): string {
  if (!bank) return '';
  for (const code of Object.keys(PORTONE_BANKS)) if (isOwnKey(PORTONE_BANKS, code) && PORTONE_BANKS[code] === bank) return code;
  return bank;
}

/** The issued account of a VIRTUAL_ACCOUNT_ISSUED payment (PaymentMethodVirtualAccount), or null without one. */
export function virtualAccountOf(p: PortOnePayment, fallbackDue: Date): VirtualAccountIssued | null {
  const m = p.method;
  if (!m || m.type !== 'PaymentMethodVirtualAccount' || !m.accountNumber) return null;
  return {
    bankCode: bankCodeOfPortOne(m.bank),
    accountNumber: m.accountNumber,
    holderName: m.remitteeName ?? null,
    dueAt: date(m.expiredAt) ?? fallbackDue,
    // PortOne signs its webhooks (Standard Webhooks) instead of sending a per-payment secret.
    secret: null,
  };
}
