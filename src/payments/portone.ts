/**
 * PortOne V2 (https://developers.portone.io, API https://api.portone.io) as one PaymentProvider, through PortOne's
 * official server SDK. PortOne sits in front of the seller's own PG contract (KG이니시스, NICE페이먼츠, KCP …).
 *
 * Identity: our order id is PortOne's `paymentId` (the buyer's browser SDK call `PortOne.requestPayment({ paymentId })`
 * and the server's billing-key payment both use it), and PortOne takes a payment at most once per paymentId (a second
 * attempt is refused with ALREADY_PAID). So the "payment key" this provider hands out is the paymentId itself.
 *
 * Nothing the browser or a webhook says is believed: a one-off payment is confirmed by reading it back
 * (GET /payments/{paymentId}) and holding status, amount and currency against our order; a webhook only names a
 * paymentId to read back (portone-webhook.ts). Every end of a call is succeeded / failed / unknown as provider.ts
 * describes; "unknown" answers (timeouts, 5xx, unparsable bodies) are settled by reading the payment back by paymentId.
 */
import { createHash, randomBytes } from 'node:crypto';
import { systemClock, type Clock } from '../platform/clock';
import type { PaymentMethod } from './method';
import type {
  BillingKeyResult,
  CancelCashReceiptInput,
  CashReceiptIssued,
  ConfirmInput,
  ConfirmResult,
  CredentialsCheck,
  GatewaySettlement,
  GatewayTransaction,
  IssueBillingKeyInput,
  IssueCashReceiptInput,
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
import { PORTONE_SLOW_CALL_MIN_MS, PORTONE_UNKNOWN, PortOneClient, realPortOneTimers, type PortOneReply, type PortOneTimers } from './portone-http';
import { cancellableOf, isPortOnePayment, lookupOfPortOne, mapPortOneMethod, paidAtOf, portOneBankOf, virtualAccountOf, type PortOnePayment } from './portone-model';

/** A 가상계좌 whose expiry PortOne does not report is treated as due 7 days after issue (the provider interface needs a date). */
const DEFAULT_VIRTUAL_ACCOUNT_DAYS = 7;

/** The refund reference appended to a cancel's reason, e.g. `[ref:3f9a1c02be]`: how a retried refund finds its first attempt. */
export function portOneRefundRef(idempotencyKey: string): string {
  return `[ref:${createHash('sha256').update(idempotencyKey).digest('hex').slice(0, 10)}]`;
}

/** PortOne takes the cancel reason as free text; we keep it short (as Toss's 200 characters) with the reference after it. */
export const PORTONE_CANCEL_REASON_MAX = 200;
export function portOneCancelReason(reason: string, idempotencyKey: string): string {
  const ref = portOneRefundRef(idempotencyKey);
  const room = PORTONE_CANCEL_REASON_MAX - ref.length - 1;
  const chars = Array.from(reason);
  return `${chars.length <= room ? reason : chars.slice(0, room).join('')} ${ref}`;
}

export interface PortOneProviderOptions {
  /** PortOne's V2 API Secret (콘솔 › 결제 연동 › 연동 정보 › API Keys). */
  apiSecret: string;
  /** PortOne's store id (`store-…`). */
  storeId: string;
  /** PortOne's API origin; tests point it at the fake. */
  baseUrl: string;
  /** Confirm lookups, cancels, billing-key reads and deletes (default 10 s). */
  timeoutMs?: number;
  /** Billing-key payments and the payment-event ledger (default and minimum in production: 60 s). */
  slowTimeoutMs?: number;
  /**
   * The store's mode. In live mode a payment made on one of PortOne's TEST channels (SelectedChannel.type 'TEST': the
   * PG moved no money) is refused, so test keys left in live settings can never mark an order paid.
   */
  mode?: 'live' | 'test';
  clock?: Clock;
  timers?: PortOneTimers;
}

/** PortOne V2 as a PaymentProvider ('portone' in PaymentProviderName, traits in registry.ts). */
export class PortOneProvider implements PaymentProvider {
  readonly name = 'portone' as const;
  readonly ledger = 'gateway' as const;
  /** PortOne's browser SDK opens the PG's window; its redirect brings back the paymentId (our order id). */
  readonly paymentEntry: PaymentEntry = { kind: 'gateway_window' };
  /** Billing keys are issued for cards (`requestIssueBillingKey({ billingKeyMethod: 'CARD' })`). */
  readonly billingKeyMethods: readonly PaymentMethod[] = ['card'];
  readonly #client: PortOneClient;
  readonly #mode: 'live' | 'test';

  constructor(opts: PortOneProviderOptions) {
    this.#mode = opts.mode ?? 'test';
    this.#client = new PortOneClient({
      apiSecret: opts.apiSecret,
      storeId: opts.storeId,
      baseUrl: opts.baseUrl,
      timeoutMs: opts.timeoutMs ?? 10_000,
      slowTimeoutMs: opts.slowTimeoutMs ?? PORTONE_SLOW_CALL_MIN_MS,
      clock: opts.clock ?? systemClock,
      timers: opts.timers ?? realPortOneTimers,
    });
  }

  /** GET /payments/{paymentId}: the Payment as PortOne holds it now. */
  async #read(paymentId: string): Promise<Outcome<PortOnePayment>> {
    const reply = await this.#client.call('get_payment', (api) => api.getPayment({ paymentId, storeId: this.#client.storeId }));
    if (reply.kind === 'unknown') return { status: 'unknown', message: reply.message };
    if (reply.kind === 'error') return { status: 'failed', code: reply.type, message: reply.message };
    if (!isPortOnePayment(reply.body)) return { status: 'unknown', message: `${PORTONE_UNKNOWN} (결제 정보 형식 오류)` };
    // A payment of another store under the same secret is not this store's payment.
    if (reply.body.storeId && reply.body.storeId !== this.#client.storeId) return { status: 'failed', code: 'PAYMENT_NOT_FOUND', message: '이 상점의 결제가 아닙니다.' };
    return { status: 'succeeded', value: reply.body };
  }

  /**
   * A paid (or issued) payment held against what we expect. A payment PortOne took for another amount or currency is
   * refused — and, since the money was taken (the browser SDK completes the payment before we hear of it), cancelled
   * in full, guarded by its cancellable amount, so the buyer is not charged for an order we will not fulfil.
   */
  async #approved(p: PortOnePayment, expected: { orderId: string; amount: number }): Promise<Outcome<ConfirmResult>> {
    if (p.id !== expected.orderId) return { status: 'failed', code: 'ORDER_MISMATCH', message: '포트원 결제 번호가 주문 번호와 다릅니다.' };
    if (this.#mode === 'live' && p.channel?.type !== 'LIVE') {
      return { status: 'failed', code: 'TEST_CHANNEL_PAYMENT', message: '테스트 채널로 결제된 건은 실연동 모드에서 받을 수 없습니다. 포트원 콘솔의 실연동 채널 키를 설정해 주세요.' };
    }
    const method = mapPortOneMethod(p);
    const wrongAmount = p.amount.total !== expected.amount || p.currency !== 'KRW';
    const paidish = p.status === 'PAID' || p.status === 'PARTIAL_CANCELLED' || p.status === 'CANCELLED';
    if ((p.status === 'PAID' || p.status === 'VIRTUAL_ACCOUNT_ISSUED') && (wrongAmount || !method)) {
      if (p.status === 'PAID') await this.#cancelRefused(p, wrongAmount ? '결제 금액 불일치로 자동 취소' : '지원하지 않는 결제수단으로 자동 취소');
      return wrongAmount
        ? { status: 'failed', code: 'AMOUNT_MISMATCH', message: `포트원 결제 금액(${p.amount.total.toLocaleString('ko-KR')} ${p.currency})이 주문 금액(${expected.amount.toLocaleString('ko-KR')}원)과 다릅니다.` }
        : { status: 'failed', code: 'UNSUPPORTED_METHOD', message: '이 상점에서 받지 않는 결제수단입니다.' };
    }
    if (p.status === 'VIRTUAL_ACCOUNT_ISSUED') {
      const now = this.#client.clock.now();
      const account = virtualAccountOf(p, new Date(now.getTime() + DEFAULT_VIRTUAL_ACCOUNT_DAYS * 86_400_000));
      if (!account) return { status: 'unknown', message: `${PORTONE_UNKNOWN} (가상계좌 정보 없음)` };
      return { status: 'succeeded', value: { paymentKey: p.id, approvedAt: now, method: 'virtual_account', installmentMonths: null, awaitingDeposit: account } };
    }
    if (paidish) {
      // Already (partly) cancelled afterwards: it was approved for what it was approved for.
      if (wrongAmount) return { status: 'failed', code: 'AMOUNT_MISMATCH', message: `포트원 결제 금액(${p.amount.total}원)이 주문 금액(${expected.amount}원)과 다릅니다.` };
      return {
        status: 'succeeded',
        value: {
          paymentKey: p.id,
          approvedAt: paidAtOf(p) ?? this.#client.clock.now(),
          method: method ?? 'card',
          installmentMonths: p.method?.type === 'PaymentMethodCard' ? (p.method.installment?.month ?? 0) : null,
          cashReceipt: null,
        },
      };
    }
    if (p.status === 'FAILED') return { status: 'failed', code: p.failure?.pgCode ? `PG_${p.failure.pgCode}` : 'PAYMENT_FAILED', message: p.failure?.pgMessage || p.failure?.reason || '결제가 승인되지 않았습니다.' };
    // READY: the window was opened and nothing was paid (the redirect's "success" is not PortOne's word).
    if (p.status === 'READY') return { status: 'failed', code: 'PAYMENT_NOT_PAID', message: '결제가 완료되지 않았습니다.' };
    // PAY_PENDING (the PG is still approving) or a status we do not know: look again later.
    return { status: 'unknown', message: `${PORTONE_UNKNOWN} (결제 상태: ${p.status})` };
  }

  async #cancelRefused(p: PortOnePayment, reason: string): Promise<void> {
    // Best effort: if this fails, reconciliation finds a PAID payment with no paid order and reports it.
    await this.#client.call('cancel', (api) => api.cancelPayment({ paymentId: p.id, storeId: this.#client.storeId, reason, currentCancellableAmount: cancellableOf(p), requester: 'ADMIN' }));
  }

  /**
   * Confirms a one-off payment by reading it back. `paymentKey` is what the redirect carried (PortOne's `paymentId`);
   * it must be our order id. Reading is idempotent, so double submits and retries all see the one payment.
   */
  async confirmPayment(input: ConfirmInput): Promise<Outcome<ConfirmResult>> {
    if (input.paymentKey !== input.orderId) return { status: 'failed', code: 'ORDER_MISMATCH', message: '포트원 결제 번호가 주문 번호와 다릅니다.' };
    const found = await this.#read(input.orderId);
    if (found.status === 'unknown') return found;
    if (found.status === 'failed') {
      return found.code === 'PAYMENT_NOT_FOUND' ? { status: 'failed', code: 'PAYMENT_NOT_FOUND', message: '포트원에서 결제를 찾을 수 없습니다.' } : found;
    }
    return this.#approved(found.value, input);
  }

  /**
   * POST /payments/{paymentId}/cancel with `currentCancellableAmount` (the cancel happens only while the balance is
   * what we just read, CancelPaymentBody) and `refundAccount` for a deposited 가상계좌. PortOne takes no idempotency
   * key, so the reason carries a reference derived from ours; a retry (or the 409 of a lost first answer) finds the
   * cancellation with that reference and reports it instead of cancelling again.
   */
  async refund(input: RefundInput): Promise<Outcome<RefundResult>> {
    const ref = portOneRefundRef(input.idempotencyKey);
    const before = await this.#read(input.paymentKey);
    if (before.status !== 'succeeded') return before;
    const done = this.#findRefund(before.value, ref, input.amount);
    if (done) return done;
    const balance = cancellableOf(before.value);
    if (input.amount > balance) {
      return { status: 'failed', code: 'CANCEL_AMOUNT_EXCEEDS_CANCELLABLE_AMOUNT', message: `취소 가능 금액(${balance.toLocaleString('ko-KR')}원)보다 많이 환불할 수 없습니다.` };
    }
    let refundAccount: { bank: string; number: string; holderName: string } | undefined;
    if (input.refundReceiveAccount) {
      const bank = portOneBankOf(input.refundReceiveAccount.bankCode);
      if (!bank) return { status: 'failed', code: 'INVALID_REFUND_ACCOUNT_BANK', message: '포트원이 지원하지 않는 환불 은행입니다.' };
      refundAccount = { bank, number: input.refundReceiveAccount.accountNumber, holderName: input.refundReceiveAccount.holderName };
    }
    const reply = await this.#client.call('cancel', (api) =>
      api.cancelPayment({
        paymentId: input.paymentKey,
        storeId: this.#client.storeId,
        amount: input.amount,
        reason: portOneCancelReason(input.reason, input.idempotencyKey),
        currentCancellableAmount: balance,
        requester: 'ADMIN',
        // The SDK types `bank` as its Bank union; ours comes from PORTONE_BANKS, which holds only Bank values.
        ...(refundAccount ? { refundAccount: refundAccount as never } : {}),
      }),
    );
    if (reply.kind === 'ok') {
      const c = (reply.body as { cancellation?: { status?: string; cancelledAt?: string; reason?: string } }).cancellation;
      if (c?.status === 'SUCCEEDED') {
        const at = c.cancelledAt ? new Date(c.cancelledAt) : null;
        return { status: 'succeeded', value: { refundedAt: at && !Number.isNaN(at.getTime()) ? at : this.#client.clock.now(), balanceAmount: balance - input.amount } };
      }
      if (c?.status === 'FAILED') return { status: 'failed', code: 'CANCELLATION_FAILED', message: c.reason ?? '포트원이 취소를 거절했습니다.' };
      // REQUESTED: PortOne cancels asynchronously for some PGs; a later lookup shows whether it went through.
      return { status: 'unknown', message: `${PORTONE_UNKNOWN} (취소 요청 처리 중)` };
    }
    return this.#settleRefund(input, reply, ref);
  }

  #findRefund(p: PortOnePayment, ref: string, amount: number): Outcome<RefundResult> | null {
    const mine = (p.cancellations ?? []).find((c) => typeof c.reason === 'string' && c.reason.includes(ref) && c.totalAmount === amount);
    if (!mine) return null;
    if (mine.status === 'SUCCEEDED') {
      const at = mine.cancelledAt ? new Date(mine.cancelledAt) : null;
      return { status: 'succeeded', value: { refundedAt: at && !Number.isNaN(at.getTime()) ? at : this.#client.clock.now(), balanceAmount: cancellableOf(p) } };
    }
    if (mine.status === 'REQUESTED') return { status: 'unknown', message: `${PORTONE_UNKNOWN} (취소 요청 처리 중)` };
    // FAILED: that attempt did not cancel; a new attempt may.
    return null;
  }

  async #settleRefund(input: RefundInput, reply: Exclude<PortOneReply<unknown>, { kind: 'ok' }>, ref: string): Promise<Outcome<RefundResult>> {
    const ambiguous = reply.kind === 'unknown' || reply.type === 'CANCELLABLE_AMOUNT_CONSISTENCY_BROKEN' || reply.type === 'PAYMENT_ALREADY_CANCELLED' || reply.type === 'PG_PROVIDER';
    if (!ambiguous) return { status: 'failed', code: reply.type, message: reply.message };
    // The balance moved (our own lost first attempt, or another process), or the answer never came: look again.
    const after = await this.#read(input.paymentKey);
    if (after.status === 'succeeded') {
      const done = this.#findRefund(after.value, ref, input.amount);
      if (done) return done;
      if (reply.kind === 'error' && reply.type === 'PG_PROVIDER') return { status: 'failed', code: reply.pgCode ? `PG_${reply.pgCode}` : 'PG_PROVIDER', message: reply.message };
    }
    return { status: 'unknown', message: reply.kind === 'unknown' ? reply.message : `${PORTONE_UNKNOWN} (${reply.type})` };
  }

  async lookupPayment(paymentKey: string): Promise<Outcome<PaymentLookup>> {
    const found = await this.#read(paymentKey);
    return found.status === 'succeeded' ? { status: 'succeeded', value: lookupOfPortOne(found.value) } : found;
  }

  /** Our order id is the paymentId: the same read. */
  lookupPaymentByOrderId(orderId: string): Promise<Outcome<PaymentLookup>> {
    return this.lookupPayment(orderId);
  }

  /**
   * Reads a paymentId nobody ever used: 404 PAYMENT_NOT_FOUND means PortOne accepted the secret (and the store id);
   * UNAUTHORIZED / FORBIDDEN mean it refused them. Anything else proves nothing: unknown.
   */
  async verifyCredentials(): Promise<Outcome<CredentialsCheck>> {
    const probe = `keycheck_${randomBytes(12).toString('hex')}`;
    const reply = await this.#client.call('verify_credentials', (api) => api.getPayment({ paymentId: probe, storeId: this.#client.storeId }));
    if (reply.kind === 'unknown') return { status: 'unknown', message: reply.message };
    if (reply.kind === 'ok' || reply.type === 'PAYMENT_NOT_FOUND') return { status: 'succeeded', value: { checkedAt: this.#client.clock.now() } };
    if (reply.type === 'UNAUTHORIZED' || reply.type === 'FORBIDDEN') return { status: 'failed', code: reply.type, message: reply.message };
    return { status: 'unknown', message: `${PORTONE_UNKNOWN} (${reply.type})` };
  }

  /**
   * PortOne's browser SDK (`PortOne.requestIssueBillingKey`) hands the billing key to the buyer's browser; `authKey` is
   * that key. It is believed only after GET /billing-keys/{billingKey} shows it ISSUED for this store and customer.
   */
  async issueBillingKey(input: IssueBillingKeyInput): Promise<Outcome<BillingKeyResult>> {
    const reply = await this.#client.call('billing_key_get', (api) => api.billingKey.getBillingKeyInfo({ billingKey: input.authKey, storeId: this.#client.storeId }));
    if (reply.kind === 'unknown') return { status: 'unknown', message: reply.message };
    if (reply.kind === 'error') return { status: 'failed', code: reply.type, message: reply.message };
    const info = reply.body as { status?: string; billingKey?: string; storeId?: string; customer?: { id?: string }; methods?: Array<{ type?: string; card?: { name?: string; number?: string; publisher?: string } }> };
    if (info.status !== 'ISSUED' || info.billingKey !== input.authKey) return { status: 'failed', code: 'BILLING_KEY_NOT_ISSUED', message: '발급된 빌링키가 아닙니다.' };
    if (info.storeId !== this.#client.storeId) return { status: 'failed', code: 'BILLING_KEY_NOT_FOUND', message: '이 상점의 빌링키가 아닙니다.' };
    if (info.customer?.id !== input.customerKey) return { status: 'failed', code: 'CUSTOMER_MISMATCH', message: '빌링키의 고객 정보가 요청과 다릅니다.' };
    const card = info.methods?.find((m) => m.type === 'BillingKeyPaymentMethodCard')?.card;
    const summary = card ? [card.name ?? card.publisher, card.number ? `****${card.number.replace(/\D/g, '').slice(-4)}` : null].filter(Boolean).join(' ') || null : null;
    return { status: 'succeeded', value: { billingKey: info.billingKey, cardSummary: summary } };
  }

  /**
   * POST /payments/{paymentId}/billing-key on the slow deadline. The order id is the paymentId, so a retry of the same
   * charge is refused by PortOne (ALREADY_PAID) rather than charged twice; that answer, a PG refusal and a lost answer
   * are all settled by reading the payment back.
   */
  async chargeBillingKey(input: { billingKey: string; customerKey: string; amount: number; orderId: string; orderName: string; idempotencyKey: string }): Promise<Outcome<ConfirmResult>> {
    const reply = await this.#client.call(
      'billing_charge',
      (api) =>
        api.payWithBillingKey({
          paymentId: input.orderId,
          storeId: this.#client.storeId,
          billingKey: input.billingKey,
          orderName: input.orderName,
          customer: { id: input.customerKey },
          amount: { total: input.amount },
          currency: 'KRW',
        }),
      true,
    );
    if (reply.kind === 'error' && reply.type !== 'ALREADY_PAID' && reply.type !== 'PG_PROVIDER') return { status: 'failed', code: reply.type, message: reply.message };
    const found = await this.#read(input.orderId);
    if (found.status === 'succeeded') {
      if (found.value.billingKey && found.value.billingKey !== input.billingKey) return { status: 'unknown', message: `${PORTONE_UNKNOWN} (다른 빌링키로 결제된 주문 번호)` };
      const result = await this.#approved(found.value, input);
      if (result.status !== 'unknown') return result;
    }
    if (reply.kind === 'ok') {
      // PortOne said paid (PayWithBillingKeyResponse.payment.paidAt); the read-back did not answer: trust our own call's answer.
      const paidAt = new Date((reply.body as { payment?: { paidAt?: string } }).payment?.paidAt ?? '');
      return { status: 'succeeded', value: { paymentKey: input.orderId, approvedAt: Number.isNaN(paidAt.getTime()) ? this.#client.clock.now() : paidAt, method: 'card', installmentMonths: 0 } };
    }
    if (reply.kind === 'error' && reply.type === 'PG_PROVIDER' && found.status === 'failed' && found.code === 'PAYMENT_NOT_FOUND') {
      return { status: 'failed', code: reply.pgCode ? `PG_${reply.pgCode}` : 'PG_PROVIDER', message: reply.message };
    }
    return { status: 'unknown', message: reply.kind === 'unknown' ? reply.message : found.status !== 'succeeded' ? found.message : `${PORTONE_UNKNOWN} (${reply.type})` };
  }

  /** DELETE /billing-keys/{billingKey}; already deleted or unknown to PortOne counts as deleted. */
  async deleteBillingKey(input: { billingKey: string; why?: 'ended' | 'replaced' }): Promise<Outcome<{ deleted: true }>> {
    const reason = input.why === 'replaced' ? '결제 카드 변경' : '구독 종료';
    const reply = await this.#client.call('billing_delete', (api) => api.billingKey.deleteBillingKey({ billingKey: input.billingKey, storeId: this.#client.storeId, reason }));
    if (reply.kind === 'ok') return { status: 'succeeded', value: { deleted: true } };
    if (reply.kind === 'unknown') return { status: 'unknown', message: reply.message };
    if (reply.type === 'BILLING_KEY_ALREADY_DELETED' || reply.type === 'BILLING_KEY_NOT_FOUND') return { status: 'succeeded', value: { deleted: true } };
    if (reply.type === 'PG_PROVIDER' || reply.type === 'CHANNEL_SPECIFIC') return { status: 'unknown', message: `${PORTONE_UNKNOWN} (${reply.type}: ${reply.message})` };
    return { status: 'failed', code: reply.type, message: reply.message };
  }

  /**
   * The approvals and cancels PortOne recorded in a time range: GET /payment-events-by-cursor (`from` / `until`,
   * `cursor`, `size` ≤ 1000; GetAllPaymentEventsByCursorBody), whose items are PaidPaymentEvent,
   * PartialCancelledPaymentEvent and CancelledPaymentEvent, each with its `createdAt` and `eventAmount`: one ledger
   * line per approval (a 가상계좌 deposit included) and per cancel, like Toss's transactions. `startingAfter` is
   * PortOne's opaque cursor. Read-only, on the slow deadline. (PortOne marks this endpoint experimental; GET /payments
   * filtered by time covers payments, not their later cancels.)
   */
  async listTransactions(input: ListTransactionsInput): Promise<Outcome<TransactionPage>> {
    const size = Math.min(Math.max(1, input.limit), 1000);
    const reply = await this.#client.call(
      'transactions',
      (api) => api.getAllPaymentEventsByCursor({ storeId: this.#client.storeId, from: input.startDate.toISOString(), until: input.endDate.toISOString(), cursor: input.startingAfter, size }),
      true,
    );
    if (reply.kind === 'unknown') return { status: 'unknown', message: reply.message };
    if (reply.kind === 'error') return { status: 'failed', code: reply.type, message: reply.message };
    const items = (reply.body as { items?: unknown }).items;
    if (!Array.isArray(items)) return { status: 'unknown', message: `${PORTONE_UNKNOWN} (거래 내역 형식 오류)` };
    const transactions: GatewayTransaction[] = [];
    let lastCursor: string | null = null;
    for (const item of items as Array<{ cursor?: unknown; paymentEvent?: Record<string, unknown> }>) {
      const e = item.paymentEvent;
      if (!e || typeof e.type !== 'string' || typeof e.id !== 'string' || typeof e.paymentId !== 'string' || typeof e.eventAmount !== 'number' || typeof e.createdAt !== 'string' || typeof item.cursor !== 'string') {
        return { status: 'unknown', message: `${PORTONE_UNKNOWN} (거래 내역 형식 오류)` };
      }
      lastCursor = item.cursor;
      transactions.push({
        transactionKey: e.id,
        paymentKey: e.paymentId,
        orderId: e.paymentId,
        kind: e.type === 'PAID' ? 'approval' : e.type === 'CANCELLED' || e.type === 'PARTIAL_CANCELLED' ? 'cancel' : 'other',
        status: e.type,
        amount: Math.abs(e.eventAmount),
        transactionAt: new Date(e.createdAt),
      });
    }
    const full = transactions.length >= size && transactions.length > 0;
    return { status: 'succeeded', value: { transactions, nextStartingAfter: full ? lastCursor : null } };
  }

  /** PortOne's settlement reports are a separate product (정산 자동화); not read by this adapter yet. */
  async listSettlements(_input: ListSettlementsInput): Promise<Outcome<GatewaySettlement[]>> {
    return { status: 'failed', code: 'NOT_SUPPORTED', message: '포트원 연동에서는 정산 내역 조회를 아직 지원하지 않습니다.' };
  }

  /** A 현금영수증 on its own (PortOne: POST /cash-receipts) is not wired yet. */
  async issueCashReceipt(_input: IssueCashReceiptInput): Promise<Outcome<CashReceiptIssued>> {
    return { status: 'failed', code: 'NOT_SUPPORTED', message: '포트원 연동에서는 별도 현금영수증 발급을 아직 지원하지 않습니다.' };
  }

  async cancelCashReceipt(_input: CancelCashReceiptInput): Promise<Outcome<{ canceledAt: Date }>> {
    return { status: 'failed', code: 'NOT_SUPPORTED', message: '포트원 연동에서는 별도 현금영수증 취소를 아직 지원하지 않습니다.' };
  }
}
