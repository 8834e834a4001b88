import type { ColumnType } from 'kysely';
import type { Json, Mode, Timestamp, TossKeyPair } from '../platform/tables';
import type { OrderCoupon } from '../orders/tables';
import type { PaymentMethod } from '../payments/method';
import type { PaymentProviderName } from '../payments/provider';
import type { SaleTerms } from '../orders/terms';
import type { Presentment } from '../payments/foreign';

/** What the buyer submitted on the payment page, kept while an approval step or the gateway's window is open. */
export interface CheckoutAttempt {
  buyerName: string;
  buyerEmail: string;
  buyerPhone: string;
  method: PaymentMethod;
  couponCode: string | null;
  /** Card 할부 months (2–12); absent or 0 = 일시불. Only for card payments of INSTALLMENT_MIN_AMOUNT or more. */
  installmentMonths?: number;
  /** The phone number exactly as typed (`buyerPhone` is its digits), so the form shows it back unchanged. */
  buyerPhoneTyped?: string;
  /** When the buyer ticked the required agreements (전자금융거래 이용약관, 개인정보 수집·이용, 제3자 제공). */
  agreedAt?: string;
  /** Subscriptions: the separate recurring-charge consent the buyer ticked, worded as the page showed it. */
  recurringConsent?: { text: string; consentedAt: string; version: string };
  /**
   * 계좌이체 / 가상계좌: the 현금영수증 the buyer asked for (type and the identity number's digits); absent = none.
   * Also what the law requires when the buyer asked for none (의무발행, see src/checkout/cash-receipt.ts).
   */
  cashReceipt?: { type: '소득공제' | '지출증빙'; identity: string; requestedBy: 'buyer' | 'mandatory' };
  /**
   * 계좌이체 / 가상계좌: a 세금계산서 asked instead of a 현금영수증 (never both): the recipient as checked by
   * src/tax/invoices/model.ts checkRecipient. The tax-invoice module turns it into a request when the order is created.
   */
  taxInvoice?: { brn: string; name: string; representative: string; email: string };
}

/**
 * A payment handed to the gateway and not yet settled in our database. `confirming`: a request is with the gateway
 * now (guarded by attempt_locked_until); `unknown`: the gateway's answer was lost, the reconciliation job decides.
 * It names exactly what the session holds (one unit of stock, one coupon redemption) so they are released once.
 */
export interface PaymentInFlight {
  state: 'confirming' | 'unknown';
  provider: PaymentProviderName;
  paymentKey: string;
  amount: number;
  originalAmount: number;
  method: PaymentMethod;
  buyerName: string;
  buyerEmail: string;
  buyerPhone: string;
  couponId: string | null;
  coupon: OrderCoupon | null;
  stockReserved: boolean;
  startedAt: string;
  /**
   * Subscription sessions: the billing key issued for this payment's card before the gateway was called (sealed with
   * the master key), so the order and its subscription can be recorded with it even by reconciliation after a crash.
   */
  billing?: { keySealed: string; cardSummary: string | null } | null;
  /**
   * Which of the mode's Toss key pairs this payment (and its billing key) is made under (issue 32): the order and the
   * subscription are recorded with it, and reconciliation asks that MID. Absent on older attempts: 'payments'.
   */
  tossKeyPair?: TossKeyPair;
  /**
   * The product's refund terms and list prices when the buyer submitted the payment (what the page showed them): the
   * order is recorded with these even when reconciliation records it after a product edit. Absent on attempts
   * started before migration 015 (the order then takes the product's terms at recording).
   */
  terms?: SaleTerms;
  /**
   * PayPal (issue 41): the USD amount (cents) the gateway is asked for, fixed here from the won amount and the store's
   * rate before the call, so a retry or reconciliation asks the same amount. Absent for won payments.
   */
  presentment?: Presentment | null;
}

export interface CheckoutSessionsTable {
  id: string;
  store_id: string;
  mode: Mode;
  product_id: string;
  plan_id: string | null;
  billing_interval: 'monthly' | 'yearly' | null;
  amount: number;
  /** The plan's free trial in days when the session was created (migration 020); null: none. */
  trial_days: ColumnType<number | null, number | null | undefined, number | null>;
  customer_name: string | null;
  customer_email: string | null;
  /** The seller fixed customer_email (migration 061): the page shows it read-only and the server refuses another. */
  customer_email_locked: ColumnType<boolean, boolean | undefined, boolean>;
  customer_phone: string | null;
  metadata: Json<Record<string, string> | null>;
  success_url: string | null;
  cancel_url: string | null;
  status: 'open' | 'completed';
  order_id: string | null;
  pending_order_id: string;
  attempt_locked_until: Date | null;
  expires_at: Date;
  completed_at: Date | null;
  created_at: Timestamp;
  attempt: Json<CheckoutAttempt | null>;
  payment: Json<PaymentInFlight | null>;
  /** The buyer's language for mails and the receipt link (migration 022). */
  locale: ColumnType<'ko' | 'en', 'ko' | 'en' | undefined, 'ko' | 'en'>;
  /** Whether the seller chose `locale` at creation (then the pages use it); else the buyer's choice on the page (migration 110). */
  locale_fixed: ColumnType<boolean, boolean | undefined, boolean>;
}

export interface CheckoutTables {
  checkout_sessions: CheckoutSessionsTable;
}
