/**
 * The simulator's payments: authorize (the buyer's card or approval sealed into a key), confirm (card, easy pay,
 * 계좌이체, and 가상계좌 issue), the test-mode deposit, refunds and lookups, as Toss answers them, over the memory of
 * one simulator instance (simulator-memory.ts).
 */
import type { PaymentMethod } from './method';
import type { AuthorizeInput, AuthorizeResult, CashReceiptRequest, ConfirmInput, ConfirmResult, Outcome, PaymentLookup, RefundInput, RefundResult } from './provider';
import { APPROVED, cardOutcome, FAILURES, UNKNOWN_MESSAGE } from './simulator-cards';
import { boundTo, makeKey, parseKey, simulatedCashReceipt, simulatedSecret } from './simulator-keys';
import type { SimulatorMemory } from './simulator-memory';

const METHODS: readonly PaymentMethod[] = ['card', 'kakao_pay', 'naver_pay', 'toss', 'transfer', 'virtual_account',
  'mobile_phone', 'culture_gift', 'book_gift', 'game_gift', 'foreign_card', 'paypal'];

const kstMonthOf = (t: Date) => new Date(t.getTime() + 9 * 3_600_000).toISOString().slice(0, 7);
const PARTIAL_CANCELABLE = (m: PaymentMethod) => m !== 'mobile_phone' && m !== 'culture_gift' && m !== 'book_gift' && m !== 'game_gift';
/**
 * Buyers abroad: `foreign_card` takes a test card number like `card` (the same numbers decide the outcome, README
 * "Test mode"), approved in won; `paypal` is approved or denied on the approval page like a wallet, and its key,
 * approvals, lookups and refunds are in US cents (the amount the page passes to `authorize` is the USD amount), as
 * Toss answers a PayPal payment in USD.
 */
const usdOf = (method: PaymentMethod) => (method === 'paypal' ? ({ currency: 'USD' } as const) : {});

/** How long a simulated 가상계좌 waits for its deposit (as the live page asks Toss: 72 hours). */
export const SIM_VIRTUAL_ACCOUNT_HOURS = 72;

export function authorize(input: AuthorizeInput): AuthorizeResult {
  // The amount is ours, not the buyer's: a bad one is a bug in the caller, not a form error.
  if (!Number.isSafeInteger(input.amount) || input.amount < 0) throw new RangeError(`simulator: invalid amount ${input.amount}`);
  if (!METHODS.includes(input.method)) {
    return { ok: false, field: 'method', code: 'INVALID_METHOD', message: '결제 수단이 올바르지 않습니다.' };
  }
  if (input.method === 'card' || input.method === 'foreign_card') {
    const outcome = input.cardNumber === undefined ? null : cardOutcome(input.cardNumber);
    if (!outcome) return { ok: false, field: 'cardNumber', code: 'INVALID_CARD_NUMBER', message: '카드 번호가 올바르지 않습니다.' };
    return { ok: true, paymentKey: makeKey(outcome, input.method, input.amount, input.orderId) };
  }
  if (input.approved === false) {
    return { ok: false, field: 'method', code: 'PAY_PROCESS_CANCELED', message: '간편결제 승인이 취소되었습니다.' };
  }
  return { ok: true, paymentKey: makeKey('success', input.method, input.amount, input.orderId) };
}

export async function confirmPayment(mem: SimulatorMemory, input: ConfirmInput): Promise<Outcome<ConfirmResult>> {
  const injected = mem.takeInjected<ConfirmResult>('confirm');
  if (injected) return injected;
  const key = parseKey(input.paymentKey);
  if (!key) return { status: 'failed', code: 'NOT_FOUND_PAYMENT_SESSION', message: '결제 정보를 찾을 수 없습니다.' };
  // PayPal: the key is bound to the USD amount (cents) the buyer approved; anything else confirms the won amount.
  const asked = key.method === 'paypal' ? (input.presentment?.currency === 'USD' ? input.presentment.amount : NaN) : input.presentment ? NaN : input.amount;
  if (!Number.isSafeInteger(asked) || !boundTo(key, input.orderId, asked)) {
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
    const issued = mem.issued.get(input.paymentKey) ?? mem.clock.now();
    mem.issued.set(input.paymentKey, issued);
    if (input.cashReceipt) mem.cashReceiptAsked.set(input.paymentKey, input.cashReceipt);
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
  const state = mem.approve(input.paymentKey, key.method, key.amount, input.orderId);
  // 계좌이체 with a 현금영수증 asked for: a test receipt (issue number `T` + 8 digits, no National Tax Service report).
  const cashReceipt = key.method === 'transfer' && input.cashReceipt ? simulatedCashReceipt(input.paymentKey, input.cashReceipt, key.amount) : null;
  const presentment = key.method === 'paypal' ? { presentment: { amount: key.amount, currency: 'USD' as const } } : {};
  return { status: 'succeeded', value: { paymentKey: input.paymentKey, approvedAt: state.approvedAt, method: state.method, installmentMonths: key.method === 'card' ? months : null, ...(cashReceipt ? { cashReceipt } : {}), ...presentment } };
}

/**
 * The buyer's deposit arrives (test mode's stand-in for the bank): the payment becomes approved (lookups say paid)
 * and the answer carries the secret Toss's DEPOSIT_CALLBACK would. Remembered in this process only.
 */
export async function testDeposit(mem: SimulatorMemory, paymentKey: string, opts?: { cashReceipt?: CashReceiptRequest | null }): Promise<Outcome<{ secret: string | null }>> {
  const key = parseKey(paymentKey);
  if (!key || key.method !== 'virtual_account' || !APPROVED.has(key.outcome)) return { status: 'failed', code: 'NOT_FOUND_PAYMENT', message: '입금할 가상계좌를 찾을 수 없습니다.' };
  // After a restart this process no longer remembers the payment window's choice: the caller hands it back.
  if (opts?.cashReceipt && !mem.cashReceiptAsked.has(paymentKey)) mem.cashReceiptAsked.set(paymentKey, opts.cashReceipt);
  mem.deposited.add(paymentKey);
  mem.approve(paymentKey, 'virtual_account', key.amount);
  return { status: 'succeeded', value: { secret: simulatedSecret(paymentKey) } };
}

export async function refund(mem: SimulatorMemory, original: RefundInput): Promise<Outcome<RefundResult>> {
  // A PayPal payment's balance is in cents: its cancel must name USD and is counted in cents (Toss: `currency: USD`).
  const paypal = mem.stateOf(original.paymentKey)?.method === 'paypal';
  if (paypal !== (original.presentment?.currency === 'USD')) return { status: 'failed', code: 'INVALID_CURRENCY', message: '취소 통화가 결제 통화와 다릅니다.' };
  const input = paypal ? { ...original, amount: original.presentment!.amount } : original;
  const previous = mem.refunds.get(input.idempotencyKey);
  if (previous) {
    if (previous.paymentKey !== input.paymentKey || previous.amount !== input.amount) {
      return { status: 'failed', code: 'IDEMPOTENCY_KEY_REUSED', message: '같은 멱등키로 다른 환불 요청을 보냈습니다.' };
    }
    return previous.result;
  }
  const injected = mem.takeInjected<RefundResult>('refund');
  if (injected) return injected;
  const state = mem.stateOf(input.paymentKey);
  if (!state) return { status: 'failed', code: 'NOT_FOUND_PAYMENT', message: '존재하지 않는 결제입니다.' };
  const balance = state.totalAmount - state.canceled;
  const outcome = parseKey(input.paymentKey)?.outcome;
  let result: Outcome<RefundResult>;
  if (outcome === 'refundfail') result = { status: 'failed', code: 'NOT_CANCELABLE_PAYMENT', message: '취소할 수 없는 결제입니다.' };
  // Like Toss: a deposited 가상계좌 goes back only to the account in refundReceiveAccount.
  else if (state.method === 'virtual_account' && !input.refundReceiveAccount) result = { status: 'failed', code: 'INVALID_REFUND_ACCOUNT_INFO', message: '환불 계좌 정보가 필요합니다.' };
  // 휴대폰 결제 (issue 41): the carrier cancels only in the KST month of the payment; later the money goes back to
  // the buyer's account (refundReceiveAccount). 휴대폰 and 상품권 cancel only in full (Toss: isPartialCancelable false).
  else if (state.method === 'mobile_phone' && !input.refundReceiveAccount && kstMonthOf(state.approvedAt) !== kstMonthOf(mem.clock.now())) {
    result = { status: 'failed', code: 'NOT_CANCELABLE_PAYMENT', message: '휴대폰 결제는 결제한 달에만 취소할 수 있습니다.' };
  } else if (!PARTIAL_CANCELABLE(state.method) && input.amount !== balance) {
    result = { status: 'failed', code: 'NOT_CANCELABLE_AMOUNT', message: '부분 취소가 불가능한 결제입니다.' };
  } else if (balance === 0) result = { status: 'failed', code: 'ALREADY_CANCELED_PAYMENT', message: '이미 취소된 결제입니다.' };
  else if (!Number.isSafeInteger(input.amount) || input.amount <= 0 || input.amount > balance) {
    result = { status: 'failed', code: 'NOT_CANCELABLE_AMOUNT', message: '취소할 수 없는 금액입니다.' };
  } else {
    state.canceled += input.amount;
    if (state.orderId) {
      const status = state.canceled === state.totalAmount ? 'CANCELED' : 'PARTIAL_CANCELED';
      mem.record({ paymentKey: input.paymentKey, orderId: state.orderId, kind: 'cancel', status, amount: input.amount, ...usdOf(state.method), transactionAt: mem.clock.now() });
    }
    const lost = mem.injected.findIndex((x) => x.op === 'refund' && x.result === 'lost');
    if (lost >= 0) mem.injected.splice(lost, 1);
    // refundlost: the cancel happened, its answer did not arrive (a retry with the same key replays the loss).
    result =
      outcome === 'refundlost' || lost >= 0
        ? { status: 'unknown', message: UNKNOWN_MESSAGE }
        : { status: 'succeeded', value: { refundedAt: mem.clock.now(), balanceAmount: state.totalAmount - state.canceled } };
  }
  mem.refunds.set(input.idempotencyKey, { paymentKey: input.paymentKey, amount: input.amount, result });
  return result;
}

export async function lookupPayment(mem: SimulatorMemory, paymentKey: string): Promise<Outcome<PaymentLookup>> {
  const injected = mem.takeInjected<PaymentLookup>('lookup');
  if (injected) return injected;
  const known = mem.payments.get(paymentKey);
  if (known) {
    const balanceAmount = known.totalAmount - known.canceled;
    const status = known.canceled === 0 ? 'paid' : balanceAmount === 0 ? 'canceled' : 'partially_canceled';
    return { status: 'succeeded', value: { status, ...usdOf(known.method), totalAmount: known.totalAmount, balanceAmount, ...identity(paymentKey), ...mem.depositReceipt(paymentKey, balanceAmount) } };
  }
  const key = parseKey(paymentKey);
  if (!key) return { status: 'failed', code: 'NOT_FOUND_PAYMENT', message: '존재하지 않는 결제입니다.' };
  // A 가상계좌 waits for its deposit (Toss: WAITING_FOR_DEPOSIT).
  if (key.method === 'virtual_account' && !mem.deposited.has(paymentKey)) return { status: 'succeeded', value: { status: 'pending', totalAmount: key.amount, balanceAmount: key.amount, ...identity(paymentKey) } };
  if (APPROVED.has(key.outcome)) return { status: 'succeeded', value: { status: 'paid', ...usdOf(key.method), totalAmount: key.amount, balanceAmount: key.amount, ...identity(paymentKey), ...mem.depositReceipt(paymentKey, key.amount) } };
  // Declined, short and timed-out payments were never approved: nothing was taken from the buyer.
  return { status: 'succeeded', value: { status: 'failed', totalAmount: key.amount, balanceAmount: 0, ...identity(paymentKey) } };
}

/**
 * The simulator keeps only the canceled total (no cancel transactions) and binds keys to order ids by MAC, not by
 * an index, so a lookup names neither the order nor individual cancels.
 */
function identity(paymentKey: string): Pick<PaymentLookup, 'paymentKey' | 'orderId' | 'cancels'> {
  return { paymentKey, orderId: null, cancels: [] };
}
