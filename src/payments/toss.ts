/**
 * Toss Payments as one PaymentProvider: built with a store's secret key, it holds the HTTP client (toss-http.ts) and
 * hands each call to its topic: payments (toss-payments.ts), billing keys (toss-billing.ts), 현금영수증
 * (toss-cash-receipts.ts), transactions and settlements (toss-reconciliation.ts). The credentials check stays here.
 */
import type { PaymentMethod } from './method';
import { randomBytes } from 'node:crypto';
import { systemClock, type Clock } from '../platform/clock';
import type {
  BillingKeyResult,
  CancelCashReceiptInput,
  CashReceiptIssued,
  IssueCashReceiptInput,
  ConfirmInput,
  ConfirmResult,
  CredentialsCheck,
  GatewaySettlement,
  IssueBillingKeyInput,
  ListSettlementsInput,
  ListTransactionsInput,
  Outcome,
  PaymentEntry,
  PaymentLookup,
  PaymentProvider,
  RefundInput,
  RefundResult,
  TransactionPage,
} from './provider';
import { realTimers, TossClient, TOSS_SLOW_CALL_MIN_MS, UNKNOWN, type Timers } from './toss-http';
import * as payments from './toss-payments';
import * as billing from './toss-billing';
import * as cashReceipts from './toss-cash-receipts';
import * as reconciliation from './toss-reconciliation';

/**
 * Toss Payments core API (https://docs.tosspayments.com/reference). Secret-key Basic auth, JSON in and out.
 * Reading of replies: 2xx → succeeded; 4xx with `{ code, message }` → failed with Toss's code, except "already
 * processed / canceled" (look the payment up, since it was probably our own earlier attempt that went through) and
 * codes that say the request may still take effect; 5xx, timeouts, broken connections, unparsable bodies → unknown.
 * The secret key lives only in the client's private field and the Authorization header; nothing here logs.
 */
export class TossProvider implements PaymentProvider {
  readonly name = 'toss' as const;
  readonly ledger = 'gateway' as const;
  /** Toss's own payment window takes the payment; its success redirect brings the payment key back. */
  readonly paymentEntry: PaymentEntry = { kind: 'gateway_window' };
  /**
   * 자동결제 registers a card in Toss's billing-auth window (`requestBillingAuth({ method: 'CARD' })`,
   * https://docs.tosspayments.com/guides/v2/billing): a bank transfer, a 가상계좌 or a one-off easy-pay payment gives no billing key.
   */
  readonly billingKeyMethods: readonly PaymentMethod[] = ['card'];
  readonly #client: TossClient;

  /**
   * `timeoutMs` bounds confirm, cancel, lookups and billing-key issue/delete (default 10 s); `slowTimeoutMs` bounds
   * billing charges and transaction listings, which Toss says may take up to 60 s (default 60 s).
   */
  constructor(opts: { secretKey: string; baseUrl: string; timeoutMs?: number; slowTimeoutMs?: number; clock?: Clock; timers?: Timers }) {
    this.#client = new TossClient({
      secretKey: opts.secretKey,
      baseUrl: opts.baseUrl,
      timeoutMs: opts.timeoutMs ?? 10_000,
      // The configuration refuses less than 60 s; tests may pass a shorter one for answers that never come.
      slowTimeoutMs: opts.slowTimeoutMs ?? TOSS_SLOW_CALL_MIN_MS,
      clock: opts.clock ?? systemClock,
      timers: opts.timers ?? realTimers,
    });
  }

  confirmPayment(input: ConfirmInput): Promise<Outcome<ConfirmResult>> {
    return payments.confirmPayment(this.#client, input);
  }

  refund(input: RefundInput): Promise<Outcome<RefundResult>> {
    return payments.refund(this.#client, input);
  }

  issueCashReceipt(input: IssueCashReceiptInput): Promise<Outcome<CashReceiptIssued>> {
    return cashReceipts.issueCashReceipt(this.#client, input);
  }

  cancelCashReceipt(input: CancelCashReceiptInput): Promise<Outcome<{ canceledAt: Date }>> {
    return cashReceipts.cancelCashReceipt(this.#client, input);
  }

  lookupPayment(paymentKey: string): Promise<Outcome<PaymentLookup>> {
    return payments.lookupPayment(this.#client, paymentKey);
  }

  lookupPaymentByOrderId(orderId: string): Promise<Outcome<PaymentLookup>> {
    return payments.lookupPaymentByOrderId(this.#client, orderId);
  }

  /**
   * Looks up a payment by an order id nobody ever used (GET /v1/payments/orders/{orderId}): a read that changes
   * nothing. 404 NOT_FOUND_PAYMENT means Toss authenticated the key and found no such payment, so the key is
   * accepted; 401 UNAUTHORIZED_KEY (or 400 INVALID_API_KEY) means Toss refused the key
   * (https://docs.tosspayments.com/reference/error-codes). Anything else proves nothing either way: unknown.
   */
  async verifyCredentials(): Promise<Outcome<CredentialsCheck>> {
    const probe = `keycheck_${randomBytes(12).toString('hex')}`;
    const reply = await this.#client.call('GET', `/v1/payments/orders/${probe}`);
    if (reply.kind === 'unknown') return { status: 'unknown', message: reply.message };
    if (reply.kind === 'ok' || reply.code === 'NOT_FOUND_PAYMENT') return { status: 'succeeded', value: { checkedAt: this.#client.clock.now() } };
    if (reply.httpStatus === 401 || reply.code === 'UNAUTHORIZED_KEY' || reply.code === 'INVALID_API_KEY') {
      return { status: 'failed', code: reply.code, message: reply.message };
    }
    return { status: 'unknown', message: `${UNKNOWN} (HTTP ${reply.httpStatus} ${reply.code}: ${reply.message})` };
  }

  issueBillingKey(input: IssueBillingKeyInput): Promise<Outcome<BillingKeyResult>> {
    return billing.issueBillingKey(this.#client, input);
  }

  chargeBillingKey(input: {
    billingKey: string;
    customerKey: string;
    amount: number;
    orderId: string;
    orderName: string;
    idempotencyKey: string;
  }): Promise<Outcome<ConfirmResult>> {
    return billing.chargeBillingKey(this.#client, input);
  }

  deleteBillingKey(input: { billingKey: string }): Promise<Outcome<{ deleted: true }>> {
    return billing.deleteBillingKey(this.#client, input);
  }

  listTransactions(input: ListTransactionsInput): Promise<Outcome<TransactionPage>> {
    return reconciliation.listTransactions(this.#client, input);
  }

  listSettlements(input: ListSettlementsInput): Promise<Outcome<GatewaySettlement[]>> {
    return reconciliation.listSettlements(this.#client, input);
  }
}
