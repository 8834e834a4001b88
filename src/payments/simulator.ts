/**
 * The test-mode gateway as one PaymentProvider: it keeps one instance's memory (simulator-memory.ts) and hands each
 * call to its topic (payments: simulator-payments.ts; billing keys: simulator-billing.ts). What is small and has no
 * other home stays here: 현금영수증 issued on its own, the credentials check, and the transaction and settlement lists.
 */
import type { PaymentMethod } from './method';
import { systemClock, type Clock } from '../platform/clock';
import type {
  CancelCashReceiptInput,
  IssueCashReceiptInput,
  CashReceiptIssued,
  CashReceiptRequest,
  AuthorizeInput,
  AuthorizeResult,
  BillingKeyResult,
  ConfirmInput,
  CredentialsCheck,
  ConfirmResult,
  ListTransactionsInput,
  Outcome,
  PaymentEntry,
  PaymentLookup,
  PaymentProvider,
  RefundInput,
  RefundResult,
  TransactionPage,
  GatewaySettlement,
  ListSettlementsInput,
} from './provider';
import { simulatedCashReceipt } from './simulator-keys';
import { maskedIdentity } from './toss-cash-receipts';
import { SimulatorMemory, type Injected, type Operation } from './simulator-memory';
import * as payments from './simulator-payments';
import * as billing from './simulator-billing';

/** Test mode: a 현금영수증 asked for this number (010-0000-0000) is refused by the simulator, once per attempt. */
export const SIMULATOR_REFUSED_CASH_RECEIPT_NUMBER = '01000000000';

export type { AuthorizeInput, AuthorizeResult } from './provider';

/**
 * Test-mode gateway. The buyer's choice (card number, or approve/deny for simple pay) is checked by `authorize`
 * and sealed into the payment key, so `confirmPayment` needs no shared state: a key confirms the way its card said
 * it would, for exactly the order and amount it was authorized for. Memory only remembers what makes retries
 * idempotent (first approval time, refunds by idempotency key, charges by idempotency key).
 *
 * Billing: `authKey` = `sim_auth_<cardNumber>` (what the test-mode card registration form posts); the billing key
 * carries the card's outcome, so charges decline, run short or time out the same way the card does on confirm.
 */
export class SimulatorProvider implements PaymentProvider {
  readonly name = 'simulator' as const;
  readonly ledger = 'process' as const;
  /** The hosted page takes the card number (or the easy-pay approval) itself and authorizes it here. */
  readonly paymentEntry: PaymentEntry = { kind: 'on_page', authorize: (input) => this.authorize(input) };
  /** Only a test card registration yields a billing auth key (`sim_auth_<card number>`, see README.md); an easy-pay approval leaves none. */
  readonly billingKeyMethods: readonly PaymentMethod[] = ['card'];
  readonly #mem: SimulatorMemory;

  constructor(opts?: { clock?: Clock; memoryLimit?: number }) {
    this.#mem = new SimulatorMemory(opts?.clock ?? systemClock, opts?.memoryLimit);
  }

  /**
   * Makes the next call of `op` fail (`failed`, code SIMULATED_FAILURE) or time out (`unknown`) without touching
   * any state, so tests of callers can exercise their failure paths against the simulator too.
   */
  injectFailure(op: Operation, result: Injected, times = 1): void {
    for (let i = 0; i < times; i++) this.#mem.injected.push({ op, result });
  }

  authorize(input: AuthorizeInput): AuthorizeResult {
    return payments.authorize(input);
  }

  confirmPayment(input: ConfirmInput): Promise<Outcome<ConfirmResult>> {
    return payments.confirmPayment(this.#mem, input);
  }

  /**
   * The buyer's deposit arrives (test mode's stand-in for the bank): the payment becomes approved (lookups say paid)
   * and the answer carries the secret Toss's DEPOSIT_CALLBACK would. Remembered in this process only.
   */
  readonly testDeposit = (paymentKey: string, opts?: { cashReceipt?: CashReceiptRequest | null }): Promise<Outcome<{ secret: string | null }>> =>
    payments.testDeposit(this.#mem, paymentKey, opts);

  refund(input: RefundInput): Promise<Outcome<RefundResult>> {
    return payments.refund(this.#mem, input);
  }

  /** The simulator takes no credentials: there is nothing to refuse. */
  async verifyCredentials(): Promise<Outcome<CredentialsCheck>> {
    return { status: 'succeeded', value: { checkedAt: this.#mem.clock.now() } };
  }

  lookupPayment(paymentKey: string): Promise<Outcome<PaymentLookup>> {
    return payments.lookupPayment(this.#mem, paymentKey);
  }

  /**
   * A 현금영수증 issued on its own (Toss's POST /v1/cash-receipts): a test receipt (issue number T + 8 digits, never
   * reported to the National Tax Service), once per idempotency key.
   */
  async issueCashReceipt(input: IssueCashReceiptInput): Promise<Outcome<CashReceiptIssued>> {
    const previous = this.#mem.cashReceipts.get(input.idempotencyKey);
    if (previous) return previous;
    if (!Number.isSafeInteger(input.amount) || input.amount < 1) return { status: 'failed', code: 'INVALID_REQUEST', message: '현금영수증 금액이 올바르지 않습니다.' };
    // The test number the simulator refuses, so a seller can see a refused receipt (flagged, event, retry) in test mode.
    const result: Outcome<CashReceiptIssued> =
      input.identity === SIMULATOR_REFUSED_CASH_RECEIPT_NUMBER
        ? { status: 'failed', code: 'SIMULATED_CASH_RECEIPT_REFUSED', message: '테스트 거절 번호라 현금영수증이 발급되지 않았습니다. (시뮬레이터)' }
        : { status: 'succeeded', value: { ...simulatedCashReceipt(`issue|${input.orderId}`, input, input.amount), identityMasked: maskedIdentity(input.identity), issueStatus: 'COMPLETED' } };
    this.#mem.cashReceipts.set(input.idempotencyKey, result);
    return result;
  }

  /** Reduces or cancels a test receipt: nothing is reported anywhere, so it always succeeds. */
  async cancelCashReceipt(_input: CancelCashReceiptInput): Promise<Outcome<{ canceledAt: Date }>> {
    return { status: 'succeeded', value: { canceledAt: this.#mem.clock.now() } };
  }

  /** Simulated payments are found by payment key only (a key is bound to its order by MAC, not by an index). */
  async lookupPaymentByOrderId(_orderId: string): Promise<Outcome<PaymentLookup>> {
    return { status: 'failed', code: 'NOT_FOUND_PAYMENT', message: '존재하지 않는 결제입니다.' };
  }

  issueBillingKey(input: { authKey: string; customerKey: string }): Promise<Outcome<BillingKeyResult>> {
    return billing.issueBillingKey(this.#mem, input);
  }

  chargeBillingKey(input: {
    billingKey: string;
    customerKey: string;
    amount: number;
    orderId: string;
    orderName: string;
    idempotencyKey: string;
  }): Promise<Outcome<ConfirmResult>> {
    return billing.chargeBillingKey(this.#mem, input);
  }

  /** Billing keys live in the key itself here, so there is nothing to forget: deleting always succeeds. */
  async deleteBillingKey(_input: { billingKey: string }): Promise<Outcome<{ deleted: true }>> {
    return { status: 'succeeded', value: { deleted: true } };
  }

  /**
   * The approvals and cancels this simulator instance made in the range, oldest first, paged like Toss's
   * GET /v1/transactions (startingAfter = a transactionKey; an unknown one fails INVALID_TRANSACTION_KEY). Only what
   * this process saw: a payment confirmed by another process or before a restart is not listed.
   */
  async listTransactions(input: ListTransactionsInput): Promise<Outcome<TransactionPage>> {
    const injected = this.#mem.takeInjected<TransactionPage>('listTransactions');
    if (injected) return injected;
    const inRange = this.#mem.transactions.filter((t) => t.transactionAt.getTime() >= input.startDate.getTime() && t.transactionAt.getTime() <= input.endDate.getTime());
    let from = 0;
    if (input.startingAfter) {
      const i = inRange.findIndex((t) => t.transactionKey === input.startingAfter);
      if (i < 0) return { status: 'failed', code: 'INVALID_TRANSACTION_KEY', message: '잘못된 페이징 키입니다.' };
      from = i + 1;
    }
    const transactions = inRange.slice(from, from + input.limit).map((t) => ({ ...t }));
    const full = transactions.length > 0 && transactions.length >= input.limit;
    return { status: 'succeeded', value: { transactions, nextStartingAfter: full ? transactions[transactions.length - 1].transactionKey : null } };
  }

  /** The simulator settles nothing (no money moves in test mode): always an empty list. */
  async listSettlements(_input: ListSettlementsInput): Promise<Outcome<GatewaySettlement[]>> {
    return { status: 'succeeded', value: [] };
  }
}
