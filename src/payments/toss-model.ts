import { ownValue } from '../platform/lookup';
import type { PaymentMethod } from './method';
import type { CashReceiptIssued, GatewaySettlement, PaymentCancel, PaymentLookup } from './provider';
import { minorAmount } from './foreign';

/** The parts of Toss Payments' Payment object this service reads (https://docs.tosspayments.com/reference#payment-객체). */
export interface TossPayment {
  paymentKey: string;
  orderId: string;
  status: string;
  method?: string | null;
  /** 결제 통화: KRW, or USD for PayPal (해외간편결제). After `inMinorUnits`, USD amounts below are in cents. */
  currency?: string | null;
  totalAmount: number;
  balanceAmount: number;
  approvedAt?: string | null;
  easyPay?: { provider?: string | null } | null;
  /** 해외간편결제 (PayPal): Toss may send the provider as an object or, as seen by integrators, a bare string. */
  foreignEasyPay?: { provider?: string | null } | string | null;
  /** Card payments: `installmentPlanMonths` is 0 for 일시불, else the 할부 months. */
  card?: { installmentPlanMonths?: number | null; issuerCode?: string | null; cardType?: string | null; ownerType?: string | null } | null;
  /** 가상계좌 (WAITING_FOR_DEPOSIT until the buyer deposits); `secret` is what DEPOSIT_CALLBACK echoes. */
  virtualAccount?: { accountNumber?: string | null; bankCode?: string | null; customerName?: string | null; dueDate?: string | null } | null;
  secret?: string | null;
  /** 휴대폰 결제: the phone number charged (personal data: never logged nor stored), settlement status, receipt page. */
  mobilePhone?: { customerMobilePhone?: string | null; settlementStatus?: string | null; receiptUrl?: string | null } | null;
  /** 상품권: the approval number and settlement status. */
  giftCertificate?: { approveNo?: string | null; settlementStatus?: string | null } | null;
  /** false: Toss cancels this payment only in full (Payment.isPartialCancelable). */
  isPartialCancelable?: boolean | null;
  /**
   * 현금영수증 (https://docs.tosspayments.com/reference#payment-객체 cashReceipt: type 소득공제/지출증빙, receiptKey,
   * issueNumber, receiptUrl, amount, taxFreeAmount); `cashReceipts` is its issue and cancel history.
   */
  cashReceipt?: { type?: string | null; receiptKey?: string | null; issueNumber?: string | null; receiptUrl?: string | null; amount?: number | null } | null;
  cancels?: Array<{ cancelAmount: number; canceledAt?: string | null; cancelReason?: string | null; cancelStatus?: string | null; transactionKey?: string | null }> | null;
}

/** Toss Payments' Billing object (billing key issue answer). `cardCompany`/`cardNumber` are gone since API version 2024-06-01. */
export interface TossBilling {
  billingKey: string;
  customerKey: string;
  card?: { issuerCode?: string | null; acquirerCode?: string | null; number?: string | null } | null;
}

/** One item of Toss's transactions API (GET /v1/transactions). */
export interface TossTransaction {
  transactionKey: string;
  paymentKey: string;
  orderId: string;
  status: string;
  amount: number;
  transactionAt: string;
  method?: string | null;
  currency?: string | null;
}

/**
 * Toss's card company codes (issuerCode / acquirerCode) → the Korean name buyers know, from Toss's code table
 * (https://docs.tosspayments.com/codes/org-codes#카드사-코드).
 */
export const TOSS_CARD_COMPANIES: Readonly<Record<string, string>> = {
  '3K': '기업비씨',
  '46': '광주',
  '71': '롯데',
  '30': 'KDB산업',
  '31': 'BC',
  '51': '삼성',
  '38': '새마을',
  '41': '신한',
  '62': '신협',
  '36': '씨티',
  '33': '우리',
  W1: '우리',
  '37': '우체국',
  '39': '저축',
  '35': '전북',
  '42': '제주',
  '15': '카카오뱅크',
  '3A': '케이뱅크',
  '24': '토스뱅크',
  '21': '하나',
  '61': '현대',
  '11': 'KB국민',
  '91': 'NH농협',
  '34': 'Sh수협',
  '6D': '다이너스',
  '4M': '마스터',
  '3C': '유니온페이',
  '7A': '아메리칸 익스프레스',
  '4J': 'JCB',
  '4V': 'VISA',
};

/** Toss's issuer codes of the international brands: a card issued abroad (https://docs.tosspayments.com/codes/org-codes#카드사-코드). */
export const FOREIGN_ISSUERS: ReadonlySet<string> = new Set(['4V', '4M', '4J', '7A', '3C', '6D']);

/**
 * Toss writes USD amounts with cents (PayPal: `664.98`); every amount inside this service is an integer of minor units.
 * Turns a Payment (and its cancels) or a Transaction list answered in USD into cents; KRW bodies are left as they are.
 * A USD amount that is not a whole number of cents becomes NaN, which the shape checks then refuse.
 */
export function inMinorUnits(body: unknown): unknown {
  if (Array.isArray(body)) return body.map(inMinorUnits);
  if (!body || typeof body !== 'object') return body;
  const o = body as Record<string, unknown>;
  if (o.currency !== 'USD') return body;
  const c = o.currency;
  const out: Record<string, unknown> = { ...o };
  for (const k of ['totalAmount', 'balanceAmount', 'amount', 'suppliedAmount', 'vat', 'taxFreeAmount']) if (typeof o[k] === 'number') out[k] = minorAmount(o[k], c);
  if (Array.isArray(o.cancels)) {
    out.cancels = o.cancels.map((x) => (x && typeof x === 'object' ? { ...(x as object), cancelAmount: minorAmount((x as Record<string, unknown>).cancelAmount, c), refundableAmount: minorAmount((x as Record<string, unknown>).refundableAmount ?? 0, c) } : x));
  }
  return out;
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

const OTHER_METHODS: Record<string, PaymentMethod> = {
  휴대폰: 'mobile_phone',
  MOBILE_PHONE: 'mobile_phone',
  문화상품권: 'culture_gift',
  CULTURE_GIFT_CERTIFICATE: 'culture_gift',
  도서문화상품권: 'book_gift',
  BOOK_GIFT_CERTIFICATE: 'book_gift',
  게임문화상품권: 'game_gift',
  GAME_GIFT_CERTIFICATE: 'game_gift',
};

/**
 * Our method for a Toss payment. The wallet (easyPay.provider) wins over `method`, because a wallet paying with a
 * registered card can come back as method '카드' with easyPay set. Wallets and methods we do not offer (Samsung Pay,
 * Payco, …) are card payments underneath as far as refunds and receipts are concerned, so they map to `card`.
 */
export function mapTossMethod(payment: Pick<TossPayment, 'method' | 'easyPay'> & Partial<Pick<TossPayment, 'currency' | 'card' | 'foreignEasyPay'>>): PaymentMethod {
  // 해외간편결제 (PayPal, https://docs.tosspayments.com/guides/v2/payment-widget/integration-paypal): method 해외간편결제 /
  // FOREIGN_EASY_PAY, or a USD payment (only PayPal is charged in USD here).
  const fm = payment.method?.replace(/\s/g, '').toUpperCase();
  const fep = typeof payment.foreignEasyPay === 'string' ? payment.foreignEasyPay : payment.foreignEasyPay?.provider;
  if (fm === '해외간편결제' || fm === 'FOREIGN_EASY_PAY' || (fep && /paypal|페이팔/i.test(fep)) || payment.currency === 'USD') return 'paypal';
  // An overseas-issued card (다국어 결제창): the issuer is an international brand in Toss's code table (4V VISA, 4M 마스터,
  // 4J JCB, 7A 아메리칸 익스프레스, 3C 유니온페이, 6D 다이너스), never a Korean card company.
  if ((fm === '카드' || fm === 'CARD') && payment.card?.issuerCode && FOREIGN_ISSUERS.has(payment.card.issuerCode)) return 'foreign_card';
  const provider = payment.easyPay?.provider?.replace(/\s/g, '').toUpperCase();
  if (provider) {
    const mapped = ownValue(EASY_PAY, provider) ?? ownValue(EASY_PAY, payment.easyPay!.provider!.replace(/\s/g, ''));
    if (mapped) return mapped;
  }
  // Payment.method is Korean by default (계좌이체, 가상계좌; https://docs.tosspayments.com/reference#payment-객체).
  const method = payment.method?.replace(/\s/g, '').toUpperCase();
  if (method === '계좌이체' || method === 'TRANSFER') return 'transfer';
  if (method === '가상계좌' || method === 'VIRTUAL_ACCOUNT' || method === 'VIRTUALACCOUNT') return 'virtual_account';
  // Issue 41: Payment.method 휴대폰 / 문화상품권 / 도서문화상품권 / 게임문화상품권 (the enum of Payment.method in Toss's
  // core API 2022-11-16; the English forms are the payment window's method names).
  const other = ownValue(OTHER_METHODS, method ?? '');
  if (other) return other;
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
  // 403 "반복적인 요청은 허용되지 않습니다. 잠시 후 다시 시도해주세요.": Toss throttled us; the request may be retried later.
  'FORBIDDEN_CONSECUTIVE_REQUEST',
  // Card-company and payment-system hiccups Toss tells callers to retry later.
  'CARD_PROCESSING_ERROR',
  'FAILED_CARD_COMPANY_RESPONSE',
  'UNKNOWN_PAYMENT_ERROR',
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

/**
 * A masked card number for receipts and the portal, e.g. `신한 43301234****123*`; null when Toss sent none.
 * Reads `card.issuerCode` / `card.number` (API 2022-11-16 and later); the company name comes from Toss's code table.
 */
export function cardSummary(b: TossBilling): string | null {
  const number = b.card?.number ?? null;
  if (!number) return null;
  const code = b.card?.issuerCode ?? null;
  const company = code ? ownValue(TOSS_CARD_COMPANIES, code) ?? null : null;
  return company ? `${company} ${number}` : number;
}

/**
 * Toss Payments' Transaction object, one element of GET /v1/transactions' answer (an array)
 * (https://docs.tosspayments.com/guides/apis/transactions, https://docs.tosspayments.com/common/apis/list-transactions-settlements):
 * `{ mId, transactionKey, paymentKey, orderId, currency, method, customerKey, useEscrow, amount, status, transactionAt }`.
 * An approval has status DONE and the approved amount; each cancel is its own transaction (CANCELED or
 * PARTIAL_CANCELED) with the canceled amount.
 */
export function isTransaction(v: unknown): v is TossTransaction {
  const t = v as TossTransaction;
  return (
    !!t && typeof t === 'object' && typeof t.transactionKey === 'string' && typeof t.paymentKey === 'string' && typeof t.orderId === 'string' &&
    Number.isSafeInteger(t.amount) && typeof t.status === 'string' && typeof t.transactionAt === 'string' && !Number.isNaN(new Date(t.transactionAt).getTime())
  );
}

/**
 * Toss's Settlement object, one element of GET /v1/settlements' answer (https://docs.tosspayments.com/reference#정산-조회,
 * https://docs.tosspayments.com/guides/apis/settlements). The fee's supply amount is `suppliedAmount` in the
 * reference and `supplyAmount` in the guide's example and in answers seen by Toss's developer community; the total fee
 * is `fee` in those answers and the sum of `fees[].fee` in the reference. Either is read.
 */
export interface TossSettlement {
  paymentKey: string;
  transactionKey?: string | null;
  orderId: string;
  method?: string | null;
  amount: number;
  fee?: number;
  fees?: Array<{ type?: string; fee: number | string }> | null;
  supplyAmount?: number;
  suppliedAmount?: number;
  vat: number;
  payOutAmount: number;
  soldDate: string;
  paidOutDate: string;
  cancel?: unknown;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const won = (v: unknown) => (typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : v);

export function isSettlement(v: unknown): v is TossSettlement {
  const s = v as TossSettlement;
  if (!s || typeof s !== 'object' || typeof s.paymentKey !== 'string' || typeof s.orderId !== 'string') return false;
  if (!Number.isSafeInteger(s.amount) || !Number.isSafeInteger(s.vat) || !Number.isSafeInteger(s.payOutAmount)) return false;
  if (typeof s.soldDate !== 'string' || !DAY.test(s.soldDate) || typeof s.paidOutDate !== 'string' || !DAY.test(s.paidOutDate)) return false;
  const supply = s.supplyAmount ?? s.suppliedAmount;
  if (!Number.isSafeInteger(supply)) return false;
  // The guide's example writes each fees[].fee as a string ("800"): whole won either way.
  return s.fees == null || (Array.isArray(s.fees) && s.fees.every((f) => f && Number.isSafeInteger(won(f.fee))));
}

/** A Toss Settlement as ours: the fee is `fee` when given, else the sum of `fees`, else amount − payOutAmount. */
export function settlementOf(s: TossSettlement): GatewaySettlement {
  const fee = Number.isSafeInteger(s.fee) ? s.fee! : s.fees?.length ? s.fees.reduce((a, f) => a + Number(won(f.fee)), 0) : s.amount - s.payOutAmount;
  return {
    paymentKey: s.paymentKey,
    transactionKey: typeof s.transactionKey === 'string' ? s.transactionKey : null,
    orderId: s.orderId,
    method: typeof s.method === 'string' ? s.method : null,
    amount: s.amount,
    fee,
    feeSupplyAmount: (s.supplyAmount ?? s.suppliedAmount)!,
    feeVat: s.vat,
    payOutAmount: s.payOutAmount,
    soldDate: s.soldDate,
    paidOutDate: s.paidOutDate,
    canceled: s.cancel != null,
  };
}

/** Toss's startDate/endDate: KST wall-clock time with milliseconds and no offset (`2022-01-01T00:00:00.000`). */
export function tossKstDateTime(t: Date): string {
  return new Date(t.getTime() + 9 * 3_600_000).toISOString().replace(/Z$/, '');
}

/** Toss's Payment.cashReceipt as ours; null when absent or not one of the documented types. */
export function cashReceiptOf(p: Pick<TossPayment, 'cashReceipt'>): CashReceiptIssued | null {
  const c = p.cashReceipt;
  if (!c || (c.type !== '소득공제' && c.type !== '지출증빙') || typeof c.receiptKey !== 'string' || !Number.isSafeInteger(c.amount)) return null;
  return { type: c.type, receiptKey: c.receiptKey, issueNumber: c.issueNumber ?? null, receiptUrl: c.receiptUrl ?? null, amount: c.amount! };
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
    ...(p.currency === 'USD' ? { currency: 'USD' as const } : {}),
    totalAmount: p.totalAmount,
    balanceAmount: p.balanceAmount,
    paymentKey: p.paymentKey,
    orderId: typeof p.orderId === 'string' ? p.orderId : null,
    cashReceipt: cashReceiptOf(p),
    partialCancelable: typeof p.isPartialCancelable === 'boolean' ? p.isPartialCancelable : null,
    cancels: (p.cancels ?? [])
      .filter((c) => c && Number.isSafeInteger(c.cancelAmount))
      .map((c) => ({ transactionKey: c.transactionKey ?? null, amount: c.cancelAmount, canceledAt: date(c.canceledAt), reason: c.cancelReason ?? null, status: status(c.cancelStatus) })),
  };
}
