import type { PaymentMethod } from './method';
import type { Presentment } from './foreign';

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
  /**
   * 계좌이체 / 가상계좌: the 현금영수증 to issue with the payment (Toss: fixed in the payment window's `cashReceipt`; the
   * simulator issues a test receipt for it). Absent: none asked.
   */
  cashReceipt?: CashReceiptRequest | null;
  /**
   * A payment in a currency other than KRW (PayPal: USD, src/payments/foreign.ts): the gateway is asked for exactly this
   * amount (minor units: cents) in this currency instead of `amount` (which stays the order's won price).
   */
  presentment?: Presentment | null;
}

/** What 현금영수증 to issue: Toss's CashReceipt.type and the buyer's identity number (digits). */
export interface CashReceiptRequest {
  type: '소득공제' | '지출증빙';
  /** Phone or card number (소득공제), 사업자번호 (지출증빙); 0100001234 for the National Tax Service's self-issue number. */
  identity: string;
}

/** A 현금영수증 the gateway issued (Toss's Payment.cashReceipt). */
export interface CashReceiptIssued {
  type: '소득공제' | '지출증빙';
  receiptKey: string;
  issueNumber: string | null;
  receiptUrl: string | null;
  /** What the receipt covers now (less after partial cancels). */
  amount: number;
  /**
   * The number it was issued to as the gateway reports it, masked (Toss: CashReceipt.customerIdentityNumber of
   * POST /v1/cash-receipts' answer); absent when the gateway does not say (a payment's own Payment.cashReceipt).
   */
  identityMasked?: string | null;
  /** Toss's CashReceipt.issueStatus (IN_PROGRESS: sent to 국세청, approval known 1–2 days later; COMPLETED). */
  issueStatus?: string | null;
}

/**
 * A 현금영수증 issued on its own, after the payment (Toss: POST /v1/cash-receipts,
 * https://docs.tosspayments.com/reference#현금영수증-발급-요청): for a paid 계좌이체 / 가상계좌 order that has none.
 */
export interface IssueCashReceiptInput {
  /** The gateway's orderId of the receipt (6–64 of [A-Za-z0-9-_.]); unique per receipt. */
  orderId: string;
  orderName: string;
  amount: number;
  type: '소득공제' | '지출증빙';
  /** Digits only: phone or card number (소득공제), 사업자번호 (지출증빙). */
  identity: string;
  /** Reused on every retry of the same issue, so the gateway issues at most once. */
  idempotencyKey: string;
}

/** Reduces (amount) or cancels (no amount) a separately issued 현금영수증 (Toss: POST /v1/cash-receipts/{receiptKey}/cancel). */
export interface CancelCashReceiptInput {
  receiptKey: string;
  /** What to take off; absent: the whole receipt. */
  amount?: number;
  idempotencyKey: string;
}

export interface ConfirmResult {
  paymentKey: string;
  approvedAt: Date;
  method: PaymentMethod;
  /** 할부 months the gateway approved (0 = 일시불), when it says. */
  installmentMonths?: number | null;
  /**
   * A 가상계좌 was issued instead of a payment (Toss: status WAITING_FOR_DEPOSIT): nothing is paid until the buyer's
   * deposit arrives. `approvedAt` then is only when the account was issued.
   */
  awaitingDeposit?: VirtualAccountIssued | null;
  /** The 현금영수증 issued with the payment (계좌이체 at once; a 가상계좌 only after the deposit, see PaymentLookup). */
  cashReceipt?: CashReceiptIssued | null;
  /** What the gateway approved when the payment was not in KRW (cents of USD); absent/null for a won payment. */
  presentment?: Presentment | null;
}

/** A virtual account the gateway issued (Toss's Payment.virtualAccount and Payment.secret). */
export interface VirtualAccountIssued {
  bankCode: string;
  accountNumber: string;
  /** 예금주 the bank shows; null when the gateway does not say. */
  holderName: string | null;
  dueAt: Date;
  /** What the gateway's deposit notification must carry to be believed (Toss: Payment.secret). */
  secret: string | null;
}

/** The buyer's own account a virtual-account payment is refunded to (Toss: refundReceiveAccount of the cancel). */
export interface RefundReceiveAccount {
  bankCode: string;
  accountNumber: string;
  holderName: string;
}

export interface RefundInput {
  paymentKey: string;
  amount: number;
  /** Our full reason; a gateway with a shorter limit (Toss: 200 characters) is sent a truncated copy. */
  reason: string;
  /** Reused on every retry of the same refund so the gateway cancels at most once. */
  idempotencyKey: string;
  /** A deposited 가상계좌 payment: where the money goes back (the gateway cannot send it back to a virtual account). */
  refundReceiveAccount?: RefundReceiveAccount | null;
  /**
   * A payment made in another currency (PayPal: USD): the gateway cancels exactly this (cents) in that currency;
   * `amount` is the refund's won share kept in our books (src/payments/foreign.ts, refundPresentmentCents).
   */
  presentment?: Presentment | null;
}

export interface RefundResult {
  refundedAt: Date;
  /** What the gateway says is still cancelable after this refund, when it says. */
  balanceAmount: number | null;
}

export interface PaymentLookup {
  status: 'paid' | 'partially_canceled' | 'canceled' | 'failed' | 'pending' | 'unknown';
  /** The currency of every amount below (minor units: won, or cents of USD for PayPal); absent = KRW. */
  currency?: 'KRW' | 'USD';
  totalAmount: number;
  balanceAmount: number;
  /** The gateway's payment key and the orderId it was approved for (null where the gateway does not say). */
  paymentKey: string;
  orderId: string | null;
  /** Every cancel of the payment the gateway knows, oldest first (whoever made it: us, or the gateway's own admin). */
  cancels: PaymentCancel[];
  /** The payment's 현금영수증 as the gateway reports it now (Toss: Payment.cashReceipt); absent/null when none. */
  cashReceipt?: CashReceiptIssued | null;
  /** false: the gateway cancels this payment only in full (Toss: Payment.isPartialCancelable); absent when not said. */
  partialCancelable?: boolean | null;
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

/** The gateway accepted the credentials the provider was built with (one harmless authenticated call). */
export interface CredentialsCheck {
  /** When the gateway answered. */
  checkedAt: Date;
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

/**
 * One approval or cancel at the gateway (Toss: a Transaction of GET /v1/transactions, one per approval and one per
 * (partial) cancel, each with its own transactionKey; several share a paymentKey).
 */
export interface GatewayTransaction {
  transactionKey: string;
  paymentKey: string;
  /** The orderId the payment was made under (ours, unless the payment did not come through this service). */
  orderId: string;
  /**
   * `approval`: the payment was approved (Toss status DONE); `cancel`: part or all of it was canceled (CANCELED /
   * PARTIAL_CANCELED); `other`: anything else the gateway lists (e.g. a virtual account still waiting for its deposit).
   */
  kind: 'approval' | 'cancel' | 'other';
  /** The gateway's own status word for the transaction (Toss: DONE, CANCELED, PARTIAL_CANCELED, …). */
  status: string;
  /** What this transaction moved: the approved amount, or the canceled amount (minor units of `currency`). */
  amount: number;
  /** The transaction's currency (Toss's Transaction.currency): KRW, or USD for PayPal (then `amount` is in cents). Absent = KRW. */
  currency?: 'KRW' | 'USD';
  transactionAt: Date;
}

export interface ListTransactionsInput {
  /** First instant of the range (inclusive). Toss reads its startDate as KST wall-clock time; the adapter converts. */
  startDate: Date;
  /** Last instant of the range (inclusive, millisecond precision). */
  endDate: Date;
  /** The transactionKey of the last transaction of the previous page. */
  startingAfter?: string;
  /** Page size (Toss: at most 5000). */
  limit: number;
}

export interface TransactionPage {
  transactions: GatewayTransaction[];
  /** The last transaction's key when the page was full (another page may follow), else null. */
  nextStartingAfter: string | null;
}

/**
 * One settlement record of the gateway (Toss: GET /v1/settlements, https://docs.tosspayments.com/reference#정산-조회):
 * what it pays out for one approval or cancel, when, and the fee it keeps (supply amount + VAT).
 */
export interface GatewaySettlement {
  paymentKey: string;
  transactionKey: string | null;
  orderId: string;
  method: string | null;
  /** The sale (or, for a cancel, the canceled amount as the gateway signs it). */
  amount: number;
  /** What the gateway keeps: feeSupplyAmount + feeVat. */
  fee: number;
  feeSupplyAmount: number;
  feeVat: number;
  /** amount − fee: what reaches the seller's bank account. */
  payOutAmount: number;
  /** 정산 매출일 (YYYY-MM-DD): the day the sale counts for. */
  soldDate: string;
  /** 정산 지급일 (YYYY-MM-DD): the day it is paid out. */
  paidOutDate: string;
  /** A cancel's record (Toss: `cancel` set). */
  canceled: boolean;
}

export interface ListSettlementsInput {
  /** KST calendar days, both inclusive (YYYY-MM-DD). */
  startDate: string;
  endDate: string;
  /** Which day the range is of: the sale's (default) or the payout's. */
  dateType?: 'soldDate' | 'paidOutDate';
  /** 1-based page; Toss: size at most 5000. */
  page: number;
  size: number;
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

/**
 * What a gateway's notification (webhook) claims, read from its body by the provider's own reader. Nothing in it is
 * believed: it only says which payment or billing key to read back through the provider's API.
 * - `deposit`: a 가상계좌 deposit, with the secret the payment was issued with (checked against ours);
 * - `payment`: a payment (or its cancel) changed: look it up by key or by our order id (either may be null);
 * - `billing_key_deleted`: the gateway deleted a billing key (a report only: the next charge settles it);
 * - `ignored`: an event we do not act on (acknowledged); `invalid`: not a notification at all.
 */
export type GatewayNotice =
  | { kind: 'deposit'; orderId: string; secret: string }
  /**
   * `deliveryId`: the gateway's id of this message, the same on each of its retries (Standard Webhooks `webhook-id`;
   * PortOne), so a retry is taken once; absent where the gateway gives none (Toss).
   */
  | { kind: 'payment'; eventType: string; paymentKey: string | null; orderId: string | null; deliveryId?: string }
  | { kind: 'billing_key_deleted'; eventType: string; billingKey: string | null }
  | { kind: 'ignored' }
  | { kind: 'invalid' };

/** The providers a store can choose (store_mode_settings.payment_provider, orders.provider); traits in registry.ts. */
export type PaymentProviderName = 'simulator' | 'toss' | 'portone';

export interface PaymentProvider {
  readonly name: PaymentProviderName;
  readonly paymentEntry: PaymentEntry;
  /**
   * The methods whose payment leaves a billing key for 자동결제 (a subscription's renewals, a trial's first charge at
   * its end). The payment page offers a subscription or a trial only these; the server still refuses the others.
   */
  readonly billingKeyMethods: readonly PaymentMethod[];
  /**
   * Where listTransactions reads from: the gateway's own ledger (Toss, any process), or this process's memory (the
   * simulator: what this process approved and canceled since it started), which only the server that took the
   * payments can reconcile against.
   */
  readonly ledger: 'gateway' | 'process';
  confirmPayment(input: ConfirmInput): Promise<Outcome<ConfirmResult>>;
  refund(input: RefundInput): Promise<Outcome<RefundResult>>;
  lookupPayment(paymentKey: string): Promise<Outcome<PaymentLookup>>;
  /**
   * One harmless authenticated call that changes nothing at the gateway: succeeded when the gateway accepts the
   * provider's credentials, failed (the gateway's code, e.g. Toss's UNAUTHORIZED_KEY) when it refuses them, unknown
   * when it could not be asked (network failure, timeout, 5xx). Used before a store's keys are saved.
   */
  verifyCredentials(): Promise<Outcome<CredentialsCheck>>;
  /** The payment approved (or attempted) for our order id, when the payment key is not known. */
  lookupPaymentByOrderId(orderId: string): Promise<Outcome<PaymentLookup>>;
  issueBillingKey(input: IssueBillingKeyInput): Promise<Outcome<BillingKeyResult>>;
  chargeBillingKey(input: {
    billingKey: string;
    customerKey: string;
    amount: number;
    orderId: string;
    orderName: string;
    idempotencyKey: string;
  }): Promise<Outcome<ConfirmResult>>;
  /**
   * Makes a billing key unusable at the gateway: a subscription ended, or a card change replaced the key (`why`, the
   * reason a gateway records; PortOne's `reason`). Already gone counts as succeeded.
   */
  deleteBillingKey(input: { billingKey: string; why?: 'ended' | 'replaced' }): Promise<Outcome<{ deleted: true }>>;
  /** The approvals and cancels the gateway recorded in a time range, oldest first, one page at a time (reconciliation). */
  listTransactions(input: ListTransactionsInput): Promise<Outcome<TransactionPage>>;
  /** One page of the gateway's settlement records for a range of days (reconciliation); a short page is the last. */
  listSettlements(input: ListSettlementsInput): Promise<Outcome<GatewaySettlement[]>>;
  /** Issues a 현금영수증 on its own, after the payment (see IssueCashReceiptInput). */
  issueCashReceipt(input: IssueCashReceiptInput): Promise<Outcome<CashReceiptIssued>>;
  /** Reduces or cancels a 현금영수증 made by `issueCashReceipt` (a payment's own receipt follows the payment's cancels). */
  cancelCashReceipt(input: CancelCashReceiptInput): Promise<Outcome<{ canceledAt: Date }>>;
  /**
   * Test mode only (the simulator): makes the buyer's deposit to a virtual account arrive, answering the secret the
   * gateway's deposit notification would carry. Absent on real gateways (the buyer's bank makes the deposit).
   * `cashReceipt`: the 현금영수증 the buyer chose with the payment (what a gateway keeps from its payment window), so the
   * deposited payment's lookup carries the issued receipt as a real gateway's does.
   */
  readonly testDeposit?: (paymentKey: string, opts?: { cashReceipt?: CashReceiptRequest | null }) => Promise<Outcome<{ secret: string | null }>>;
}
