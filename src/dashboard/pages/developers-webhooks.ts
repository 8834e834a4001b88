import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DashboardPage } from './page';
import type { AppDeps } from '../../deps';
import { html, type SafeHtml } from '../../pages/html';
import { ApiError } from '../../platform/errors';
import * as webhooks from '../../webhooks/service';
import { SUBSCRIBABLE_EVENT_TYPES } from '../../webhooks/model';
import { auditAction, csrfField, ctxOf, notice, requireRole, sendPage, type DashboardContext } from '../frame';
import { catalog, type Lang } from '../i18n';
import { field, fields } from '../form';
import { developersTabs } from './developers-nav';
import { errorText } from './errors';

const m = catalog(
  {
    title: '개발자',
    endpoints: '웹훅 엔드포인트',
    url: '주소(URL)',
    events: '이벤트 종류',
    status: '상태',
    enabled: '사용 중',
    disabled: '비활성화됨',
    failingSince: '{since}부터 실패 중',
    actions: '작업',
    reveal: '서명 비밀 보기',
    rotate: '서명 비밀 교체',
    rotateConfirm: '서명 비밀을 교체할까요? 이전 비밀은 24시간 동안 함께 서명에 쓰입니다.',
    test: '테스트 이벤트 보내기',
    disable: '비활성화',
    enable: '다시 사용',
    create: '새 웹훅 엔드포인트',
    description: '설명 (선택)',
    createSubmit: '엔드포인트 만들기',
    none: '이 모드의 웹훅 엔드포인트가 없습니다.',
    secretOnce: '서명 비밀입니다 (standardwebhooks, whsec_…). 수신 서버에 설정하세요:',
    secrets: '유효한 서명 비밀 (최신순):',
    created_ok: '엔드포인트를 만들었습니다.',
    rotated_ok: '서명 비밀을 교체했습니다. 이전 비밀도 유예 기간 동안 서명에 쓰입니다.',
    test_ok: '테스트 이벤트를 보냈습니다: {result}',
    test_failed: '테스트 이벤트 전달 실패: {result}',
    updated_ok: '엔드포인트 상태를 바꿨습니다.',
    chooseEvents: '이벤트 종류를 하나 이상 선택해 주세요.',
    until: '{until}까지',
  },
  {
    title: 'Developers',
    endpoints: 'Webhook endpoints',
    url: 'URL',
    events: 'Event types',
    status: 'Status',
    enabled: 'Enabled',
    disabled: 'Disabled',
    failingSince: 'failing since {since}',
    actions: 'Actions',
    reveal: 'Reveal secret',
    rotate: 'Rotate secret',
    rotateConfirm: 'Rotate the signing secret? The previous one keeps signing for 24 hours.',
    test: 'Send a test event',
    disable: 'Disable',
    enable: 'Enable',
    create: 'New webhook endpoint',
    description: 'Description (optional)',
    createSubmit: 'Create endpoint',
    none: 'No webhook endpoints in this mode.',
    secretOnce: 'The signing secret (standardwebhooks, whsec_…). Configure it on your receiver:',
    secrets: 'Valid signing secrets (newest first):',
    created_ok: 'Endpoint created.',
    rotated_ok: 'Secret rotated. The previous secret also signs during the grace period.',
    test_ok: 'Test event sent: {result}',
    test_failed: 'Test event not delivered: {result}',
    updated_ok: 'Endpoint status changed.',
    chooseEvents: 'Choose at least one event type.',
    until: 'until {until}',
  },
);

const KST = new Intl.DateTimeFormat('sv-SE', { timeZone: 'Asia/Seoul', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit' });
const when = (iso: string | null) => (iso ? KST.format(new Date(iso)) : '');

interface Flash {
  ok?: string;
  error?: string;
  secrets?: Array<{ secret: string; expiresAt: string | null }>;
  endpointId?: string;
}

async function render(deps: AppDeps, reply: FastifyReply, ctx: DashboardContext, flash: Flash = {}, status = 200): Promise<FastifyReply> {
  const L: Lang = ctx.lang;
  const t = (k: Parameters<typeof m>[1], v?: Record<string, string | number>) => m(L, k, v);
  const list = await webhooks.listEndpoints(deps, ctx.member.storeId, { mode: ctx.mode, page: 1, limit: 100 });
  const body: SafeHtml = html`${developersTabs(L, '/dashboard/developers/webhooks')}
${flash.ok ? notice('ok', flash.ok) : ''}${flash.error ? notice('error', flash.error) : ''}
${
  flash.secrets
    ? html`<div class="secret" data-testid="secret"><p>${flash.secrets.length > 1 ? t('secrets') : t('secretOnce')}</p>${flash.secrets.map(
        (s) => html`<p><code>${s.secret}</code>${s.expiresAt ? html` <span class="muted">(${t('until', { until: when(s.expiresAt) })})</span>` : ''}</p>`,
      )}</div>`
    : ''
}
<section aria-labelledby="ep-h"><h2 id="ep-h">${t('endpoints')}</h2>
${
  list.data.length === 0
    ? html`<p class="card">${t('none')}</p>`
    : html`<div class="table-wrap" tabindex="0"><table data-testid="endpoints"><thead><tr><th scope="col">${t('url')}</th><th scope="col">${t('events')}</th><th scope="col">${t('status')}</th><th scope="col">${t('actions')}</th></tr></thead><tbody>
${list.data.map(
  (e) => html`<tr class="${e.mode === 'test' ? 'testrow' : ''}" data-endpoint="${e.id}">
<td><code>${e.url}</code>${e.description ? html`<br><span class="muted">${e.description}</span>` : ''}<br><code class="muted">${e.id}</code></td>
<td>${e.eventTypes.map((x) => html`<span class="tag">${x}</span> `)}</td>
<td><span class="tag ${e.status === 'enabled' ? 'good' : 'bad'}">${t(e.status)}</span>${e.failingSince ? html`<br><span class="tag bad">${t('failingSince', { since: when(e.failingSince) })}</span>` : ''}</td>
<td><div class="actions">
<form method="post" action="/dashboard/developers/webhooks/${e.id}/secret">${csrfField(ctx)}<button type="submit" class="plain">${t('reveal')}</button></form>
<form method="post" action="/dashboard/developers/webhooks/${e.id}/rotate" hx-confirm="${t('rotateConfirm')}">${csrfField(ctx)}<button type="submit" class="plain">${t('rotate')}</button></form>
${e.status === 'enabled' ? html`<form method="post" action="/dashboard/developers/webhooks/${e.id}/test">${csrfField(ctx)}<button type="submit" class="plain">${t('test')}</button></form>` : ''}
<form method="post" action="/dashboard/developers/webhooks/${e.id}/status">${csrfField(ctx)}<input type="hidden" name="status" value="${e.status === 'enabled' ? 'disabled' : 'enabled'}"><button type="submit" class="${e.status === 'enabled' ? 'warn' : 'plain'}">${t(e.status === 'enabled' ? 'disable' : 'enable')}</button></form>
</div></td></tr>`,
)}</tbody></table></div>`
}
</section>
<form class="card" method="post" action="/dashboard/developers/webhooks" aria-labelledby="new-ep">
<h2 id="new-ep">${t('create')}</h2>
<label for="w-url">${t('url')}</label><input type="url" id="w-url" name="url" required maxlength="2048" placeholder="https://example.com/webhooks">
<fieldset><legend>${t('events')}</legend><div class="grid">${SUBSCRIBABLE_EVENT_TYPES.map((x) => html`<label class="method"><input type="checkbox" name="eventTypes" value="${x}"${x === 'order.paid' ? html` checked` : ''}> ${x}</label>`)}</div></fieldset>
<label for="w-desc">${t('description')}</label><input type="text" id="w-desc" name="description" maxlength="500">
<p><button type="submit" class="primary">${t('createSubmit')}</button></p>
</form>`;
  return sendPage(reply, ctx, { title: t('title'), nav: '/dashboard/developers' }, body, status);
}

async function attempt(deps: AppDeps, reply: FastifyReply, ctx: DashboardContext, fn: () => Promise<Flash>): Promise<FastifyReply> {
  try {
    return await render(deps, reply, ctx, await fn());
  } catch (e) {
    if (e instanceof ApiError && e.statusCode < 500) return render(deps, reply, ctx, { error: errorText(e) }, e.statusCode);
    throw e;
  }
}

/** The endpoint, when it belongs to the session's mode (the page shows one mode at a time). */
async function endpointInMode(deps: AppDeps, ctx: DashboardContext, id: string) {
  const e = await webhooks.getEndpoint(deps, ctx.member.storeId, id);
  if (e.mode !== ctx.mode) throw new ApiError('WEBHOOK_ENDPOINT_NOT_FOUND');
  return e;
}

/** /dashboard/developers/webhooks: endpoints (create, reveal and rotate the secret, send a test event, enable/disable). */
const developersWebhooksPage: DashboardPage = async (app, deps) => {
  const guard = { schema: { hide: true }, preHandler: requireRole('developers') };
  type Req = FastifyRequest<{ Params: { id: string } }>;

  app.get('/dashboard/developers/webhooks', guard, async (req, reply) => render(deps, reply, ctxOf(req)));

  app.post('/dashboard/developers/webhooks', guard, async (req, reply) => {
    const ctx = ctxOf(req);
    return attempt(deps, reply, ctx, async () => {
      const eventTypes = fields(req.body, 'eventTypes').filter((x) => (SUBSCRIBABLE_EVENT_TYPES as readonly string[]).includes(x));
      if (eventTypes.length === 0) throw new ApiError('VALIDATION_FAILED', { message: m(ctx.lang, 'chooseEvents') });
      const description = field(req.body, 'description', 500) || null;
      const res = await webhooks.createEndpoint(deps, ctx.member.storeId, { mode: ctx.mode, url: field(req.body, 'url', 2048), eventTypes, description });
      await auditAction(deps.db, deps, req, { action: 'webhook_endpoint.created', target: { type: 'webhook_endpoint', id: res.endpoint.id }, details: { url: res.endpoint.url, eventTypes } });
      return { ok: m(ctx.lang, 'created_ok'), secrets: [{ secret: res.secret, expiresAt: null }] };
    });
  });

  app.post('/dashboard/developers/webhooks/:id/secret', guard, async (req: Req, reply) => {
    const ctx = ctxOf(req);
    // A live signing secret lets whoever holds it forge this store's events (an order paid): revealed after a step-up
    // (../step-up-actions.ts).
    return attempt(deps, reply, ctx, async () => {
      const e = await endpointInMode(deps, ctx, req.params.id);
      const s = await webhooks.getSecrets(deps, ctx.member.storeId, e.id);
      // Reading a secret is recorded too: whoever saw it could sign events as this store.
      await auditAction(deps.db, deps, req, { action: 'webhook_endpoint.secret_revealed', target: { type: 'webhook_endpoint', id: e.id } });
      return { secrets: s.secrets.map((x) => ({ secret: x.secret, expiresAt: x.expiresAt })) };
    });
  });

  app.post('/dashboard/developers/webhooks/:id/rotate', guard, async (req: Req, reply) => {
    const ctx = ctxOf(req);
    return attempt(deps, reply, ctx, async () => {
      const e = await endpointInMode(deps, ctx, req.params.id);
      const s = await webhooks.rotateSecret(deps, ctx.member.storeId, e.id);
      await auditAction(deps.db, deps, req, { action: 'webhook_endpoint.secret_rotated', target: { type: 'webhook_endpoint', id: e.id } });
      return { ok: m(ctx.lang, 'rotated_ok'), secrets: s.secrets.map((x) => ({ secret: x.secret, expiresAt: x.expiresAt })) };
    });
  });

  app.post('/dashboard/developers/webhooks/:id/test', guard, async (req: Req, reply) => {
    const ctx = ctxOf(req);
    return attempt(deps, reply, ctx, async () => {
      const e = await endpointInMode(deps, ctx, req.params.id);
      const r = await webhooks.sendTest(deps, ctx.member.storeId, e.id);
      await auditAction(deps.db, deps, req, { action: 'webhook_endpoint.test_sent', target: { type: 'webhook_endpoint', id: e.id }, details: { eventId: r.event.id, status: r.delivery.status } });
      const result = r.delivery.lastStatusCode ? `HTTP ${r.delivery.lastStatusCode}` : (r.delivery.lastError ?? r.delivery.status);
      return r.delivery.status === 'succeeded' ? { ok: m(ctx.lang, 'test_ok', { result }) } : { error: m(ctx.lang, 'test_failed', { result }) };
    });
  });

  app.post('/dashboard/developers/webhooks/:id/status', guard, async (req: Req, reply) => {
    const ctx = ctxOf(req);
    return attempt(deps, reply, ctx, async () => {
      const e = await endpointInMode(deps, ctx, req.params.id);
      const status = field(req.body, 'status') === 'disabled' ? 'disabled' : 'enabled';
      await webhooks.updateEndpoint(deps, ctx.member.storeId, e.id, { status });
      await auditAction(deps.db, deps, req, { action: status === 'disabled' ? 'webhook_endpoint.disabled' : 'webhook_endpoint.enabled', target: { type: 'webhook_endpoint', id: e.id } });
      return { ok: m(ctx.lang, 'updated_ok') };
    });
  });
};

export default developersWebhooksPage;
