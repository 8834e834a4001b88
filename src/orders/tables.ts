import type { ColumnType, RawBuilder } from 'kysely';
import type { Json, Mode, Timestamp, TossKeyPair } from '../platform/tables';
import type { SaleTerms } from './terms';
import type { PaymentMethod } from '../payments/method';
import type { PaymentProviderName } from '../payments/provider';

/** `awaiting_deposit`: a 가상계좌 issued, the deposit not yet arrived; `expired`: its due date passed unpaid (migration 064). */
export type OrderStatus = 'pending' | 'awaiting_deposit' | 'paid' | 'refunded' | 'failed' | 'canceled' | 'expired';

export interface OrderCoupon {
  code: string;
  name: string;
  discountAmount: number;
  originalAmount: number;
  currency: 'KRW';
}

export interface OrdersTable {
  id: string;
  store_id: string;
  mode: Mode;
  product_id: string;
  product_name: string;
  plan_id: string | null;
  billing_interval: 'monthly' | 'yearly' | null;
  checkout_session_id: string | null;
  status: OrderStatus;
  amount: number;
  currency: 'KRW';
  method: PaymentMethod;
  buyer_name: string;
  buyer_email: string;
  buyer_phone: string;
  metadata: Json<Record<string, string> | null>;
  coupon: Json<OrderCoupon | null>;
  coupon_id: string | null;
  period_start: Date | null;
  period_end: Date | null;
  paid_at: Date | null;
  confirmed_at: Date | null;
  refunded_at: Date | null;
  refunded_amount: number | null;
  /** The buyer's language for mails and the receipt link (migration 022). */
  locale: ColumnType<'ko' | 'en', 'ko' | 'en' | undefined, 'ko' | 'en'>;
  provider: PaymentProviderName;
  provider_payment_key: string | null;
  /** Which of the mode's Toss key pairs took the payment (migration 068): its cancels and lookups go to that MID. */
  toss_key_pair: ColumnType<TossKeyPair, TossKeyPair | undefined, TossKeyPair>;
  subscription_id: string | null;
  subscription_event: 'initial' | 'renewal' | 'difference' | null;
  settlement_id: string | null;
  /** 할부 months the gateway approved for a card payment (0 = 일시불); null where it did not say (migration 014). */
  installment_months: ColumnType<number | null, number | null | undefined, number | null>;
  /** The terms the buyer was sold under (migration 015; src/orders/terms.ts): every refund rule reads these, never the live product. */
  terms: ColumnType<SaleTerms, RawBuilder<unknown>, RawBuilder<unknown>>;
  /** PayPal (migration 112): what the gateway charged in USD, in cents; null for won payments. */
  presentment_amount: ColumnType<number | null, number | null | undefined, number | null>;
  presentment_currency: ColumnType<'USD' | null, 'USD' | null | undefined, 'USD' | null>;
  /** Secret part of the buyer's receipt link (migration 007; filled by a column default). */
  receipt_token: ColumnType<string, string | undefined, string>;
  created_at: Timestamp;
  updated_at: Date;
}

export interface OrderRefundsTable {
  id: string;
  order_id: string;
  store_id: string;
  mode: Mode;
  amount: number;
  reason: string | null;
  status: 'pending' | 'succeeded' | 'failed' | 'unknown';
  provider_idempotency_key: string;
  error: string | null;
  refund_request_id: string | null;
  created_at: Timestamp;
  refunded_at: Date | null;
  updated_at: Date;
  // added by 006_refunds.sql (defaults keep older inserts valid)
  currency: ColumnType<'KRW', 'KRW' | undefined, 'KRW'>;
  keep_licenses: ColumnType<boolean, boolean | undefined, boolean>;
  source: ColumnType<RefundSource, RefundSource | undefined, RefundSource>;
  failure_code: ColumnType<string | null, string | null | undefined, string | null>;
  reconcile_attempts: ColumnType<number, number | undefined, number>;
  request_key: ColumnType<string | null, string | null | undefined, string | null>;
  /** A refund made at the gateway (source 'gateway'): the gateway's cancel transaction key, unique per store and mode (017). */
  gateway_transaction_key: ColumnType<string | null, string | null | undefined, string | null>;
  /** PayPal orders (migration 112): this refund's share in cents, fixed before the gateway is called. */
  presentment_amount: ColumnType<number | null, number | null | undefined, number | null>;
}

/** Who asked for a refund; `gateway`: made at the payment gateway itself (e.g. Toss's merchant admin) and learned from it. */
export type RefundSource = 'api' | 'console' | 'refund_request' | 'subscription_cancel' | 'gateway';

/** A 가상계좌 issued for an order (migration 064; src/checkout/virtual-account.ts). */
export interface OrderVirtualAccountsTable {
  order_id: string;
  store_id: string;
  mode: Mode;
  bank_code: string;
  account_number: string;
  holder_name: string;
  due_at: Date;
  secret_sealed: string | null;
  deposited_at: Date | null;
  expired_at: Date | null;
  refund_bank_code: string | null;
  refund_account_sealed: string | null;
  refund_holder_name: string | null;
  refund_account_at: Date | null;
  created_at: ColumnType<Date, Date | undefined, Date>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

/** The buyer's refund account of a non-가상계좌 order (a 휴대폰 결제 refunded after its month; migration 107). */
export interface OrderRefundAccountsTable {
  order_id: string;
  store_id: string;
  mode: Mode;
  refund_bank_code: string;
  refund_account_sealed: string;
  refund_holder_name: string;
  created_at: ColumnType<Date, Date | undefined, Date>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

/** A 현금영수증 an order asked for or was issued (migration 071). */
export type CashReceiptType = '소득공제' | '지출증빙';
export interface OrderCashReceiptsTable {
  order_id: string;
  store_id: string;
  mode: Mode;
  type: CashReceiptType;
  identity_masked: string | null;
  /** seller: issued afterwards by the seller (its own receipt at the gateway; migration 073). */
  requested_by: 'buyer' | 'mandatory' | 'seller';
  receipt_key: string | null;
  issue_number: string | null;
  receipt_url: string | null;
  amount: number | null;
  /** failed: the gateway refused the issue (migration 100; failure_code / failure_message say why). */
  status: 'requested' | 'issued' | 'partially_canceled' | 'canceled' | 'failed';
  /** Seller receipts (migration 073): the issue call's Idempotency-Key, the sealed number until issued, what it must still cover. */
  issue_key: ColumnType<string | null, string | null | undefined, string | null>;
  identity_sealed: ColumnType<string | null, string | null | undefined, string | null>;
  target_amount: ColumnType<number | null, number | null | undefined, number | null>;
  /** Migration 100: the gateway's refusal, the issue attempts sent with a fresh key, Toss's CashReceipt.issueStatus. */
  failure_code: ColumnType<string | null, string | null | undefined, string | null>;
  failure_message: ColumnType<string | null, string | null | undefined, string | null>;
  attempts: ColumnType<number, number | undefined, number>;
  issue_status: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: ColumnType<Date, Date | undefined, Date>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

export interface OrdersTables {
  orders: OrdersTable;
  order_cash_receipts: OrderCashReceiptsTable;
  order_refunds: OrderRefundsTable;
  order_virtual_accounts: OrderVirtualAccountsTable;
  order_refund_accounts: OrderRefundAccountsTable;
}
