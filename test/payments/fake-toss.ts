import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { randomBytes } from 'node:crypto';

/**
 * A local stand-in for the Toss Payments core API (https://docs.tosspayments.com/reference), speaking the documented
 * protocol closely enough to exercise the adapter: secret-key Basic auth, `{ code, message }` error bodies with the
 * documented HTTP statuses, Idempotency-Key replay (same key + path + method → the first answer, no second effect).
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

export interface FakeToss {
  baseUrl: string;
  secretKey: string;
  close(): Promise<void>;
  payments: Map<string, any>;
  setMode(m: FakeTossMode): void;
  calls: Array<{ method: string; path: string; body: any; headers: Record<string, string | undefined> }>;
  /**
   * A cancel made outside our API, as a seller does in Toss's merchant admin (상점관리자): Toss's own cancel, with its
   * transactionKey and cancelStatus DONE, no call from us. Returns the Payment after it (what Toss's lookup answers).
   */
  cancelAtToss(paymentKey: string, amount: number, reason?: string): any;
}

// ---------- webhook bodies ----------
// As Toss documents them (https://docs.tosspayments.com/reference/using-api/webhook-events, the event reference; and
// https://docs.tosspayments.com/en/webhooks, https://docs.tosspayments.com/guides/webhook): `{ eventType, createdAt, data }`,
// createdAt in `yyyy-MM-dd'T'HH:mm:ss.SSSSSS` (KST, no offset). Only payout.changed / seller.changed carry a signature
// header; none of these three is signed, so a receiver must confirm them through the API. Toss expects a 200 and
// otherwise retries up to 7 times (1, 4, 16, 64, 256, 1024, 4096 minutes later).

const webhookCreatedAt = (d = new Date()) => new Date(d.getTime() + 9 * 3600_000).toISOString().replace('Z', '000');

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

const kst = (d: Date) => new Date(d.getTime() + 9 * 3600_000).toISOString().replace(/\.\d{3}Z$/, '+09:00');

function easyPayFor(paymentKey: string): { method: string; easyPay: { provider: string; amount: number; discountAmount: number } | null } {
  const k = paymentKey.toLowerCase();
  const provider = k.includes('kakaopay') ? '카카오페이' : k.includes('naverpay') ? '네이버페이' : k.includes('tosspay') ? '토스페이' : null;
  return provider ? { method: '간편결제', easyPay: { provider, amount: 0, discountAmount: 0 } } : { method: '카드', easyPay: null };
}

export async function startFakeToss(opts?: { secretKey?: string }): Promise<FakeToss> {
  const secretKey = opts?.secretKey ?? `test_sk_${randomBytes(12).toString('hex')}`;
  const expectedAuth = `Basic ${Buffer.from(`${secretKey}:`).toString('base64')}`;
  const payments = new Map<string, any>();
  const billingKeys = new Map<string, { customerKey: string; cardNumber: string }>();
  const replays = new Map<string, { status: number; body: unknown }>();
  const calls: FakeToss['calls'] = [];
  const sockets = new Set<Socket>();
  let mode: FakeTossMode = 'ok';

  function newPayment(input: { paymentKey: string; orderId: string; orderName: string; amount: number; type: 'NORMAL' | 'BILLING'; method?: string }) {
    const now = new Date();
    const kind = input.method === '카드' ? { method: '카드', easyPay: null } : easyPayFor(input.paymentKey);
    const totalAmount = mode === 'amount_mismatch' ? input.amount + 1000 : input.amount;
    return {
      mId: 'tosspayments',
      version: '2022-11-16',
      lastTransactionKey: randomBytes(16).toString('hex').toUpperCase(),
      paymentKey: input.paymentKey,
      orderId: input.orderId,
      orderName: input.orderName,
      currency: 'KRW',
      method: kind.method,
      status: 'DONE',
      requestedAt: kst(now),
      approvedAt: kst(now),
      type: input.type,
      totalAmount,
      balanceAmount: totalAmount,
      suppliedAmount: Math.round(totalAmount / 1.1),
      vat: totalAmount - Math.round(totalAmount / 1.1),
      taxFreeAmount: 0,
      card: kind.method === '카드' ? { issuerCode: '4V', acquirerCode: '41', number: '43301234****123*', installmentPlanMonths: 0, approveNo: '00000000', cardType: '신용', ownerType: '개인', amount: totalAmount } : null,
      easyPay: kind.easyPay ? { ...kind.easyPay, amount: totalAmount } : null,
      cancels: null as null | any[],
      failure: null,
      country: 'KR',
    };
  }

  type Answer = { status: number; body: unknown };
  const err = (status: number, code: string, message: string): Answer => ({ status, body: { code, message } });

  function confirm(body: any): Answer {
    const { paymentKey, orderId, amount } = body ?? {};
    if (typeof paymentKey !== 'string' || typeof orderId !== 'string' || !Number.isInteger(amount)) return err(400, 'INVALID_REQUEST', '잘못된 요청입니다.');
    if (!/^[A-Za-z0-9_-]{6,64}$/.test(orderId)) return err(400, 'INVALID_ORDER_ID', 'orderId는 영문 대소문자, 숫자, 특수문자(-, _) 만 허용합니다. 6자 이상 64자 이하여야 합니다.');
    if (mode === 'decline') return err(403, 'REJECT_CARD_PAYMENT', '한도초과 혹은 잔액부족으로 결제에 실패했습니다.');
    const existing = payments.get(paymentKey);
    if (existing) return err(400, 'ALREADY_PROCESSED_PAYMENT', '이미 처리된 결제 입니다.');
    if ([...payments.values()].some((p) => p.orderId === orderId)) return err(400, 'DUPLICATED_ORDER_ID', '이미 승인 및 취소가 진행된 중복된 주문번호 입니다. 다른 주문번호로 진행해주세요.');
    const payment = newPayment({ paymentKey, orderId, orderName: '테스트 주문', amount, type: 'NORMAL' });
    payments.set(paymentKey, payment);
    if (mode === 'already_processed') return err(400, 'ALREADY_PROCESSED_PAYMENT', '이미 처리된 결제 입니다.');
    return { status: 200, body: payment };
  }

  function cancel(paymentKey: string, body: any): Answer {
    const payment = payments.get(paymentKey);
    if (!payment) return err(404, 'NOT_FOUND_PAYMENT', '존재하지 않는 결제 정보 입니다.');
    if (typeof body?.cancelReason !== 'string' || body.cancelReason.length === 0) return err(400, 'INVALID_REQUEST', '잘못된 요청입니다.');
    if (mode === 'decline') return err(403, 'NOT_CANCELABLE_PAYMENT', '취소 할 수 없는 결제 입니다.');
    if (payment.balanceAmount === 0) return err(400, 'ALREADY_CANCELED_PAYMENT', '이미 취소된 결제 입니다.');
    const cancelAmount = body.cancelAmount ?? payment.balanceAmount;
    if (!Number.isInteger(cancelAmount) || cancelAmount <= 0 || cancelAmount > payment.balanceAmount) return err(403, 'NOT_CANCELABLE_AMOUNT', '취소 할 수 없는 금액 입니다.');
    payment.balanceAmount -= cancelAmount;
    payment.status = payment.balanceAmount === 0 ? 'CANCELED' : 'PARTIAL_CANCELED';
    payment.cancels = [
      ...(payment.cancels ?? []),
      {
        transactionKey: randomBytes(16).toString('hex').toUpperCase(),
        cancelReason: body.cancelReason,
        taxExemptionAmount: 0,
        canceledAt: kst(new Date()),
        cancelAmount,
        taxFreeAmount: 0,
        refundableAmount: payment.balanceAmount,
        cancelStatus: 'DONE',
        cancelRequestId: null,
      },
    ];
    return { status: 200, body: payment };
  }

  function issueBilling(body: any): Answer {
    if (typeof body?.authKey !== 'string' || typeof body?.customerKey !== 'string') return err(400, 'INVALID_REQUEST', '잘못된 요청입니다.');
    if (mode === 'decline') return err(403, 'REJECT_CARD_COMPANY', '결제 승인이 거절되었습니다.');
    const billingKey = `bk_${randomBytes(12).toString('hex')}`;
    billingKeys.set(billingKey, { customerKey: body.customerKey, cardNumber: '43301234****123*' });
    return {
      status: 200,
      body: {
        mId: 'tosspayments',
        customerKey: body.customerKey,
        authenticatedAt: kst(new Date()),
        method: '카드',
        billingKey,
        card: { issuerCode: '4V', acquirerCode: '41', number: '43301234****123*', cardType: '신용', ownerType: '개인' },
        cardCompany: '신한',
        cardNumber: '43301234****123*',
      },
    };
  }

  function charge(billingKey: string, body: any): Answer {
    const billing = billingKeys.get(billingKey);
    if (!billing) return err(404, 'NOT_FOUND_BILLING', '존재하지 않는 빌링 결제 인증 정보 입니다.');
    const { customerKey, amount, orderId, orderName } = body ?? {};
    if (customerKey !== billing.customerKey) return err(400, 'NOT_MATCHES_CUSTOMER_KEY', '빌링 인증 고객키와 결제 요청 고객키가 일치하지 않습니다.');
    if (!Number.isInteger(amount) || typeof orderId !== 'string' || typeof orderName !== 'string') return err(400, 'INVALID_REQUEST', '잘못된 요청입니다.');
    if (mode === 'decline') return err(403, 'REJECT_CARD_PAYMENT', '한도초과 혹은 잔액부족으로 결제에 실패했습니다.');
    const existing = [...payments.values()].find((p) => p.orderId === orderId);
    if (existing) return err(400, 'DUPLICATED_ORDER_ID', '이미 승인 및 취소가 진행된 중복된 주문번호 입니다. 다른 주문번호로 진행해주세요.');
    const payment = newPayment({ paymentKey: `tbill_${randomBytes(12).toString('hex')}`, orderId, orderName, amount, type: 'BILLING', method: '카드' });
    payments.set(payment.paymentKey, payment);
    if (mode === 'already_processed') return err(400, 'ALREADY_PROCESSED_PAYMENT', '이미 처리된 결제 입니다.');
    return { status: 200, body: payment };
  }

  function route(method: string, path: string, body: any): Answer {
    let m: RegExpExecArray | null;
    if (method === 'POST' && path === '/v1/payments/confirm') return confirm(body);
    if (method === 'POST' && (m = /^\/v1\/payments\/([^/]+)\/cancel$/.exec(path))) return cancel(decodeURIComponent(m[1]), body);
    if (method === 'POST' && path === '/v1/billing/authorizations/issue') return issueBilling(body);
    if (method === 'POST' && (m = /^\/v1\/billing\/([^/]+)$/.exec(path))) return charge(decodeURIComponent(m[1]), body);
    if (method === 'GET' && (m = /^\/v1\/payments\/orders\/([^/]+)$/.exec(path))) {
      const orderId = decodeURIComponent(m[1]);
      const p = [...payments.values()].find((x) => x.orderId === orderId);
      return p ? { status: 200, body: p } : err(404, 'NOT_FOUND_PAYMENT', '존재하지 않는 결제 정보 입니다.');
    }
    if (method === 'GET' && (m = /^\/v1\/payments\/([^/]+)$/.exec(path))) {
      const p = payments.get(decodeURIComponent(m[1]));
      return p ? { status: 200, body: p } : err(404, 'NOT_FOUND_PAYMENT', '존재하지 않는 결제 정보 입니다.');
    }
    return err(404, 'NOT_FOUND', '존재하지 않는 정보 입니다.');
  }

  function handle(req: IncomingMessage, raw: string, res: ServerResponse): void {
    const method = req.method ?? 'GET';
    const path = (req.url ?? '/').split('?')[0];
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
    calls.push({ method, path, body, headers: { authorization: header('authorization'), 'idempotency-key': header('idempotency-key'), 'content-type': header('content-type') } });
    const send = (a: { status: number; body: unknown }) => {
      res.writeHead(a.status, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(a.body));
    };
    if (header('authorization') !== expectedAuth) return send({ status: 401, body: { code: 'UNAUTHORIZED_KEY', message: '인증되지 않은 시크릿 키 혹은 클라이언트 키 입니다.' } });
    if (mode === 'timeout') return; // never answered; close() tears the socket down
    if (mode === 'error500') return send({ status: 500, body: { code: 'FAILED_INTERNAL_SYSTEM_PROCESSING', message: '내부 시스템 처리 작업이 실패했습니다. 잠시 후 다시 시도해주세요.' } });
    const idem = method === 'POST' ? header('idempotency-key') : undefined;
    // Toss scopes idempotency by API key + URL + method.
    const replayKey = idem ? `${method} ${path} ${idem}` : null;
    const replay = replayKey ? replays.get(replayKey) : undefined;
    if (replay) return send(replay);
    const answer = route(method, path, body);
    if (replayKey) replays.set(replayKey, { status: answer.status, body: structuredClone(answer.body) });
    if (mode === 'lost_answer' && method === 'POST') return;
    send({ status: answer.status, body: answer.body });
  }

  const server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (raw += c));
    req.on('end', () => handle(req, raw, res));
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    secretKey,
    payments,
    calls,
    setMode(m) {
      mode = m;
    },
    cancelAtToss(paymentKey, amount, reason = '상점관리자 취소') {
      const answer = cancel(paymentKey, { cancelReason: reason, cancelAmount: amount });
      if (answer.status !== 200) throw new Error(`cancelAtToss: ${JSON.stringify(answer.body)}`);
      return structuredClone(answer.body);
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
