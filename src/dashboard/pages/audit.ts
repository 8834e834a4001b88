import type { DashboardPage } from './page';
import { html } from '../../pages/html';
import { listAuditLog } from '../../audit/service';
import { ctxOf, requireRole, sendPage } from '../frame';
import { frameText } from '../i18n';

const KST = new Intl.DateTimeFormat('sv-SE', { timeZone: 'Asia/Seoul', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });

function text(v: unknown, max = 200): string | undefined {
  return typeof v === 'string' && v.trim() ? v.trim().slice(0, max) : undefined;
}

/** /dashboard/audit: the store's audit log, newest first, filtered by action and person. */
const auditPage: DashboardPage = async (app, deps) => {
  app.get('/dashboard/audit', { schema: { hide: true }, preHandler: requireRole('audit') }, async (req, reply) => {
    const ctx = ctxOf(req);
    const t = (k: Parameters<typeof frameText>[1], v?: Record<string, string | number>) => frameText(ctx.lang, k, v);
    const q = req.query as Record<string, unknown>;
    const action = text(q.action);
    const actor = text(q.actor);
    const page = Math.min(Math.max(1, Number.parseInt(String(q.page ?? '1'), 10) || 1), 1000);
    const list = await listAuditLog(deps.db, ctx.member.storeId, { action, actor }, { page, limit: 50 });
    const pages = Math.max(1, Math.ceil(list.total / list.limit));
    const link = (p: number) => `/dashboard/audit?${new URLSearchParams({ ...(action ? { action } : {}), ...(actor ? { actor } : {}), page: String(p) })}`;
    const who = (a: (typeof list.data)[number]['actor']) => (a.kind === 'member' ? a.name ?? a.id ?? '' : a.kind === 'owner_token' ? t('audit.ownerToken') : t('audit.operator'));
    return sendPage(
      reply,
      ctx,
      { title: t('audit.title'), nav: '/dashboard/audit' },
      html`<form class="card filters" method="get" action="/dashboard/audit">
  <div><label for="f-action">${t('audit.filterAction')}</label><input type="text" id="f-action" name="action" value="${action ?? ''}" placeholder="api_key.rotated"></div>
  <div><label for="f-actor">${t('audit.filterActor')}</label><input type="text" id="f-actor" name="actor" value="${actor ?? ''}"></div>
  <div><button type="submit" class="plain">${t('audit.apply')}</button></div>
</form>
${
  list.data.length === 0
    ? html`<p class="card">${t('audit.empty')}</p>`
    : html`<div class="table-wrap" tabindex="0"><table data-testid="audit-table">
  <thead><tr><th scope="col">${t('audit.when')}</th><th scope="col">${t('audit.who')}</th><th scope="col">${t('audit.action')}</th><th scope="col">${t('audit.target')}</th><th scope="col">${t('audit.from')}</th></tr></thead>
  <tbody>${list.data.map(
    (e) => html`<tr class="${e.mode === 'test' ? 'testrow' : ''}">
    <td class="mono">${KST.format(new Date(e.createdAt))}</td>
    <td>${who(e.actor)}</td>
    <td><code>${e.action}</code>${e.mode === 'test' ? html` <span class="tag test">${t('mode.test')}</span>` : ''}</td>
    <td>${e.target ? html`<code>${e.target.id}</code>` : ''}</td>
    <td class="mono">${e.ip ?? ''}</td></tr>`,
  )}</tbody></table></div>`
}
<div class="pager">${page > 1 ? html`<a href="${link(page - 1)}">${t('page.prev')}</a>` : html`<span></span>`}<span>${t('page.of', { page, pages, total: list.total })}</span>${page < pages ? html`<a href="${link(page + 1)}">${t('page.next')}</a>` : html`<span></span>`}</div>`,
    );
  });
};

export default auditPage;
