import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { randomBytes } from 'node:crypto';

/**
 * A local stand-in for the Toss Payments core API (https://docs.tosspayments.com/reference), speaking the documented
 * protocol closely enough to exercise the adapter: secret-key Basic auth, `{ code, message }` error bodies with the
 * documented HTTP statuses, Idempotency-Key replay (same key + path + method → the first answer, no second effect).
 * Its answers are checked against the recorded documentation in test/fixtures/toss/ by test/payments/toss-contract.test.ts.
 *
 * Documented behaviours (see test/fixtures/toss/README.md):
 * - confirm within 10 minutes of the payment request, else 404 NOT_FOUND_PAYMENT_SESSION: call
 *   `requestPayment({ paymentKey, orderId, amount })` to start the window's session on the fake's clock (keys confirmed
 *   without one have no session to expire);
 * - Idempotency-Key of at most 300 characters (400 INVALID_IDEMPOTENCY_KEY); the same key while its first request is
 *   still being processed → 409 IDEMPOTENT_REQUEST_PROCESSING;
 * - cancel: `cancelReason` of at most 200 characters; `refundableAmount` (deprecated: "더 이상 사용을 권장하지 않습니다.
 *   안전하게 취소하려면 멱등키를 대신 사용해주세요", reference #결제-취소), when sent, must equal the balance
 *   (400 NOT_MATCHES_REFUNDABLE_AMOUNT);
 * - slow answers: `hold(kind)` keeps the next request of that kind unanswered until released (billing charges may take
 *   up to 60 s at Toss), without any real waiting;
 * - a wallet paid with a registered card: a key containing `regcard` as well as a wallet name comes back as method
 *   '간편결제' with `card` filled and `easyPay.amount` 0 (the wallet's own money paid nothing);
 * - `cancelAtToss(paymentKey, amount)`: a cancel made in Toss's merchant admin (상점관리자), outside our API;
 * - DELETE /v1/billing/{billingKey}; GET /v1/transactions (paged with startingAfter / limit: default 100, at most 5000,
 *   https://docs.tosspayments.com/reference#거래-조회 "기본값은 100이고 설정할 수 있는 최대값은 5000입니다");
 * - GET /v1/settlements (startDate / endDate, dateType soldDate | paidOutDate, page ≥ 1, size default 100, at most 5000;
 *   https://docs.tosspayments.com/reference#정산-조회, https://docs.tosspayments.com/guides/apis/settlements): one record per
 *   approval and per cancel of the caller's MID, daily settlement (soldDate = the KST day of the transaction) paid out
 *   two days later (the guide's example: "지급 주기를 '정산 매출일 + 2일'"), fee = `feeRate` of the amount, VAT on the fee
 *   1/11 of it (the guide's example: fee 860 = supplyAmount 782 + vat 78, payOutAmount = amount − fee);
 * - `billingMid`: a second merchant (MID) with its own key pair, as Toss contracts 자동결제 under its own MID
 *   (https://docs.tosspayments.com/guides/v2/billing/integration-quick). Each call is answered as the merchant whose
 *   secret key signs it (`calls[i].merchant`): payments, billing keys, transactions and settlements of the other MID are
 *   unknown to it (404 NOT_FOUND_PAYMENT / NOT_FOUND_BILLING), and idempotency is scoped per key;
 * - POST /v1/cash-receipts and POST /v1/cash-receipts/{receiptKey}/cancel (test/fixtures/toss/cash-receipts.json;
 *   https://docs.tosspayments.com/reference#현금영수증-발급-요청, #현금영수증-발급-취소-요청): a 현금영수증 issued on its
 *   own, answered as a CashReceipt (transactionType CONFIRM, issueStatus IN_PROGRESS: "발급 승인 여부는 요청 후 1-2일 뒤
 *   조회할 수 있습니다"); a cancel with `amount` takes that much off, without it all of it ("값이 따로 없으면 전액
 *   취소됩니다"), answered as a CANCEL CashReceipt. `cashReceipts` holds what Toss issued (covered amount and history);
 * - `beforeAnswer` may return 'drop': the request has taken effect and the connection is cut before the answer (a crash
 *   or network cut between Toss's work and our record of it);
 * - `webhook(eventType, ...)`: the body Toss would post for PAYMENT_STATUS_CHANGED / CANCEL_STATUS_CHANGED / BILLING_DELETED.
 * - Buyers abroad (test/fixtures/toss/README.md "Buyers abroad"):
 *   - PayPal (해외간편결제): `requestPayment({ ..., method: 'FOREIGN_EASY_PAY', currency: 'USD', amount: 28.89 })` opens the
 *     window in USD (https://docs.tosspayments.com/guides/paypal: `requestPayment('해외간편결제', { amount: 664.98,
 *     provider: 'PAYPAL', currency: 'USD', country: 'US' })`); confirm must send that dollar amount (at most two decimals);
 *     the Payment has currency 'USD', method '해외간편결제' and USD amounts; a partial cancel must carry `currency: 'USD'`
 *     (Payment cancel API: "PayPal 해외간편결제 부분 취소에는 필수 값입니다. PayPal에서 사용할 수 있는 통화는 USD입니다"),
 *     else 400 INVALID_REQUEST; its transactions are listed with currency 'USD'; it has no settlement records ("PayPal은
 *     자동결제(빌링), 정산 API를 지원하지 않아요", https://docs.tosspayments.com/guides/v2/payment-widget/integration-paypal).
 *   - 해외카드: `requestPayment({ ..., method: 'CARD', useInternationalCardOnly: true })` (the 다국어 결제창,
 *     https://docs.tosspayments.com/guides/payment/international-window: Visa, Master, JCB in test): a KRW card payment
 *     whose `card.issuerCode` is the brand's (4V VISA, https://docs.tosspayments.com/codes/org-codes#카드사-코드).
 *
 * Payment keys are whatever the caller sends (the real one comes from Toss's payment window). The fake derives the
 * payment method from the key so callers can pick one: a key containing `kakaopay` / `naverpay` / `tosspay` comes back
 * as an easy-pay payment (method '간편결제', easyPay.provider '카카오페이' / '네이버페이' / '토스페이'); anything else as '카드'.
 *
 * Modes (setMode) inject failures into every POST (and, for timeout/error500, GETs too):
 * - 'decline': 403 REJECT_CARD_PAYMENT on confirm and billing charge; 403 NOT_CANCELABLE_PAYMENT on cancel; 403 REJECT_CARD_COMPANY on billing issue.
 * - 'timeout': the request is accepted and never answered (nothing is changed).
 * - 'lost_answer': the POST takes effect, then the answer never comes (what a network cut after processing looks like).
 * - 'error500': 500 FAILED_INTERNAL_SYSTEM_PROCESSING, nothing changed.
 * - 'already_processed': confirm registers the payment if needed, then answers 400 ALREADY_PROCESSED_PAYMENT
 *   (as when an earlier confirm went through but its answer was lost); charges likewise.
 * - 'amount_mismatch': confirm/charge succeed but report a totalAmount 1,000 won higher than requested (a misbehaving gateway).
 */
export type FakeTossMode = 'ok' | 'decline' | 'timeout' | 'error500' | 'already_processed' | 'lost_answer' | 'amount_mismatch';

/** What `hold` can delay: billing charges, confirms, cancels, transaction listings, or any request. */
export type FakeTossHoldKind = 'billing_charge' | 'billing_issue' | 'billing_delete' | 'confirm' | 'cancel' | 'lookup' | 'transactions' | 'settlements' | 'cash_receipt' | 'any';

export interface FakeTossHold {
  /** Resolves when the held request has arrived (and, for POSTs, is being processed). */
  arrived: Promise<void>;
  /** Lets the request be processed and answered. */
  release(): void;
}

/** Which of the fake's merchants (MIDs) a call was signed for. */
export type FakeTossMerchant = 'payments' | 'billing';

export interface FakeToss {
  baseUrl: string;
  /** The first merchant's MID (`mId` of its payments). */
  mId: string;
  /** The 자동결제 merchant (`billingMid: true`): its own MID and key pair; null without it. */
  billing: { mId: string; secretKey: string; clientKey: string } | null;
  /** The one secret key this merchant has; any other gets 401 UNAUTHORIZED_KEY on every endpoint. */
  secretKey: string;
  /** The client key issued beside it (same kind: `test_ck_…` with `test_sk_…`, `live_ck_…` with `live_sk_…`). */
  clientKey: string;
  /**
   * Toss's transaction ledger (GET /v1/transactions): one Transaction per approval (status DONE) and per cancel
   * (CANCELED / PARTIAL_CANCELED, amount = the canceled amount), in the order they happened.
   */
  transactions: any[];
  close(): Promise<void>;
  payments: Map<string, any>;
  /** Billing keys Toss holds (deleted ones are removed). */
  billingKeys: Map<string, { customerKey: string; cardNumber: string }>;
  setMode(m: FakeTossMode): void;
  calls: Array<{ method: string; path: string; query: URLSearchParams; body: any; headers: Record<string, string | undefined>; merchant: FakeTossMerchant | null }>;
  /**
   * Test hook, null by default: called with the request (as recorded in `calls`) and its answer after Toss has acted on
   * it (the payment, cancel or charge is already in `payments`) and before the answer is written; the answer waits for
   * the returned promise. Kill tests end our server here, between Toss's work and our record of it.
   */
  beforeAnswer: ((call: FakeToss['calls'][number], answer: { status: number; body: unknown }) => void | 'drop' | Promise<void | 'drop'>) | null;
  /** 현금영수증 issued on their own (POST /v1/cash-receipts) by receiptKey: what each covers now and its CashReceipt history. */
  cashReceipts: Map<string, { mId: string; orderId: string; type: string; customerIdentityNumber: string; amount: number; history: any[] }>;
  /** The payment window's session for a key, started now on the fake's clock (confirm must follow within 10 minutes). */
  requestPayment(input: { paymentKey: string; orderId: string; amount: number; cashReceipt?: { type: '소득공제' | '지출증빙' | '미발행' }; method?: 'CARD' | 'FOREIGN_EASY_PAY'; currency?: 'KRW' | 'USD'; useInternationalCardOnly?: boolean }): void;
  /** Holds the next request of this kind unanswered until `release()`: a slow gateway without real waiting. */
  hold(kind: FakeTossHoldKind): FakeTossHold;
  /**
   * The next request of this kind gets this documented error instead (nothing changes at the fake), e.g.
   * 403 FORBIDDEN_CONSECUTIVE_REQUEST or 400 PROVIDER_ERROR, Toss's "try again later" answers.
   */
  answerNext(kind: FakeTossHoldKind, error: { status: number; code: string; message: string }): void;
  /** A cancel made in Toss's merchant admin (상점관리자): changes the payment at Toss, tells our API nothing. */
  cancelAtToss(paymentKey: string, amount: number, reason?: string): any;
  /**
   * The buyer deposits to a 가상계좌 payment: it becomes DONE (approvedAt now, a DONE transaction), and the answer is the
   * DEPOSIT_CALLBACK body Toss posts (`{ createdAt, secret, orderId, status, transactionKey }`).
   */
  deposit(paymentKey: string): { createdAt: string; secret: string; orderId: string; status: string; transactionKey: string };
  /** The body Toss posts to a registered webhook URL for this event. */
  webhook(eventType: 'PAYMENT_STATUS_CHANGED' | 'CANCEL_STATUS_CHANGED', paymentKey: string): any;
  webhook(eventType: 'BILLING_DELETED', billingKey: string): any;
}

// ---------- webhook bodies ----------
// As Toss documents them (https://docs.tosspayments.com/reference/using-api/webhook-events, the event reference; and
// https://docs.tosspayments.com/en/webhooks, https://docs.tosspayments.com/guides/webhook): `{ eventType, createdAt, data }`,
// createdAt in `yyyy-MM-dd'T'HH:mm:ss.SSSSSS` (KST, no offset). Only payout.changed / seller.changed carry a signature
// header; none of these three is signed, so a receiver must confirm them through the API. Toss expects a 200 and
// otherwise retries up to 7 times (1, 4, 16, 64, 256, 1024, 4096 minutes later).

const webhookCreatedAt = (d = new Date()) => new Date(d.getTime() + 9 * 3600_000).toISOString().replace('Z', `${String(Math.floor(Math.random() * 1000)).padStart(3, '0')}`);

/** PAYMENT_STATUS_CHANGED: `data` is the whole Payment object whose status changed (DONE, CANCELED, PARTIAL_CANCELED, ABORTED, EXPIRED). */
export function paymentStatusChangedBody(payment: any): { eventType: 'PAYMENT_STATUS_CHANGED'; createdAt: string; data: any } {
  return { eventType: 'PAYMENT_STATUS_CHANGED', createdAt: webhookCreatedAt(), data: structuredClone(payment) };
}

/** CANCEL_STATUS_CHANGED: `data` is the Cancel object whose cancelStatus changed (sent for foreign easy-pay cancels). */
export function cancelStatusChangedBody(cancel: any): { eventType: 'CANCEL_STATUS_CHANGED'; createdAt: string; data: any } {
  return { eventType: 'CANCEL_STATUS_CHANGED', createdAt: webhookCreatedAt(), data: structuredClone(cancel) };
}

/** BILLING_DELETED: `data` is `{ billingKey, reason }` (reason nullable). */
export function billingDeletedBody(billingKey: string, reason: string | null = '삭제 API 요청'): { eventType: 'BILLING_DELETED'; createdAt: string; data: { billingKey: string; reason: string | null } } {
  return { eventType: 'BILLING_DELETED', createdAt: webhookCreatedAt(), data: { billingKey, reason } };
}

/** What the fake reads the time from (a ManualClock in tests): timestamps and the 10-minute confirm window. */
export interface FakeTossClock {
  now(): Date;
}

/** Toss keeps a payment window's session for 10 minutes: confirm after that is NOT_FOUND_PAYMENT_SESSION. */
export const CONFIRM_WINDOW_MS = 10 * 60_000;

const kst = (d: Date) => new Date(d.getTime() + 9 * 3600_000).toISOString().replace(/\.\d{3}Z$/, '+09:00');

/** The wallet a key names, and whether the wallet paid with a registered card (`regcard`) or its own money. */
function easyPayFor(paymentKey: string): { provider: string | null; withCard: boolean } {
  const k = paymentKey.toLowerCase();
  const provider = k.includes('kakaopay') ? '카카오페이' : k.includes('naverpay') ? '네이버페이' : k.includes('tosspay') ? '토스페이' : null;
  return { provider, withCard: !provider || k.includes('regcard') };
}

const txKey = () => randomBytes(16).toString('hex').toUpperCase();

/**
 * `kind` picks the pair the fake's merchant holds (Toss issues `test_…` and `live_…` pairs,
 * https://docs.tosspayments.com/reference/using-api/authorization); a live-mode store needs the live pair.
 * `clock`: where approvedAt / canceledAt / transactionAt come from and the confirm window runs (default: real time).
 */
export async function startFakeToss(opts?: { secretKey?: string; kind?: 'test' | 'live'; clock?: FakeTossClock; billingMid?: boolean; feeRate?: number }): Promise<FakeToss> {
  const kind = opts?.kind ?? (opts?.secretKey?.startsWith('live_') ? 'live' : 'test');
  const secretKey = opts?.secretKey ?? `${kind}_sk_${randomBytes(12).toString('hex')}`;
  const clientKey = `${kind}_ck_${randomBytes(12).toString('hex')}`;
  let beforeAnswer: FakeToss['beforeAnswer'] = null;
  const clock: FakeTossClock = opts?.clock ?? { now: () => new Date() };
  const basic = (key: string) => `Basic ${Buffer.from(`${key}:`).toString('base64')}`;
  const expectedAuth = basic(secretKey);
  const billingPair = opts?.billingMid
    ? { mId: 'tossbilling', secretKey: `${kind}_sk_${randomBytes(12).toString('hex')}`, clientKey: `${kind}_ck_${randomBytes(12).toString('hex')}` }
    : null;
  const MIDS: Record<FakeTossMerchant, string> = { payments: 'tosspayments', billing: billingPair?.mId ?? 'tossbilling' };
  /** The merchant whose key signs the request being answered (route() runs synchronously for one request). */
  let merchant: FakeTossMerchant = 'payments';
  const mine = <T extends { mId?: string }>(p: T | undefined): T | undefined => (p && p.mId === MIDS[merchant] ? p : undefined);
  const feeRate = opts?.feeRate ?? 0.032;
  const payments = new Map<string, any>();
  const billingKeys = new Map<string, { customerKey: string; cardNumber: string; mId?: string }>();
  const replays = new Map<string, { status: number; body: unknown }>();
  const inFlight = new Set<string>();
  const sessions = new Map<string, { orderId: string; amount: number; startedAt: Date; cashReceipt?: { type: string }; method?: string; currency?: string; international?: boolean }>();
  /** USD amounts are dollars with cents in Toss's JSON; the fake counts them in cents to stay exact. */
  const cents = (dollars: number) => Math.round(dollars * 100);
  const dollars = (c: number) => Number((c / 100).toFixed(2));
  const isDollarAmount = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v > 0 && Math.abs(v * 100 - Math.round(v * 100)) < 1e-6;
  const cashReceipts: FakeToss['cashReceipts'] = new Map();
  /** Every approval and cancel, in order: what GET /v1/transactions lists. */
  const transactions: any[] = [];
  const injected: Array<{ kind: FakeTossHoldKind; error: { status: number; code: string; message: string } }> = [];
  const holds: Array<{ kind: FakeTossHoldKind; arrive: () => void; released: Promise<void> }> = [];
  const calls: FakeToss['calls'] = [];
  const sockets = new Set<Socket>();
  let mode: FakeTossMode = 'ok';

  function recordTransaction(p: any, status: string, amount: number, transactionKey: string, at: string): void {
    transactions.push({
      mId: p.mId,
      transactionKey,
      paymentKey: p.paymentKey,
      orderId: p.orderId,
      method: p.method,
      customerKey: p.type === 'BILLING' ? p.customerKey ?? null : null,
      useEscrow: false,
      receiptUrl: p.receipt?.url ?? null,
      status,
      transactionAt: at,
      currency: p.currency,
      amount,
    });
  }

  function newPayment(input: { paymentKey: string; orderId: string; orderName: string; amount: number; type: 'NORMAL' | 'BILLING'; method?: string; customerKey?: string }) {
    const now = clock.now();
    const windowSession = sessions.get(input.paymentKey);
    const paypal = windowSession?.method === 'FOREIGN_EASY_PAY';
    const international = !!windowSession?.international;
    const wallet = paypal ? { provider: null, withCard: false } : input.method === '카드' ? { provider: null, withCard: true } : easyPayFor(input.paymentKey);
    // 퀵계좌이체: a key containing `transfer` is paid from the buyer's bank account (method '계좌이체', `transfer`
    // { bankCode, settlementStatus }, no card; https://docs.tosspayments.com/reference#payment-객체 transfer).
    const isTransfer = !wallet.provider && input.paymentKey.toLowerCase().includes('transfer');
    // 가상계좌: a key containing `vaccount` gets an account and waits for the deposit (status WAITING_FOR_DEPOSIT,
    // approvedAt null, `virtualAccount` and `secret` set; https://docs.tosspayments.com/reference#payment-객체,
    // https://docs.tosspayments.com/guides/learn/virtual-account-webhook). `deposit(paymentKey)` makes it DONE.
    const isVirtual = !wallet.provider && input.type === 'NORMAL' && input.paymentKey.toLowerCase().includes('vaccount');
    // 휴대폰 결제 and 상품권 (issue 41): a key containing `mobilephone` is paid by phone (method '휴대폰', `mobilePhone`
    // { customerMobilePhone, settlementStatus, receiptUrl }); `culturegift` / `bookgift` / `gamegift` by gift certificate
    // (method '문화상품권' / '도서문화상품권' / '게임문화상품권', `giftCertificate` { approveNo, settlementStatus }); both
    // with `isPartialCancelable: false` ("이 값이 false이면 전액 취소만 가능합니다"). Payment object, Toss core API
    // 2022-11-16 (https://docs.tosspayments.com/reference#payment-객체; /work/ref/toss-core-2022-11-16.json).
    const lowered = input.paymentKey.toLowerCase();
    const isPhone = !wallet.provider && input.type === 'NORMAL' && lowered.includes('mobilephone');
    const gift = wallet.provider || input.type !== 'NORMAL' ? null : lowered.includes('culturegift') ? '문화상품권' : lowered.includes('bookgift') ? '도서문화상품권' : lowered.includes('gamegift') ? '게임문화상품권' : null;
    const isOther = isPhone || gift !== null;
    const totalAmount = mode === 'amount_mismatch' ? input.amount + 1000 : input.amount;
    const lastTransactionKey = txKey();
    const card = wallet.withCard && !isTransfer && !isVirtual && !isOther
      ? {
          // An overseas card in the 다국어 결제창 is issued by the brand itself in Toss's code table (4V VISA).
          issuerCode: international ? '4V' : '41',
          acquirerCode: international ? '4V' : '41',
          number: '43301234****123*',
          installmentPlanMonths: 0,
          isInterestFree: false,
          interestPayer: null,
          approveNo: '00000000',
          useCardPoint: false,
          cardType: '신용',
          ownerType: '개인',
          acquireStatus: 'READY',
          amount: totalAmount,
        }
      : null;
    const payment = {
      mId: MIDS[merchant],
      version: '2022-11-16',
      lastTransactionKey,
      paymentKey: input.paymentKey,
      orderId: input.orderId,
      orderName: input.orderName,
      taxExemptionAmount: 0,
      status: isVirtual ? 'WAITING_FOR_DEPOSIT' : 'DONE',
      requestedAt: kst(sessions.get(input.paymentKey)?.startedAt ?? now),
      approvedAt: isVirtual ? null : kst(now),
      useEscrow: false,
      cultureExpense: false,
      card,
      virtualAccount: isVirtual
        ? {
            accountType: '일반',
            accountNumber: `X${randomBytes(6).toString('hex').replace(/[a-f]/g, '7')}`.replace('X', '9'),
            bankCode: '20',
            customerName: '김구매',
            dueDate: kst(new Date(now.getTime() + 72 * 3600_000)),
            refundStatus: 'NONE',
            expired: false,
            settlementStatus: 'INCOMPLETED',
            refundReceiveAccount: null,
          }
        : null,
      transfer: isTransfer ? { bankCode: '88', settlementStatus: 'COMPLETED' } : null,
      mobilePhone: isPhone
        ? { customerMobilePhone: '01012345678', settlementStatus: 'INCOMPLETED', receiptUrl: `https://dashboard.tosspayments.com/receipt/mobile?transactionId=${encodeURIComponent(input.paymentKey)}` }
        : null,
      giftCertificate: gift ? { approveNo: String(10_000_000 + (randomBytes(4).readUInt32BE() % 90_000_000)), settlementStatus: 'INCOMPLETED' } : null,
      cashReceipt: null,
      cashReceipts: null,
      discount: null,
      cancels: null as null | any[],
      secret: isVirtual ? `ps_${randomBytes(12).toString('hex')}` : null,
      type: input.type,
      // A wallet's own money pays `easyPay.amount`; paid with a registered card it is 0 and `card.amount` is the total.
      easyPay: wallet.provider ? { provider: wallet.provider, amount: wallet.withCard ? 0 : totalAmount, discountAmount: 0 } : null,
      country: 'KR',
      failure: null,
      isPartialCancelable: !isOther,
      receipt: { url: `https://dashboard.tosspayments.com/receipt/redirection?transactionId=${encodeURIComponent(input.paymentKey)}&ref=PX` },
      checkout: { url: `https://api.tosspayments.com/v1/payments/${encodeURIComponent(input.paymentKey)}/checkout` },
      currency: paypal ? 'USD' : 'KRW',
      totalAmount,
      balanceAmount: totalAmount,
      suppliedAmount: paypal ? dollars(Math.round(cents(totalAmount) / 1.1)) : Math.round(totalAmount / 1.1),
      vat: paypal ? dollars(cents(totalAmount) - Math.round(cents(totalAmount) / 1.1)) : totalAmount - Math.round(totalAmount / 1.1),
      taxFreeAmount: 0,
      method: paypal ? '해외간편결제' : wallet.provider ? '간편결제' : isTransfer ? '계좌이체' : isVirtual ? '가상계좌' : isPhone ? '휴대폰' : gift ?? '카드',
      metadata: null,
    };
    // Not a Payment field: kept aside (non-enumerable) for the transactions listing of billing payments.
    Object.defineProperty(payment, 'customerKey', { value: input.customerKey ?? null, enumerable: false });
    // 현금영수증 chosen in the window (`transfer.cashReceipt.type`): a 계좌이체 gets it at once, a 가상계좌 at its deposit
    // ("계좌이체는 결제 즉시 현금영수증 정보를 확인할 수 있습니다. 가상계좌는 고객이 입금을 완료하면", Payment.cashReceipts,
    // https://docs.tosspayments.com/reference#payment-객체). Payment.cashReceipt: { type, receiptKey, issueNumber,
    // receiptUrl, amount, taxFreeAmount }; cashReceipts: its CashReceipt history (transactionType CONFIRM / CANCEL).
    const chosen = sessions.get(input.paymentKey)?.cashReceipt?.type;
    if (chosen === '소득공제' || chosen === '지출증빙') {
      Object.defineProperty(payment, 'cashReceiptType', { value: chosen, enumerable: false });
      if (isTransfer) issueCashReceipt(payment);
    }
    if (!isVirtual) recordTransaction(payment, 'DONE', totalAmount, lastTransactionKey, payment.approvedAt!);
    return payment;
  }

  function issueCashReceipt(payment: any): void {
    const receiptKey = `cr_${randomBytes(10).toString('hex')}`;
    const issueNumber = String(100_000_000 + (randomBytes(4).readUInt32BE() % 900_000_000));
    const receiptUrl = `https://dashboard.tosspayments.com/receipt/mids/tosspayments/orders/${encodeURIComponent(payment.orderId)}/cash-receipt?ref=dashboard`;
    payment.cashReceipt = { type: payment.cashReceiptType, receiptKey, issueNumber, receiptUrl, amount: payment.balanceAmount, taxFreeAmount: 0 };
    payment.cashReceipts = [
      { receiptKey, issueNumber, issueStatus: 'IN_PROGRESS', amount: payment.balanceAmount, taxFreeAmount: 0, orderId: payment.orderId, orderName: payment.orderName, type: payment.cashReceiptType, transactionType: 'CONFIRM', businessNumber: '1234567890', customerIdentityNumber: '010****1234', failure: null, requestedAt: kst(clock.now()), receiptUrl },
    ];
  }

  type Answer = { status: number; body: unknown };
  const err = (status: number, code: string, message: string): Answer => ({ status, body: { code, message } });

  function confirm(body: any): Answer {
    const { paymentKey, orderId, amount } = body ?? {};
    const usdWindow = sessions.get(paymentKey)?.currency === 'USD';
    if (typeof paymentKey !== 'string' || typeof orderId !== 'string' || !(usdWindow ? isDollarAmount(amount) : Number.isInteger(amount))) return err(400, 'INVALID_REQUEST', '잘못된 요청입니다.');
    // The amount confirmed must be the one the window was opened with (USD: the same dollars and cents).
    const opened = sessions.get(paymentKey);
    if (opened && (usdWindow ? cents(opened.amount) !== cents(amount) : opened.amount !== amount)) return err(400, 'INVALID_REQUEST', '잘못된 요청입니다.');
    if (!/^[A-Za-z0-9_-]{6,64}$/.test(orderId)) return err(400, 'INVALID_ORDER_ID', 'orderId는 영문 대소문자, 숫자, 특수문자(-, _) 만 허용합니다. 6자 이상 64자 이하여야 합니다.');
    const existing = payments.get(paymentKey);
    if (existing) return err(400, 'ALREADY_PROCESSED_PAYMENT', '이미 처리된 결제 입니다.');
    const session = sessions.get(paymentKey);
    if (session && clock.now().getTime() - session.startedAt.getTime() > CONFIRM_WINDOW_MS) {
      return err(404, 'NOT_FOUND_PAYMENT_SESSION', '결제 시간이 만료되어 결제 진행 데이터가 존재하지 않습니다.');
    }
    if (mode === 'decline') return err(403, 'REJECT_CARD_PAYMENT', '한도초과 혹은 잔액부족으로 결제에 실패했습니다.');
    if ([...payments.values()].some((p) => p.orderId === orderId)) return err(400, 'DUPLICATED_ORDER_ID', '이미 승인 및 취소가 진행된 중복된 주문번호 입니다. 다른 주문번호로 진행해주세요.');
    const payment = newPayment({ paymentKey, orderId, orderName: '테스트 주문', amount, type: 'NORMAL' });
    payments.set(paymentKey, payment);
    if (mode === 'already_processed') return err(400, 'ALREADY_PROCESSED_PAYMENT', '이미 처리된 결제 입니다.');
    return { status: 200, body: payment };
  }

  function cancel(paymentKey: string, body: any): Answer {
    const payment = mine(payments.get(paymentKey));
    if (!payment) return err(404, 'NOT_FOUND_PAYMENT', '존재하지 않는 결제 정보 입니다.');
    // cancelReason: required, at most 200 characters (Payment cancel API, request body).
    if (typeof body?.cancelReason !== 'string' || body.cancelReason.length === 0 || Array.from(body.cancelReason).length > 200) {
      return err(400, 'INVALID_REQUEST', '잘못된 요청입니다.');
    }
    if (mode === 'decline') return err(403, 'NOT_CANCELABLE_PAYMENT', '취소 할 수 없는 결제 입니다.');
    if (payment.balanceAmount === 0) return err(400, 'ALREADY_CANCELED_PAYMENT', '이미 취소된 결제 입니다.');
    // A deposited 가상계좌 is refunded to the account in refundReceiveAccount { bank, accountNumber (digits, ≤ 20), holderName (≤ 60) }
    // ("가상계좌 결제에만 필수입니다", https://docs.tosspayments.com/reference#결제-취소).
    if (payment.method === '가상계좌' && payment.status !== 'WAITING_FOR_DEPOSIT') {
      const a = body.refundReceiveAccount;
      if (!a || typeof a.bank !== 'string' || typeof a.holderName !== 'string' || a.holderName.length === 0 || a.holderName.length > 60 || typeof a.accountNumber !== 'string' || !/^[0-9]{1,20}$/.test(a.accountNumber)) {
        return err(400, 'INVALID_REFUND_ACCOUNT_INFO', '환불 계좌번호와 예금주명이 일치하지 않습니다.');
      }
      if (!/^\d{2}$/.test(a.bank)) return err(400, 'INVALID_BANK', '유효하지 않은 은행입니다.');
      payment.virtualAccount.refundReceiveAccount = { bankCode: a.bank, accountNumber: a.accountNumber, holderName: a.holderName };
    }
    // 휴대폰 결제: canceled through the carrier only in the month it was paid ("결제월과 취소월이 동일한 경우에만 가능",
    // PortOne's cancel policy for 휴대폰 소액결제, /work/ref/portone-docs/cancel-v2.mdx; the month is Korea's, KST).
    // After it the money goes back to the buyer's account (refundReceiveAccount, as for a 가상계좌); without one the
    // cancel is refused. NOT VERIFIED against a stored Toss page: see test/fixtures/toss/README.md.
    if (payment.method === '휴대폰' && kst(clock.now()).slice(0, 7) !== String(payment.approvedAt).slice(0, 7)) {
      const a = body.refundReceiveAccount;
      if (!a) return err(403, 'NOT_CANCELABLE_PAYMENT', '취소 할 수 없는 결제 입니다.');
      if (typeof a.bank !== 'string' || typeof a.holderName !== 'string' || a.holderName.length === 0 || a.holderName.length > 60 || typeof a.accountNumber !== 'string' || !/^[0-9]{1,20}$/.test(a.accountNumber)) {
        return err(400, 'INVALID_REFUND_ACCOUNT_INFO', '환불 계좌번호와 예금주명이 일치하지 않습니다.');
      }
      Object.defineProperty(payment, 'refundReceiveAccount', { value: { bankCode: a.bank, accountNumber: a.accountNumber, holderName: a.holderName }, enumerable: false, configurable: true });
    }
    // isPartialCancelable false: "전액 취소만 가능합니다" (Payment object): a cancel of less than the balance is refused.
    if (payment.isPartialCancelable === false && body.cancelAmount !== undefined && body.cancelAmount !== payment.balanceAmount) {
      return err(403, 'NOT_CANCELABLE_AMOUNT', '취소 할 수 없는 금액 입니다.');
    }
    if (body.refundableAmount !== undefined && body.refundableAmount !== payment.balanceAmount) {
      return err(400, 'NOT_MATCHES_REFUNDABLE_AMOUNT', '잔액 결과가 일치하지 않습니다.');
    }
    if (payment.currency === 'USD') {
      // PayPal: a partial cancel must name USD; amounts are dollars with at most two decimals (counted in cents here).
      const partial = body.cancelAmount !== undefined && !(isDollarAmount(body.cancelAmount) && cents(body.cancelAmount) === cents(payment.balanceAmount));
      if ((partial && body.currency !== 'USD') || (body.currency !== undefined && body.currency !== 'USD')) return err(400, 'INVALID_REQUEST', '잘못된 요청입니다.');
      const c = body.cancelAmount === undefined ? cents(payment.balanceAmount) : isDollarAmount(body.cancelAmount) ? cents(body.cancelAmount) : NaN;
      if (!Number.isInteger(c) || c <= 0 || c > cents(payment.balanceAmount)) return err(403, 'NOT_CANCELABLE_AMOUNT', '취소 할 수 없는 금액 입니다.');
      applyCancel(payment, dollars(c), body.cancelReason);
      return { status: 200, body: payment };
    }
    const cancelAmount = body.cancelAmount ?? payment.balanceAmount;
    if (!Number.isInteger(cancelAmount) || cancelAmount <= 0 || cancelAmount > payment.balanceAmount) return err(403, 'NOT_CANCELABLE_AMOUNT', '취소 할 수 없는 금액 입니다.');
    applyCancel(payment, cancelAmount, body.cancelReason);
    return { status: 200, body: payment };
  }

  function applyCancel(payment: any, cancelAmount: number, cancelReason: string): void {
    payment.balanceAmount = payment.currency === 'USD' ? dollars(cents(payment.balanceAmount) - cents(cancelAmount)) : payment.balanceAmount - cancelAmount;
    payment.status = payment.balanceAmount === 0 ? 'CANCELED' : 'PARTIAL_CANCELED';
    // The 현금영수증 goes with the cancel: a CANCEL entry in cashReceipts for the canceled amount, and cashReceipt covers
    // what is left ("결제 및 부분 취소 건에 대한 현금영수증을 담고 있습니다", Payment.cashReceipts,
    // https://docs.tosspayments.com/reference#payment-객체; https://docs.tosspayments.com/common/apis/cash-receipt).
    if (payment.cashReceipt) {
      const first = payment.cashReceipts[0];
      payment.cashReceipts.push({ ...first, receiptKey: `cr_${randomBytes(10).toString('hex')}`, transactionType: 'CANCEL', amount: cancelAmount, requestedAt: kst(clock.now()) });
      payment.cashReceipt = { ...payment.cashReceipt, amount: payment.balanceAmount };
    }
    const transactionKey = txKey();
    const canceledAt = kst(clock.now());
    payment.lastTransactionKey = transactionKey;
    payment.cancels = [
      ...(payment.cancels ?? []),
      {
        transactionKey,
        cancelReason,
        taxExemptionAmount: 0,
        canceledAt,
        easyPayDiscountAmount: 0,
        receiptKey: null,
        cancelAmount,
        taxFreeAmount: 0,
        refundableAmount: payment.balanceAmount,
        cancelStatus: 'DONE',
        cancelRequestId: null,
      },
    ];
    recordTransaction(payment, payment.status, cancelAmount, transactionKey, canceledAt);
  }

  function issueBilling(body: any): Answer {
    if (typeof body?.authKey !== 'string' || typeof body?.customerKey !== 'string') return err(400, 'INVALID_REQUEST', '잘못된 요청입니다.');
    if (mode === 'decline') return err(403, 'REJECT_CARD_COMPANY', '결제 승인이 거절되었습니다.');
    const billingKey = `bk_${randomBytes(12).toString('hex')}`;
    billingKeys.set(billingKey, { customerKey: body.customerKey, cardNumber: '43301234****123*', mId: MIDS[merchant] });
    return {
      status: 200,
      body: {
        mId: MIDS[merchant],
        customerKey: body.customerKey,
        authenticatedAt: kst(clock.now()),
        method: '카드',
        billingKey,
        // `cardCompany` / `cardNumber` are left out: removed in API version 2024-06-01, so nothing may rely on them.
        // `card.number` is masked as Toss masks it everywhere, first 8 digits and 3 of the last 4
        // (https://docs.tosspayments.com/reference, Billing object; https://techchat.tosspayments.com/m/1237228930805534770).
        card: { issuerCode: '41', acquirerCode: '41', number: '43301234****123*', cardType: '신용', ownerType: '개인' },
      },
    };
  }

  function charge(billingKey: string, body: any): Answer {
    // A billing key belongs to the MID that issued it: the other MID's key does not know it.
    const billing = mine(billingKeys.get(billingKey));
    if (!billing) return err(404, 'NOT_FOUND_BILLING', '존재하지 않는 빌링 결제 인증 정보 입니다.');
    const { customerKey, amount, orderId, orderName } = body ?? {};
    if (customerKey !== billing.customerKey) return err(400, 'NOT_MATCHES_CUSTOMER_KEY', '빌링 인증 고객키와 결제 요청 고객키가 일치하지 않습니다.');
    if (!Number.isInteger(amount) || typeof orderId !== 'string' || typeof orderName !== 'string') return err(400, 'INVALID_REQUEST', '잘못된 요청입니다.');
    if (mode === 'decline') return err(403, 'REJECT_CARD_PAYMENT', '한도초과 혹은 잔액부족으로 결제에 실패했습니다.');
    const existing = [...payments.values()].find((p) => p.orderId === orderId);
    if (existing) return err(400, 'DUPLICATED_ORDER_ID', '이미 승인 및 취소가 진행된 중복된 주문번호 입니다. 다른 주문번호로 진행해주세요.');
    const payment = newPayment({ paymentKey: `tbill_${randomBytes(12).toString('hex')}`, orderId, orderName, amount, type: 'BILLING', method: '카드', customerKey });
    payments.set(payment.paymentKey, payment);
    if (mode === 'already_processed') return err(400, 'ALREADY_PROCESSED_PAYMENT', '이미 처리된 결제 입니다.');
    return { status: 200, body: payment };
  }

  function deleteBilling(billingKey: string): Answer {
    if (!mine(billingKeys.get(billingKey)) || !billingKeys.delete(billingKey)) return err(404, 'NOT_FOUND_BILLING', '존재하지 않는 빌링 결제 인증 정보 입니다.');
    return { status: 200, body: null };
  }

  /** `2022-01-01T00:00:00` or with `.SSS`: a KST local time (the transactions API takes local times). */
  function kstLocal(s: string | null): number | null {
    if (!s || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?$/.test(s)) return null;
    const t = Date.parse(`${s}+09:00`);
    return Number.isNaN(t) ? null : t;
  }

  function listTransactions(query: URLSearchParams): Answer {
    const start = kstLocal(query.get('startDate'));
    const end = kstLocal(query.get('endDate'));
    if (start === null || end === null) return err(400, 'INVALID_REQUEST', '잘못된 요청입니다.');
    const limit = query.has('limit') ? Number(query.get('limit')) : 100;
    if (!Number.isInteger(limit) || limit < 1 || limit > 5000) return err(400, 'INVALID_REQUEST', '잘못된 요청입니다.');
    let list = transactions.filter((t) => {
      if (t.mId !== MIDS[merchant]) return false;
      const at = Date.parse(t.transactionAt);
      return at >= start && at <= end;
    });
    const after = query.get('startingAfter');
    if (after) {
      const i = list.findIndex((t) => t.transactionKey === after);
      if (i < 0) return err(400, 'INVALID_TRANSACTION_KEY', '잘못된 페이징 키 입니다.');
      list = list.slice(i + 1);
    }
    return { status: 200, body: list.slice(0, limit) };
  }

  /** `2022-01-01`, or a date-time whose date part is read (Toss: "날짜 정보만 입력하면 시간은 자동으로 00:00:00으로 설정됩니다"). */
  function dateOf(s: string | null): string | null {
    const m = s ? /^(\d{4}-\d{2}-\d{2})(T\d{2}:\d{2}:\d{2}(\.\d{1,3})?)?$/.exec(s) : null;
    return m && !Number.isNaN(Date.parse(`${m[1]}T00:00:00Z`)) ? m[1] : null;
  }

  /**
   * The Settlement records of the caller's MID: one per approval and per cancel (a cancel's record carries `cancel` and
   * negative amounts: the money goes back and so does its fee). Daily settlement paid out two days after the sale.
   */
  function settlementOf(t: any): any {
    const p = payments.get(t.paymentKey);
    const sign = t.status === 'DONE' ? 1 : -1;
    const amount = sign * t.amount;
    const fee = Math.round(amount * feeRate);
    const vat = Math.round(fee / 11);
    const soldDate = t.transactionAt.slice(0, 10); // transactionAt is KST (+09:00): its date is the KST day
    const paidOutDate = new Date(Date.parse(`${soldDate}T00:00:00Z`) + 2 * 86_400_000).toISOString().slice(0, 10);
    const cancel = sign < 0 ? (p?.cancels ?? []).find((c: any) => c.transactionKey === t.transactionKey) ?? null : null;
    return {
      mId: t.mId,
      paymentKey: t.paymentKey,
      transactionKey: t.transactionKey,
      orderId: t.orderId,
      currency: 'KRW',
      method: t.method,
      amount,
      interestFee: 0,
      fee,
      fees: [{ type: 'BASE', fee }],
      supplyAmount: fee - vat,
      vat,
      payOutAmount: amount - fee,
      approvedAt: p?.approvedAt ?? t.transactionAt,
      soldDate,
      paidOutDate,
      card: p?.card ?? null,
      easyPay: p?.easyPay ?? null,
      virtualAccount: null,
      transfer: null,
      mobilePhone: null,
      giftCertificate: null,
      cancel: cancel ? structuredClone(cancel) : null,
    };
  }

  function listSettlements(query: URLSearchParams): Answer {
    const start = dateOf(query.get('startDate'));
    const end = dateOf(query.get('endDate'));
    if (!start || !end) return err(400, 'INVALID_REQUEST', '잘못된 요청입니다.');
    const dateType = query.get('dateType') ?? 'soldDate';
    if (dateType !== 'soldDate' && dateType !== 'paidOutDate') return err(400, 'INVALID_REQUEST', '잘못된 요청입니다.');
    const page = query.has('page') ? Number(query.get('page')) : 1;
    const size = query.has('size') ? Number(query.get('size')) : 100;
    if (!Number.isInteger(page) || page < 1 || !Number.isInteger(size) || size < 1 || size > 5000) return err(400, 'INVALID_REQUEST', '잘못된 요청입니다.');
    const list = transactions
      // PayPal has no settlement records in Toss's settlement API (see above).
      .filter((t) => t.mId === MIDS[merchant] && t.currency !== 'USD' && (t.status === 'DONE' || t.status === 'CANCELED' || t.status === 'PARTIAL_CANCELED'))
      .map(settlementOf)
      .filter((x) => x[dateType] >= start && x[dateType] <= end);
    return { status: 200, body: list.slice((page - 1) * size, page * size) };
  }

  /** A CashReceipt object (components.schemas.CashReceipt of the 2022-11-16 reference). */
  function cashReceiptObject(receiptKey: string, r: { orderId: string; orderName: string; type: string; customerIdentityNumber: string }, transactionType: 'CONFIRM' | 'CANCEL', amount: number): any {
    const issueNumber = String(100_000_000 + (randomBytes(4).readUInt32BE() % 900_000_000));
    const masked = r.customerIdentityNumber.replace(/^(\d{3})\d*(\d{4})$/, (_, a, b) => `${a}****${b}`);
    return {
      receiptKey,
      issueNumber,
      issueStatus: 'IN_PROGRESS',
      amount,
      taxFreeAmount: 0,
      orderId: r.orderId,
      orderName: r.orderName,
      type: r.type,
      transactionType,
      businessNumber: '1234567890',
      customerIdentityNumber: masked,
      failure: null,
      requestedAt: kst(clock.now()),
      receiptUrl: `https://dashboard.tosspayments.com/receipt/mids/${MIDS[merchant]}/orders/${encodeURIComponent(r.orderId)}/cash-receipt?ref=dashboard`,
    };
  }

  function issueSeparateCashReceipt(body: any): Answer {
    const { amount, orderId, orderName, customerIdentityNumber, type } = body ?? {};
    if (!Number.isInteger(amount) || amount < 1 || typeof orderId !== 'string' || !/^[a-zA-Z0-9\-_.]{6,64}$/.test(orderId) || typeof orderName !== 'string' || orderName.length > 100) {
      return err(400, 'INVALID_REQUEST', '잘못된 요청입니다.');
    }
    if (typeof customerIdentityNumber !== 'string' || !/^[0-9]{1,30}$/.test(customerIdentityNumber) || (type !== '소득공제' && type !== '지출증빙')) return err(400, 'INVALID_REQUEST', '잘못된 요청입니다.');
    const receiptKey = `cr_${randomBytes(10).toString('hex')}`;
    const receipt = cashReceiptObject(receiptKey, { orderId, orderName, type, customerIdentityNumber }, 'CONFIRM', amount);
    cashReceipts.set(receiptKey, { mId: MIDS[merchant], orderId, type, customerIdentityNumber, amount, history: [receipt] });
    return { status: 200, body: receipt };
  }

  function cancelSeparateCashReceipt(receiptKey: string, body: any): Answer {
    const r = cashReceipts.get(receiptKey);
    if (!r || r.mId !== MIDS[merchant]) return err(404, 'NOT_FOUND', '존재하지 않는 정보 입니다.');
    const amount = body?.amount ?? r.amount;
    if (!Number.isInteger(amount) || amount < 1 || amount > r.amount) return err(400, 'INVALID_REQUEST', '잘못된 요청입니다.');
    r.amount -= amount;
    const receipt = cashReceiptObject(receiptKey, { ...r, orderName: r.history[0].orderName }, 'CANCEL', amount);
    r.history.push(receipt);
    return { status: 200, body: receipt };
  }

  function route(method: string, path: string, body: any, query: URLSearchParams): Answer {
    let m: RegExpExecArray | null;
    if (method === 'POST' && path === '/v1/cash-receipts') return issueSeparateCashReceipt(body);
    if (method === 'POST' && (m = /^\/v1\/cash-receipts\/([^/]+)\/cancel$/.exec(path))) return cancelSeparateCashReceipt(decodeURIComponent(m[1]), body);
    if (method === 'DELETE' && (m = /^\/v1\/billing\/([^/]+)$/.exec(path))) return deleteBilling(decodeURIComponent(m[1]));
    if (method === 'GET' && path === '/v1/transactions') return listTransactions(query);
    if (method === 'POST' && path === '/v1/payments/confirm') return confirm(body);
    if (method === 'POST' && (m = /^\/v1\/payments\/([^/]+)\/cancel$/.exec(path))) return cancel(decodeURIComponent(m[1]), body);
    if (method === 'POST' && path === '/v1/billing/authorizations/issue') return issueBilling(body);
    if (method === 'POST' && (m = /^\/v1\/billing\/([^/]+)$/.exec(path))) return charge(decodeURIComponent(m[1]), body);
    if (method === 'GET' && path === '/v1/settlements') return listSettlements(query);
    if (method === 'GET' && (m = /^\/v1\/payments\/orders\/([^/]+)$/.exec(path))) {
      const orderId = decodeURIComponent(m[1]);
      const p = mine([...payments.values()].find((x) => x.orderId === orderId));
      return p ? { status: 200, body: p } : err(404, 'NOT_FOUND_PAYMENT', '존재하지 않는 결제 정보 입니다.');
    }
    if (method === 'GET' && (m = /^\/v1\/payments\/([^/]+)$/.exec(path))) {
      const p = mine(payments.get(decodeURIComponent(m[1])));
      return p ? { status: 200, body: p } : err(404, 'NOT_FOUND_PAYMENT', '존재하지 않는 결제 정보 입니다.');
    }
    return err(404, 'NOT_FOUND', '존재하지 않는 정보 입니다.');
  }

  function holdKind(method: string, path: string): FakeTossHoldKind | null {
    if (path.startsWith('/v1/cash-receipts')) return 'cash_receipt';
    if (method === 'POST' && path === '/v1/payments/confirm') return 'confirm';
    if (method === 'POST' && /^\/v1\/payments\/[^/]+\/cancel$/.test(path)) return 'cancel';
    if (method === 'GET' && path === '/v1/transactions') return 'transactions';
    if (method === 'GET' && path === '/v1/settlements') return 'settlements';
    if (method === 'POST' && path === '/v1/billing/authorizations/issue') return 'billing_issue';
    if (method === 'POST' && /^\/v1\/billing\/[^/]+$/.test(path)) return 'billing_charge';
    if (method === 'DELETE' && /^\/v1\/billing\/[^/]+$/.test(path)) return 'billing_delete';
    if (method === 'GET' && path.startsWith('/v1/payments/')) return 'lookup';
    return null;
  }

  async function handle(req: IncomingMessage, raw: string, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const [path, search] = (req.url ?? '/').split('?');
    const query = new URLSearchParams(search ?? '');
    let body: any = null;
    if (raw) {
      try {
        body = JSON.parse(raw);
      } catch {
        body = raw;
      }
    }
    const header = (name: string) => {
      const v = req.headers[name];
      return Array.isArray(v) ? v.join(', ') : v;
    };
    const auth = header('authorization');
    const signedBy: FakeTossMerchant | null = auth === expectedAuth ? 'payments' : billingPair && auth === basic(billingPair.secretKey) ? 'billing' : null;
    calls.push({ method, path, query, body, headers: { authorization: auth, 'idempotency-key': header('idempotency-key'), 'content-type': header('content-type') }, merchant: signedBy });
    const call = calls[calls.length - 1];
    const write = (a: { status: number; body: unknown }) => {
      if (res.destroyed || res.writableEnded) return; // the caller is gone (a kill test ended it in beforeAnswer)
      res.writeHead(a.status, { 'content-type': 'application/json; charset=utf-8' });
      // DELETE answers carry no body.
      res.end(a.body === null ? '' : JSON.stringify(a.body));
    };
    const send = (a: { status: number; body: unknown }) => {
      if (!beforeAnswer) return write(a);
      void Promise.resolve(beforeAnswer(call, a)).then((r) => (r === 'drop' ? void res.destroy() : write(a)), () => write(a));
    };
    // An unknown secret key: 401 with Toss's error object `{ code, message }`, on every endpoint, before anything else
    // (https://docs.tosspayments.com/reference/error-codes: "401 UNAUTHORIZED_KEY 인증되지 않은 시크릿 키 혹은 클라이언트
    // 키 입니다."). A lookup of an order id nobody used answers 404 NOT_FOUND_PAYMENT instead (route below), which is
    // what the adapter's key check reads as "accepted".
    if (!signedBy) return send({ status: 401, body: { code: 'UNAUTHORIZED_KEY', message: '인증되지 않은 시크릿 키 혹은 클라이언트 키 입니다.' } });
    if (mode === 'timeout') return; // never answered; close() tears the socket down
    if (mode === 'error500') return send({ status: 500, body: { code: 'FAILED_INTERNAL_SYSTEM_PROCESSING', message: '내부 시스템 처리 작업이 실패했습니다. 잠시 후 다시 시도해주세요.' } });
    const idem = method === 'POST' ? header('idempotency-key') : undefined;
    // Idempotency keys are at most 300 characters (Toss: 멱등키 최대 길이 300자).
    if (idem !== undefined && (idem.length === 0 || idem.length > 300)) return send(err(400, 'INVALID_IDEMPOTENCY_KEY', '잘못된 멱등키 입니다.'));
    // Toss scopes idempotency by API key + URL + method.
    const replayKey = idem ? `${signedBy} ${method} ${path} ${idem}` : null;
    if (replayKey && inFlight.has(replayKey)) return send(err(409, 'IDEMPOTENT_REQUEST_PROCESSING', '이전 멱등 요청이 처리중입니다. 잠시 후 다시 시도해주세요.'));
    const replay = replayKey ? replays.get(replayKey) : undefined;
    if (replay) return send(replay);
    if (replayKey) inFlight.add(replayKey);
    try {
      const kind = holdKind(method, path);
      const j = injected.findIndex((x) => x.kind === 'any' || x.kind === kind);
      if (j >= 0) {
        const [{ error }] = injected.splice(j, 1);
        return send(err(error.status, error.code, error.message));
      }
      const i = holds.findIndex((h) => h.kind === 'any' || h.kind === kind);
      if (i >= 0) {
        const [h] = holds.splice(i, 1);
        h.arrive();
        await h.released;
      }
      merchant = signedBy;
      const answer = route(method, path, body, query);
      if (replayKey) replays.set(replayKey, { status: answer.status, body: structuredClone(answer.body) });
      if (mode === 'lost_answer' && method === 'POST') return;
      send({ status: answer.status, body: answer.body });
    } finally {
      if (replayKey) inFlight.delete(replayKey);
    }
  }

  const server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (raw += c));
    req.on('end', () => void handle(req, raw, res));
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    mId: MIDS.payments,
    billing: billingPair,
    secretKey,
    clientKey,
    transactions,
    payments,
    cashReceipts,
    calls,
    get beforeAnswer() {
      return beforeAnswer;
    },
    set beforeAnswer(hook) {
      beforeAnswer = hook;
    },
    billingKeys,
    setMode(m) {
      mode = m;
    },
    requestPayment(input) {
      sessions.set(input.paymentKey, { orderId: input.orderId, amount: input.amount, startedAt: clock.now(), cashReceipt: input.cashReceipt, method: input.method, currency: input.currency, international: input.useInternationalCardOnly });
    },
    hold(kind) {
      let arrive!: () => void;
      let release!: () => void;
      const arrived = new Promise<void>((r) => (arrive = r));
      const released = new Promise<void>((r) => (release = r));
      holds.push({ kind, arrive, released });
      return { arrived, release };
    },
    answerNext(kind, error) {
      injected.push({ kind, error });
    },
    deposit(paymentKey) {
      const payment = payments.get(paymentKey);
      if (!payment || payment.status !== 'WAITING_FOR_DEPOSIT') throw new Error(`fake toss: no virtual account waiting: ${paymentKey}`);
      const at = kst(clock.now());
      payment.status = 'DONE';
      payment.approvedAt = at;
      payment.lastTransactionKey = txKey();
      recordTransaction(payment, 'DONE', payment.totalAmount, payment.lastTransactionKey, at);
      if (payment.cashReceiptType) issueCashReceipt(payment);
      // DEPOSIT_CALLBACK (https://docs.tosspayments.com/reference/using-api/webhook-events#deposit_callback): no eventType.
      return { createdAt: new Date(clock.now().getTime() + 9 * 3600_000).toISOString().replace('Z', '000'), secret: payment.secret, orderId: payment.orderId, status: 'DONE', transactionKey: payment.lastTransactionKey };
    },
    cancelAtToss(paymentKey, amount, reason = '상점관리자 취소') {
      const payment = payments.get(paymentKey);
      if (!payment) throw new Error(`fake toss: no payment ${paymentKey}`);
      if (!Number.isInteger(amount) || amount <= 0 || amount > payment.balanceAmount) throw new Error(`fake toss: cannot cancel ${amount} of ${payment.balanceAmount}`);
      applyCancel(payment, amount, reason);
      return structuredClone(payment);
    },
    webhook(eventType: 'PAYMENT_STATUS_CHANGED' | 'CANCEL_STATUS_CHANGED' | 'BILLING_DELETED', key: string): any {
      // Microseconds, as documented ("yyyy-MM-dd'T'HH:mm:ss.SSSSSS", https://docs.tosspayments.com/en/webhooks).
      const createdAt = webhookCreatedAt(clock.now());
      if (eventType === 'BILLING_DELETED') {
        const billing = billingKeys.get(key);
        return { eventType, createdAt, data: { mId: billing?.mId ?? MIDS.payments, billingKey: key, customerKey: billing?.customerKey ?? null } };
      }
      const payment = payments.get(key);
      if (!payment) throw new Error(`fake toss: no payment ${key}`);
      if (eventType === 'PAYMENT_STATUS_CHANGED') return { eventType, createdAt, data: structuredClone(payment) };
      const last = payment.cancels?.at(-1);
      if (!last) throw new Error(`fake toss: payment ${key} has no cancel`);
      return { eventType, createdAt, data: { paymentKey: payment.paymentKey, orderId: payment.orderId, ...structuredClone(last) } };
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
