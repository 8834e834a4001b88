import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { randomBytes, randomUUID } from 'node:crypto';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import type { Clock } from '../../src/platform/clock';
import { portoneErrorSchemaFor, portoneErrorStatus, portoneSchemaErrors } from './portone-openapi';

/**
 * A local stand-in for PortOne's V2 REST API, built from PortOne's published OpenAPI document
 * (src/schema/v2.openapi.yml of portone-io/developers.portone.io, /work/ref/portone-v2.openapi.yml) and its guides
 * (/work/ref/portone-docs: webhook readme-v2, checkout, billing issue/payment, cancel-v2, virtual-account), never from
 * our adapter. What it speaks (see test/fixtures/portone/README.md for the source of each part):
 * - auth `Authorization: PortOne <API Secret>`; anything else → 401 UnauthorizedError `{ type: 'UNAUTHORIZED' }`;
 * - every request body (and a GET's `requestBody` query) is validated against the operation's request schema
 *   (CancelPaymentBody, BillingKeyPaymentInput, GetAllPaymentEventsByCursorBody …): invalid → 400 INVALID_REQUEST;
 * - every error answer is `{ type, message }` with the HTTP status the error schema documents (`x-portone-status-code`),
 *   and its `type` must be one of the operation's error union (checked when answered; an undocumented error throws);
 * - GET /payments/{paymentId} → Payment (PaidPayment, VirtualAccountIssuedPayment, PartialCancelledPayment,
 *   CancelledPayment, FailedPayment, ReadyPayment); 404 PAYMENT_NOT_FOUND (also for another store's payment);
 * - POST /payments/{paymentId}/cancel → CancelPaymentResponse { cancellation: SucceededPaymentCancellation };
 *   `currentCancellableAmount` other than the balance → 409 CANCELLABLE_AMOUNT_CONSISTENCY_BROKEN; more than the balance
 *   → 409 CANCEL_AMOUNT_EXCEEDS_CANCELLABLE_AMOUNT; a cancelled payment → 409 PAYMENT_ALREADY_CANCELLED; not paid →
 *   409 PAYMENT_NOT_PAID; a 가상계좌 without `refundAccount` → 400 INVALID_REQUEST (cancel-v2.mdx: "가상계좌는 단방향
 *   결제수단이므로 환불 계좌 지정이 필수입니다");
 * - POST /payments/{paymentId}/billing-key → PayWithBillingKeyResponse { payment: BillingKeyPaymentSummary }; the
 *   paymentId already paid → 409 ALREADY_PAID; unknown key → 404 BILLING_KEY_NOT_FOUND; deleted → 409
 *   BILLING_KEY_ALREADY_DELETED; a declined card (`declineNext`) → 502 PG_PROVIDER with pgCode/pgMessage and a
 *   FailedPayment left under the paymentId;
 * - GET /billing-keys/{billingKey} → BillingKeyInfo (IssuedBillingKeyInfo / DeletedBillingKeyInfo);
 *   DELETE /billing-keys/{billingKey} → DeleteBillingKeyResponse { deletedAt };
 * - GET /payment-events-by-cursor → { items: PaymentEventWithCursor[] }: PaidPaymentEvent / PartialCancelledPaymentEvent
 *   / CancelledPaymentEvent by `createdAt` within [from, until], `size` default 10 and at most 1000, `cursor` = the last
 *   item's cursor of the previous page;
 * - webhooks (version 2024-04-25) `{ type, timestamp, data: { paymentId, storeId, transactionId, cancellationId? } }`
 *   signed as Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256>`).
 *
 * Test hooks stand for what happens outside the API: `browserPay` is the buyer finishing `PortOne.requestPayment` in
 * the PG's window (a card paid at once, a 가상계좌 issued), refused for a paymentId already paid (checkout guide: "같은
 * paymentId에 대해 여러 번의 결제 시도가 가능하나, 최종적으로 결제에 성공하는 것은 단 한 번만 가능합니다. (중복 결제 방지)"); `issueBillingKey` is `PortOne.requestIssueBillingKey` (the stub's `requestIssueBillingKey` calls it);
 * `deposit` is the buyer's bank deposit to a 가상계좌; `cancelInConsole` is a cancel made in PortOne's console; `hold`,
 * `answerNext` and `beforeAnswer` delay, replace or cut an answer (the kill and lost-answer tests).
 */

export type FakePortOneOp = 'get_payment' | 'cancel' | 'billing_charge' | 'billing_get' | 'billing_delete' | 'events' | 'any';

export interface FakePortOneCall {
  method: string;
  path: string;
  op: FakePortOneOp | null;
  body: any;
  headers: Record<string, string | undefined>;
}

export interface FakePortOne {
  baseUrl: string;
  apiSecret: string;
  storeId: string;
  /** The webhook secret (`whsec_…`), as the console shows it. */
  webhookSecret: string;
  payments: Map<string, any>;
  billingKeys: Map<string, any>;
  /** PaymentEvent objects in the order they happened (what /payment-events-by-cursor lists). */
  events: any[];
  calls: FakePortOneCall[];
  /** What pages passed to the stand-in `PortOne.requestPayment` (in order). */
  browserRequests: any[];
  /** The stand-in for PortOne's browser SDK (https://cdn.portone.io/v2/browser-sdk.js) a page under test loads. */
  sdkUrl: string;
  /** Called after the request took effect and before the answer is written; 'drop' cuts the connection instead. */
  beforeAnswer: ((call: FakePortOneCall, answer: { status: number; body: unknown }) => void | 'drop' | Promise<void | 'drop'>) | null;
  /** The buyer completes PortOne.requestPayment in the PG's window. A paymentId already paid is refused (ALREADY_PAID). */
  browserPay(input: { paymentId: string; amount: number; method?: 'card' | 'kakaopay' | 'virtual_account' | 'mobile'; currency?: string; installmentMonth?: number; storeId?: string; channelType?: 'TEST' | 'LIVE' }): { ok: true; txId: string } | { ok: false; code: string };
  /** The buyer registers a card in PortOne.requestIssueBillingKey: an ISSUED billing key for this customer id. */
  issueBillingKey(input: { customerId: string; cardNumber?: string }): string;
  /** The buyer's deposit to an issued 가상계좌: the payment becomes PAID; answers the signed Transaction.Paid webhook. */
  deposit(paymentId: string): FakePortOneWebhook;
  /** A cancel made in PortOne's console (trigger CONSOLE): changes the payment, tells our API nothing. */
  cancelInConsole(paymentId: string, amount: number, reason?: string): any;
  /** A signed webhook delivery for a payment event (`secret`/`at` override the signing secret or time). */
  webhook(type: string, paymentId: string, opts?: { secret?: string; at?: Date; cancellationId?: string }): FakePortOneWebhook;
  /** Keeps the next request of this kind unanswered (processing waits too) until released. */
  hold(op: FakePortOneOp): { arrived: Promise<void>; release(): void };
  /** The next request of this kind gets this documented error (nothing changes). */
  answerNext(op: FakePortOneOp, error: { status: number; type: string; message?: string; pgCode?: string; pgMessage?: string }): void;
  /** The next billing-key payment is declined by the PG (502 PG_PROVIDER, a FailedPayment recorded). */
  declineNext(pgCode?: string, pgMessage?: string): void;
  close(): Promise<void>;
}

export interface FakePortOneWebhook {
  body: string;
  headers: { 'webhook-id': string; 'webhook-timestamp': string; 'webhook-signature': string; 'content-type': string };
}

/**
 * A stand-in for PortOne's browser SDK: `PortOne.requestPayment(request)` returns a promise that waits until the test
 * calls `window.__portoneFinish(close?)` (so the page can be looked at with the window "open"), then asks the fake to
 * take the payment as the PG's window would and resolves with the SDK's PaymentResponse (`code` set on failure, as
 * the checkout guide describes).
 */
const BROWSER_SDK_STUB = `(function () {
  window.PortOne = {
    requestPayment: function (request) {
      window.__portoneRequests = (window.__portoneRequests || []).concat([request]);
      return new Promise(function (resolve) {
        window.__portoneFinish = function (close) {
          var body = JSON.parse(JSON.stringify(request));
          if (close) body.__close = true;
          return fetch('__FAKE__/__browser/request-payment', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: JSON.stringify(body) })
            .then(function (r) { return r.json(); })
            .then(function (answer) { resolve(answer); return answer; });
        };
      });
    },
    // PortOne.requestIssueBillingKey (browser-sdk.yml IssueBillingKeyRequest): the card registration window, finished
    // the same way; resolves with IssueBillingKeyResponse { transactionType: 'ISSUE_BILLING_KEY', billingKey } or { code, message }.
    requestIssueBillingKey: function (request) {
      window.__portoneRequests = (window.__portoneRequests || []).concat([request]);
      return new Promise(function (resolve) {
        window.__portoneFinish = function (close) {
          var body = JSON.parse(JSON.stringify(request));
          if (close) body.__close = true;
          return fetch('__FAKE__/__browser/issue-billing-key', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: JSON.stringify(body) })
            .then(function (r) { return r.json(); })
            .then(function (answer) { resolve(answer); return answer; });
        };
      });
    },
  };
})();`;

/** Which error union each operation answers from (v2.openapi.yml responses). */
const ERROR_UNION: Record<Exclude<FakePortOneOp, 'any'>, string> = {
  get_payment: 'GetPaymentError',
  cancel: 'CancelPaymentError',
  billing_charge: 'PayWithBillingKeyError',
  billing_get: 'GetBillingKeyInfoError',
  billing_delete: 'DeleteBillingKeyError',
  events: 'GetAllPaymentEventsError',
};

export async function startFakePortOne(opts: { clock: Clock; apiSecret?: string; storeId?: string; webhookSecret?: string }): Promise<FakePortOne> {
  const clock = opts.clock;
  const apiSecret = opts.apiSecret ?? `portone_test_secret_${randomBytes(12).toString('hex')}`;
  const storeId = opts.storeId ?? `store-${randomUUID()}`;
  const webhookSecret = opts.webhookSecret ?? `whsec_${randomBytes(24).toString('base64')}`;
  const merchantId = `merchant-${randomUUID()}`;
  const payments = new Map<string, any>();
  const billingKeys = new Map<string, any>();
  const events: any[] = [];
  const calls: FakePortOneCall[] = [];
  const browserRequests: any[] = [];
  const holds = new Map<FakePortOneOp, { arrived: () => void; released: Promise<void> }>();
  const nextErrors = new Map<FakePortOneOp, { status: number; type: string; message?: string; pgCode?: string; pgMessage?: string }>();
  let decline: { pgCode: string; pgMessage: string } | null = null;
  let cursorSeq = 0;
  const iso = () => clock.now().toISOString();

  const channel = { type: 'TEST', id: 'channel-id-test', key: 'channel-key-test', name: '테스트 채널', pgProvider: 'INICIS_V2', pgMerchantId: 'INIpayTest' };
  const origin = { platformType: 'PC', ipAddress: '127.0.0.1' };

  function methodOf(kind: string, installmentMonth = 0): any {
    switch (kind) {
      case 'kakaopay':
        return { type: 'PaymentMethodEasyPay', provider: 'KAKAOPAY' };
      case 'mobile':
        return { type: 'PaymentMethodMobile', phoneNumber: '01000000000' };
      case 'virtual_account':
        return {
          type: 'PaymentMethodVirtualAccount',
          bank: 'SHINHAN',
          accountNumber: `562${String(Math.floor(Math.random() * 1e9)).padStart(9, '0')}`,
          accountType: 'NORMAL',
          remitteeName: '테스트상점',
          expiredAt: new Date(clock.now().getTime() + 3 * 86_400_000).toISOString(),
          issuedAt: iso(),
        };
      default:
        return { type: 'PaymentMethodCard', card: { publisher: 'SHINHAN', issuer: 'SHINHAN', brand: 'LOCAL', type: 'CREDIT', ownerType: 'PERSONAL', bin: '94361', name: '신한카드', number: '94361234****1234' }, approvalNumber: '30001234', installment: { month: installmentMonth, isInterestFree: false } };
    }
  }

  function amountOf(total: number): any {
    return { total, taxFree: 0, vat: Math.floor(total / 11), supply: total - Math.floor(total / 11), discount: 0, paid: 0, cancelled: 0, cancelledTaxFree: 0 };
  }

  /** A payment object as one of the Payment schemas: common fields plus the status's own. */
  function newPayment(paymentId: string, total: number, currency: string, method: any, extra: Record<string, unknown> = {}): any {
    return {
      status: 'READY',
      id: paymentId,
      transactionId: randomUUID(),
      merchantId,
      storeId: (extra.storeId as string) ?? storeId,
      method,
      channel,
      version: 'V2',
      requestedAt: iso(),
      updatedAt: iso(),
      statusChangedAt: iso(),
      orderName: '테스트 주문',
      amount: amountOf(total),
      currency,
      customer: {},
      origin,
      ...extra,
    };
  }

  function markPaid(p: any): void {
    p.status = 'PAID';
    p.paidAt = iso();
    p.updatedAt = p.statusChangedAt = p.paidAt;
    p.amount.paid = p.amount.total;
    p.pgTxId = `pg_${randomBytes(6).toString('hex')}`;
    p.disputes = [];
    p.cancellations = [];
    p.receiptUrl = `https://receipt.example/${p.id}`;
    event('PAID', p, p.amount.total, null);
  }

  function event(type: 'PAID' | 'PARTIAL_CANCELLED' | 'CANCELLED', p: any, eventAmount: number, cancellation: any): void {
    const e: any = {
      type,
      id: `event-${randomUUID()}`,
      paymentId: p.id,
      transactionId: p.transactionId,
      merchantId,
      storeId: p.storeId,
      method: p.method,
      channel: p.channel,
      version: 'V2',
      requestedAt: p.requestedAt,
      createdAt: iso(),
      orderName: p.orderName,
      totalAmount: structuredClone(p.amount),
      currency: p.currency,
      customer: p.customer,
      eventAmount,
      origin,
    };
    if (type === 'PAID') e.disputes = [];
    if (cancellation) e.cancellation = structuredClone(cancellation);
    events.push({ paymentEvent: e, cursor: `cursor-${String(++cursorSeq).padStart(8, '0')}` });
  }

  function cancel(p: any, amount: number, reason: string, trigger: 'API' | 'CONSOLE'): any {
    const c = { status: 'SUCCEEDED', id: `cancellation-${randomUUID()}`, pgCancellationId: `pgc_${randomBytes(5).toString('hex')}`, totalAmount: amount, taxFreeAmount: 0, vatAmount: Math.floor(amount / 11), reason, cancelledAt: iso(), requestedAt: iso(), trigger };
    p.cancellations.push(c);
    p.amount.cancelled += amount;
    const full = p.amount.cancelled >= p.amount.paid;
    p.status = full ? 'CANCELLED' : 'PARTIAL_CANCELLED';
    p.cancelledAt = iso();
    p.updatedAt = p.statusChangedAt = iso();
    event(full ? 'CANCELLED' : 'PARTIAL_CANCELLED', p, amount, c);
    return c;
  }

  function errorBody(op: FakePortOneOp, type: string, message: string, extra: Record<string, unknown> = {}): { status: number; body: unknown } {
    // Only errors the operation documents, with the status their schema documents.
    const schema = op === 'any' ? null : portoneErrorSchemaFor(ERROR_UNION[op], type);
    if (op !== 'any' && !schema) throw new Error(`fake-portone: ${type} is not documented for ${op}`);
    const status = schema ? (portoneErrorStatus(schema) ?? 400) : 401;
    return { status, body: { type, message, ...extra } };
  }

  type Answer = { status: number; body: unknown };

  function handle(op: FakePortOneOp | null, method: string, path: string, query: URLSearchParams, body: any): Answer {
    let m: RegExpMatchArray | null;
    if (method === 'GET' && (m = path.match(/^\/payments\/([^/]+)$/))) {
      const p = payments.get(decodeURIComponent(m[1]));
      const asked = query.get('storeId') ?? storeId;
      if (!p || p.storeId !== asked) return errorBody('get_payment', 'PAYMENT_NOT_FOUND', '결제 건이 존재하지 않습니다.');
      return { status: 200, body: p };
    }
    if (method === 'POST' && (m = path.match(/^\/payments\/([^/]+)\/cancel$/))) {
      const bad = portoneSchemaErrors('CancelPaymentBody', body);
      if (bad.length) return errorBody('cancel', 'INVALID_REQUEST', `요청 형식 오류: ${bad[0]}`);
      const p = payments.get(decodeURIComponent(m[1]));
      if (!p || p.storeId !== (body.storeId ?? storeId)) return errorBody('cancel', 'PAYMENT_NOT_FOUND', '결제 건이 존재하지 않습니다.');
      if (p.status === 'CANCELLED') return errorBody('cancel', 'PAYMENT_ALREADY_CANCELLED', '이미 취소된 결제입니다.');
      if (p.status !== 'PAID' && p.status !== 'PARTIAL_CANCELLED') return errorBody('cancel', 'PAYMENT_NOT_PAID', '결제가 완료되지 않았습니다.');
      const balance = p.amount.paid - p.amount.cancelled;
      if (body.currentCancellableAmount !== undefined && body.currentCancellableAmount !== balance) {
        return errorBody('cancel', 'CANCELLABLE_AMOUNT_CONSISTENCY_BROKEN', '취소 가능 잔액 검증에 실패했습니다.');
      }
      const amount = body.amount ?? balance;
      if (amount > balance) return errorBody('cancel', 'CANCEL_AMOUNT_EXCEEDS_CANCELLABLE_AMOUNT', '취소 금액이 취소 가능 금액을 초과합니다.');
      if (p.method?.type === 'PaymentMethodVirtualAccount' && !body.refundAccount) return errorBody('cancel', 'INVALID_REQUEST', '가상계좌 환불에는 환불 계좌가 필요합니다.');
      return { status: 200, body: { cancellation: cancel(p, amount, body.reason, 'API') } };
    }
    if (method === 'POST' && (m = path.match(/^\/payments\/([^/]+)\/billing-key$/))) {
      const bad = portoneSchemaErrors('BillingKeyPaymentInput', body);
      if (bad.length) return errorBody('billing_charge', 'INVALID_REQUEST', `요청 형식 오류: ${bad[0]}`);
      const paymentId = decodeURIComponent(m[1]);
      const key = billingKeys.get(body.billingKey);
      if (!key || key.storeId !== (body.storeId ?? storeId)) return errorBody('billing_charge', 'BILLING_KEY_NOT_FOUND', '빌링키가 존재하지 않습니다.');
      if (key.status === 'DELETED') return errorBody('billing_charge', 'BILLING_KEY_ALREADY_DELETED', '빌링키가 이미 삭제되었습니다.');
      const existing = payments.get(paymentId);
      if (existing && existing.status !== 'READY' && existing.status !== 'FAILED') return errorBody('billing_charge', 'ALREADY_PAID', '결제가 이미 완료되었습니다.');
      const p = newPayment(paymentId, body.amount.total, body.currency, { type: 'PaymentMethodCard', card: key.methods[0].card, installment: { month: 0, isInterestFree: false } }, { billingKey: body.billingKey, orderName: body.orderName, customer: body.customer ?? {} });
      p.origin = { platformType: 'API', ipAddress: '127.0.0.1' };
      payments.set(paymentId, p);
      if (decline) {
        const d = decline;
        decline = null;
        Object.assign(p, { status: 'FAILED', failedAt: iso(), failure: { reason: d.pgMessage, pgCode: d.pgCode, pgMessage: d.pgMessage } });
        return errorBody('billing_charge', 'PG_PROVIDER', d.pgMessage, { pgCode: d.pgCode, pgMessage: d.pgMessage });
      }
      markPaid(p);
      return { status: 200, body: { payment: { pgTxId: p.pgTxId, paidAt: p.paidAt } } };
    }
    if ((method === 'GET' || method === 'DELETE') && (m = path.match(/^\/billing-keys\/([^/]+)$/))) {
      const o: FakePortOneOp = method === 'GET' ? 'billing_get' : 'billing_delete';
      const key = billingKeys.get(decodeURIComponent(m[1]));
      if (!key || key.storeId !== (query.get('storeId') ?? storeId)) return errorBody(o, 'BILLING_KEY_NOT_FOUND', '빌링키가 존재하지 않습니다.');
      if (method === 'GET') return { status: 200, body: key };
      if (key.status === 'DELETED') return errorBody(o, 'BILLING_KEY_ALREADY_DELETED', '빌링키가 이미 삭제되었습니다.');
      key.status = 'DELETED';
      key.deletedAt = iso();
      return { status: 200, body: { deletedAt: key.deletedAt } };
    }
    if (method === 'GET' && path === '/payment-events-by-cursor') {
      let req: any = {};
      try {
        req = JSON.parse(query.get('requestBody') ?? '{}');
      } catch {
        return errorBody('events', 'INVALID_REQUEST', 'requestBody가 JSON이 아닙니다.');
      }
      const bad = portoneSchemaErrors('GetAllPaymentEventsByCursorBody', req);
      if (bad.length) return errorBody('events', 'INVALID_REQUEST', `요청 형식 오류: ${bad[0]}`);
      const size = req.size ?? 10;
      if (size < 1 || size > 1000) return errorBody('events', 'INVALID_REQUEST', '페이지 크기는 1000 이하여야 합니다.');
      const until = req.until ? new Date(req.until).getTime() : clock.now().getTime();
      const from = req.from ? new Date(req.from).getTime() : until - 90 * 86_400_000;
      const wantStore = req.storeId ?? storeId;
      let list = events.filter((e) => e.paymentEvent.storeId === wantStore && new Date(e.paymentEvent.createdAt).getTime() >= from && new Date(e.paymentEvent.createdAt).getTime() <= until);
      if (req.cursor) {
        const at = list.findIndex((e) => e.cursor === req.cursor);
        if (at < 0) return errorBody('events', 'INVALID_REQUEST', '잘못된 커서입니다.');
        list = list.slice(at + 1);
      }
      return { status: 200, body: { items: list.slice(0, size) } };
    }
    return { status: 404, body: { type: 'NOT_FOUND', message: `no such endpoint: ${method} ${path}` } };
  }

  function opOf(method: string, path: string): FakePortOneOp | null {
    if (/^\/payments\/[^/]+$/.test(path) && method === 'GET') return 'get_payment';
    if (/^\/payments\/[^/]+\/cancel$/.test(path)) return 'cancel';
    if (/^\/payments\/[^/]+\/billing-key$/.test(path)) return 'billing_charge';
    if (/^\/billing-keys\/[^/]+$/.test(path)) return method === 'GET' ? 'billing_get' : 'billing_delete';
    if (path === '/payment-events-by-cursor') return 'events';
    return null;
  }

  const sockets = new Set<Socket>();
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? '/', 'http://fake');
    const method = req.method ?? 'GET';
    const text = Buffer.concat(chunks).toString('utf8');
    let body: any = undefined;
    if (text) {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    // The browser SDK stand-in (see BROWSER_SDK_STUB): its script, and the "window" it reports back to.
    if (url.pathname === '/browser-sdk.js') {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'access-control-allow-origin': '*' });
      res.end(BROWSER_SDK_STUB.replaceAll('__FAKE__', `http://127.0.0.1:${port}`));
      return;
    }
    if (url.pathname === '/__browser/request-payment' && method === 'POST') {
      const r = JSON.parse(text);
      browserRequests.push(r);
      const kind = r.payMethod === 'VIRTUAL_ACCOUNT' ? 'virtual_account' : r.payMethod === 'EASY_PAY' ? 'kakaopay' : 'card';
      const done = r.__close ? { ok: false as const, code: 'USER_CANCEL' } : fake.browserPay({ paymentId: r.paymentId, amount: r.totalAmount, method: kind, currency: r.currency === 'CURRENCY_KRW' ? 'KRW' : r.currency, installmentMonth: r.card?.installment?.monthOption?.fixedMonth ?? 0 });
      res.writeHead(200, { 'content-type': 'application/json', 'access-control-allow-origin': '*' });
      // The browser SDK's answer: PaymentResponse { transactionType, txId, paymentId, code?, message? }.
      res.end(JSON.stringify(done.ok ? { transactionType: 'PAYMENT', txId: done.txId, paymentId: r.paymentId } : { transactionType: 'PAYMENT', paymentId: r.paymentId, code: done.code, message: done.code === 'USER_CANCEL' ? '사용자가 결제를 취소했습니다.' : '이미 결제된 건입니다.' }));
      return;
    }
    if (url.pathname === '/__browser/issue-billing-key' && method === 'POST') {
      const r = JSON.parse(text);
      browserRequests.push(r);
      res.writeHead(200, { 'content-type': 'application/json', 'access-control-allow-origin': '*' });
      const answer = r.__close
        ? { transactionType: 'ISSUE_BILLING_KEY', code: 'FAILURE_TYPE_PG', message: '사용자가 카드 등록을 취소했습니다.' }
        : { transactionType: 'ISSUE_BILLING_KEY', billingKey: fake.issueBillingKey({ customerId: r.customer?.customerId }) };
      res.end(JSON.stringify(answer));
      return;
    }
    const op = opOf(method, url.pathname);
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v]));
    const call: FakePortOneCall = { method, path: url.pathname + url.search, op, body, headers };
    calls.push(call);
    const send = (a: Answer) => {
      res.writeHead(a.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(a.body));
    };
    if (req.headers.authorization !== `PortOne ${apiSecret}`) return send({ status: 401, body: { type: 'UNAUTHORIZED', message: '인증 정보가 올바르지 않습니다.' } });
    for (const k of [op, 'any'] as const) {
      const h = k ? holds.get(k) : undefined;
      if (h && k) {
        holds.delete(k);
        h.arrived();
        await h.released;
        break;
      }
    }
    for (const k of [op, 'any'] as const) {
      const e = k ? nextErrors.get(k) : undefined;
      if (e && k) {
        nextErrors.delete(k);
        const { status, type, message, ...extra } = e;
        return send({ status, body: { type, message: message ?? type, ...extra } });
      }
    }
    // Serialized now: what PortOne answered is fixed at this instant, whatever a hook changes before it is sent.
    const handled = handle(op, method, url.pathname, url.searchParams, body);
    const answer = { status: handled.status, body: JSON.parse(JSON.stringify(handled.body)) };
    if (beforeAnswerRef.fn) {
      const what = await beforeAnswerRef.fn(call, answer);
      if (what === 'drop') {
        req.socket.destroy();
        return;
      }
    }
    send(answer);
  });
  const beforeAnswerRef: { fn: FakePortOne['beforeAnswer'] } = { fn: null };
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  function sign(payload: string, secret: string, at: Date): FakePortOneWebhook {
    const id = `msg_${randomBytes(10).toString('hex')}`;
    const signature = new StandardWebhook(secret).sign(id, at, payload);
    return { body: payload, headers: { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature, 'content-type': 'application/json' } };
  }

  const fake: FakePortOne = {
    baseUrl: `http://127.0.0.1:${port}`,
    apiSecret,
    storeId,
    webhookSecret,
    payments,
    billingKeys,
    events,
    calls,
    browserRequests,
    sdkUrl: `http://127.0.0.1:${port}/browser-sdk.js`,
    get beforeAnswer() {
      return beforeAnswerRef.fn;
    },
    set beforeAnswer(fn) {
      beforeAnswerRef.fn = fn;
    },
    browserPay(input) {
      const existing = payments.get(input.paymentId);
      if (existing && existing.status !== 'READY' && existing.status !== 'FAILED') return { ok: false, code: 'ALREADY_PAID' };
      const kind = input.method ?? 'card';
      const p = newPayment(input.paymentId, input.amount, input.currency ?? 'KRW', methodOf(kind, input.installmentMonth ?? 0), input.storeId ? { storeId: input.storeId } : {});
      if (input.channelType) p.channel = { ...channel, type: input.channelType };
      payments.set(input.paymentId, p);
      if (kind === 'virtual_account') {
        p.status = 'VIRTUAL_ACCOUNT_ISSUED';
        p.pgTxId = `pg_${randomBytes(6).toString('hex')}`;
      } else {
        markPaid(p);
      }
      return { ok: true, txId: p.transactionId };
    },
    issueBillingKey(input) {
      const billingKey = `billing-key-${randomUUID()}`;
      const number = input.cardNumber ?? '5365100012345678';
      billingKeys.set(billingKey, {
        status: 'ISSUED',
        billingKey,
        merchantId,
        storeId,
        methods: [{ type: 'BillingKeyPaymentMethodCard', card: { publisher: 'KOOKMIN', issuer: 'KOOKMIN', brand: 'LOCAL', type: 'CREDIT', ownerType: 'PERSONAL', bin: number.slice(0, 6), name: 'KB국민카드', number: `${number.slice(0, 6)}******${number.slice(-4)}` } }],
        channels: [channel],
        customer: { id: input.customerId },
        issuedAt: iso(),
        requestedAt: iso(),
      });
      return billingKey;
    },
    deposit(paymentId) {
      const p = payments.get(paymentId);
      if (!p || p.status !== 'VIRTUAL_ACCOUNT_ISSUED') throw new Error(`fake-portone: ${paymentId} is not waiting for a deposit`);
      markPaid(p);
      return fake.webhook('Transaction.Paid', paymentId);
    },
    cancelInConsole(paymentId, amount, reason = '콘솔 취소') {
      const p = payments.get(paymentId);
      if (!p) throw new Error(`fake-portone: no payment ${paymentId}`);
      return cancel(p, amount, reason, 'CONSOLE');
    },
    webhook(type, paymentId, o = {}) {
      const p = payments.get(paymentId);
      const data: Record<string, string> = { paymentId, storeId: p?.storeId ?? storeId, transactionId: p?.transactionId ?? randomUUID() };
      if (o.cancellationId) data.cancellationId = o.cancellationId;
      // The real clock signs: the SDK's verify checks the timestamp against Date.now() (5 minutes either way).
      const at = o.at ?? new Date();
      return sign(JSON.stringify({ type, timestamp: clock.now().toISOString(), data }), o.secret ?? webhookSecret, at);
    },
    hold(op) {
      let arrived!: () => void;
      let release!: () => void;
      const arrivedP = new Promise<void>((r) => (arrived = r));
      const released = new Promise<void>((r) => (release = r));
      holds.set(op, { arrived, released });
      return { arrived: arrivedP, release };
    },
    answerNext(op, error) {
      nextErrors.set(op, error);
    },
    declineNext(pgCode = 'F113', pgMessage = '한도초과') {
      decline = { pgCode, pgMessage };
    },
    async close() {
      for (const h of holds.values()) h.arrived();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}
