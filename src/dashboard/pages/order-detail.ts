/**
 * The dashboard's order page: the order's summary and payment, its refunds, refund requests and licences, the events
 * section (order-events.ts), and the seller's two actions on it, a refund and a 현금영수증 issued afterwards.
 */
import { ownValue } from '../../platform/lookup';
import { providerTraits } from '../../payments/registry';
import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App, AppDeps } from '../../deps';
import { displayPhone, html, type SafeHtml } from '../../pages/html';
import { ApiError } from '../../platform/errors';
import { getOrder, getOrderPayment } from '../../orders/service';
import { refundOrder, refundableAmount } from '../../refunds/service';
import { findRefundByRequestKey, listRefunds } from '../../refunds/console';
import { listRequests } from '../../refunds/requests/service';
import { adminListLicenses } from '../../licenses/service';
import { eventsOfOrder } from '../../webhooks/service';
import { eventsSection, orderEventsRoute } from './order-events';
import { auditAction, csrfField, ctxOf, redirectTo, requireRole, sendPage, type DashboardContext } from '../frame';
import { act, BIZ_CSS, checked, flash, intField, labelTag, LICENSE_STATUS_LABEL, METHOD_LABEL, money, orderStatusTag, problemBox, REFUND_STATUS_LABEL, str, tr, when, type Problem, type Query } from './kit';
import { requestStatusTag } from './refund-requests';
import { bidiMessage, hasBidiControl } from '../../platform/text';
import { issueSellerCashReceipt, retryCashReceipt } from '../../checkout/seller-cash-receipt';
import { refundConfirmRoute, type RefundFormValues } from './refund-confirm';
import { testDepositForm, testDepositRoute } from './order-test-deposit';

const IDEM = /^[A-Za-z0-9-]{16,64}$/;

/** A 현금영수증's state as the seller reads it; a refused one stands out. */
function cashReceiptStatusTag(lang: DashboardContext['lang'], status: string): SafeHtml {
  const label: Record<string, [string, string]> = {
    requested: ['발급 중', 'being issued'],
    issued: ['발급됨', 'issued'],
    partially_canceled: ['부분 취소됨', 'partly canceled'],
    canceled: ['취소됨', 'canceled'],
    failed: ['발급 실패', 'refused'],
  };
  const [ko, en] = label[status] ?? [status, status];
  return html`<span class="tag${status === 'failed' ? ' bad' : ''}" id="cash-receipt-status">${tr(lang, ko, en)}</span>`;
}

interface CashReceiptForm {
  type: string;
  number: string;
}

type RefundForm = RefundFormValues;

/**
 * The seller issues a 현금영수증 afterwards (src/checkout/seller-cash-receipt.ts): for a paid 계좌이체 / 가상계좌 order
 * with none and something left after refunds. 소득공제 with a phone or card number, 지출증빙 with a 사업자등록번호.
 */
function cashReceiptForm(
  ctx: DashboardContext,
  order: { id: string; status: string; method: string; amount: number; refundedAmount: number | null; cashReceipt?: { requestedBy: string; status: string; identity: string | null; failure?: { code: string; message: string } | null } | null },
  problem: Problem | null,
  form: CashReceiptForm | null,
): SafeHtml | '' {
  const L = (ko: string, en: string) => tr(ctx.lang, ko, en);
  const left = order.amount - (order.refundedAmount ?? 0);
  const pending = order.cashReceipt?.requestedBy === 'seller' && order.cashReceipt.status === 'requested';
  // Issue 40: a receipt the gateway refused is flagged here with its own words, to retry or issue by hand.
  const failed = order.cashReceipt?.status === 'failed' ? order.cashReceipt : null;
  if (order.status !== 'paid' || (order.method !== 'transfer' && order.method !== 'virtual_account') || left <= 0 || (order.cashReceipt && !pending && !failed)) return '';
  const err = problem?.fields.find((f) => f.field === 'customerIdentityNumber');
  const type = form?.type ?? '소득공제';
  const retry = failed
    ? html`<div class="banner error" id="cash-receipt-failed" data-testid="cash-receipt-failed">
  <p><strong>${L('결제대행사가 현금영수증 발급을 거절했습니다.', 'The gateway refused the cash receipt.')}</strong></p>
  <p>${L('결제대행사 답변', "Gateway's answer")}: <span id="cash-receipt-failure">${failed.failure?.message ?? ''}</span> <span class="mono small">(${failed.failure?.code ?? ''})</span></p>
  <p class="small">${failed.requestedBy === 'mandatory'
    ? L('의무발행 대상(10만 원 이상 현금 거래)이라 발급해야 합니다. 국세청 자진발급번호 010-000-1234로 다시 보내거나 구매자 번호로 발급하세요.', 'This sale must get one (의무발행, 100,000 won or more in cash): send it again to the self-issue number 010-000-1234, or issue it to the buyer\'s number.')
    : L(`요청 번호 ${failed.identity ?? ''}로 다시 보내거나, 아래에서 다른 번호로 발급하세요.`, `Send it again to ${failed.identity ?? ''}, or issue it below with another number.`)}</p>
</div>
<form method="post" action="/dashboard/orders/${encodeURIComponent(order.id)}/cash-receipt/retry" id="cash-receipt-retry" hx-disabled-elt="find button">
  ${csrfField(ctx)}
  <p><button type="submit" class="primary">${L('같은 번호로 다시 발급', 'Retry with the same number')}</button></p>
</form>`
    : '';
  return html`<section class="card" aria-labelledby="h-cash-receipt"><h2 id="h-cash-receipt">${failed ? L('현금영수증 발급 실패', 'Cash receipt refused') : L('현금영수증 발급', 'Issue a cash receipt')}</h2>
${retry}
<form method="post" action="/dashboard/orders/${encodeURIComponent(order.id)}/cash-receipt" id="cash-receipt-form" data-testid="cash-receipt-form" hx-disabled-elt="find button">
  ${csrfField(ctx)}
  <p class="muted">${
    failed
      ? L(`다른 번호로 발급: 환불되지 않은 ${money('ko', left)}에 대해 발급합니다.`, `Issue with another number, for the ${money('en', left)} not refunded.`)
      : pending
      ? L('발급 요청의 결과를 아직 받지 못했습니다. 다시 보내면 같은 발급으로 확인하며 두 번 발급되지 않습니다.', 'The issue has not been answered yet. Sending it again confirms the same issue; it is never issued twice.')
      : L(`구매자가 결제할 때 현금영수증을 신청하지 않았습니다. 환불되지 않은 ${money('ko', left)}에 대해 발급합니다.`, `The buyer asked for none at payment. Issues one for the ${money('en', left)} not refunded.`)
  }</p>
  <fieldset><legend>${L('종류', 'Type')}</legend>
  <label class="check"><input type="radio" name="type" value="소득공제"${type === '소득공제' ? html` checked` : ''}> ${L('소득공제 (개인: 휴대폰 번호 또는 카드 번호)', 'Income deduction (a person: phone or card number)')}</label>
  <label class="check"><input type="radio" name="type" value="지출증빙"${type === '지출증빙' ? html` checked` : ''}> ${L('지출증빙 (사업자: 사업자등록번호)', 'Expense proof (a business: registration number)')}</label>
  </fieldset>
  <label for="cash-receipt-number">${L('휴대폰 번호·카드 번호 또는 사업자등록번호', 'Phone, card or business registration number')}</label>
  <input type="text" inputmode="numeric" autocomplete="off" maxlength="30" id="cash-receipt-number" name="customerIdentityNumber" value="${form?.number ?? ''}" aria-describedby="cash-receipt-hint${err ? ' cash-receipt-err' : ''}"${err ? html` aria-invalid="true"` : ''}>
  ${err ? html`<p class="err" id="cash-receipt-err">${err.message}</p>` : ''}
  <p class="hint" id="cash-receipt-hint">${L('하이픈(-)은 넣어도 되고 빼도 됩니다. 번호는 가려서 보관합니다.', 'Dashes are optional. The number is kept masked.')}</p>
  <p><button type="submit" class="${failed ? 'secondary' : 'primary'}">${failed ? L('이 번호로 발급', 'Issue with this number') : L('현금영수증 발급', 'Issue cash receipt')}</button></p>
</form></section>`;
}

async function renderDetail(deps: AppDeps, req: FastifyRequest, reply: FastifyReply, ctx: DashboardContext, id: string, problem: Problem | null, form: RefundForm | null, crForm: CashReceiptForm | null = null): Promise<FastifyReply> {
  const L = (ko: string, en: string) => tr(ctx.lang, ko, en);
  const scope = { storeId: ctx.member.storeId, mode: ctx.mode, productIds: null };
  const order = await getOrder(deps, scope, id);
  const [payment, refunds, requests, licenses, events] = await Promise.all([
    getOrderPayment(deps, scope, id),
    listRefunds(deps, ctx.member.storeId, { page: 1, limit: 100, mode: ctx.mode, orderId: id }),
    listRequests(deps, { ...scope, orderId: id }, { page: 1, limit: 50 }),
    adminListLicenses(deps, ctx.member.storeId, { page: 1, limit: 100, mode: ctx.mode, orderId: id }),
    eventsOfOrder(deps, ctx.member.storeId, ctx.mode, id),
  ]);
  const refundable = order.status === 'paid' ? refundableAmount({ amount: order.amount, refunded_amount: order.refundedAmount }) : 0;
  const done = str((req.query as Query).done);
  const dl = (rows: Array<[string, unknown]>): SafeHtml => html`<dl class="detail">${rows.map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl>`;

  const refundForm =
    refundable > 0
      ? html`<form method="post" action="/dashboard/orders/${encodeURIComponent(order.id)}/refund/confirm" id="refund-form" data-testid="refund-form">
  ${csrfField(ctx)}
  <input type="hidden" name="idem" value="${randomUUID()}">
  <p class="muted">${L(`환불 가능 금액: ${money('ko', refundable)}`, `Refundable: ${money('en', refundable)}`)}</p>
  <label for="refund-amount">${L('환불 금액 (원)', 'Amount (KRW)')}</label>
  <input type="text" inputmode="numeric" id="refund-amount" name="amount" value="${form?.amount ?? ''}" aria-describedby="refund-amount-hint">
  <p class="hint" id="refund-amount-hint">${L('금액을 입력하거나 「전액」을 누르세요(쉼표는 넣어도 되고 빼도 됩니다). 다음 화면에서 금액과 환불 대상을 확인한 뒤 환불합니다.', 'Enter an amount or press "Whole amount" (commas optional). The next screen shows the amount and where it goes before anything is refunded.')}</p>
  <label for="refund-reason">${L('사유 (구매자에게 보이며 결제대행사에 전달됩니다)', 'Reason (shown to the buyer, sent to the gateway)')}</label>
  <textarea id="refund-reason" name="reason" maxlength="500">${form?.reason ?? ''}</textarea>
  <label class="check"><input type="checkbox" name="keepLicenses"${form?.keepLicenses ? html` checked` : ''}> ${L('전액 환불이어도 라이선스 유지', 'Keep licenses even on a full refund')}</label>
  <p><button type="submit" class="primary">${L('환불 내용 확인', 'Review the refund')}</button> <button type="submit" name="whole" value="1" class="plain">${L(`전액 (${money('ko', refundable)})`, `Whole amount (${money('en', refundable)})`)}</button></p>
</form>`
      : html`<p class="muted" data-testid="not-refundable">${L('환불할 수 있는 금액이 없습니다.', 'Nothing left to refund.')}</p>`;

  return sendPage(
    reply,
    ctx,
    { title: L(`주문 ${order.id}`, `Order ${order.id}`), nav: '/dashboard/orders' },
    html`${BIZ_CSS}
<p><a href="/dashboard/orders">← ${L('주문 목록', 'All orders')}</a></p>
${flash(done, {
  refunded: L('환불했습니다.', 'Refunded.'),
  cashReceipt: L('현금영수증을 발급했습니다.', 'Cash receipt issued.'),
  deposited: L('테스트 입금이 확인되어 결제가 완료되었습니다.', 'The test deposit arrived: the order is paid.'),
  notWaiting: L('입금을 기다리는 주문이 아닙니다. 아무것도 바뀌지 않았습니다.', 'This order is not waiting for a deposit; nothing changed.'),
  notDeposited: L('입금이 확인되지 않았습니다. 잠시 후 새로 고쳐 보세요.', 'The deposit was not confirmed; reload in a moment.'),
  replayed: L('이 환불 요청은 이미 처리되었습니다. 아래에서 결과를 확인하세요.', 'This refund was already sent; see its state below.'),
  inflight: L('이 환불 요청은 이미 처리 중입니다. 잠시 후 새로 고쳐 결과를 확인하세요.', 'This refund is already being processed; reload in a moment to see its result.'),
})}
${problemBox(problem)}
<div class="cols">
<section class="card" aria-labelledby="h-summary"><h2 id="h-summary">${L('요약', 'Summary')}</h2>${dl([
      [L('상태', 'Status'), html`<span id="order-status">${orderStatusTag(ctx.lang, order)}</span>`],
      [L('금액', 'Amount'), money(ctx.lang, order.amount)],
      [L('환불된 금액', 'Refunded'), html`<span id="refunded-amount">${money(ctx.lang, order.refundedAmount ?? 0)}</span>`],
      [L('상품', 'Product'), order.productName],
      [L('구매자', 'Buyer'), html`${order.buyerName}<br><span class="small">${order.buyerEmail} · <span style="white-space:nowrap">${displayPhone(order.buyerPhone)}</span></span>`],
      [L('생성', 'Created'), when(order.createdAt)],
    ])}</section>
<section class="card" aria-labelledby="h-payment"><h2 id="h-payment">${L('결제', 'Payment')}</h2>${dl([
      [L('결제 수단', 'Method'), L(ownValue(METHOD_LABEL, order.method)?.[0] ?? order.method, ownValue(METHOD_LABEL, order.method)?.[1] ?? order.method)],
      [
        L('할부', 'Installments'),
        payment.installmentMonths === null ? '—' : payment.installmentMonths === 0 ? L('일시불', 'Paid in full') : L(`${payment.installmentMonths}개월`, `${payment.installmentMonths} months`),
      ],
      [L('결제대행', 'Gateway'), L(providerTraits(payment.provider).label.ko, providerTraits(payment.provider).label.en)],
      [L('결제 키', 'Payment key'), html`<span class="mono">${payment.providerPaymentKey ?? '—'}</span>`],
      [L('결제 시각', 'Paid at'), when(order.paidAt)],
      ...(order.cashReceipt
        ? [
            [
              L('현금영수증', 'Cash receipt'),
              html`<span id="cash-receipt">${order.cashReceipt.type} · ${cashReceiptStatusTag(ctx.lang, order.cashReceipt.status)}${order.cashReceipt.identity ? html` · <span class="mono">${order.cashReceipt.identity}</span>` : ''}${order.cashReceipt.requestedBy === 'mandatory' ? html` (${L('의무발행', 'mandatory')})` : order.cashReceipt.requestedBy === 'seller' ? html` (${L('판매자 발급', 'issued by the seller')})` : ''}${order.cashReceipt.issueNumber ? html` · <span class="mono">${order.cashReceipt.issueNumber}</span>` : ''}${order.cashReceipt.receiptUrl ? html` · <a href="${order.cashReceipt.receiptUrl}" target="_blank" rel="noopener">${L('보기', 'View')}</a>` : ''}</span>`,
            ] as [string, unknown],
          ]
        : []),
      ...(order.virtualAccount
        ? ([
            [L('가상계좌', 'Virtual account'), html`<span id="va-account">${order.virtualAccount.bankName} <span class="mono">${order.virtualAccount.accountNumber}</span></span><br><span class="small">${L('예금주', 'Holder')} ${order.virtualAccount.holderName}</span>`],
            [L('입금 기한', 'Deposit due'), html`<span id="va-due">${when(order.virtualAccount.dueAt)}</span>`],
            [L('입금 확인', 'Deposited'), order.virtualAccount.depositedAt ? when(order.virtualAccount.depositedAt) : L('입금 전', 'not yet')],
            [L('환불 계좌', 'Refund account'), order.virtualAccount.refundAccountSet ? L('구매자가 입력함', 'given by the buyer') : L('없음 (환불 전에 구매자가 영수증 페이지에서 입력)', 'none (the buyer enters it on the receipt page before a refund)')],
          ] as Array<[string, unknown]>)
        : []),
      [L('쿠폰', 'Coupon'), order.coupon ? `${order.coupon.code} (−${money(ctx.lang, order.coupon.discountAmount)})` : '—'],
      [L('체크아웃 세션', 'Checkout session'), html`<span class="mono">${order.checkoutSessionId ?? '—'}</span>`],
      [
        L('구독', 'Subscription'),
        payment.subscriptionId ? html`<a class="mono" href="/dashboard/subscriptions/${encodeURIComponent(payment.subscriptionId)}">${payment.subscriptionId}</a> (${payment.subscriptionEvent ?? ''})` : '—',
      ],
      [L('정산', 'Settlement'), payment.settlementId ?? L('정산 전', 'not settled')],
    ])}${testDepositForm(ctx, order)}</section>
</div>
${cashReceiptForm(ctx, order, problem, crForm)}
<section class="card" aria-labelledby="h-refunds"><h2 id="h-refunds">${L('환불', 'Refunds')}</h2>
${
  refunds.data.length
    ? html`<div class="table-wrap"><table class="stack" id="refunds"><thead><tr><th scope="col">${L('환불', 'Refund')}</th><th scope="col">${L('금액', 'Amount')}</th><th scope="col">${L('상태', 'Status')}</th><th scope="col" class="wide">${L('사유', 'Reason')}</th><th scope="col" class="wide">${L('시각', 'When')}</th></tr></thead><tbody>
${refunds.data.map(
  (r) => html`<tr><td class="mono small">${r.id}</td><td class="num" data-label="${L('금액', 'Amount')}">${money(ctx.lang, r.amount)}</td><td data-label="${L('상태', 'Status')}">${labelTag(ctx.lang, REFUND_STATUS_LABEL, r.status, 'succeeded', ['failed'])}${r.failure ? html`<br><span class="small">${r.failure.message}</span>` : ''}</td><td class="wide">${r.reason ?? ''}</td><td class="wide small">${when(r.refundedAt ?? r.createdAt)}</td></tr>`,
)}</tbody></table></div>`
    : html`<p class="muted">${L('환불 내역이 없습니다.', 'No refunds.')}</p>`
}
${refundForm}
</section>
<section class="card" aria-labelledby="h-requests"><h2 id="h-requests">${L('환불 요청', 'Refund requests')}</h2>
${
  requests.data.length
    ? html`<ul>${requests.data.map((r) => html`<li><a class="mono" href="/dashboard/refund-requests/${encodeURIComponent(r.id)}">${r.id}</a> ${requestStatusTag(ctx.lang, r.status)} ${money(ctx.lang, r.amount)} · ${when(r.requestedAt)}</li>`)}</ul>`
    : html`<p class="muted">${L('환불 요청이 없습니다.', 'No refund requests.')}</p>`
}</section>
<section class="card" aria-labelledby="h-licenses"><h2 id="h-licenses">${L('라이선스', 'Licenses')}</h2>
${
  licenses.data.length
    ? html`<ul>${licenses.data.map((l) => html`<li><a class="mono" href="/dashboard/licenses/${encodeURIComponent(l.id)}">${l.id}</a> ${labelTag(ctx.lang, LICENSE_STATUS_LABEL, l.status, 'active', ['revoked', 'expired'])} · ${L('활성화', 'activations')} ${l.activationCount}${l.maxActivations === null ? '' : `/${l.maxActivations}`}</li>`)}</ul>`
    : html`<p class="muted">${L('라이선스가 없습니다.', 'No licenses.')}</p>`
}</section>
${eventsSection(ctx, id, events)}`,
    problem?.status ?? 200,
  );
}

export async function orderDetailRoutes(app: App, deps: AppDeps): Promise<void> {
  app.get('/dashboard/orders/:id', { schema: { hide: true }, preHandler: requireRole('orders') }, async (req, reply) =>
    renderDetail(deps, req, reply, ctxOf(req), (req.params as { id: string }).id, null, null),
  );

  orderEventsRoute(app, deps);
  refundConfirmRoute(app, deps, renderDetail);
  testDepositRoute(app, deps, renderDetail);

  // A 현금영수증 issued afterwards: the same service, checks and Korean messages as POST /admin/v1/orders/{id}/cash-receipt.
  // A second submit finds the first receipt (issued: CASH_RECEIPT_EXISTS shown; unanswered: the same key sent again).
  app.post('/dashboard/orders/:id/cash-receipt', { schema: { hide: true }, preHandler: requireRole('refunds') }, async (req, reply) => {
    const id = (req.params as { id: string }).id;
    const body = (req.body ?? {}) as Query;
    const form: CashReceiptForm = { type: str(body.type, 10) ?? '', number: str(body.customerIdentityNumber, 40) ?? '' };
    const path = `/dashboard/orders/${encodeURIComponent(id)}`;
    return act(
      req,
      reply,
      async (ctx) => {
        const order = await issueSellerCashReceipt(deps, ctx.member.storeId, ctx.mode, id, { type: form.type as '소득공제', customerIdentityNumber: form.number });
        return { type: order.cashReceipt?.type ?? form.type };
      },
      async (r) => {
        await auditAction(deps.db, deps, req, { action: 'order.cash_receipt_issued', target: { type: 'order', id }, details: { type: r.type } });
        return redirectTo(req, reply, `${path}?done=cashReceipt`);
      },
      (p, ctx) => renderDetail(deps, req, reply, ctx, id, p, null, form),
    );
  });

  // A refused 현금영수증 sent again with the number it was asked for (a fresh key; a double click issues once).
  app.post('/dashboard/orders/:id/cash-receipt/retry', { schema: { hide: true }, preHandler: requireRole('refunds') }, async (req, reply) => {
    const id = (req.params as { id: string }).id;
    const path = `/dashboard/orders/${encodeURIComponent(id)}`;
    return act(
      req,
      reply,
      async (ctx) => {
        const order = await retryCashReceipt(deps, ctx.member.storeId, ctx.mode, id);
        return { type: order.cashReceipt?.type ?? '' };
      },
      async (r) => {
        await auditAction(deps.db, deps, req, { action: 'order.cash_receipt_retried', target: { type: 'order', id }, details: { type: r.type } });
        return redirectTo(req, reply, `${path}?done=cashReceipt`);
      },
      (p, ctx) => renderDetail(deps, req, reply, ctx, id, p, null, null),
    );
  });

  // A refund from the order page: the refunds engine with the dashboard's own idempotency key (one per form render),
  // the same checks and Korean messages as POST /v1/orders/{id}/refund.
  app.post('/dashboard/orders/:id/refund', { schema: { hide: true }, preHandler: requireRole('refunds') }, async (req, reply) => {
    const id = (req.params as { id: string }).id;
    const body = (req.body ?? {}) as Query;
    const form: RefundForm = { amount: str(body.amount, 40) ?? '', reason: str(body.reason, 600) ?? '', keepLicenses: checked(body.keepLicenses) };
    const idem = str(body.idem, 64);
    const path = `/dashboard/orders/${encodeURIComponent(id)}`;
    return act(
      req,
      reply,
      async (ctx) => {
        const amount = intField(form.amount);
        if (amount === 'invalid') throw validationProblem(ctx);
        if (form.reason.length > 500) throw reasonProblem(ctx);
        if (hasBidiControl(form.reason)) throw new ApiError('VALIDATION_FAILED', { details: { fields: [{ field: 'reason', message: bidiMessage(tr(ctx.lang, '사유', 'reason')) }] } });
        if (!idem || !IDEM.test(idem)) throw staleForm();
        const requestKey = `dashboard:${idem}`;
        // The same form sent again: its refund exists already, so show it rather than refund (or audit) twice.
        const earlier = await findRefundByRequestKey(deps, ctx.member.storeId, ctx.mode, requestKey);
        if (earlier && earlier.orderId === id) return { replayed: true as const, refundId: earlier.id, inFlight: inFlight(earlier.status) };
        const r = await refundOrder(deps, {
          storeId: ctx.member.storeId,
          mode: ctx.mode,
          orderId: id,
          productIds: null,
          amount,
          reason: form.reason || null,
          keepLicenses: form.keepLicenses,
          source: 'console',
          requestKey,
          // A copy sent while the first is still with the gateway (it passed the check above before the first was
          // recorded) is answered with that refund, in progress or made, not PG_REFUND_AMBIGUOUS's 502.
          answerReplay: true,
        });
        if (r.replayed) return { replayed: true as const, refundId: r.refund.id, inFlight: inFlight(r.refund.status) };
        return { replayed: false as const, refundId: r.refund.id, amount: r.refund.amount };
      },
      async (r) => {
        if (r.replayed) return redirectTo(req, reply, `${path}?done=${r.inFlight ? 'inflight' : 'replayed'}`);
        await auditAction(deps.db, deps, req, { action: 'order.refunded', target: { type: 'order', id }, details: { refundId: r.refundId, amount: r.amount, keepLicenses: form.keepLicenses } });
        return redirectTo(req, reply, `${path}?done=refunded`);
      },
      (p, ctx) => renderDetail(deps, req, reply, ctx, id, p, form),
    );
  });
}


const inFlight = (status: string): boolean => status === 'pending' || status === 'unknown';

function validationProblem(ctx: DashboardContext): ApiError {
  return new ApiError('VALIDATION_FAILED', { details: { fields: [{ field: 'amount', message: tr(ctx.lang, '환불 금액은 원 단위 정수로 입력해 주세요.', 'Enter the amount as whole won.') }] } });
}

function reasonProblem(ctx: DashboardContext): ApiError {
  return new ApiError('VALIDATION_FAILED', { details: { fields: [{ field: 'reason', message: tr(ctx.lang, '사유는 500자 이하로 입력해 주세요.', 'Keep the reason to 500 characters.') }] } });
}

function staleForm(): ApiError {
  return new ApiError('VALIDATION_FAILED', { message: '환불 양식이 올바르지 않습니다. 페이지를 새로 고친 뒤 다시 시도해 주세요.' });
}
