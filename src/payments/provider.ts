import type { PaymentMethod } from '../orders/tables';

/**
 * Payment providers behind one interface. Every call reports one of three outcomes:
 * - succeeded: the gateway did it;
 * - failed: the gateway definitely did not (safe to tell the buyer to try again);
 * - unknown: a timeout or transient error — it may have happened; look it up before retrying.
 * No provider call is ever made inside a database transaction.
 */
export type Outcome<T> =
  | { status: 'succeeded'; value: T }
  | { status: 'failed'; code: string; message: string }
  | { status: 'unknown'; message: string };

export interface ConfirmInput {
  /** The gateway's payment key (Toss: from the success redirect; simulator: from `paymentEntry.authorize`). */
  paymentKey: string;
  /** Our order id, used as the gateway's orderId (6–64 chars of [A-Za-z0-9_-]). */
  orderId: string;
  /** The amount the server expects; the gateway must confirm exactly this amount. */
  amount: number;
  idempotencyKey: string;
  /**
   * The 할부 months the buyer chose on our page (2–12; absent or 0 = 일시불). Toss fixes it in the payment window
   * (`card.cardInstallmentPlan`) and reports it back on confirm; the simulator checks it like a card company would
   * (card payments of 50,000원 or more only).
   */
  installmentMonths?: number;
}

export interface ConfirmResult {
  paymentKey: string;
  approvedAt: Date;
  method: PaymentMethod;
  /** 할부 months the gateway approved (0 = 일시불), when it says. */
  installmentMonths?: number | null;
}

export interface RefundInput {
  paymentKey: string;
  amount: number;
  /** Our full reason; a gateway with a shorter limit (Toss: 200 characters) is sent a truncated copy. */
  reason: string;
  /**
   * What we believe is still cancelable before this refund. Toss receives it on partial cancels and refuses the
   * cancel (NOT_MATCHES_REFUNDABLE_AMOUNT) when its own balance differs, e.g. after a cancel in its merchant admin.
   */
  refundableAmount?: number | null;
  /** Reused on every retry of the same refund so the gateway cancels at most once. */
  idempotencyKey: string;
}

export interface RefundResult {
  refundedAt: Date;
  /** What the gateway says is still cancelable after this refund, when it says. */
  balanceAmount: number | null;
}

export interface PaymentLookup {
  status: 'paid' | 'partially_canceled' | 'canceled' | 'failed' | 'pending' | 'unknown';
  totalAmount: number;
  balanceAmount: number;
}

export interface BillingKeyResult {
  billingKey: string;
  cardSummary: string | null;
}

export interface IssueBillingKeyInput {
  authKey: string;
  customerKey: string;
  /** Reused on a retry of the same issue; by default Toss's adapter derives one from (customerKey, authKey). */
  idempotencyKey?: string;
}

/** One approval or cancel at the gateway (Toss's transactions API). */
export interface GatewayTransaction {
  transactionKey: string;
  paymentKey: string;
  orderId: string;
  /** The gateway's own status word (Toss: DONE, CANCELED, PARTIAL_CANCELED, ...). */
  status: string;
  amount: number;
  transactedAt: Date;
  method: string | null;
}

export interface ListTransactionsInput {
  /** KST local date-times as Toss takes them, e.g. `2026-11-25T00:00:00` and `2026-11-25T23:59:59.999`. */
  startDate: string;
  endDate: string;
  /** The last transactionKey of the previous page. */
  startingAfter?: string;
  /** Page size (Toss: 1–10000, default 100). */
  limit?: number;
}

export interface TransactionPage {
  items: GatewayTransaction[];
  /** Pass as `startingAfter` for the next page; null when the page was empty. */
  lastKey: string | null;
}

export type AuthorizeInput = { method: PaymentMethod; cardNumber?: string; approved?: boolean; amount: number; orderId: string };
export type AuthorizeResult = { ok: true; paymentKey: string } | { ok: false; field: 'cardNumber' | 'method'; code: string; message: string };

/**
 * How the hosted payment page takes a payment with this provider:
 * - `on_page`: our own page takes the buyer's choice (a card number on the form; approve/deny on an approval page for
 *   easy-pay methods) and `authorize` turns it, synchronously, into a payment key bound to the order and amount
 *   (the simulator);
 * - `gateway_window`: the gateway opens its own payment window and redirects back with a payment key (Toss).
 */
export type PaymentEntry = { kind: 'on_page'; authorize(input: AuthorizeInput): AuthorizeResult } | { kind: 'gateway_window' };

export interface PaymentProvider {
  readonly name: 'simulator' | 'toss';
  readonly paymentEntry: PaymentEntry;
  confirmPayment(input: ConfirmInput): Promise<Outcome<ConfirmResult>>;
  refund(input: RefundInput): Promise<Outcome<RefundResult>>;
  lookupPayment(paymentKey: string): Promise<Outcome<PaymentLookup>>;
  issueBillingKey(input: IssueBillingKeyInput): Promise<Outcome<BillingKeyResult>>;
  chargeBillingKey(input: {
    billingKey: string;
    customerKey: string;
    amount: number;
    orderId: string;
    orderName: string;
    idempotencyKey: string;
  }): Promise<Outcome<ConfirmResult>>;
  /** Makes a billing key unusable at the gateway (a subscription ended). Already gone counts as succeeded. */
  deleteBillingKey(input: { billingKey: string }): Promise<Outcome<{ deleted: true }>>;
  /** One page of the gateway's approvals and cancels in a period, for reconciliation. */
  listTransactions(input: ListTransactionsInput): Promise<Outcome<TransactionPage>>;
}
