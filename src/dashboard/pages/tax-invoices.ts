import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DashboardPage } from './page';
import type { AppDeps } from '../../deps';
import { html, won } from '../../pages/html';
import { listPage } from '../../platform/http/pagination';
import { issueTaxInvoice } from '../../tax/invoices/service';
import * as repo from '../../tax/invoices/repo';
import { invoiceView, type TaxInvoiceView } from '../../tax/invoices/view';
import { auditAction, csrfField, ctxOf, redirectTo, requireRole, sendPage, type DashboardContext } from '../frame';
import { act, BIZ_CSS, flash, labelTag, PAGE_SIZE, pageOf, pager, problemBox, qs, str, tr, when, type Problem, type Query } from './kit';

/**
 * /dashboard/tax-invoices: the store's 세금계산서 and 수정세금계산서 of the session's mode, newest first, with their
 * state and the provider's answer (its status word, 국세청 승인번호, refusal, PDF link); a requested or refused one is
 * issued from here; and the store's setting (issue automatically at payment, or by hand).
 */

const STATUS: Record<string, [string, string]> = {
  requested: ['발급 대기', 'Requested'],
  issuing: ['발급 중', 'Issuing'],
  issued: ['발급 완료', 'Issued'],
  failed: ['발급 실패', 'Failed'],
  canceled: ['취소됨', 'Canceled'],
};
const FILTERS = ['requested', 'issuing', 'issued', 'failed', 'canceled'];

function kindLabel(L: (ko: string, en: string) => string, i: TaxInvoiceView): string {
  if (i.kind === 'original') return L('세금계산서', 'Tax invoice');
  return i.modificationType === 'CANCELLATION_OF_CONTRACT' ? L('수정 (계약의 해제)', 'Amended (contract cancelled)') : L('수정 (공급가액 변동)', 'Amended (supply value changed)');
}

async function render(deps: AppDeps, req: FastifyRequest, reply: FastifyReply, ctx: DashboardContext, problem: Problem | null): Promise<FastifyReply> {
  const L = (ko: string, en: string) => tr(ctx.lang, ko, en);
  const q = req.query as Query;
  const status = FILTERS.includes(str(q.status) ?? '') ? str(q.status) : undefined;
  const params = { page: pageOf(q), limit: PAGE_SIZE };
  const storeId = ctx.member.storeId;
  const list = await listPage(params, () => repo.countInvoices(deps.db, storeId, ctx.mode, status), (o, l) => repo.listInvoices(deps.db, storeId, ctx.mode, status, o, l), invoiceView);
  const setting = await repo.issueSetting(deps.db, storeId);
  const money = (n: number | null) => (n === null ? '—' : won(n));
  return sendPage(
    reply,
    ctx,
    { title: L('세금계산서', 'Tax invoices'), nav: '/dashboard/tax-invoices' },
    html`${BIZ_CSS}
${flash(str(q.done), { issued: L('발급을 요청했습니다. 결과는 목록의 상태에 표시됩니다.', 'Sent for issue; the list shows the outcome.'), saved: L('설정을 저장했습니다.', 'Setting saved.') })}
${problemBox(problem)}
<form class="card" method="post" action="/dashboard/tax-invoices/settings" hx-disabled-elt="find button">
  ${csrfField(ctx)}
  <h2>${L('발급 방식', 'How they are issued')}</h2>
  <p class="muted">${L('구매자가 계좌이체·가상계좌 결제에서 요청한 세금계산서를 결제(가상계좌는 입금) 즉시 자동으로 발급하거나, 여기서 직접 발급합니다. 발급 기한은 공급일이 속한 달의 다음 달 10일입니다.', 'A tax invoice a buyer asked for on a bank payment is issued at once on payment (a virtual account: on its deposit), or by hand here. The deadline is the 10th of the month after the supply.')}</p>
  <fieldset><legend class="small">${L('발급 방식', 'Issue')}</legend>
    <label><input type="radio" name="taxInvoiceIssue" value="manual"${setting === 'manual' ? html` checked` : ''}> ${L('직접 발급', 'By hand')}</label>
    <label><input type="radio" name="taxInvoiceIssue" value="auto"${setting === 'auto' ? html` checked` : ''}> ${L('결제 시 자동 발급', 'Automatically on payment')}</label>
  </fieldset>
  <div class="actions" style="margin-top:12px"><button type="submit" class="primary">${L('저장', 'Save')}</button></div>
</form>
<form class="card filters" method="get" action="/dashboard/tax-invoices">
  <div><label for="f-status">${L('상태', 'Status')}</label><select id="f-status" name="status"><option value="">${L('전체', 'All')}</option>${FILTERS.map((s) => html`<option value="${s}"${status === s ? html` selected` : ''}>${L(STATUS[s][0], STATUS[s][1])}</option>`)}</select></div>
  <div><button type="submit" class="primary">${L('보기', 'Show')}</button></div>
</form>
${
  list.data.length === 0
    ? html`<p class="card" data-testid="empty">${L('세금계산서가 없습니다.', 'No tax invoices.')}</p>`
    : html`<div class="table-wrap"><table class="stack" data-testid="tax-invoices-table">
  <thead><tr><th scope="col">${L('문서', 'Document')}</th><th scope="col">${L('공급받는자', 'Recipient')}</th><th scope="col">${L('합계 · 공급가액 · 세액', 'Total · supply · VAT')}</th><th scope="col">${L('상태', 'Status')}</th><th scope="col" class="wide">${L('발급사 응답', 'Provider\'s answer')}</th><th scope="col">${L('작업', 'Action')}</th></tr></thead>
  <tbody>${list.data.map(
    (i) => html`<tr data-id="${i.id}"><td>${kindLabel(L, i)}<br><a class="mono small" href="/dashboard/orders/${encodeURIComponent(i.orderId)}">${i.orderId}</a><br><span class="small muted">${L('작성일자', 'Written')} ${i.writeDate ?? '—'}</span></td>
<td data-label="${L('공급받는자', 'Recipient')}">${i.recipient.companyName}<br><span class="small muted">${i.recipient.businessNumber.replace(/^(\d{3})(\d{2})(\d{5})$/, '$1-$2-$3')} · ${i.recipient.representative}</span></td>
<td data-label="${L('금액', 'Amounts')}" class="small">${money(i.totalAmount)}<br>${money(i.supplyAmount)} · ${money(i.taxAmount)}</td>
<td data-label="${L('상태', 'Status')}">${labelTag(ctx.lang, STATUS, i.status, 'issued', ['failed'])}</td>
<td class="wide small" data-label="${L('발급사 응답', 'Provider')}">${i.providerStatus ?? '—'}${i.ntsApprovalNumber ? html`<br>${L('승인번호', 'NTS no.')} <span class="mono">${i.ntsApprovalNumber}</span>` : ''}${i.providerMessage ? html`<br><span class="muted">${i.providerMessage}</span>` : ''}${i.pdfUrl ? html`<br><a href="${i.pdfUrl}" target="_blank" rel="noopener">PDF</a>` : ''}${i.issuedAt ? html`<br>${when(i.issuedAt)}` : ''}</td>
<td>${
      i.kind === 'original' && (i.status === 'requested' || i.status === 'failed')
        ? html`<form method="post" action="/dashboard/tax-invoices/${encodeURIComponent(i.id)}/issue" hx-disabled-elt="find button">${csrfField(ctx)}<button type="submit" class="primary">${i.status === 'failed' ? L('다시 발급', 'Issue again') : L('발급', 'Issue')}</button></form>`
        : '—'
    }</td></tr>`,
  )}</tbody></table></div>`
}
${pager(ctx.lang, list.page, list.total, list.limit, (p) => `/dashboard/tax-invoices${qs({ status, page: p })}`)}`,
    problem?.status ?? 200,
  );
}

const taxInvoicesPage: DashboardPage = async (app, deps) => {
  app.get('/dashboard/tax-invoices', { schema: { hide: true }, preHandler: requireRole('tax') }, async (req, reply) => render(deps, req, reply, ctxOf(req), null));

  app.post('/dashboard/tax-invoices/:id/issue', { schema: { hide: true }, preHandler: requireRole('tax') }, async (req, reply) => {
    const id = (req.params as { id: string }).id;
    return act(
      req,
      reply,
      (ctx) => issueTaxInvoice(deps, ctx.member.storeId, ctx.mode, id),
      async (row) => {
        await auditAction(deps.db, deps, req, { action: 'tax_invoice.issue_requested', target: { type: 'tax_invoice', id }, details: { orderId: row.order_id, status: row.status } });
        return redirectTo(req, reply, '/dashboard/tax-invoices?done=issued');
      },
      (p, ctx) => render(deps, req, reply, ctx, p),
    );
  });

  app.post('/dashboard/tax-invoices/settings', { schema: { hide: true }, preHandler: requireRole('tax') }, async (req, reply) => {
    const value = str((req.body as Query | undefined)?.taxInvoiceIssue) === 'auto' ? 'auto' : 'manual';
    const ctx = ctxOf(req);
    await repo.setIssueSetting(deps.db, ctx.member.storeId, value, deps.clock.now());
    await auditAction(deps.db, deps, req, { action: 'store.tax_invoice_issue', details: { taxInvoiceIssue: value } });
    return redirectTo(req, reply, '/dashboard/tax-invoices?done=saved');
  });
};

export default taxInvoicesPage;
