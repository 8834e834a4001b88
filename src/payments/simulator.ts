import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
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
  GatewayTransaction,
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
import { isLuhnValid, normalizeCardNumber } from './card';

/**
 * Documented test cards (README "Test mode"). Any other Luhn-valid number succeeds; the `unknown` card
 * simulates a gateway timeout: confirm answers `unknown` and a later lookup finds the payment never approved.
 * Two cards pay normally and decide how their later refunds end: `refundFails` is refused by the gateway
 * (NOT_CANCELABLE_PAYMENT → PG_REFUND_FAILED) and `refundTimesOut` is refunded at the gateway but the answer is
 * lost (`unknown` → PG_REFUND_AMBIGUOUS), so a later lookup shows the cancel and reconciliation records it.
 */
export const TEST_CARDS = {
  success: '4242424242424242',
  declined: '4000000000000002',
  insufficientFunds: '4000000000009995',
  unknown: '4000000000000119',
  refundFails: '4000000000005126',
  refundTimesOut: '4000000000007726',
  /** Pays at checkout, but its billing key declines every later charge (renewals, plan-change differences): for dunning. */
  renewalDeclined: '4000000000000341',
} as const;

/** `refundfail` / `refundlost`: approved like `success`; only their refunds differ. */
export type SimOutcome = 'success' | 'declined' | 'insufficient' | 'unknown' | 'refundfail' | 'refundlost';

/** Outcomes whose payments are approved. */
const APPROVED: ReadonlySet<SimOutcome> = new Set(['success', 'refundfail', 'refundlost']);

const METHODS: readonly PaymentMethod[] = ['card', 'kakao_pay', 'naver_pay', 'toss', 'transfer', 'virtual_account'];

/** How long a simulated 가상계좌 waits for its deposit (as the live page asks Toss: 72 hours). */
export const SIM_VIRTUAL_ACCOUNT_HOURS = 72;

// The binding between a payment key and its order/amount only guards against mix-ups in test mode (no money moves),
// so a fixed key is enough and keeps payment keys valid across restarts and between server processes.
const MAC_KEY = 'commerce-api/payment-simulator/v1';

const FAILURES = {
  declined: { code: 'REJECT_CARD_PAYMENT', message: '카드사에서 결제를 거절했습니다.' },
  insufficient: { code: 'NOT_ENOUGH_BALANCE', message: '잔액이 부족합니다.' },
} as const;

const UNKNOWN_MESSAGE = '결제사 응답 시간이 초과되었습니다. 결제 상태를 확인한 뒤 다시 시도해 주세요.';

export type { AuthorizeInput, AuthorizeResult } from './provider';

/** What a simulator payment key says about itself: `sim_<outcome>_<method>_<amount>_<random>_<mac>`. */
interface SimKey {
  outcome: SimOutcome;
  method: PaymentMethod;
  amount: number;
  nonce: string;
  mac: string;
}

const KEY_RE = /^sim_(success|declined|insufficient|unknown|refundfail|refundlost)_(card|kakao_pay|naver_pay|toss|transfer|virtual_account)_(\d{1,15})_([0-9a-f]{16})_([0-9a-f]{24})$/;

function mac(outcome: SimOutcome, method: PaymentMethod, amount: number, nonce: string, orderId: string): string {
  return createHmac('sha256', MAC_KEY).update(`${outcome}|${method}|${amount}|${nonce}|${orderId}`).digest('hex').slice(0, 24);
}

function parseKey(paymentKey: string): SimKey | null {
  const m = KEY_RE.exec(paymentKey);
  if (!m) return null;
  return { outcome: m[1] as SimOutcome, method: m[2] as PaymentMethod, amount: Number(m[3]), nonce: m[4], mac: m[5] };
}

function makeKey(outcome: SimOutcome, method: PaymentMethod, amount: number, orderId: string): string {
  const nonce = randomBytes(8).toString('hex');
  return `sim_${outcome}_${method}_${amount}_${nonce}_${mac(outcome, method, amount, nonce, orderId)}`;
}

/** A simulated 가상계좌's secret: derived from its key, so it survives restarts like the key itself. */
function simulatedSecret(paymentKey: string): string {
  return `ps_sim_${createHmac('sha256', MAC_KEY).update(`secret|${paymentKey}`).digest('hex').slice(0, 32)}`;
}

/**
 * The simulator's 현금영수증: issued for any valid number, never reported to the National Tax Service. Its issue number is
 * `T` and 8 digits derived from the payment key (Toss's are 9 characters too); it has no receipt page (receiptUrl null).
 */
export function simulatedCashReceipt(paymentKey: string, req: CashReceiptRequest, amount: number): CashReceiptIssued {
  const h = createHmac('sha256', MAC_KEY).update(`cash-receipt|${paymentKey}`).digest('hex');
  return { type: req.type, receiptKey: `sim_cr_${h.slice(0, 20)}`, issueNumber: `T${(parseInt(h.slice(0, 12), 16) % 100_000_000).toString().padStart(8, '0')}`, receiptUrl: null, amount };
}

function boundTo(key: SimKey, orderId: string, amount: number): boolean {
  if (key.amount !== amount) return false;
  const expected = Buffer.from(mac(key.outcome, key.method, key.amount, key.nonce, orderId));
  const given = Buffer.from(key.mac);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** The outcome a card number stands for; null when it is not a plausible card number. */
export function cardOutcome(cardNumber: string): SimOutcome | null {
  const digits = normalizeCardNumber(cardNumber);
  if (!isLuhnValid(digits)) return null;
  switch (digits) {
    case TEST_CARDS.declined:
      return 'declined';
    case TEST_CARDS.insufficientFunds:
      return 'insufficient';
    case TEST_CARDS.unknown:
      return 'unknown';
    case TEST_CARDS.refundFails:
      return 'refundfail';
    case TEST_CARDS.refundTimesOut:
      return 'refundlost';
    default:
      return 'success';
  }
}

/** `lost` (refund only): the refund happens at the gateway but its answer is lost (`unknown`). */
type Injected = 'failed' | 'unknown' | 'lost';
type Operation = 'confirm' | 'refund' | 'lookup' | 'issueBillingKey' | 'chargeBillingKey' | 'listTransactions';

interface PaymentState {
  method: PaymentMethod;
  totalAmount: number;
  approvedAt: Date;
  canceled: number;
  /** The order id it was confirmed or charged for; null for a key this process only learned of from a refund or lookup. */
  orderId: string | null;
}

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
  /** The hosted page takes the card number (or the easy-pay approval) itself and authorizes it here. */
  readonly paymentEntry: PaymentEntry = { kind: 'on_page', authorize: (input) => this.authorize(input) };
  readonly #clock: Clock;
  readonly #payments = new Map<string, PaymentState>();
  readonly #refunds = new Map<string, { paymentKey: string; amount: number; result: Outcome<RefundResult> }>();
  readonly #charges = new Map<string, Outcome<ConfirmResult>>();
  readonly #injected: Array<{ op: Operation; result: Injected }> = [];
  /** 가상계좌: when each was issued, and which have been deposited (testDeposit). */
  readonly #issued = new Map<string, Date>();
  readonly #deposited = new Set<string>();
  /** 가상계좌: the 현금영수증 asked for with the payment, issued at the deposit (as Toss issues it then). */
  readonly #cashReceiptAsked = new Map<string, CashReceiptRequest>();
  /** Separately issued 현금영수증 by idempotency key: a retry answers the first issue. */
  readonly #cashReceipts = new Map<string, Outcome<CashReceiptIssued>>();
  /** Approvals and cancels in the order they happened, for listTransactions (this process's memory only). */
  readonly #transactions: GatewayTransaction[] = [];

  constructor(opts?: { clock?: Clock }) {
    this.#clock = opts?.clock ?? systemClock;
  }

  /**
   * Makes the next call of `op` fail (`failed`, code SIMULATED_FAILURE) or time out (`unknown`) without touching
   * any state, so tests of callers can exercise their failure paths against the simulator too.
   */
  injectFailure(op: Operation, result: Injected, times = 1): void {
    for (let i = 0; i < times; i++) this.#injected.push({ op, result });
  }

  #takeInjected<T>(op: Operation): Outcome<T> | null {
    const i = this.#injected.findIndex((x) => x.op === op);
    if (i < 0) return null;
    if (this.#injected[i].result === 'lost') return null; // taken by the operation itself, once it has done its work
    const [{ result }] = this.#injected.splice(i, 1);
    return result === 'failed'
      ? { status: 'failed', code: 'SIMULATED_FAILURE', message: '결제사에서 요청을 처리하지 못했습니다.' }
      : { status: 'unknown', message: UNKNOWN_MESSAGE };
  }

  authorize(input: AuthorizeInput): AuthorizeResult {
    // The amount is ours, not the buyer's: a bad one is a bug in the caller, not a form error.
    if (!Number.isSafeInteger(input.amount) || input.amount < 0) throw new RangeError(`simulator: invalid amount ${input.amount}`);
    if (!METHODS.includes(input.method)) {
      return { ok: false, field: 'method', code: 'INVALID_METHOD', message: '결제 수단이 올바르지 않습니다.' };
    }
    if (input.method === 'card') {
      const outcome = input.cardNumber === undefined ? null : cardOutcome(input.cardNumber);
      if (!outcome) return { ok: false, field: 'cardNumber', code: 'INVALID_CARD_NUMBER', message: '카드 번호가 올바르지 않습니다.' };
      return { ok: true, paymentKey: makeKey(outcome, 'card', input.amount, input.orderId) };
    }
    if (input.approved === false) {
      return { ok: false, field: 'method', code: 'PAY_PROCESS_CANCELED', message: '간편결제 승인이 취소되었습니다.' };
    }
    return { ok: true, paymentKey: makeKey('success', input.method, input.amount, input.orderId) };
  }

  async confirmPayment(input: ConfirmInput): Promise<Outcome<ConfirmResult>> {
    const injected = this.#takeInjected<ConfirmResult>('confirm');
    if (injected) return injected;
    const key = parseKey(input.paymentKey);
    if (!key) return { status: 'failed', code: 'NOT_FOUND_PAYMENT_SESSION', message: '결제 정보를 찾을 수 없습니다.' };
    if (!Number.isSafeInteger(input.amount) || !boundTo(key, input.orderId, input.amount)) {
      return { status: 'failed', code: 'INVALID_REQUEST', message: '결제 금액 또는 주문 번호가 승인 요청과 다릅니다.' };
    }
    const months = input.installmentMonths ?? 0;
    if (months !== 0 && (key.method !== 'card' || key.amount < 50_000 || !Number.isInteger(months) || months < 2 || months > 12)) {
      return { status: 'failed', code: 'INVALID_CARD_INSTALLMENT_PLAN', message: '할부 개월 수가 올바르지 않습니다. 할부는 5만 원 이상 카드 결제에서 2~12개월만 가능합니다.' };
    }
    if (key.outcome === 'declined' || key.outcome === 'insufficient') return { status: 'failed', ...FAILURES[key.outcome] };
    if (key.outcome === 'unknown') return { status: 'unknown', message: UNKNOWN_MESSAGE };
    if (key.method === 'virtual_account') {
      // Like Toss's WAITING_FOR_DEPOSIT: an account is issued, nothing is paid until testDeposit (the buyer's bank).
      const issued = this.#issued.get(input.paymentKey) ?? this.#clock.now();
      this.#issued.set(input.paymentKey, issued);
      if (input.cashReceipt) this.#cashReceiptAsked.set(input.paymentKey, input.cashReceipt);
      return {
        status: 'succeeded',
        value: {
          paymentKey: input.paymentKey,
          approvedAt: issued,
          method: 'virtual_account',
          installmentMonths: null,
          awaitingDeposit: {
            bankCode: '88',
            accountNumber: `9${BigInt(`0x${key.nonce}`).toString().padStart(20, '0').slice(-13)}`,
            holderName: null,
            dueAt: new Date(issued.getTime() + SIM_VIRTUAL_ACCOUNT_HOURS * 3600_000),
            secret: simulatedSecret(input.paymentKey),
          },
        },
      };
    }
    const state = this.#approve(input.paymentKey, key.method, key.amount, input.orderId);
    // 계좌이체 with a 현금영수증 asked for: a test receipt (issue number `T` + 8 digits, no National Tax Service report).
    const cashReceipt = key.method === 'transfer' && input.cashReceipt ? simulatedCashReceipt(input.paymentKey, input.cashReceipt, key.amount) : null;
    return { status: 'succeeded', value: { paymentKey: input.paymentKey, approvedAt: state.approvedAt, method: state.method, installmentMonths: key.method === 'card' ? months : null, ...(cashReceipt ? { cashReceipt } : {}) } };
  }

  /**
   * The buyer's deposit arrives (test mode's stand-in for the bank): the payment becomes approved (lookups say paid)
   * and the answer carries the secret Toss's DEPOSIT_CALLBACK would. Remembered in this process only.
   */
  readonly testDeposit = async (paymentKey: string, opts?: { cashReceipt?: CashReceiptRequest | null }): Promise<Outcome<{ secret: string | null }>> => {
    const key = parseKey(paymentKey);
    if (!key || key.method !== 'virtual_account' || !APPROVED.has(key.outcome)) return { status: 'failed', code: 'NOT_FOUND_PAYMENT', message: '입금할 가상계좌를 찾을 수 없습니다.' };
    // After a restart this process no longer remembers the payment window's choice: the caller hands it back.
    if (opts?.cashReceipt && !this.#cashReceiptAsked.has(paymentKey)) this.#cashReceiptAsked.set(paymentKey, opts.cashReceipt);
    this.#deposited.add(paymentKey);
    this.#approve(paymentKey, 'virtual_account', key.amount);
    return { status: 'succeeded', value: { secret: simulatedSecret(paymentKey) } };
  };

  #approve(paymentKey: string, method: PaymentMethod, amount: number, orderId: string | null = null): PaymentState {
    let state = this.#payments.get(paymentKey);
    if (!state) {
      state = { method, totalAmount: amount, approvedAt: this.#clock.now(), canceled: 0, orderId };
      this.#payments.set(paymentKey, state);
      if (orderId) this.#record({ paymentKey, orderId, kind: 'approval', status: 'DONE', amount, transactionAt: state.approvedAt });
    }
    return state;
  }

  #record(t: Omit<GatewayTransaction, 'transactionKey'>): void {
    this.#transactions.push({ ...t, transactionKey: `simtx_${String(this.#transactions.length + 1).padStart(8, '0')}_${randomBytes(4).toString('hex')}` });
  }

  /** A success key is treated as approved even when this process has not seen its confirm (restart, other process). */
  #stateOf(paymentKey: string): PaymentState | null {
    const known = this.#payments.get(paymentKey);
    if (known) return known;
    const key = parseKey(paymentKey);
    if (key?.method === 'virtual_account' && !this.#deposited.has(paymentKey)) return null;
    return key && APPROVED.has(key.outcome) ? this.#approve(paymentKey, key.method, key.amount) : null;
  }

  async refund(input: RefundInput): Promise<Outcome<RefundResult>> {
    const previous = this.#refunds.get(input.idempotencyKey);
    if (previous) {
      if (previous.paymentKey !== input.paymentKey || previous.amount !== input.amount) {
        return { status: 'failed', code: 'IDEMPOTENCY_KEY_REUSED', message: '같은 멱등키로 다른 환불 요청을 보냈습니다.' };
      }
      return previous.result;
    }
    const injected = this.#takeInjected<RefundResult>('refund');
    if (injected) return injected;
    const state = this.#stateOf(input.paymentKey);
    if (!state) return { status: 'failed', code: 'NOT_FOUND_PAYMENT', message: '존재하지 않는 결제입니다.' };
    const balance = state.totalAmount - state.canceled;
    const outcome = parseKey(input.paymentKey)?.outcome;
    let result: Outcome<RefundResult>;
    if (outcome === 'refundfail') result = { status: 'failed', code: 'NOT_CANCELABLE_PAYMENT', message: '취소할 수 없는 결제입니다.' };
    // Like Toss: a deposited 가상계좌 goes back only to the account in refundReceiveAccount.
    else if (state.method === 'virtual_account' && !input.refundReceiveAccount) result = { status: 'failed', code: 'INVALID_REFUND_ACCOUNT_INFO', message: '환불 계좌 정보가 필요합니다.' };
    else if (balance === 0) result = { status: 'failed', code: 'ALREADY_CANCELED_PAYMENT', message: '이미 취소된 결제입니다.' };
    else if (!Number.isSafeInteger(input.amount) || input.amount <= 0 || input.amount > balance) {
      result = { status: 'failed', code: 'NOT_CANCELABLE_AMOUNT', message: '취소할 수 없는 금액입니다.' };
    } else {
      state.canceled += input.amount;
      if (state.orderId) {
        const status = state.canceled === state.totalAmount ? 'CANCELED' : 'PARTIAL_CANCELED';
        this.#record({ paymentKey: input.paymentKey, orderId: state.orderId, kind: 'cancel', status, amount: input.amount, transactionAt: this.#clock.now() });
      }
      const lost = this.#injected.findIndex((x) => x.op === 'refund' && x.result === 'lost');
      if (lost >= 0) this.#injected.splice(lost, 1);
      // refundlost: the cancel happened, its answer did not arrive (a retry with the same key replays the loss).
      result =
        outcome === 'refundlost' || lost >= 0
          ? { status: 'unknown', message: UNKNOWN_MESSAGE }
          : { status: 'succeeded', value: { refundedAt: this.#clock.now(), balanceAmount: state.totalAmount - state.canceled } };
    }
    this.#refunds.set(input.idempotencyKey, { paymentKey: input.paymentKey, amount: input.amount, result });
    return result;
  }

  /** The simulator takes no credentials: there is nothing to refuse. */
  async verifyCredentials(): Promise<Outcome<CredentialsCheck>> {
    return { status: 'succeeded', value: { checkedAt: this.#clock.now() } };
  }

  async lookupPayment(paymentKey: string): Promise<Outcome<PaymentLookup>> {
    const injected = this.#takeInjected<PaymentLookup>('lookup');
    if (injected) return injected;
    const known = this.#payments.get(paymentKey);
    if (known) {
      const balanceAmount = known.totalAmount - known.canceled;
      const status = known.canceled === 0 ? 'paid' : balanceAmount === 0 ? 'canceled' : 'partially_canceled';
      return { status: 'succeeded', value: { status, totalAmount: known.totalAmount, balanceAmount, ...this.#identity(paymentKey), ...this.#depositReceipt(paymentKey, balanceAmount) } };
    }
    const key = parseKey(paymentKey);
    if (!key) return { status: 'failed', code: 'NOT_FOUND_PAYMENT', message: '존재하지 않는 결제입니다.' };
    // A 가상계좌 waits for its deposit (Toss: WAITING_FOR_DEPOSIT).
    if (key.method === 'virtual_account' && !this.#deposited.has(paymentKey)) return { status: 'succeeded', value: { status: 'pending', totalAmount: key.amount, balanceAmount: key.amount, ...this.#identity(paymentKey) } };
    if (APPROVED.has(key.outcome)) return { status: 'succeeded', value: { status: 'paid', totalAmount: key.amount, balanceAmount: key.amount, ...this.#identity(paymentKey), ...this.#depositReceipt(paymentKey, key.amount) } };
    // Declined, short and timed-out payments were never approved: nothing was taken from the buyer.
    return { status: 'succeeded', value: { status: 'failed', totalAmount: key.amount, balanceAmount: 0, ...this.#identity(paymentKey) } };
  }

  /** A deposited 가상계좌's 현금영수증 (the one asked for with the payment), covering what is still paid. */
  #depositReceipt(paymentKey: string, balance: number): Pick<PaymentLookup, 'cashReceipt'> {
    const asked = this.#deposited.has(paymentKey) ? this.#cashReceiptAsked.get(paymentKey) : undefined;
    return asked ? { cashReceipt: simulatedCashReceipt(paymentKey, asked, balance) } : {};
  }

  /**
   * A 현금영수증 issued on its own (Toss's POST /v1/cash-receipts): a test receipt (issue number T + 8 digits, never
   * reported to the National Tax Service), once per idempotency key.
   */
  async issueCashReceipt(input: IssueCashReceiptInput): Promise<Outcome<CashReceiptIssued>> {
    const previous = this.#cashReceipts.get(input.idempotencyKey);
    if (previous) return previous;
    if (!Number.isSafeInteger(input.amount) || input.amount < 1) return { status: 'failed', code: 'INVALID_REQUEST', message: '현금영수증 금액이 올바르지 않습니다.' };
    const result: Outcome<CashReceiptIssued> = { status: 'succeeded', value: simulatedCashReceipt(`issue|${input.orderId}`, input, input.amount) };
    this.#cashReceipts.set(input.idempotencyKey, result);
    return result;
  }

  /** Reduces or cancels a test receipt: nothing is reported anywhere, so it always succeeds. */
  async cancelCashReceipt(_input: CancelCashReceiptInput): Promise<Outcome<{ canceledAt: Date }>> {
    return { status: 'succeeded', value: { canceledAt: this.#clock.now() } };
  }

  /**
   * The simulator keeps only the canceled total (no cancel transactions) and binds keys to order ids by MAC, not by
   * an index, so a lookup names neither the order nor individual cancels.
   */
  #identity(paymentKey: string): Pick<PaymentLookup, 'paymentKey' | 'orderId' | 'cancels'> {
    return { paymentKey, orderId: null, cancels: [] };
  }

  /** Simulated payments are found by payment key only (see #identity). */
  async lookupPaymentByOrderId(_orderId: string): Promise<Outcome<PaymentLookup>> {
    return { status: 'failed', code: 'NOT_FOUND_PAYMENT', message: '존재하지 않는 결제입니다.' };
  }

  async issueBillingKey(input: { authKey: string; customerKey: string }): Promise<Outcome<BillingKeyResult>> {
    const injected = this.#takeInjected<BillingKeyResult>('issueBillingKey');
    if (injected) return injected;
    const m = /^sim_auth_(.+)$/.exec(input.authKey);
    const digits = m ? normalizeCardNumber(m[1]) : '';
    const cardSays = m ? cardOutcome(digits) : null;
    if (!cardSays) return { status: 'failed', code: 'INVALID_CARD_NUMBER', message: '카드 번호가 올바르지 않습니다.' };
    const outcome: SimOutcome = digits === TEST_CARDS.renewalDeclined ? 'declined' : cardSays;
    return {
      status: 'succeeded',
      value: { billingKey: `sim_bill_${outcome}_${randomBytes(8).toString('hex')}`, cardSummary: `카드 ****${digits.slice(-4)}` },
    };
  }

  async chargeBillingKey(input: {
    billingKey: string;
    customerKey: string;
    amount: number;
    orderId: string;
    orderName: string;
    idempotencyKey: string;
  }): Promise<Outcome<ConfirmResult>> {
    const previous = this.#charges.get(input.idempotencyKey);
    if (previous) return previous;
    const injected = this.#takeInjected<ConfirmResult>('chargeBillingKey');
    if (injected) return injected;
    const m = /^sim_bill_(success|declined|insufficient|unknown|refundfail|refundlost)_[0-9a-f]{16}$/.exec(input.billingKey);
    if (!m) return { status: 'failed', code: 'INVALID_BILLING_KEY', message: '빌링키가 올바르지 않습니다.' };
    if (!Number.isSafeInteger(input.amount) || input.amount <= 0) {
      return { status: 'failed', code: 'INVALID_REQUEST', message: '결제 금액이 올바르지 않습니다.' };
    }
    const outcome = m[1] as SimOutcome;
    // A timed-out charge is not remembered: retrying with the same idempotency key times out again, as the card says.
    if (outcome === 'unknown') return { status: 'unknown', message: UNKNOWN_MESSAGE };
    let result: Outcome<ConfirmResult>;
    if (outcome === 'declined' || outcome === 'insufficient') result = { status: 'failed', ...FAILURES[outcome] };
    else {
      // The payment carries the card's outcome, so refunds of renewals fail or time out the way the card says.
      const paymentKey = makeKey(outcome, 'card', input.amount, input.orderId);
      const state = this.#approve(paymentKey, 'card', input.amount, input.orderId);
      result = { status: 'succeeded', value: { paymentKey, approvedAt: state.approvedAt, method: 'card' } };
    }
    this.#charges.set(input.idempotencyKey, result);
    return result;
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
    const injected = this.#takeInjected<TransactionPage>('listTransactions');
    if (injected) return injected;
    const inRange = this.#transactions.filter((t) => t.transactionAt.getTime() >= input.startDate.getTime() && t.transactionAt.getTime() <= input.endDate.getTime());
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
