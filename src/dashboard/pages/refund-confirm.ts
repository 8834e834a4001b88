/**
 * The dashboard refund's confirm step. The order page's form names an amount (typed, or the 「전액」 button: nothing is
 * prefilled, so the whole remainder is never sent without a look) and posts here; this page states the amount, where
 * the money goes back to and what is left, and only its own button posts the refund (POST /dashboard/orders/:id/refund,
 * with the idempotency key of the order page's form: a double click, or a second tab, refunds once). Toss's 상점관리자
 * and Stripe's dashboard confirm a refund the same way.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App, AppDeps } from '../../deps';
import { html, type SafeHtml } from '../../pages/html';
import { ApiError } from '../../platform/errors';
import { getOrder } from '../../orders/service';
import { refundableAmount } from '../../refunds/service';
import { methodRefundRule } from '../../refunds/method-rules';
import { refundAccountOf } from '../../checkout/virtual-account';
import { isGiftCertificate } from '../../payments/method';
import { bidiMessage, hasBidiControl } from '../../platform/text';
import { csrfField, requireRole, sendPage, type DashboardContext } from '../frame';
import { act, BIZ_CSS, checked, intField, METHOD_LABEL, money, str, tr, type Problem, type Query } from './kit';

export interface RefundFormValues {
  amount: string;
  reason: string;
  keepLicenses: boolean;
}

type RenderDetail = (deps: AppDeps, req: FastifyRequest, reply: FastifyReply, ctx: DashboardContext, id: string, problem: Problem | null, form: RefundFormValues | null) => Promise<FastifyReply>;

const field = (name: string, message: string) => new ApiError('VALIDATION_FAILED', { details: { fields: [{ field: name, message }] } });

/** Where a refund of this method goes back to, as the buyer will see it. */
function refundTarget(lang: DashboardContext['lang'], order: { method: string; virtualAccount?: { refundAccountSet: boolean } | null; phoneAfterMonth?: boolean; refundAccountOnFile?: boolean }): string {
  const L = (ko: string, en: string) => tr(lang, ko, en);
  if (order.method === 'card') return L('구매자가 결제한 카드 (승인 취소, 카드사에 따라 3~7영업일)', "The buyer's card (the charge is canceled; 3–7 business days by issuer)");
  if (order.method === 'virtual_account')
    return order.virtualAccount?.refundAccountSet
      ? L('구매자가 입력한 환불 계좌', 'The refund account the buyer gave')
      : L('환불 계좌 없음: 구매자가 영수증 페이지에서 입력해야 환불됩니다', 'No refund account yet: the buyer enters one on the receipt page');
  if (order.method === 'transfer') return L('구매자가 이체한 계좌', 'The account the buyer paid from');
  // Issue 41 (src/refunds/method-rules.ts): a phone payment is canceled on the phone bill within its KST month, after it
  // refunded to the buyer's own account; phone and gift certificates refund in full only.
  if (order.method === 'mobile_phone')
    return order.phoneAfterMonth
      ? order.refundAccountOnFile
        ? L('구매자가 입력한 환불 계좌 (결제한 달이 지나 휴대폰 결제 취소 불가, 전액만)', 'The refund account the buyer gave (the month of the phone payment has passed; full amount only)')
        : L('환불 계좌 없음: 결제한 달이 지나 휴대폰 결제는 구매자 계좌로만 환불됩니다. 구매자가 영수증 페이지에서 입력해야 환불됩니다', "No refund account yet: the phone payment's month has passed, so it is refunded only to the buyer's account, entered on the receipt page")
      : L('구매자의 휴대폰 요금 (결제한 달 안의 결제 취소, 전액만)', "The buyer's phone bill (canceled within the month of payment; full amount only)");
  if (isGiftCertificate(order.method)) return L(`구매자가 결제한 ${METHOD_LABEL[order.method]?.[0]} (전액만 환불)`, `The buyer's ${METHOD_LABEL[order.method]?.[1]} (full amount only)`);
  const name = METHOD_LABEL[order.method];
  return L(`구매자가 결제한 ${name?.[0] ?? order.method}`, `The buyer's ${name?.[1] ?? order.method}`);
}

function confirmPage(ctx: DashboardContext, order: { id: string; productName: string; buyerName: string; method: string; virtualAccount?: { refundAccountSet: boolean } | null; phoneAfterMonth?: boolean; refundAccountOnFile?: boolean }, amount: number, refundable: number, form: RefundFormValues, idem: string): SafeHtml {
  const L = (ko: string, en: string) => tr(ctx.lang, ko, en);
  const whole = amount === refundable;
  const rows: Array<[string, unknown]> = [
    [L('주문', 'Order'), html`<span class="mono">${order.id}</span> · ${order.productName}`],
    [L('구매자', 'Buyer'), order.buyerName],
    [L('환불 금액', 'Amount'), html`<strong data-testid="confirm-amount">${money(ctx.lang, amount)}</strong>${whole ? html` (${L('남은 금액 전부', 'everything left')})` : ''}`],
    [L('환불 대상', 'Refunded to'), html`<span data-testid="confirm-target">${refundTarget(ctx.lang, order)}</span>`],
    [L('환불 후 남는 금액', 'Left after'), money(ctx.lang, refundable - amount)],
    [L('사유', 'Reason'), form.reason || '—'],
    [L('라이선스', 'Licenses'), form.keepLicenses ? L('유지', 'kept') : whole ? L('전액 환불이므로 회수', 'revoked (full refund)') : L('유지 (부분 환불)', 'kept (partial refund)')],
  ];
  const path = `/dashboard/orders/${encodeURIComponent(order.id)}`;
  return html`${BIZ_CSS}
<section class="card" aria-labelledby="h-confirm" data-testid="refund-confirm"><h2 id="h-confirm">${L('환불 확인', 'Confirm the refund')}</h2>
<p>${L('아래 내용으로 환불합니다. 결제대행사에 보낸 환불은 되돌릴 수 없습니다.', 'The refund below is sent to the gateway and cannot be undone.')}</p>
<dl class="detail">${rows.map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl>
<form method="post" action="${path}/refund" hx-disabled-elt="find button">
  ${csrfField(ctx)}
  <input type="hidden" name="idem" value="${idem}">
  <input type="hidden" name="amount" value="${String(amount)}">
  <input type="hidden" name="reason" value="${form.reason}">
  ${form.keepLicenses ? html`<input type="hidden" name="keepLicenses" value="on">` : ''}
  <p><button type="submit" class="warn">${L(`${money('ko', amount)} 환불하기`, `Refund ${money('en', amount)}`)}</button> <a class="button plain" href="${path}">${L('취소', 'Cancel')}</a></p>
</form></section>`;
}

/** POST /dashboard/orders/:id/refund/confirm: checks the amount and shows the confirm page; moves no money. */
export function refundConfirmRoute(app: App, deps: AppDeps, renderDetail: RenderDetail): void {
  app.post('/dashboard/orders/:id/refund/confirm', { schema: { hide: true }, preHandler: requireRole('refunds') }, async (req, reply) => {
    const id = (req.params as { id: string }).id;
    const body = (req.body ?? {}) as Query;
    const form: RefundFormValues = { amount: str(body.amount, 40) ?? '', reason: str(body.reason, 600) ?? '', keepLicenses: checked(body.keepLicenses) };
    const idem = str(body.idem, 64) ?? '';
    return act(
      req,
      reply,
      async (ctx) => {
        const L = (ko: string, en: string) => tr(ctx.lang, ko, en);
        const order = await getOrder(deps, { storeId: ctx.member.storeId, mode: ctx.mode, productIds: null }, id);
        const refundable = order.status === 'paid' ? refundableAmount({ amount: order.amount, refunded_amount: order.refundedAmount }) : 0;
        if (refundable <= 0) throw new ApiError('REFUND_NOT_PAID', { message: L('환불할 수 있는 금액이 없습니다.', 'Nothing left to refund.') });
        const typed = intField(form.amount);
        const amount = body.whole === '1' ? refundable : typed;
        if (amount === undefined) throw field('amount', L('환불 금액을 입력하거나 「전액」을 눌러 주세요.', 'Enter an amount, or press "Whole amount".'));
        if (amount === 'invalid') throw field('amount', L('환불 금액은 원 단위 정수로 입력해 주세요.', 'Enter the amount as whole won.'));
        if (amount <= 0 || amount > refundable) throw field('amount', L(`환불 금액은 1원부터 ${money('ko', refundable)}까지입니다.`, `The amount is 1 to ${money('en', refundable)}.`));
        if (form.reason.length > 500) throw field('reason', L('사유는 500자 이하로 입력해 주세요.', 'Keep the reason to 500 characters.'));
        if (hasBidiControl(form.reason)) throw field('reason', bidiMessage(L('사유', 'reason')));
        // 휴대폰 결제 past its KST month: refunded to the buyer's account (src/refunds/method-rules.ts).
        const phoneAfterMonth = order.method === 'mobile_phone' && methodRefundRule({ method: order.method, paid_at: order.paidAt ? new Date(order.paidAt) : null }, deps.clock.now()).needsAccount === 'phone_after_month';
        const refundAccountOnFile = phoneAfterMonth && (await refundAccountOf(deps.db, deps.config.masterKey, order.id)) !== null;
        return { order: { ...order, phoneAfterMonth, refundAccountOnFile }, refundable, amount };
      },
      async (r, ctx) =>
        sendPage(reply, ctx, { title: tr(ctx.lang, `환불 확인: 주문 ${id}`, `Confirm refund: order ${id}`), nav: '/dashboard/orders' }, confirmPage(ctx, r.order, r.amount, r.refundable, form, idem)),
      (p, ctx) => renderDetail(deps, req, reply, ctx, id, p, form),
    );
  });
}
