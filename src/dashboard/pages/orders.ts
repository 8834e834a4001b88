import { Readable } from 'node:stream';
import type { DashboardPage } from './page';
import { html } from '../../pages/html';
import { exportOrdersCsv, listOrdersBounded, type OrderSearch } from '../../orders/service';
import { ORDER_STATUSES } from '../../orders/model';
import { auditAction, ctxOf, requireRole, sendPage, type DashboardContext } from '../frame';
import { BIZ_CSS, kstDay, money, oneOf, ORDER_STATUS_LABEL, orderStatusTag, PAGE_SIZE, pageOf, pager, qs, str, tr, when, type Query } from './kit';
import { orderDetailRoutes } from './order-detail';

/** The filters of the list and of its CSV export, from the query string. */
function searchOf(q: Query): { search: OrderSearch; raw: Record<string, string | undefined> } {
  const raw = { q: str(q.q, 200), status: oneOf(q.status, ORDER_STATUSES), from: str(q.from, 10), to: str(q.to, 10) };
  return { search: { q: raw.q, status: raw.status, from: kstDay(raw.from), to: kstDay(raw.to, true) }, raw };
}

/** The list counts matching orders up to this many, then says "10,000건 이상": its cost stays flat as the store grows. */
export const ORDER_COUNT_LIMIT = 10_000;

const scopeOf = (ctx: DashboardContext) => ({ storeId: ctx.member.storeId, mode: ctx.mode, productIds: null });

/** /dashboard/orders: search, filters, paging, CSV export; the detail and refund live in order-detail.ts. */
const ordersPage: DashboardPage = async (app, deps) => {
  app.get('/dashboard/orders', { schema: { hide: true }, preHandler: requireRole('orders') }, async (req, reply) => {
    const ctx = ctxOf(req);
    const L = (ko: string, en: string) => tr(ctx.lang, ko, en);
    const q = req.query as Query;
    const { search, raw } = searchOf(q);
    const page = pageOf(q);
    const list = await listOrdersBounded(deps, scopeOf(ctx), { page, limit: PAGE_SIZE }, search, ORDER_COUNT_LIMIT);
    const filters = { q: raw.q, status: raw.status, from: raw.from, to: raw.to };
    return sendPage(
      reply,
      ctx,
      { title: L('주문', 'Orders'), nav: '/dashboard/orders' },
      html`${BIZ_CSS}
<form class="card filters" method="get" action="/dashboard/orders" role="search" data-testid="order-filters">
  <div><label for="f-q">${L('주문번호, 구매자 이메일 또는 이름', 'Order id, buyer e-mail or name')}</label><input type="text" id="f-q" name="q" value="${raw.q ?? ''}" autocomplete="off"></div>
  <div><label for="f-status">${L('상태', 'Status')}</label><select id="f-status" name="status">
    <option value="">${L('전체', 'All')}</option>
    ${ORDER_STATUSES.map((s) => html`<option value="${s}"${raw.status === s ? html` selected` : ''}>${L(ORDER_STATUS_LABEL[s][0], ORDER_STATUS_LABEL[s][1])}</option>`)}
  </select></div>
  <div><label for="f-from">${L('시작일', 'From')}</label><input type="date" id="f-from" name="from" value="${raw.from ?? ''}"></div>
  <div><label for="f-to">${L('종료일', 'To')}</label><input type="date" id="f-to" name="to" value="${raw.to ?? ''}"></div>
  <div class="actions"><button type="submit" class="primary">${L('검색', 'Search')}</button>
  <a class="button plain" href="/dashboard/orders/export.csv${qs(filters)}" data-testid="csv">${L('CSV 내보내기', 'Export CSV')}</a></div>
</form>
${
  list.data.length === 0
    ? html`<p class="card" data-testid="empty">${L('조건에 맞는 주문이 없습니다.', 'No orders match.')}</p>`
    : html`<div class="table-wrap"><table class="stack" data-testid="orders-table">
  <caption class="skip">${L('주문 목록', 'Orders')}</caption>
  <thead><tr><th scope="col">${L('주문', 'Order')}</th><th scope="col" class="wide">${L('상품', 'Product')}</th><th scope="col">${L('금액', 'Amount')}</th><th scope="col">${L('상태', 'Status')}</th><th scope="col" class="wide">${L('생성', 'Created')}</th></tr></thead>
  <tbody>${list.data.map(
    (o) => html`<tr class="${o.mode === 'test' ? 'testrow' : ''}" data-order-id="${o.id}">
    <td><a href="/dashboard/orders/${encodeURIComponent(o.id)}">${o.buyerName}</a> <span class="muted small">${o.buyerEmail}</span><br><span class="mono small">${o.id}</span></td>
    <td class="wide">${o.productName}</td>
    <td class="num" data-label="${L('금액', 'Amount')}">${money(ctx.lang, o.amount)}${o.refundedAmount ? html` <span class="muted small">(−${money(ctx.lang, o.refundedAmount)})</span>` : ''}</td>
    <td data-label="${L('상태', 'Status')}">${orderStatusTag(ctx.lang, o)}</td>
    <td class="wide small">${when(o.createdAt)}</td></tr>`,
  )}</tbody></table></div>`
}
${pager(ctx.lang, list.page, list.total, list.limit, (p) => `/dashboard/orders${qs({ ...filters, page: p })}`, { atLeast: list.totalAtLeast, shown: list.data.length })}`,
    );
  });

  // The same filters as the list, every matching order (not one page), streamed in batches.
  app.get('/dashboard/orders/export.csv', { schema: { hide: true }, preHandler: requireRole('orders') }, async (req, reply) => {
    const ctx = ctxOf(req);
    const { search, raw } = searchOf(req.query as Query);
    // An export copies buyers' personal data out of the service: who took it, and which slice, is worth a record.
    await auditAction(deps.db, deps, req, { action: 'orders.exported', details: { filters: raw } });
    const day = new Date(deps.clock.now().getTime() + 9 * 3_600_000).toISOString().slice(0, 10).replace(/-/g, '');
    return reply
      .type('text/csv; charset=utf-8')
      .header('Content-Disposition', `attachment; filename="orders-${ctx.mode}-${day}.csv"`)
      .send(Readable.from(exportOrdersCsv(deps, scopeOf(ctx), search)));
  });

  await orderDetailRoutes(app, deps);
};

export default ordersPage;
