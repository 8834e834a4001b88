import { createHash, randomBytes } from 'node:crypto';
import { systemClock, type Clock } from '../platform/clock';
import { histogram, LATENCY_BUCKETS } from '../platform/metrics-registry';
import { withSpan } from '../platform/telemetry';
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
import { cardSummary, cashReceiptOf, isBilling, isPayment, isSettlement, settlementOf, isTransaction, lookupOf, mapTossMethod, mapTossStatus, TOSS_AMBIGUOUS_CODES, tossError, tossKstDateTime, type TossPayment } from './toss-model';

export { mapTossMethod, mapTossStatus } from './toss-model';

/** How one HTTP exchange with Toss ended, before it is read as a business outcome. */
type Reply =
  | { kind: 'ok'; body: unknown }
  | { kind: 'error'; httpStatus: number; code: string; message: string }
  | { kind: 'unknown'; message: string };


const UNKNOWN = '결제사 응답을 확인하지 못했습니다. 결제 상태를 조회한 뒤 다시 시도해 주세요.';

/** Toss takes at most 200 characters of `cancelReason` (Payment cancel API); longer reasons are refused. */
export const TOSS_CANCEL_REASON_MAX = 200;
/** Toss documents that billing charges and transaction listings may take up to 60 s: never give up on them sooner. */
export const TOSS_SLOW_CALL_MIN_MS = 60_000;
/** A transactions query over a busy period may take as long: it runs on the slow deadline, never a confirm's. */
export const TOSS_TRANSACTIONS_TIMEOUT_MS = TOSS_SLOW_CALL_MIN_MS;

/** Toss call latency by operation and how the exchange ended (ok, error: Toss's coded refusal, unknown: no usable answer). */
const gatewayDuration = histogram({
  name: 'commerce_gateway_request_duration_seconds',
  help: 'Toss Payments API calls: latency by operation and outcome (ok, error, unknown)',
  labelNames: ['gateway', 'operation', 'outcome'],
  buckets: LATENCY_BUCKETS,
});

/** The operation a Toss API request performs, named for metrics and traces (never the key or id in its path). */
export function tossOperation(method: 'GET' | 'POST' | 'DELETE', path: string): string {
  if (path.startsWith('/v1/transactions')) return 'transactions';
  if (path.startsWith('/v1/settlements')) return 'settlements';
  if (path.startsWith('/v1/billing/')) {
    if (method === 'DELETE') return 'billing_delete';
    return path === '/v1/billing/authorizations/issue' ? 'billing_issue' : 'billing_charge';
  }
  if (path.startsWith('/v1/cash-receipts')) return path.endsWith('/cancel') ? 'cash_receipt_cancel' : 'cash_receipt_issue';
  if (path === '/v1/payments/confirm') return 'confirm';
  if (method === 'POST' && path.endsWith('/cancel')) return 'cancel';
  if (path.startsWith('/v1/payments/orders/keycheck_')) return 'verify_credentials';
  return method === 'GET' ? 'lookup' : 'other';
}

/** setTimeout/clearTimeout, injectable so tests drive deadlines with fake timers instead of waiting. */
export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}
const realTimers: Timers = { setTimeout: (fn, ms) => setTimeout(fn, ms), clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout) };

/** The reason as Toss may take it: at most 200 characters (code points, so a Korean or emoji reason is never split). */
export function tossCancelReason(reason: string): string {
  const chars = Array.from(reason);
  return chars.length <= TOSS_CANCEL_REASON_MAX ? reason : chars.slice(0, TOSS_CANCEL_REASON_MAX).join('');
}

/**
 * Toss Payments core API (https://docs.tosspayments.com/reference). Secret-key Basic auth, JSON in and out.
 * Reading of replies: 2xx → succeeded; 4xx with `{ code, message }` → failed with Toss's code, except "already
 * processed / canceled" (look the payment up, since it was probably our own earlier attempt that went through) and
 * codes that say the request may still take effect; 5xx, timeouts, broken connections, unparsable bodies → unknown.
 * The secret key lives only in a private field and the Authorization header; nothing here logs.
 */
export class TossProvider implements PaymentProvider {
  readonly name = 'toss' as const;
  /** Toss's own payment window takes the payment; its success redirect brings the payment key back. */
  readonly paymentEntry: PaymentEntry = { kind: 'gateway_window' };
  readonly #authorization: string;
  readonly #baseUrl: string;
  readonly #timeoutMs: number;
  readonly #slowTimeoutMs: number;
  readonly #clock: Clock;
  readonly #timers: Timers;

  /**
   * `timeoutMs` bounds confirm, cancel, lookups and billing-key issue/delete (default 10 s); `slowTimeoutMs` bounds
   * billing charges and transaction listings, which Toss says may take up to 60 s (default 60 s).
   */
  constructor(opts: { secretKey: string; baseUrl: string; timeoutMs?: number; slowTimeoutMs?: number; clock?: Clock; timers?: Timers }) {
    this.#authorization = `Basic ${Buffer.from(`${opts.secretKey}:`).toString('base64')}`;
    this.#baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.#timeoutMs = opts.timeoutMs ?? 10_000;
    // The configuration refuses less than 60 s; tests may pass a shorter one for answers that never come.
    this.#slowTimeoutMs = opts.slowTimeoutMs ?? TOSS_SLOW_CALL_MIN_MS;
    this.#clock = opts.clock ?? systemClock;
    this.#timers = opts.timers ?? realTimers;
  }

  /** One Toss request, timed (commerce_gateway_request_duration_seconds) and, with tracing on, in its own span. */
  async #call(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown, idempotencyKey?: string, slow = false): Promise<Reply> {
    const operation = tossOperation(method, path);
    return withSpan(
      `toss ${operation}`,
      { 'gateway.name': 'toss', 'gateway.operation': operation, 'http.request.method': method },
      async (span) => {
        const started = performance.now();
        const reply = await this.#exchange(method, path, body, idempotencyKey, slow);
        gatewayDuration.labels('toss', operation, reply.kind).observe((performance.now() - started) / 1000);
        span.setAttributes({ 'gateway.outcome': reply.kind, 'gateway.error_code': reply.kind === 'error' ? reply.code : undefined });
        if (reply.kind !== 'ok') span.fail(reply.kind === 'error' ? reply.code : 'no usable answer');
        return reply;
      },
      'client',
    );
  }

  async #exchange(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown, idempotencyKey?: string, slow = false): Promise<Reply> {
    const headers: Record<string, string> = { Authorization: this.#authorization, Accept: 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (idempotencyKey) headers['Idempotency-Key'] = idempotencyKey;
    const controller = new AbortController();
    const timer = this.#timers.setTimeout(() => controller.abort(), slow ? this.#slowTimeoutMs : this.#timeoutMs);
    let status: number;
    let text: string;
    try {
      const res = await fetch(`${this.#baseUrl}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: controller.signal,
        // A redirect is not part of the API; following one could replay a POST elsewhere. It reads as unknown.
        redirect: 'manual',
      });
      status = res.status;
      // The body is read under the same deadline: a gateway that sends headers and then stalls is a timeout too.
      text = await res.text();
    } catch (err) {
      const timedOut = controller.signal.aborted;
      return { kind: 'unknown', message: timedOut ? `${UNKNOWN} (응답 시간 초과)` : `${UNKNOWN} (연결 오류: ${(err as Error).message})` };
    } finally {
      this.#timers.clearTimeout(timer);
    }
    // DELETE answers may carry no body; an empty 2xx is a plain success.
    if (status >= 200 && status < 300 && text.trim() === '') return { kind: 'ok', body: null };
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return { kind: 'unknown', message: `${UNKNOWN} (HTTP ${status}, 해석할 수 없는 응답)` };
    }
    if (status >= 200 && status < 300) return { kind: 'ok', body: parsed };
    const err = tossError(parsed);
    if (status >= 500 || !err || status < 400 || TOSS_AMBIGUOUS_CODES.has(err.code)) {
      return { kind: 'unknown', message: `${UNKNOWN} (HTTP ${status}${err ? ` ${err.code}: ${err.message}` : ''})` };
    }
    return { kind: 'error', httpStatus: status, code: err.code, message: err.message };
  }

  async #getPayment(path: string): Promise<Outcome<TossPayment>> {
    const reply = await this.#call('GET', path);
    if (reply.kind === 'unknown') return { status: 'unknown', message: reply.message };
    if (reply.kind === 'error') return { status: 'failed', code: reply.code, message: reply.message };
    return isPayment(reply.body) ? { status: 'succeeded', value: reply.body } : { status: 'unknown', message: `${UNKNOWN} (결제 정보 형식 오류)` };
  }

  /** A Payment answer to confirm/charge, held against what we asked for. */
  #approved(p: TossPayment, expected: { orderId: string; amount: number }): Outcome<ConfirmResult> {
    if (p.totalAmount !== expected.amount) {
      return { status: 'failed', code: 'AMOUNT_MISMATCH', message: `결제사 승인 금액(${p.totalAmount}원)이 주문 금액(${expected.amount}원)과 다릅니다.` };
    }
    if (p.orderId !== expected.orderId) {
      return { status: 'failed', code: 'ORDER_MISMATCH', message: '결제사 응답의 주문 번호가 요청과 다릅니다.' };
    }
    const status = mapTossStatus(p.status);
    // 가상계좌: confirm issues the account (WAITING_FOR_DEPOSIT) and nothing is paid until DEPOSIT_CALLBACK
    // (https://docs.tosspayments.com/guides/learn/virtual-account-webhook).
    if (p.status === 'WAITING_FOR_DEPOSIT' && p.virtualAccount) {
      const dueAt = new Date(p.virtualAccount.dueDate ?? '');
      if (!p.virtualAccount.accountNumber || !p.virtualAccount.bankCode || Number.isNaN(dueAt.getTime())) return { status: 'unknown', message: `${UNKNOWN} (가상계좌 정보 형식 오류)` };
      return {
        status: 'succeeded',
        value: {
          paymentKey: p.paymentKey,
          approvedAt: this.#clock.now(),
          method: 'virtual_account',
          installmentMonths: null,
          awaitingDeposit: { bankCode: p.virtualAccount.bankCode, accountNumber: p.virtualAccount.accountNumber, holderName: p.virtualAccount.customerName ?? null, dueAt, secret: p.secret ?? null },
        },
      };
    }
    // DONE, or already (partly) canceled afterwards: either way it was approved.
    if (status !== 'paid' && status !== 'partially_canceled' && status !== 'canceled') {
      return status === 'failed'
        ? { status: 'failed', code: `PAYMENT_${p.status}`, message: '결제가 승인되지 않았습니다.' }
        : { status: 'unknown', message: `${UNKNOWN} (결제 상태: ${p.status})` };
    }
    const approvedAt = p.approvedAt ? new Date(p.approvedAt) : null;
    return {
      status: 'succeeded',
      value: {
        paymentKey: p.paymentKey,
        approvedAt: approvedAt && !Number.isNaN(approvedAt.getTime()) ? approvedAt : this.#clock.now(),
        method: mapTossMethod(p),
        // Toss's Payment.card.installmentPlanMonths: 0 for 일시불; absent for wallets paid without a card.
        installmentMonths: typeof p.card?.installmentPlanMonths === 'number' ? p.card.installmentPlanMonths : null,
        // 계좌이체: the 현금영수증 the buyer chose in the window is issued with the payment (Payment.cashReceipt).
        cashReceipt: cashReceiptOf(p),
      },
    };
  }

  async confirmPayment(input: ConfirmInput): Promise<Outcome<ConfirmResult>> {
    const reply = await this.#call('POST', '/v1/payments/confirm', { paymentKey: input.paymentKey, orderId: input.orderId, amount: input.amount }, input.idempotencyKey);
    if (reply.kind === 'unknown') return { status: 'unknown', message: reply.message };
    if (reply.kind === 'ok') {
      return isPayment(reply.body) ? this.#approved(reply.body, input) : { status: 'unknown', message: `${UNKNOWN} (결제 정보 형식 오류)` };
    }
    if (reply.code === 'ALREADY_PROCESSED_PAYMENT') {
      // Most likely our own earlier confirm whose answer was lost: the payment itself says whether it went through.
      return this.#settleAlreadyProcessed(await this.#getPayment(`/v1/payments/${encodeURIComponent(input.paymentKey)}`), input, reply);
    }
    return { status: 'failed', code: reply.code, message: reply.message };
  }

  /** After "already processed": approved for exactly this order and amount → succeeded; ended unpaid → failed; else unknown. */
  #settleAlreadyProcessed(
    found: Outcome<TossPayment>,
    expected: { orderId: string; amount: number },
    reply: { code: string; message: string },
  ): Outcome<ConfirmResult> {
    if (found.status !== 'succeeded') return { status: 'unknown', message: found.message };
    const approved = this.#approved(found.value, expected);
    if (approved.status === 'succeeded') return approved;
    if (mapTossStatus(found.value.status) === 'failed' && found.value.orderId === expected.orderId) {
      return { status: 'failed', code: reply.code, message: reply.message };
    }
    return { status: 'unknown', message: `${UNKNOWN} (이미 처리된 결제: ${found.value.status}, ${found.value.totalAmount}원)` };
  }

  async refund(input: RefundInput): Promise<Outcome<RefundResult>> {
    const path = `/v1/payments/${encodeURIComponent(input.paymentKey)}/cancel`;
    // Toss refuses a cancelReason over 200 characters; the full reason stays on our refund record. No
    // `refundableAmount`: Toss deprecated it ("이 파라미터는 더 이상 사용을 권장하지 않습니다. 안전하게 취소하려면 멱등키를
    // 대신 사용해주세요", https://docs.tosspayments.com/reference#결제-취소); the Idempotency-Key below keeps a retried
    // cancel from cancelling twice, and a cancel that exceeds the balance Toss holds is refused (NOT_CANCELABLE_AMOUNT).
    const body: Record<string, unknown> = { cancelReason: tossCancelReason(input.reason), cancelAmount: input.amount };
    // A deposited 가상계좌 goes back to the buyer's own account (https://docs.tosspayments.com/reference#결제-취소,
    // refundReceiveAccount { bank, accountNumber, holderName }).
    if (input.refundReceiveAccount) {
      body.refundReceiveAccount = { bank: input.refundReceiveAccount.bankCode, accountNumber: input.refundReceiveAccount.accountNumber, holderName: input.refundReceiveAccount.holderName };
    }
    const reply = await this.#call('POST', path, body, input.idempotencyKey);
    if (reply.kind === 'unknown') return { status: 'unknown', message: reply.message };
    if (reply.kind === 'ok') {
      if (!isPayment(reply.body)) return { status: 'unknown', message: `${UNKNOWN} (결제 정보 형식 오류)` };
      return { status: 'succeeded', value: { refundedAt: this.#lastCancelAt(reply.body), balanceAmount: reply.body.balanceAmount } };
    }
    if (reply.code === 'ALREADY_CANCELED_PAYMENT') {
      // "Already canceled" may be this very refund, retried after a lost answer: believe it only when the cancel is there.
      const found = await this.#getPayment(`/v1/payments/${encodeURIComponent(input.paymentKey)}`);
      if (found.status !== 'succeeded') return { status: 'unknown', message: found.message };
      // Toss does not echo our idempotency key in `cancels`, so amount and reason (as sent) identify this refund.
      const sentReason = tossCancelReason(input.reason);
      const cancel = [...(found.value.cancels ?? [])]
        .reverse()
        .find((c) => c.cancelAmount === input.amount && (c.cancelReason ?? sentReason) === sentReason && (c.cancelStatus ?? 'DONE') === 'DONE');
      if (!cancel) return { status: 'unknown', message: `${UNKNOWN} (이미 취소된 결제이나 이 환불 금액의 취소 내역이 없습니다)` };
      const at = cancel.canceledAt ? new Date(cancel.canceledAt) : null;
      return { status: 'succeeded', value: { refundedAt: at && !Number.isNaN(at.getTime()) ? at : this.#clock.now(), balanceAmount: found.value.balanceAmount } };
    }
    return { status: 'failed', code: reply.code, message: reply.message };
  }

  /**
   * POST /v1/cash-receipts (https://docs.tosspayments.com/reference#현금영수증-발급-요청; body amount, orderId, orderName,
   * customerIdentityNumber, type 소득공제 | 지출증빙, taxFreeAmount; the answer is a CashReceipt with receiptKey,
   * issueNumber, receiptUrl, amount). The Idempotency-Key makes a retry after a lost answer the same issue.
   */
  async issueCashReceipt(input: IssueCashReceiptInput): Promise<Outcome<CashReceiptIssued>> {
    const body = { amount: input.amount, orderId: input.orderId, orderName: input.orderName.slice(0, 100), customerIdentityNumber: input.identity, type: input.type, taxFreeAmount: 0 };
    const reply = await this.#call('POST', '/v1/cash-receipts', body, input.idempotencyKey);
    if (reply.kind === 'unknown') return { status: 'unknown', message: reply.message };
    if (reply.kind === 'error') return { status: 'failed', code: reply.code, message: reply.message };
    const issued = cashReceiptOf({ cashReceipt: reply.body as TossPayment['cashReceipt'] });
    if (!issued) return { status: 'unknown', message: `${UNKNOWN} (현금영수증 형식 오류)` };
    return { status: 'succeeded', value: issued };
  }

  /**
   * POST /v1/cash-receipts/{receiptKey}/cancel (https://docs.tosspayments.com/reference#현금영수증-발급-취소-요청):
   * `amount` cancels that much, none cancels the whole receipt ("요청할 때 amount 값을 따로 보내지 않으면 전액 취소됩니다").
   */
  async cancelCashReceipt(input: CancelCashReceiptInput): Promise<Outcome<{ canceledAt: Date }>> {
    const body = input.amount === undefined ? {} : { amount: input.amount };
    const reply = await this.#call('POST', `/v1/cash-receipts/${encodeURIComponent(input.receiptKey)}/cancel`, body, input.idempotencyKey);
    if (reply.kind === 'unknown') return { status: 'unknown', message: reply.message };
    if (reply.kind === 'error') return { status: 'failed', code: reply.code, message: reply.message };
    const at = typeof (reply.body as { requestedAt?: unknown })?.requestedAt === 'string' ? new Date((reply.body as { requestedAt: string }).requestedAt) : null;
    return { status: 'succeeded', value: { canceledAt: at && !Number.isNaN(at.getTime()) ? at : this.#clock.now() } };
  }

  #lastCancelAt(p: TossPayment): Date {
    const last = p.cancels?.length ? p.cancels[p.cancels.length - 1] : null;
    const at = last?.canceledAt ? new Date(last.canceledAt) : null;
    return at && !Number.isNaN(at.getTime()) ? at : this.#clock.now();
  }

  async lookupPayment(paymentKey: string): Promise<Outcome<PaymentLookup>> {
    const found = await this.#getPayment(`/v1/payments/${encodeURIComponent(paymentKey)}`);
    return found.status === 'succeeded' ? { status: 'succeeded', value: lookupOf(found.value) } : found;
  }

  async lookupPaymentByOrderId(orderId: string): Promise<Outcome<PaymentLookup>> {
    const found = await this.#getPayment(`/v1/payments/orders/${encodeURIComponent(orderId)}`);
    return found.status === 'succeeded' ? { status: 'succeeded', value: lookupOf(found.value) } : found;
  }

  /**
   * Looks up a payment by an order id nobody ever used (GET /v1/payments/orders/{orderId}): a read that changes
   * nothing. 404 NOT_FOUND_PAYMENT means Toss authenticated the key and found no such payment, so the key is
   * accepted; 401 UNAUTHORIZED_KEY (or 400 INVALID_API_KEY) means Toss refused the key
   * (https://docs.tosspayments.com/reference/error-codes). Anything else proves nothing either way: unknown.
   */
  async verifyCredentials(): Promise<Outcome<CredentialsCheck>> {
    const probe = `keycheck_${randomBytes(12).toString('hex')}`;
    const reply = await this.#call('GET', `/v1/payments/orders/${probe}`);
    if (reply.kind === 'unknown') return { status: 'unknown', message: reply.message };
    if (reply.kind === 'ok' || reply.code === 'NOT_FOUND_PAYMENT') return { status: 'succeeded', value: { checkedAt: this.#clock.now() } };
    if (reply.httpStatus === 401 || reply.code === 'UNAUTHORIZED_KEY' || reply.code === 'INVALID_API_KEY') {
      return { status: 'failed', code: reply.code, message: reply.message };
    }
    return { status: 'unknown', message: `${UNKNOWN} (HTTP ${reply.httpStatus} ${reply.code}: ${reply.message})` };
  }

  async issueBillingKey(input: IssueBillingKeyInput): Promise<Outcome<BillingKeyResult>> {
    // An authKey is single-use, so (customerKey, authKey) names one issue: retries after a lost answer get the same key.
    const idempotencyKey = input.idempotencyKey ?? `billing-issue-${createHash('sha256').update(`${input.customerKey}:${input.authKey}`).digest('hex').slice(0, 48)}`;
    const reply = await this.#call('POST', '/v1/billing/authorizations/issue', { authKey: input.authKey, customerKey: input.customerKey }, idempotencyKey);
    if (reply.kind === 'unknown') return { status: 'unknown', message: reply.message };
    if (reply.kind === 'error') return { status: 'failed', code: reply.code, message: reply.message };
    if (!isBilling(reply.body)) return { status: 'unknown', message: `${UNKNOWN} (빌링키 응답 형식 오류)` };
    return { status: 'succeeded', value: { billingKey: reply.body.billingKey, cardSummary: cardSummary(reply.body) } };
  }

  async chargeBillingKey(input: {
    billingKey: string;
    customerKey: string;
    amount: number;
    orderId: string;
    orderName: string;
    idempotencyKey: string;
  }): Promise<Outcome<ConfirmResult>> {
    const body = { customerKey: input.customerKey, amount: input.amount, orderId: input.orderId, orderName: input.orderName };
    const reply = await this.#call('POST', `/v1/billing/${encodeURIComponent(input.billingKey)}`, body, input.idempotencyKey, true);
    if (reply.kind === 'unknown') return { status: 'unknown', message: reply.message };
    if (reply.kind === 'ok') {
      return isPayment(reply.body) ? this.#approved(reply.body, input) : { status: 'unknown', message: `${UNKNOWN} (결제 정보 형식 오류)` };
    }
    if (reply.code === 'ALREADY_PROCESSED_PAYMENT' || reply.code === 'DUPLICATED_ORDER_ID') {
      // Our order ids are unique per charge, so either answer means an earlier attempt of this very charge got there;
      // we hold no payment key for it yet, so the order id finds it.
      return this.#settleAlreadyProcessed(await this.#getPayment(`/v1/payments/orders/${encodeURIComponent(input.orderId)}`), input, reply);
    }
    return { status: 'failed', code: reply.code, message: reply.message };
  }

  /**
   * DELETE /v1/billing/{billingKey}: the card stops being chargeable at Toss. A key Toss no longer knows
   * (NOT_FOUND_BILLING) is as deleted as it gets, so that reads as succeeded too.
   */
  async deleteBillingKey(input: { billingKey: string }): Promise<Outcome<{ deleted: true }>> {
    const reply = await this.#call('DELETE', `/v1/billing/${encodeURIComponent(input.billingKey)}`);
    if (reply.kind === 'unknown') return { status: 'unknown', message: reply.message };
    if (reply.kind === 'error') {
      if (reply.code === 'NOT_FOUND_BILLING' || reply.code === 'NOT_FOUND') return { status: 'succeeded', value: { deleted: true } };
      return { status: 'failed', code: reply.code, message: reply.message };
    }
    return { status: 'succeeded', value: { deleted: true } };
  }

  /**
   * GET /v1/transactions?startDate&endDate[&startingAfter]&limit: one page of the approvals and cancels Toss recorded
   * in the range (by transactionAt), oldest first. Toss answers a plain array; a full page means another may follow,
   * asked for with `startingAfter` = the last transactionKey. Read-only, so any failure is just "not now": 4xx → failed
   * with Toss's code (INVALID_TRANSACTION_KEY for a bad cursor), the rest unknown.
   */
  async listTransactions(input: ListTransactionsInput): Promise<Outcome<TransactionPage>> {
    const q = new URLSearchParams({ startDate: tossKstDateTime(input.startDate), endDate: tossKstDateTime(input.endDate) });
    if (input.startingAfter) q.set('startingAfter', input.startingAfter);
    q.set('limit', String(input.limit));
    const reply = await this.#call('GET', `/v1/transactions?${q}`, undefined, undefined, true);
    if (reply.kind === 'unknown') return { status: 'unknown', message: reply.message };
    if (reply.kind === 'error') return { status: 'failed', code: reply.code, message: reply.message };
    if (!Array.isArray(reply.body) || !reply.body.every(isTransaction)) return { status: 'unknown', message: `${UNKNOWN} (거래 내역 형식 오류)` };
    const transactions = reply.body.map((t) => ({
      transactionKey: t.transactionKey,
      paymentKey: t.paymentKey,
      orderId: t.orderId,
      kind: t.status === 'DONE' ? ('approval' as const) : t.status === 'CANCELED' || t.status === 'PARTIAL_CANCELED' ? ('cancel' as const) : ('other' as const),
      status: t.status,
      amount: t.amount,
      transactionAt: new Date(t.transactionAt),
    }));
    const full = transactions.length >= input.limit && transactions.length > 0;
    return { status: 'succeeded', value: { transactions, nextStartingAfter: full ? transactions[transactions.length - 1].transactionKey : null } };
  }

  /**
   * GET /v1/settlements?startDate&endDate&dateType&page&size (https://docs.tosspayments.com/reference#정산-조회,
   * https://docs.tosspayments.com/guides/apis/settlements): one page of Toss's settlement records, by 정산 매출일
   * (soldDate, default) or 정산 지급일 (paidOutDate). Dates only (records are kept by date). Like transactions it may
   * take up to 60 s ("정산 조회는 최대 60초가 소요됩니다"), so it runs on the slow deadline. Read-only.
   */
  async listSettlements(input: ListSettlementsInput): Promise<Outcome<GatewaySettlement[]>> {
    const q = new URLSearchParams({ startDate: input.startDate, endDate: input.endDate });
    if (input.dateType) q.set('dateType', input.dateType);
    q.set('page', String(input.page));
    q.set('size', String(input.size));
    const reply = await this.#call('GET', `/v1/settlements?${q}`, undefined, undefined, true);
    if (reply.kind === 'unknown') return { status: 'unknown', message: reply.message };
    if (reply.kind === 'error') return { status: 'failed', code: reply.code, message: reply.message };
    if (!Array.isArray(reply.body) || !reply.body.every(isSettlement)) return { status: 'unknown', message: `${UNKNOWN} (정산 내역 형식 오류)` };
    return { status: 'succeeded', value: reply.body.map(settlementOf) };
  }
}
