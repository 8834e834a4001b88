import type { FastifyReply } from 'fastify';
import type { DashboardPage } from './page';
import type { AppDeps } from '../../deps';
import { html, type SafeHtml } from '../../pages/html';
import { ApiError } from '../../platform/errors';
import { SCOPES, type Scope } from '../../platform/http/route';
import { createApiKey, getApiKey, listApiKeys, revokeApiKey, rotateApiKey } from '../../stores/api-keys';
import { listProductsForOwner } from '../../catalog/service';
import { auditAction, csrfField, ctxOf, notice, requireRole, sendForbidden, sendPage, type DashboardContext } from '../frame';
import { catalog, type Lang } from '../i18n';
import { can } from '../roles';
import { field, fields, lines } from '../form';
import { developersTabs } from './developers-nav';
import { errorText } from './errors';

export const keysText = catalog(
  {
    title: '개발자',
    keys: 'API 키',
    name: '이름',
    hint: '키',
    scopes: '권한(scope)',
    ip: 'IP 허용 목록',
    products: '상품 범위',
    status: '상태',
    lastUsed: '마지막 사용',
    created: '만든 날',
    actions: '작업',
    never: '사용 기록 없음',
    all: '전체',
    rotate: '교체',
    revoke: '폐기',
    revokeConfirm: '이 키를 지금 폐기할까요? 이 키를 쓰는 서버는 바로 호출할 수 없게 됩니다.',
    grace: '이전 키 유지 시간',
    graceHours: '{h}시간',
    create: '새 API 키 만들기',
    createSubmit: '키 만들기',
    ipHint: '한 줄에 하나씩 IP 주소 또는 CIDR (예: 203.0.113.7, 10.0.0.0/8). 비우면 모든 주소에서 사용할 수 있습니다.',
    productsHint: '선택하지 않으면 모든 상품에 사용할 수 있습니다.',
    secretOnce: '새 API 키입니다. 지금만 보여 드리니 안전한 곳에 복사해 두세요:',
    created_ok: 'API 키를 만들었습니다.',
    rotated_ok: '키를 교체했습니다. 이전 키는 {until}까지 동작합니다.',
    revoked_ok: '키를 폐기했습니다.',
    liveOwnerOnly: '라이브 모드 API 키는 상점 소유자만 만들거나 교체·폐기할 수 있습니다.',
    none: '이 모드의 API 키가 없습니다.',
    active: '사용 중',
    rotating: '교체됨(유예 중)',
    expired: '만료',
    revoked: '폐기됨',
  },
  {
    title: 'Developers',
    keys: 'API keys',
    name: 'Name',
    hint: 'Key',
    scopes: 'Scopes',
    ip: 'IP allow-list',
    products: 'Product range',
    status: 'Status',
    lastUsed: 'Last used',
    created: 'Created',
    actions: 'Actions',
    never: 'Never used',
    all: 'All',
    rotate: 'Rotate',
    revoke: 'Revoke',
    revokeConfirm: 'Revoke this key now? Servers using it stop working at once.',
    grace: 'Keep the old key for',
    graceHours: '{h} h',
    create: 'Create an API key',
    createSubmit: 'Create key',
    ipHint: 'One IP address or CIDR per line (e.g. 203.0.113.7, 10.0.0.0/8). Empty: any address.',
    productsHint: 'None selected: every product.',
    secretOnce: 'Your new API key. It is shown only now; copy it somewhere safe:',
    created_ok: 'API key created.',
    rotated_ok: 'Key rotated. The old key works until {until}.',
    revoked_ok: 'Key revoked.',
    liveOwnerOnly: 'Only the store owner may create, rotate or revoke live-mode API keys.',
    none: 'No API keys in this mode.',
    active: 'Active',
    rotating: 'Rotated (grace)',
    expired: 'Expired',
    revoked: 'Revoked',
  },
);

const KST = new Intl.DateTimeFormat('sv-SE', { timeZone: 'Asia/Seoul', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit' });
const when = (iso: string | null) => (iso ? KST.format(new Date(iso)) : null);
const GRACE = [0, 1, 24, 72, 168];

interface Flash {
  ok?: string;
  error?: string;
  secret?: string;
}

async function render(deps: AppDeps, reply: FastifyReply, ctx: DashboardContext, flash: Flash = {}, status = 200): Promise<FastifyReply> {
  const L: Lang = ctx.lang;
  const m = (k: Parameters<typeof keysText>[1], v?: Record<string, string | number>) => keysText(L, k, v);
  const keys = await listApiKeys(deps, ctx.member.storeId, { mode: ctx.mode, page: 1, limit: 100 });
  const products = await listProductsForOwner(deps, ctx.member.storeId, { mode: ctx.mode, page: 1, limit: 100 });
  const mayAct = ctx.mode === 'test' || can(ctx.member.role, 'keys.live');
  const body: SafeHtml = html`${developersTabs(L, '/dashboard/developers')}
${flash.ok ? notice('ok', flash.ok) : ''}${flash.error ? notice('error', flash.error) : ''}
${flash.secret ? html`<div class="secret" data-testid="secret"><p>${m('secretOnce')}</p><code>${flash.secret}</code></div>` : ''}
${!mayAct ? notice('error', m('liveOwnerOnly')) : ''}
<section aria-labelledby="keys-h">
<h2 id="keys-h">${m('keys')}</h2>
${
  keys.data.length === 0
    ? html`<p class="card">${m('none')}</p>`
    : html`<div class="table-wrap" tabindex="0"><table data-testid="keys">
<thead><tr><th scope="col">${m('name')}</th><th scope="col">${m('hint')}</th><th scope="col">${m('scopes')}</th><th scope="col">${m('ip')}</th><th scope="col">${m('products')}</th><th scope="col">${m('status')}</th><th scope="col">${m('lastUsed')}</th><th scope="col">${m('actions')}</th></tr></thead>
<tbody>${keys.data.map(
        (k) => html`<tr class="${k.mode === 'test' ? 'testrow' : ''}" data-key="${k.id}">
<td>${k.name}<br><code class="muted">${k.id}</code></td>
<td><code>${k.keyHint}…</code></td>
<td>${k.scopes.length === SCOPES.length ? m('all') : k.scopes.map((s) => html`<span class="tag">${s}</span> `)}</td>
<td>${k.ipAllowlist ? k.ipAllowlist.map((ip) => html`<code>${ip}</code> `) : m('all')}</td>
<td>${k.productIds ? k.productIds.map((p) => html`<code>${p}</code> `) : m('all')}</td>
<td><span class="tag ${k.status === 'active' ? 'good' : k.status === 'revoked' ? 'bad' : ''}">${m(k.status)}</span>${k.expiresAt && k.status === 'rotating' ? html`<br><span class="muted">~${when(k.expiresAt)}</span>` : ''}</td>
<td>${when(k.lastUsedAt) ?? m('never')}</td>
<td>${
          mayAct && k.status === 'active'
            ? html`<div class="actions">
<form method="post" action="/dashboard/developers/keys/${k.id}/rotate">${csrfField(ctx)}<label class="skip" for="g-${k.id}">${m('grace')}</label><select id="g-${k.id}" name="graceHours" aria-label="${m('grace')}">${GRACE.map((h) => html`<option value="${h}"${h === 24 ? html` selected` : ''}>${m('graceHours', { h })}</option>`)}</select> <button type="submit" class="plain">${m('rotate')}</button></form>
<form method="post" action="/dashboard/developers/keys/${k.id}/revoke" hx-confirm="${m('revokeConfirm')}">${csrfField(ctx)}<button type="submit" class="warn">${m('revoke')}</button></form>
</div>`
            : ''
        }</td></tr>`,
      )}</tbody></table></div>`
}
</section>
${
  mayAct
    ? html`<form class="card" method="post" action="/dashboard/developers/keys" aria-labelledby="create-h">
<h2 id="create-h">${m('create')}</h2>
<label for="k-name">${m('name')}</label><input type="text" id="k-name" name="name" required maxlength="100">
<fieldset><legend>${m('scopes')}</legend><div class="grid">${SCOPES.map((s) => html`<label class="method"><input type="checkbox" name="scopes" value="${s}" checked> ${s}</label>`)}</div></fieldset>
<label for="k-ip">${m('ip')}</label><textarea id="k-ip" name="ipAllowlist" rows="3" aria-describedby="k-ip-hint"></textarea><p class="hint" id="k-ip-hint">${m('ipHint')}</p>
<label for="k-products">${m('products')}</label><select id="k-products" name="productIds" multiple size="${Math.min(6, Math.max(2, products.data.length))}" aria-describedby="k-p-hint">${products.data.map((p) => html`<option value="${p.id}">${p.name} (${p.id})</option>`)}</select><p class="hint" id="k-p-hint">${m('productsHint')}</p>
<p><button type="submit" class="primary">${m('createSubmit')}</button></p>
</form>`
    : ''
}`;
  return sendPage(reply, ctx, { title: m('title'), nav: '/dashboard/developers' }, body, status);
}

/** Runs a key action; an ApiError (bad input, unknown key) re-renders the page with the message instead of the frame's error page. */
async function attempt(deps: AppDeps, reply: FastifyReply, ctx: DashboardContext, fn: () => Promise<Flash>): Promise<FastifyReply> {
  try {
    return await render(deps, reply, ctx, await fn());
  } catch (e) {
    if (e instanceof ApiError && e.statusCode < 500) return render(deps, reply, ctx, { error: errorText(e) }, e.statusCode);
    throw e;
  }
}

/** /dashboard/developers: API keys of the session's mode (create with scopes, IP allow-list, product range; rotate; revoke). */
const developersKeysPage: DashboardPage = async (app, deps) => {
  const guard = { schema: { hide: true }, preHandler: requireRole('developers') };

  app.get('/dashboard/developers', guard, async (req, reply) => render(deps, reply, ctxOf(req)));

  app.post('/dashboard/developers/keys', guard, async (req, reply) => {
    const ctx = ctxOf(req);
    if (ctx.mode === 'live' && !can(ctx.member.role, 'keys.live')) return sendForbidden(reply, ctx);
    return attempt(deps, reply, ctx, async () => {
      const scopes = fields(req.body, 'scopes').filter((s): s is Scope => (SCOPES as readonly string[]).includes(s));
      const name = field(req.body, 'name', 100);
      if (!name) throw new ApiError('VALIDATION_FAILED', { message: ctx.lang === 'en' ? 'Enter a name.' : '이름을 입력해 주세요.' });
      if (scopes.length === 0) throw new ApiError('VALIDATION_FAILED', { message: ctx.lang === 'en' ? 'Choose at least one scope.' : '권한(scope)을 하나 이상 선택해 주세요.' });
      const ipAllowlist = lines(req.body, 'ipAllowlist');
      const productIds = fields(req.body, 'productIds');
      const res = await createApiKey(deps, ctx.member.storeId, { mode: ctx.mode, name, scopes, ipAllowlist: ipAllowlist.length ? ipAllowlist : null, productIds: productIds.length ? productIds : null });
      await auditAction(deps.db, deps, req, { action: 'api_key.created', target: { type: 'api_key', id: res.apiKey.id }, details: { name, scopes, ipAllowlist: res.apiKey.ipAllowlist, productIds: res.apiKey.productIds } });
      return { ok: keysText(ctx.lang, 'created_ok'), secret: res.secret };
    });
  });

  app.post<{ Params: { id: string } }>('/dashboard/developers/keys/:id/rotate', guard, async (req, reply) => {
    const ctx = ctxOf(req);
    return attempt(deps, reply, ctx, async () => {
      const key = await getApiKey(deps, ctx.member.storeId, req.params.id);
      if (key.mode !== ctx.mode) throw new ApiError('API_KEY_NOT_FOUND');
      if (key.mode === 'live' && !can(ctx.member.role, 'keys.live')) throw new ApiError('ADMIN_FORBIDDEN', { message: keysText(ctx.lang, 'liveOwnerOnly') });
      const grace = Number.parseInt(field(req.body, 'graceHours', 4) || '24', 10);
      const graceHours = GRACE.includes(grace) ? grace : 24;
      const res = await rotateApiKey(deps, ctx.member.storeId, key.id, graceHours);
      await auditAction(deps.db, deps, req, { action: 'api_key.rotated', target: { type: 'api_key', id: key.id }, details: { name: key.name, newKeyId: res.apiKey.id, graceHours } });
      return { ok: keysText(ctx.lang, 'rotated_ok', { until: when(res.previous.expiresAt) ?? '-' }), secret: res.secret };
    });
  });

  app.post<{ Params: { id: string } }>('/dashboard/developers/keys/:id/revoke', guard, async (req, reply) => {
    const ctx = ctxOf(req);
    return attempt(deps, reply, ctx, async () => {
      const key = await getApiKey(deps, ctx.member.storeId, req.params.id);
      if (key.mode !== ctx.mode) throw new ApiError('API_KEY_NOT_FOUND');
      if (key.mode === 'live' && !can(ctx.member.role, 'keys.live')) throw new ApiError('ADMIN_FORBIDDEN', { message: keysText(ctx.lang, 'liveOwnerOnly') });
      await revokeApiKey(deps, ctx.member.storeId, key.id);
      await auditAction(deps.db, deps, req, { action: 'api_key.revoked', target: { type: 'api_key', id: key.id }, details: { name: key.name } });
      return { ok: keysText(ctx.lang, 'revoked_ok') };
    });
  });
};

export default developersKeysPage;
