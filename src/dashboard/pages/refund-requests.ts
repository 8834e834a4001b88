import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DashboardPage } from './page';
import type { AppDeps } from '../../deps';
import { html, type SafeHtml } from '../../pages/html';
import { ApiError } from '../../platform/errors';
import { approveRequest, getRequest, holdRequest, listQueue, listRequests, rejectRequest } from '../../refunds/requests/service';
import type { RefundRequestStatus } from '../../refunds/tables';
import { getOrder } from '../../orders/service';
import { refundableAmount } from '../../refunds/service';
import { auditAction, csrfField, ctxOf, redirectTo, requireRole, sendPage, type DashboardContext } from '../frame';
import type { Lang } from '../i18n';
import { act, BIZ_CSS, checked, flash, intField, money, oneOf, orderStatusTag, PAGE_SIZE, pageOf, pager, problemBox, qs, remaining, str, tag, tr, when, type Problem, type Query } from './kit';
import { bidiMessage, hasBidiControl } from '../../platform/text';

const STATUSES: readonly RefundRequestStatus[] = ['requested', 'held', 'approved', 'rejected', 'canceled'];
const STATUS_LABEL: Record<RefundRequestStatus, [string, string]> = {
  requested: ['접수됨', 'Requested'],
  held: ['보류', 'Held'],
  approved: ['승인됨', 'Approved'],
  rejected: ['거절됨', 'Rejected'],
  canceled: ['구매자 취소', 'Withdrawn'],
};

export function requestStatusTag(lang: Lang, s: RefundRequestStatus): SafeHtml {
  return tag(tr(lang, STATUS_LABEL[s][0], STATUS_LABEL[s][1]), s === 'approved' ? 'good' : s === 'rejected' ? 'bad' : '');
}

/** What REFUND_STATUTORY_LOCKED means for this request, in the seller's words. */
function statutoryNote(lang: Lang, autoApproveAt: string | null): SafeHtml {
  return html`<div class="lock" data-testid="statutory-lock" role="note"><strong>${tr(lang, '법정 청약철회 요청', 'Statutory withdrawal request')}</strong> — ${tr(
    lang,
    '전자상거래법 제17조에 따른 청약철회 기간 안에 접수되어, 판매자가 보류하거나 거절할 수 없고 요청 금액보다 적게 승인할 수도 없습니다 (REFUND_STATUTORY_LOCKED). ',
    'Filed inside the statutory withdrawal window (Korean E-Commerce Act art. 17): it cannot be held or rejected, nor approved for less than asked (REFUND_STATUTORY_LOCKED). ',
  )}${autoApproveAt ? html`${tr(lang, '처리하지 않으면 ', 'If left undecided it is approved automatically at ')}${when(autoApproveAt)}${tr(lang, '에 자동으로 승인됩니다.', '.')}` : ''}</div>`;
}

interface DecisionForm {
  amount: string;
  confirmAmount: boolean;
  reason: string;
}

async function renderDetail(deps: AppDeps, req: FastifyRequest, reply: FastifyReply, ctx: DashboardContext, id: string, problem: Problem | null, form: DecisionForm | null): Promise<FastifyReply> {
  const L = (ko: string, en: string) => tr(ctx.lang, ko, en);
  const scope = { storeId: ctx.member.storeId, mode: ctx.mode, productIds: null };
  const r = await getRequest(deps, scope, id);
  const order = await getOrder(deps, scope, r.orderId);
  const actionable = (r.status === 'requested' || r.status === 'held') && !r.processing;
  const now = deps.clock.now();
  const base = `/dashboard/refund-requests/${encodeURIComponent(r.id)}`;
  const done = str((req.query as Query).done);
  const left = order.status === 'paid' ? refundableAmount({ amount: order.amount, refunded_amount: order.refundedAmount }) : 0;
  return sendPage(
    reply,
    ctx,
    { title: L(`환불 요청 ${r.id}`, `Refund request ${r.id}`), nav: '/dashboard/refund-requests' },
    html`${BIZ_CSS}
<p><a href="/dashboard/refund-requests">← ${L('환불 요청 목록', 'All refund requests')}</a></p>
${flash(done, { approved: L('승인하고 환불했습니다.', 'Approved and refunded.'), held: L('보류했습니다.', 'Held.'), rejected: L('거절했습니다.', 'Rejected.') })}
${problemBox(problem)}
<div class="cols">
<section class="card" aria-labelledby="h-req"><h2 id="h-req">${L('요청', 'Request')}</h2><dl class="detail">
  <dt>${L('상태', 'Status')}</dt><dd id="request-status">${requestStatusTag(ctx.lang, r.status)}${r.processing ? html` ${tag(L('환불 처리 중', 'refund in progress'))}` : ''}</dd>
  <dt>${L('요청 금액', 'Amount asked')}</dt><dd>${money(ctx.lang, r.amount)}</dd>
  <dt>${L('사유', 'Reason')}</dt><dd>${r.reason ?? '—'}</dd>
  <dt>${L('접수', 'Filed')}</dt><dd>${when(r.requestedAt)} (${r.source})</dd>
  ${r.autoApproveAt && actionable ? html`<dt>${L('처리 기한', 'Deadline')}</dt><dd class="deadline">${when(r.autoApproveAt)} · ${remaining(ctx.lang, now, new Date(r.autoApproveAt))}</dd>` : ''}
  ${r.decisionReason ? html`<dt>${L('판매자 사유', 'Seller\'s reason')}</dt><dd>${r.decisionReason}</dd>` : ''}
  ${r.approvedAmount !== null ? html`<dt>${L('승인 금액', 'Approved')}</dt><dd>${money(ctx.lang, r.approvedAmount)}</dd>` : ''}
</dl>${r.statutory ? statutoryNote(ctx.lang, actionable ? r.autoApproveAt : null) : ''}</section>
<section class="card" aria-labelledby="h-order"><h2 id="h-order">${L('주문', 'Order')}</h2><dl class="detail">
  <dt>${L('주문', 'Order')}</dt><dd><a class="mono" href="/dashboard/orders/${encodeURIComponent(order.id)}">${order.id}</a></dd>
  <dt>${L('상태', 'Status')}</dt><dd>${orderStatusTag(ctx.lang, order)}</dd>
  <dt>${L('상품', 'Product')}</dt><dd>${order.productName}</dd>
  <dt>${L('구매자', 'Buyer')}</dt><dd>${order.buyerName} · ${order.buyerEmail}</dd>
  <dt>${L('결제 금액', 'Paid')}</dt><dd>${money(ctx.lang, order.amount)}</dd>
  <dt>${L('환불 가능', 'Refundable')}</dt><dd>${money(ctx.lang, left)}</dd>
</dl></section>
</div>
${
  actionable
    ? html`<div class="cols">
<form class="card" method="post" action="${base}/approve" id="approve-form" hx-disabled-elt="find button">
  ${csrfField(ctx)}
  <h2>${L('승인 (환불)', 'Approve (refund)')}</h2>
  <label for="approve-amount">${L('승인 금액 (원)', 'Amount (KRW)')}</label>
  <input type="text" inputmode="numeric" id="approve-amount" name="amount" value="${form?.amount ?? String(r.amount)}"${r.statutory ? html` readonly aria-describedby="approve-hint"` : ''}>
  ${r.statutory ? html`<p class="hint" id="approve-hint">${L('법정 청약철회 요청은 요청 금액 그대로 승인합니다.', 'A statutory request is approved for the amount asked.')}</p>` : html`<label class="check"><input type="checkbox" name="confirmAmount"${form?.confirmAmount ? html` checked` : ''}> ${L('요청 금액과 다른 금액으로 승인합니다', 'Approve a different amount than asked')}</label>`}
  <label for="approve-reason">${L('메모 (선택)', 'Note (optional)')}</label>
  <textarea id="approve-reason" name="reason" maxlength="500"></textarea>
  <p><button type="submit" class="primary">${L('승인하고 환불', 'Approve and refund')}</button></p>
</form>
<form class="card" method="post" action="${base}/hold" id="decide-form" hx-disabled-elt="find button">
  ${csrfField(ctx)}
  <h2>${L('보류 또는 거절', 'Hold or reject')}</h2>
  ${r.statutory ? html`<p class="muted">${L('법정 청약철회 요청은 보류하거나 거절할 수 없습니다.', 'Statutory requests cannot be held or rejected.')}</p>` : ''}
  <label for="decide-reason">${L('사유 (구매자에게 보입니다, 필수)', 'Reason (the buyer sees it; required)')}</label>
  <textarea id="decide-reason" name="reason" maxlength="500"${r.statutory ? html` disabled` : ''}>${form?.reason ?? ''}</textarea>
  <div class="actions" style="margin-top:12px">
    <button type="submit" class="plain"${r.statutory ? html` disabled` : ''}>${L('보류', 'Hold')}</button>
    <button type="submit" class="warn" formaction="${base}/reject"${r.statutory ? html` disabled` : ''}>${L('거절', 'Reject')}</button>
  </div>
</form>
</div>`
    : ''
}`,
    problem?.status ?? 200,
  );
}

/** /dashboard/refund-requests: the queue (statutory deadline first), history, and approve / hold / reject. */
const refundRequestsPage: DashboardPage = async (app, deps) => {
  app.get('/dashboard/refund-requests', { schema: { hide: true }, preHandler: requireRole('refunds') }, async (req, reply) => {
    const ctx = ctxOf(req);
    const L = (ko: string, en: string) => tr(ctx.lang, ko, en);
    const q = req.query as Query;
    const status = oneOf(q.status, STATUSES);
    const all = str(q.view) === 'all';
    const page = pageOf(q);
    const scope = { storeId: ctx.member.storeId, mode: ctx.mode, productIds: null };
    const list = all || status ? await listRequests(deps, { ...scope, status }, { page, limit: PAGE_SIZE }) : await listQueue(deps, scope, { page, limit: PAGE_SIZE });
    const now = deps.clock.now();
    const filters = { view: all || status ? 'all' : undefined, status };
    return sendPage(
      reply,
      ctx,
      { title: L('환불 요청', 'Refund requests'), nav: '/dashboard/refund-requests' },
      html`${BIZ_CSS}
<nav class="actions" aria-label="${L('보기', 'View')}" style="margin-bottom:12px">
  <a class="button ${all || status ? 'plain' : 'primary'}" href="/dashboard/refund-requests"${all || status ? '' : html` aria-current="page"`}>${L('처리 대기 (기한순)', 'To decide (deadline first)')}</a>
  <a class="button ${all || status ? 'primary' : 'plain'}" href="/dashboard/refund-requests?view=all"${all || status ? html` aria-current="page"` : ''}>${L('전체 내역', 'All')}</a>
</nav>
${
  all || status
    ? html`<form class="card filters" method="get" action="/dashboard/refund-requests"><input type="hidden" name="view" value="all">
  <div><label for="f-status">${L('상태', 'Status')}</label><select id="f-status" name="status"><option value="">${L('전체', 'All')}</option>${STATUSES.map((s) => html`<option value="${s}"${status === s ? html` selected` : ''}>${L(STATUS_LABEL[s][0], STATUS_LABEL[s][1])}</option>`)}</select></div>
  <div><button type="submit" class="plain">${L('적용', 'Apply')}</button></div></form>`
    : ''
}
${
  list.data.length === 0
    ? html`<p class="card" data-testid="empty">${all || status ? L('환불 요청이 없습니다.', 'No refund requests.') : L('처리할 환불 요청이 없습니다.', 'Nothing to decide.')}</p>`
    : html`<div class="table-wrap"><table class="stack" data-testid="requests-table">
  <thead><tr><th scope="col">${L('요청', 'Request')}</th><th scope="col">${L('금액', 'Amount')}</th><th scope="col">${L('상태', 'Status')}</th><th scope="col">${L('처리 기한', 'Deadline')}</th><th scope="col" class="wide">${L('접수', 'Filed')}</th></tr></thead>
  <tbody>${list.data.map(
    (r) => html`<tr data-request-id="${r.id}">
    <td><a class="mono small" href="/dashboard/refund-requests/${encodeURIComponent(r.id)}">${r.id}</a><br><span class="small muted">${L('주문', 'order')} <span class="mono">${r.orderId}</span></span></td>
    <td class="num" data-label="${L('금액', 'Amount')}">${money(ctx.lang, r.amount)}</td>
    <td data-label="${L('상태', 'Status')}">${requestStatusTag(ctx.lang, r.status)}${r.statutory ? html` ${tag(L('법정', 'statutory'), 'bad')}` : ''}</td>
    <td data-label="${L('처리 기한', 'Deadline')}">${r.autoApproveAt && (r.status === 'requested' || r.status === 'held') ? html`<span class="deadline">${remaining(ctx.lang, now, new Date(r.autoApproveAt))}</span><span class="small"> (${when(r.autoApproveAt)})</span>` : '—'}</td>
    <td class="wide small">${when(r.requestedAt)}</td></tr>`,
  )}</tbody></table></div>`
}
${pager(ctx.lang, list.page, list.total, list.limit, (p) => `/dashboard/refund-requests${qs({ ...filters, page: p })}`)}`,
    );
  });

  app.get('/dashboard/refund-requests/:id', { schema: { hide: true }, preHandler: requireRole('refunds') }, async (req, reply) =>
    renderDetail(deps, req, reply, ctxOf(req), (req.params as { id: string }).id, null, null),
  );

  for (const action of ['approve', 'hold', 'reject'] as const) {
    app.post(`/dashboard/refund-requests/:id/${action}`, { schema: { hide: true }, preHandler: requireRole('refunds') }, async (req, reply) => {
      const id = (req.params as { id: string }).id;
      const body = (req.body ?? {}) as Query;
      const form: DecisionForm = { amount: str(body.amount, 40) ?? '', confirmAmount: checked(body.confirmAmount), reason: str(body.reason, 600) ?? '' };
      return act(
        req,
        reply,
        async (ctx) => {
          const scope = { storeId: ctx.member.storeId, mode: ctx.mode, productIds: null };
          if (form.reason.length > 500) throw new ApiError('VALIDATION_FAILED', { details: { fields: [{ field: 'reason', message: '사유는 500자 이하로 입력해 주세요.' }] } });
          if (hasBidiControl(form.reason)) throw new ApiError('VALIDATION_FAILED', { details: { fields: [{ field: 'reason', message: bidiMessage('사유') }] } });
          if (action === 'hold') return holdRequest(deps, scope, id, form.reason, 'console');
          if (action === 'reject') return rejectRequest(deps, scope, id, form.reason, 'console');
          const amount = intField(form.amount);
          if (amount === 'invalid') throw new ApiError('VALIDATION_FAILED', { details: { fields: [{ field: 'amount', message: '승인 금액은 원 단위 정수로 입력해 주세요.' }] } });
          const result = await approveRequest(deps, scope, id, { amount, confirmAmount: form.confirmAmount, reason: form.reason || null }, 'console');
          return result.refundRequest;
        },
        async (r) => {
          await auditAction(deps.db, deps, req, {
            action: `refund_request.${action === 'approve' ? 'approved' : action === 'hold' ? 'held' : 'rejected'}`,
            target: { type: 'refund_request', id },
            details: { orderId: r.orderId, amount: r.approvedAmount ?? r.amount, reason: form.reason || null, refundId: r.refundId },
          });
          return redirectTo(req, reply, `/dashboard/refund-requests/${encodeURIComponent(id)}?done=${action === 'approve' ? 'approved' : action === 'hold' ? 'held' : 'rejected'}`);
        },
        (p, ctx) => renderDetail(deps, req, reply, ctx, id, p, form),
      );
    });
  }
};

export default refundRequestsPage;
