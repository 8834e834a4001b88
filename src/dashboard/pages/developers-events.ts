import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DashboardPage } from './page';
import type { AppDeps } from '../../deps';
import { html } from '../../pages/html';
import { ApiError } from '../../platform/errors';
import * as webhooks from '../../webhooks/service';
import { SELF_SENT_EVENT_TYPES } from '../../webhooks/model';
import { auditAction, csrfField, ctxOf, notice, requireRole, sendPage, type DashboardContext } from '../frame';
import { catalog, frameText } from '../i18n';
import { field } from '../form';
import { developersTabs } from './developers-nav';
import { errorText } from './errors';

const m = catalog(
  {
    title: '개발자',
    events: '이벤트 로그',
    type: '종류',
    created: '발생 시각',
    filter: '종류로 찾기',
    apply: '적용',
    none: '이 모드의 이벤트가 없습니다.',
    event: '이벤트 {id}',
    data: '내용',
    deliveries: '전달 기록',
    noDeliveries: '이 이벤트를 받은 엔드포인트가 없습니다.',
    endpoint: '엔드포인트',
    status: '상태',
    attempts: '시도',
    next: '다음 시도',
    pending: '대기 중',
    succeeded: '성공',
    failed: '실패',
    resend: '다시 보내기',
    resendTo: '보낼 엔드포인트',
    resent_ok: '다시 보내기를 예약했습니다. 곧 전달됩니다.',
    notResendable: 'license.issue 이벤트는 다시 보낼 수 없습니다.',
    trigger_event: '발생',
    trigger_resend: '재전송',
    trigger_test: '테스트',
  },
  {
    title: 'Developers',
    events: 'Event log',
    type: 'Type',
    created: 'Created',
    filter: 'Find by type',
    apply: 'Apply',
    none: 'No events in this mode.',
    event: 'Event {id}',
    data: 'Data',
    deliveries: 'Deliveries',
    noDeliveries: 'No endpoint received this event.',
    endpoint: 'Endpoint',
    status: 'Status',
    attempts: 'Attempts',
    next: 'Next attempt',
    pending: 'Pending',
    succeeded: 'Succeeded',
    failed: 'Failed',
    resend: 'Resend',
    resendTo: 'Endpoint to send to',
    resent_ok: 'Resend queued; it is delivered shortly.',
    notResendable: 'license.issue events cannot be resent.',
    trigger_event: 'event',
    trigger_resend: 'resend',
    trigger_test: 'test',
  },
);

const KST = new Intl.DateTimeFormat('sv-SE', { timeZone: 'Asia/Seoul', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
const when = (iso: string | null) => (iso ? KST.format(new Date(iso)) : '');

async function renderDetail(deps: AppDeps, reply: FastifyReply, ctx: DashboardContext, id: string, flash: { ok?: string; error?: string } = {}, status = 200): Promise<FastifyReply> {
  const L = ctx.lang;
  const t = (k: Parameters<typeof m>[1], v?: Record<string, string | number>) => m(L, k, v);
  const d = await webhooks.getEvent(deps, ctx.member.storeId, id);
  if (d.event.mode !== ctx.mode) throw new ApiError('EVENT_NOT_FOUND');
  const endpoints = (await webhooks.listEndpoints(deps, ctx.member.storeId, { mode: ctx.mode, page: 1, limit: 100 })).data.filter((e) => e.status === 'enabled');
  const resendable = !SELF_SENT_EVENT_TYPES.has(d.event.type);
  const body = html`${developersTabs(L, '/dashboard/developers/events')}
${flash.ok ? notice('ok', flash.ok) : ''}${flash.error ? notice('error', flash.error) : ''}
<section class="card" aria-labelledby="ev-h"><h2 id="ev-h"><code>${d.event.type}</code></h2>
<p class="muted"><code>${d.event.id}</code> · ${when(d.event.createdAt)}</p>
<details><summary>${t('data')}</summary><pre class="mono" style="white-space:pre-wrap;overflow-wrap:anywhere">${JSON.stringify(d.event.data, null, 2)}</pre></details>
</section>
<section aria-labelledby="dl-h"><h2 id="dl-h">${t('deliveries')}</h2>
${
  d.deliveries.length === 0
    ? html`<p class="card">${t('noDeliveries')}</p>`
    : html`<div class="table-wrap" tabindex="0"><table data-testid="deliveries"><thead><tr><th scope="col">${t('endpoint')}</th><th scope="col">${t('status')}</th><th scope="col">${t('attempts')}</th><th scope="col">${t('next')}</th></tr></thead><tbody>
${d.deliveries.map(
  (x) => html`<tr data-delivery="${x.id}"><td><code>${x.endpointUrl ?? x.endpointId}</code><br><span class="tag">${t(`trigger_${x.trigger}`)}</span></td>
<td><span class="tag ${x.status === 'succeeded' ? 'good' : x.status === 'failed' ? 'bad' : ''}">${t(x.status)}</span>${x.lastStatusCode ? html` HTTP ${x.lastStatusCode}` : ''}${x.lastError ? html`<br><span class="muted">${x.lastError}</span>` : ''}</td>
<td>${x.attemptCount}${x.attempts.length ? html`<ul class="muted">${x.attempts.map((a) => html`<li>#${a.attempt} ${when(a.startedAt)} ${a.statusCode ?? a.error ?? ''} (${a.durationMs} ms)</li>`)}</ul>` : ''}</td>
<td>${when(x.nextAttemptAt)}</td></tr>`,
)}</tbody></table></div>`
}
</section>
${
  resendable && endpoints.length
    ? html`<form class="card" method="post" action="/dashboard/developers/events/${d.event.id}/resend">
${csrfField(ctx)}
<label for="resend-to">${t('resendTo')}</label>
<select id="resend-to" name="endpointId">${endpoints.map((e) => html`<option value="${e.id}">${e.url}</option>`)}</select>
<p><button type="submit" class="primary">${t('resend')}</button></p>
</form>`
    : !resendable
      ? html`<p class="muted">${t('notResendable')}</p>`
      : ''
}`;
  return sendPage(reply, ctx, { title: t('event', { id: d.event.type }), nav: '/dashboard/developers' }, body, status);
}

/** /dashboard/developers/events: the event log of the session's mode, each event's deliveries and attempts, resend. */
const developersEventsPage: DashboardPage = async (app, deps) => {
  const guard = { schema: { hide: true }, preHandler: requireRole('developers') };

  app.get('/dashboard/developers/events', guard, async (req, reply) => {
    const ctx = ctxOf(req);
    const L = ctx.lang;
    const t = (k: Parameters<typeof m>[1], v?: Record<string, string | number>) => m(L, k, v);
    const q = req.query as Record<string, unknown>;
    const type = field(q, 'type', 100) || undefined;
    const page = Math.min(Math.max(1, Number.parseInt(field(q, 'page', 6) || '1', 10) || 1), 1000);
    const list = await webhooks.listEvents(deps, ctx.member.storeId, { mode: ctx.mode, type, page, limit: 50 });
    const pages = Math.max(1, Math.ceil(list.total / list.limit));
    const link = (p: number) => `/dashboard/developers/events?${new URLSearchParams({ ...(type ? { type } : {}), page: String(p) })}`;
    const body = html`${developersTabs(L, '/dashboard/developers/events')}
<form class="card filters" method="get" action="/dashboard/developers/events"><div><label for="ev-type">${t('filter')}</label><input type="text" id="ev-type" name="type" value="${type ?? ''}" placeholder="order.paid"></div><div><button type="submit" class="plain">${t('apply')}</button></div></form>
${
  list.data.length === 0
    ? html`<p class="card">${t('none')}</p>`
    : html`<div class="table-wrap" tabindex="0"><table data-testid="events"><thead><tr><th scope="col">${t('type')}</th><th scope="col">ID</th><th scope="col">${t('created')}</th></tr></thead><tbody>
${list.data.map((e) => html`<tr class="${e.mode === 'test' ? 'testrow' : ''}"><td><a href="/dashboard/developers/events/${e.id}"><code>${e.type}</code></a></td><td><code>${e.id}</code></td><td class="mono">${when(e.createdAt)}</td></tr>`)}
</tbody></table></div>`
}
<div class="pager">${page > 1 ? html`<a href="${link(page - 1)}">${frameText(L, 'page.prev')}</a>` : html`<span></span>`}<span>${frameText(L, 'page.of', { page, pages, total: list.total })}</span>${page < pages ? html`<a href="${link(page + 1)}">${frameText(L, 'page.next')}</a>` : html`<span></span>`}</div>`;
    return sendPage(reply, ctx, { title: t('events'), nav: '/dashboard/developers' }, body);
  });

  app.get('/dashboard/developers/events/:id', guard, async (req: FastifyRequest<{ Params: { id: string } }>, reply) => renderDetail(deps, reply, ctxOf(req), req.params.id));

  app.post('/dashboard/developers/events/:id/resend', guard, async (req: FastifyRequest<{ Params: { id: string } }>, reply) => {
    const ctx = ctxOf(req);
    try {
      const ev = await webhooks.getEvent(deps, ctx.member.storeId, req.params.id);
      if (ev.event.mode !== ctx.mode) throw new ApiError('EVENT_NOT_FOUND');
      const endpointId = field(req.body, 'endpointId', 100);
      const delivery = await webhooks.resendEvent(deps, ctx.member.storeId, ev.event.id, endpointId);
      await auditAction(deps.db, deps, req, { action: 'event.resent', target: { type: 'event', id: ev.event.id }, details: { endpointId, deliveryId: delivery.id, type: ev.event.type } });
      return renderDetail(deps, reply, ctx, ev.event.id, { ok: m(ctx.lang, 'resent_ok') });
    } catch (e) {
      if (e instanceof ApiError && e.code !== 'EVENT_NOT_FOUND' && e.statusCode < 500) return renderDetail(deps, reply, ctx, req.params.id, { error: errorText(e) }, e.statusCode);
      throw e;
    }
  });
};

export default developersEventsPage;
