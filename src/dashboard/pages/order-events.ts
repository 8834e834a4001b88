/**
 * The order page's events section: the order's events and their webhook deliveries, and its own route, which the
 * section polls while deliveries are being queued or sent.
 */
import type { App, AppDeps } from '../../deps';
import { html, type SafeHtml } from '../../pages/html';
import { getOrder } from '../../orders/service';
import { eventsOfOrder } from '../../webhooks/service';
import { ctxOf, requireRole, sendFragment, type DashboardContext } from '../frame';
import { DELIVERY_STATUS_LABEL, labelTag, tr, when } from './kit';

type OrderEvents = Awaited<ReturnType<typeof eventsOfOrder>>;

/**
 * The order's events and their webhook deliveries. An event is written with the change (a refund made here, say) and
 * fanned out to the subscribed endpoints by the worker a moment later: until then it is "being queued", not "no
 * subscribed endpoint". While anything is queued or pending the section refreshes itself (htmx, every 2 s), so the
 * page right after a refund shows the deliveries without a reload.
 */
export function eventsSection(ctx: DashboardContext, orderId: string, events: OrderEvents): SafeHtml {
  const L = (ko: string, en: string) => tr(ctx.lang, ko, en);
  const moving = events.some((e) => !e.dispatchedAt || e.deliveries.some((d) => d.status === 'pending'));
  const poll = moving ? html` hx-get="/dashboard/orders/${encodeURIComponent(orderId)}/events" hx-trigger="every 2s" hx-swap="outerHTML"` : '';
  return html`<section class="card" aria-labelledby="h-events" id="order-events" data-testid="order-events"${poll}><h2 id="h-events">${L('이벤트와 웹훅 전송', 'Events and webhook deliveries')}</h2>
${
  events.length
    ? html`<div class="table-wrap"><table class="stack" id="events"><thead><tr><th scope="col">${L('이벤트', 'Event')}</th><th scope="col">${L('시각', 'When')}</th><th scope="col">${L('전송', 'Deliveries')}</th></tr></thead><tbody>
${events.map(
  (e) => html`<tr><td><code>${e.event.type}</code><br><span class="mono small">${e.event.id}</span></td><td class="small" data-label="${L('시각', 'When')}">${when(e.event.createdAt)}</td><td>${
    !e.dispatchedAt
      ? html`<span class="muted small" data-testid="queued">${L('전송 준비 중', 'Being queued')}</span>`
      : e.deliveries.length
        ? e.deliveries.map((d) => html`<div class="small"><span class="mono">${d.endpointUrl ?? d.endpointId}</span> ${labelTag(ctx.lang, DELIVERY_STATUS_LABEL, d.status, 'succeeded', ['failed'])} ${L('시도', 'attempts')} ${d.attempts.length}</div>`)
        : html`<span class="muted small">${L('구독한 엔드포인트 없음', 'no subscribed endpoint')}</span>`
  }</td></tr>`,
)}</tbody></table></div>`
    : html`<p class="muted">${L('이벤트가 없습니다.', 'No events.')}</p>`
}</section>`;
}

export function orderEventsRoute(app: App, deps: AppDeps): void {
  // The events section alone, for its own refresh while deliveries are being queued or sent.
  app.get('/dashboard/orders/:id/events', { schema: { hide: true }, preHandler: requireRole('orders') }, async (req, reply) => {
    const ctx = ctxOf(req);
    const id = (req.params as { id: string }).id;
    await getOrder(deps, { storeId: ctx.member.storeId, mode: ctx.mode, productIds: null }, id);
    return sendFragment(reply, eventsSection(ctx, id, await eventsOfOrder(deps, ctx.member.storeId, ctx.mode, id)));
  });
}
