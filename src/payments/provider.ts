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
  reason: string;
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
  /** The gateway's payment key and the orderId it was approved for (null where the gateway does not say). */
  paymentKey: string;
  orderId: string | null;
  /** Every cancel of the payment the gateway knows, oldest first (whoever made it: us, or the gateway's own admin). */
  cancels: PaymentCancel[];
}

/** One cancel of a payment as the gateway reports it (Toss: an entry of Payment.cancels). */
export interface PaymentCancel {
  /** The gateway's own key of this cancel transaction (Toss: `transactionKey`); null where the gateway has none. */
  transactionKey: string | null;
  amount: number;
  canceledAt: Date | null;
  reason: string | null;
  /** `done`: the money went back; `in_progress` / `aborted`: not (yet) (Toss's cancelStatus). */
  status: 'done' | 'in_progress' | 'aborted';
}

export interface BillingKeyResult {
  billingKey: string;
  cardSummary: string | null;
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
  /** The payment approved (or attempted) for our order id, when the payment key is not known. */
  lookupPaymentByOrderId(orderId: string): Promise<Outcome<PaymentLookup>>;
  issueBillingKey(input: { authKey: string; customerKey: string }): Promise<Outcome<BillingKeyResult>>;
  chargeBillingKey(input: {
    billingKey: string;
    customerKey: string;
    amount: number;
    orderId: string;
    orderName: string;
    idempotencyKey: string;
  }): Promise<Outcome<ConfirmResult>>;
}
