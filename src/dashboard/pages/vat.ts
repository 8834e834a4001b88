import { Readable } from 'node:stream';
import type { DashboardPage } from './page';
import { html, type SafeHtml } from '../../pages/html';
import { addDays } from '../../platform/calendar';
import { vatLines, vatReport, type VatReport } from '../../tax/service';
import { exportVatCsv, vatCsvName } from '../../tax/csv';
import type { Figure } from '../../tax/model';
import { auditAction, ctxOf, requireRole, sendPage } from '../frame';
import { barChart } from '../chart';
import type { Lang } from '../i18n';
import { BIZ_CSS, METHOD_LABEL, money, PAGE_SIZE, pageOf, pager, problemBox, problemOf, tr, when, type Query } from './kit';
import { CATEGORY_TEXT, categoryOf, kindOf, periodForm, periodQs, pickedPeriod } from './vat-view';

const VAT_CSS = html`<style>
.vat td.num,.vat th.num{text-align:right}
.vat tr.sub td{font-weight:700;background:#f9fafb}
.vat tr.indent td:first-child{padding-left:28px}
.vat tr.total td{font-weight:700;border-top:2px solid #d1d6db}
.vat .count{color:#4e5968;font-size:13px}
.note{font-size:13px;color:#4e5968;margin:8px 0 12px}
@media (min-width:720px){.vat-filters>div:first-child{grid-column:span 2}}
.table-wrap table.fits{min-width:0}
.fits th,.fits td{padding:8px}
</style>`;

/** One figure's cells: count (sales / refunds), 합계, 공급가액, 세액. */
function cells(lang: Lang, f: { sales: Figure; refunds: Figure; net: Figure }): SafeHtml {
  const L = (ko: string, en: string) => tr(lang, ko, en);
  return html`<td class="num" data-label="${L('건수', 'Count')}"><span class="count">${L(`판매 ${f.sales.count} · 환불 ${f.refunds.count}`, `${f.sales.count} sales · ${f.refunds.count} refunds`)}</span></td>
<td class="num" data-label="${L('합계', 'Total')}">${money(lang, f.net.total)}</td>
<td class="num" data-label="${L('공급가액', 'Supply')}">${money(lang, f.net.supplyAmount)}</td>
<td class="num" data-label="${L('세액', 'VAT')}">${money(lang, f.net.vat)}</td>`;
}

function reportTable(lang: Lang, r: VatReport, link: Record<string, string | undefined>): SafeHtml {
  const L = (ko: string, en: string) => tr(lang, ko, en);
  const cat = (c: VatReport['categories'][number]['category']) => r.categories.find((x) => x.category === c)!;
  const row = (c: VatReport['categories'][number]['category'], cls = '') =>
    html`<tr class="${cls}" data-category="${c}"><td><a href="/dashboard/vat/lines${periodQs(link, { category: c })}">${L(CATEGORY_TEXT[c][0], CATEGORY_TEXT[c][1])}</a></td>${cells(lang, cat(c))}</tr>`;
  return html`<div class="table-wrap"><table class="stack vat" data-testid="vat-table">
<caption class="skip">${L('부가세 신고 구분별 매출', 'Sales by VAT return line')}</caption>
<thead><tr><th scope="col">${L('구분', 'Line')}</th><th scope="col" class="num">${L('건수', 'Count')}</th><th scope="col" class="num">${L('합계 (공급대가)', 'Total (VAT incl.)')}</th><th scope="col" class="num">${L('공급가액', 'Supply value')}</th><th scope="col" class="num">${L('세액', 'VAT')}</th></tr></thead>
<tbody>
${row('tax_invoice')}
<tr class="sub" data-category="card_and_cash_receipt"><td>${L('신용카드·현금영수증 발행분', 'Card and cash-receipt sales')}</td>${cells(lang, r.cardAndCashReceipt)}</tr>
${row('card', 'indent')}
${row('cash_receipt', 'indent')}
${row('other')}
${row('foreign')}
<tr class="total" data-category="overall"><td><a href="/dashboard/vat/lines${periodQs(link)}">${L('합계', 'Total')}</a></td>${cells(lang, r.overall)}</tr>
</tbody></table></div>`;
}

function monthsSection(lang: Lang, r: VatReport): SafeHtml {
  const L = (ko: string, en: string) => tr(lang, ko, en);
  const label = L('월별 매출 (환불 차감 후 합계)', 'Monthly sales (total after refunds)');
  return html`<section class="card" aria-labelledby="vat-chart-h"><h2 id="vat-chart-h">${label}</h2>
${barChart(
  r.months.map((m) => ({ label: `${Number(m.month.slice(5))}${L('월', '')}`.trim(), value: Math.max(0, m.net.total), title: `${m.month}: ${money(lang, m.net.total)}` })),
  { label: `${label}: ${r.months.map((m) => `${m.month} ${money(lang, m.net.total)}`).join(', ')}`, maxLabel: (v) => money(lang, v) },
)}
<div class="table-wrap"><table class="vat fits" data-testid="vat-months"><caption class="skip">${label}</caption>
<thead><tr><th scope="col">${L('월', 'Month')}</th><th scope="col" class="num">${L('합계', 'Total')}</th><th scope="col" class="num wide">${L('공급가액', 'Supply')}</th><th scope="col" class="num">${L('세액', 'VAT')}</th></tr></thead>
<tbody>${r.months.map((m) => html`<tr><td>${m.month}</td><td class="num">${money(lang, m.net.total)}</td><td class="num wide">${money(lang, m.net.supplyAmount)}</td><td class="num">${money(lang, m.net.vat)}</td></tr>`)}</tbody></table></div>
</section>`;
}

/** /dashboard/vat: the 부가세 신고 figures of a period (table by category, chart by month), the drill-down and the CSV. */
const vatPage: DashboardPage = async (app, deps) => {
  app.get('/dashboard/vat', { schema: { hide: true }, preHandler: requireRole('tax') }, async (req, reply) => {
    const ctx = ctxOf(req);
    const L = (ko: string, en: string) => tr(ctx.lang, ko, en);
    const now = deps.clock.now();
    const { link, period } = pickedPeriod(req.query as Query, now);
    let report: VatReport | null = null;
    let problem = null;
    try {
      report = await vatReport(deps, { storeId: ctx.member.storeId, mode: ctx.mode, period: period() });
    } catch (err) {
      problem = problemOf(err);
      if (!problem) throw err;
    }
    const body = html`${BIZ_CSS}${VAT_CSS}
${periodForm(ctx.lang, now, link, report?.period ?? null, '/dashboard/vat')}
${problemBox(problem)}
${
  report
    ? html`<p data-testid="vat-period-label"><strong>${report.period.label}</strong> · ${report.period.from} ~ ${addDays(report.period.to, -1)} · ${L(ctx.mode === 'test' ? '테스트 모드' : '라이브 모드', ctx.mode === 'test' ? 'test mode' : 'live mode')}</p>
${reportTable(ctx.lang, report, link)}
<div class="actions"><a class="button plain" href="/dashboard/vat/export.csv${periodQs(link)}" data-testid="vat-csv" hx-boost="false" download>${L('CSV 내려받기 (세무 대리인용)', 'Download CSV (for your accountant)')}</a></div>
<p class="note">${L(
  '세액은 판매·환불 건마다 합계 × 10/110을 원 단위로 반올림하고, 공급가액은 합계 − 세액입니다. 환불은 환불한 날의 기간에 원래 판매의 구분으로 차감합니다. 카카오페이·네이버페이·토스페이는 카드와 같은 증빙이 발급되어 신용카드에 포함합니다. 세금계산서 발급분은 세금계산서 발행 기능이 생기기 전까지 비어 있습니다.',
  'VAT is round(total × 10/110) per sale and per refund; supply value = total − VAT. Refunds count in the period they were made, in the original sale\'s line. Easy pays issue card-equivalent evidence and count as cards. Tax invoices stay empty until invoice issuance exists.',
)}</p>
${monthsSection(ctx.lang, report)}`
    : ''
}`;
    return sendPage(reply, ctx, { title: L('부가세 신고 자료', 'VAT return figures'), nav: '/dashboard/vat' }, body, problem ? problem.status : 200);
  });

  app.get('/dashboard/vat/lines', { schema: { hide: true }, preHandler: requireRole('tax') }, async (req, reply) => {
    const ctx = ctxOf(req);
    const L = (ko: string, en: string) => tr(ctx.lang, ko, en);
    const q = req.query as Query;
    const now = deps.clock.now();
    const { link, period } = pickedPeriod(q, now);
    const category = categoryOf(q);
    const kind = kindOf(q);
    const page = pageOf(q);
    let list = null;
    let problem = null;
    let p = null;
    try {
      p = period();
      list = await vatLines(deps, { storeId: ctx.member.storeId, mode: ctx.mode, period: p }, { category, kind }, { page, limit: PAGE_SIZE });
    } catch (err) {
      problem = problemOf(err);
      if (!problem) throw err;
    }
    const title = category ? L(CATEGORY_TEXT[category][0], CATEGORY_TEXT[category][1]) : L('전체', 'All lines');
    const filters = { category, kind };
    const body = html`${BIZ_CSS}${VAT_CSS}
<p><a href="/dashboard/vat${periodQs(link)}">← ${L('부가세 신고 자료로', 'Back to the VAT figures')}</a></p>
${problemBox(problem)}
${
  list && p
    ? html`<p data-testid="vat-lines-label"><strong>${p.label}</strong> · ${title}${kind ? html` · ${kind === 'sale' ? L('판매만', 'sales only') : L('환불만', 'refunds only')}` : ''}</p>
${
  list.data.length === 0
    ? html`<p class="card" data-testid="empty">${L('이 기간에 해당하는 판매·환불이 없습니다.', 'No sales or refunds in this period.')}</p>`
    : html`<div class="table-wrap"><table class="stack vat" data-testid="vat-lines">
<caption class="skip">${L('판매·환불 내역', 'Sales and refunds')}</caption>
<thead><tr><th scope="col">${L('일시', 'When')}</th><th scope="col">${L('주문', 'Order')}</th><th scope="col" class="wide">${L('구분', 'Line')}</th><th scope="col" class="num">${L('합계', 'Total')}</th><th scope="col" class="num">${L('공급가액', 'Supply')}</th><th scope="col" class="num">${L('세액', 'VAT')}</th></tr></thead>
<tbody>${list.data.map(
  (l) => html`<tr data-order-id="${l.orderId}" data-kind="${l.kind}">
<td class="small">${when(l.at)}</td>
<td><a href="/dashboard/orders/${encodeURIComponent(l.orderId)}" class="mono small">${l.orderId}</a><br><span class="small">${l.kind === 'sale' ? L('판매', 'Sale') : L('환불', 'Refund')} · ${L(METHOD_LABEL[l.method]?.[0] ?? l.method, METHOD_LABEL[l.method]?.[1] ?? l.method)}</span></td>
<td class="wide small">${L(CATEGORY_TEXT[l.category][0], CATEGORY_TEXT[l.category][1])}</td>
<td class="num" data-label="${L('합계', 'Total')}">${money(ctx.lang, l.total)}</td>
<td class="num" data-label="${L('공급가액', 'Supply')}">${money(ctx.lang, l.supplyAmount)}</td>
<td class="num" data-label="${L('세액', 'VAT')}">${money(ctx.lang, l.vat)}</td></tr>`,
)}</tbody></table></div>
${pager(ctx.lang, list.page, list.total, list.limit, (n) => `/dashboard/vat/lines${periodQs(link, { ...filters, page: n })}`)}`
}`
    : ''
}`;
    return sendPage(reply, ctx, { title: `${L('부가세 내역', 'VAT lines')}: ${title}`, nav: '/dashboard/vat' }, body, problem ? problem.status : 200);
  });

  // Every line of the period (not one page), streamed in batches: the file an accountant loads.
  app.get('/dashboard/vat/export.csv', { schema: { hide: true }, preHandler: requireRole('tax') }, async (req, reply) => {
    const ctx = ctxOf(req);
    const { link, period } = pickedPeriod(req.query as Query, deps.clock.now());
    const scope = { storeId: ctx.member.storeId, mode: ctx.mode, period: period() };
    // The store's sales figures leave the service: who took them, and for which period, is worth a record.
    await auditAction(deps.db, deps, req, { action: 'vat.exported', details: { period: link } });
    return reply
      .type('text/csv; charset=utf-8')
      .header('Content-Disposition', `attachment; filename="${vatCsvName(scope)}"`)
      .send(Readable.from(exportVatCsv(deps, scope)));
  });
};

export default vatPage;
