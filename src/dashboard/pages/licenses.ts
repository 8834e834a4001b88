import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DashboardPage } from './page';
import type { AppDeps } from '../../deps';
import { html } from '../../pages/html';
import { ApiError } from '../../platform/errors';
import { adminGetLicense, adminListLicenses, reissueLicense, revokeLicense } from '../../licenses/service';
import { auditAction, csrfField, ctxOf, redirectTo, requireRole, sendPage, type DashboardContext } from '../frame';
import type { Lang } from '../i18n';
import { act, BIZ_CSS, flash, labelTag, LICENSE_STATUS_LABEL, PAGE_SIZE, pageOf, pager, problemBox, qs, str, tr, when, type Problem, type Query } from './kit';
import { bidiMessage, hasBidiControl } from '../../platform/text';

const statusTag = (lang: Lang, s: string) => labelTag(lang, LICENSE_STATUS_LABEL, s, 'active', ['revoked', 'expired']);

/**
 * One search box: a license key (any case, found by its hash), a buyer's e-mail (exact) or an order id. What was
 * typed decides which: `ord_…` is an order, text with `@` an e-mail, anything else a key.
 */
function searchOf(v: string | undefined): { key?: string; buyerEmail?: string; orderId?: string } {
  if (!v) return {};
  if (/^ord_/.test(v)) return { orderId: v };
  if (v.includes('@')) return { buyerEmail: v };
  return { key: v };
}

async function renderDetail(deps: AppDeps, req: FastifyRequest, reply: FastifyReply, ctx: DashboardContext, id: string, problem: Problem | null): Promise<FastifyReply> {
  const L = (ko: string, en: string) => tr(ctx.lang, ko, en);
  const lic = await adminGetLicense(deps, ctx.member.storeId, id);
  // The session's mode only: a license of the other mode is not on this page.
  if (lic.mode !== ctx.mode) throw new ApiError('LICENSE_NOT_FOUND');
  const base = `/dashboard/licenses/${encodeURIComponent(lic.id)}`;
  const done = str((req.query as Query).done);
  return sendPage(
    reply,
    ctx,
    { title: L(`라이선스 ${lic.id}`, `License ${lic.id}`), nav: '/dashboard/licenses' },
    html`${BIZ_CSS}
<p><a href="/dashboard/licenses">← ${L('라이선스 목록', 'All licenses')}</a></p>
${flash(done, { revoked: L('라이선스를 폐기했습니다.', 'License revoked.'), reissued: L('새 키로 재발급했습니다. 이전 키는 폐기되었습니다.', 'Re-issued with a new key; the old one is revoked.') })}
${problemBox(problem)}
<div class="cols">
<section class="card" aria-labelledby="h-lic"><h2 id="h-lic">${L('라이선스', 'License')}</h2><dl class="detail">
  <dt>${L('상태', 'Status')}</dt><dd id="license-status">${statusTag(ctx.lang, lic.status)}</dd>
  <dt>${L('키', 'Key')}</dt><dd class="mono">${lic.key ?? '—'}</dd>
  <dt>${L('상품', 'Product')}</dt><dd>${lic.productName}</dd>
  <dt>${L('주문', 'Order')}</dt><dd><a class="mono" href="/dashboard/orders/${encodeURIComponent(lic.orderId)}">${lic.orderId}</a></dd>
  <dt>${L('구매자', 'Buyer')}</dt><dd>${lic.buyerName} · ${lic.buyerEmail}</dd>
  <dt>${L('활성화', 'Activations')}</dt><dd>${lic.activationCount} / ${lic.maxActivations ?? L('무제한', 'unlimited')}</dd>
  <dt>${L('발급', 'Issued')}</dt><dd>${when(lic.issuedAt)} (${lic.issuer === 'seller' ? L('판매자 발급', 'seller-issued') : L('서비스 발급', 'service-issued')})</dd>
  <dt>${L('만료', 'Expires')}</dt><dd>${lic.expiresAt ? when(lic.expiresAt) : L('없음', 'never')}</dd>
  ${lic.revokedAt ? html`<dt>${L('폐기', 'Revoked')}</dt><dd>${when(lic.revokedAt)} (${lic.revokeReason ?? ''})</dd>` : ''}
  ${lic.rotatedFrom ? html`<dt>${L('이전 라이선스', 'Replaces')}</dt><dd><a class="mono" href="/dashboard/licenses/${encodeURIComponent(lic.rotatedFrom)}">${lic.rotatedFrom}</a></dd>` : ''}
</dl></section>
${
  lic.status === 'revoked'
    ? ''
    : html`<form class="card" method="post" action="${base}/revoke" hx-disabled-elt="find button">
  ${csrfField(ctx)}
  <h2>${L('폐기 또는 재발급', 'Revoke or re-issue')}</h2>
  <p class="muted">${L('폐기하면 이 키는 더 이상 인증되지 않습니다. 재발급은 새 키를 만들고 이 키를 폐기합니다 (기기는 새 키로 다시 활성화해야 합니다).', 'Revoking stops this key for good. Re-issuing makes a new key and revokes this one (devices activate again with the new key).')}</p>
  <label for="lic-reason">${L('사유 (선택)', 'Reason (optional)')}</label>
  <input type="text" id="lic-reason" name="reason" maxlength="500">
  <div class="actions" style="margin-top:12px">
    <button type="submit" class="warn">${L('폐기', 'Revoke')}</button>
    <button type="submit" class="primary" formaction="${base}/reissue">${L('새 키로 재발급', 'Re-issue with a new key')}</button>
  </div>
</form>`
}
</div>
<section class="card" aria-labelledby="h-act"><h2 id="h-act">${L('활성화 기기', 'Activations')}</h2>
${
  lic.activations && lic.activations.length
    ? html`<div class="table-wrap"><table class="stack" id="activations"><thead><tr><th scope="col">${L('기기', 'Device')}</th><th scope="col">${L('활성화', 'Activated')}</th><th scope="col" class="wide">${L('마지막 확인', 'Last verified')}</th><th scope="col">${L('해제', 'Deactivated')}</th></tr></thead><tbody>
${lic.activations.map((a) => html`<tr><td>${a.label ?? html`<span class="mono">${a.id}</span>`}</td><td class="small" data-label="${L('활성화', 'Activated')}">${when(a.activatedAt)}</td><td class="wide small">${when(a.lastVerifiedAt)}</td><td class="small" data-label="${L('해제', 'Deactivated')}">${when(a.deactivatedAt)}</td></tr>`)}
</tbody></table></div>`
    : html`<p class="muted">${L('활성화된 기기가 없습니다.', 'No activations.')}</p>`
}</section>`,
    problem?.status ?? 200,
  );
}

/** /dashboard/licenses: search by key, e-mail or order; activations; revoke and re-issue. */
const licensesPage: DashboardPage = async (app, deps) => {
  app.get('/dashboard/licenses', { schema: { hide: true }, preHandler: requireRole('licenses') }, async (req, reply) => {
    const ctx = ctxOf(req);
    const L = (ko: string, en: string) => tr(ctx.lang, ko, en);
    const q = req.query as Query;
    const text = str(q.q, 300);
    const page = pageOf(q);
    const list = await adminListLicenses(deps, ctx.member.storeId, { page, limit: PAGE_SIZE, mode: ctx.mode, ...searchOf(text) });
    return sendPage(
      reply,
      ctx,
      { title: L('라이선스', 'Licenses'), nav: '/dashboard/licenses' },
      html`${BIZ_CSS}
<form class="card filters" method="get" action="/dashboard/licenses" role="search">
  <div><label for="f-q">${L('라이선스 키, 구매자 이메일 또는 주문번호', 'License key, buyer e-mail or order id')}</label><input type="text" id="f-q" name="q" value="${text ?? ''}" autocomplete="off"></div>
  <div><button type="submit" class="primary">${L('검색', 'Search')}</button></div>
</form>
${
  list.data.length === 0
    ? html`<p class="card" data-testid="empty">${L('라이선스가 없습니다.', 'No licenses.')}</p>`
    : html`<div class="table-wrap"><table class="stack" data-testid="licenses-table">
  <thead><tr><th scope="col">${L('라이선스', 'License')}</th><th scope="col">${L('구매자', 'Buyer')}</th><th scope="col">${L('상태', 'Status')}</th><th scope="col" class="wide">${L('활성화', 'Activations')}</th><th scope="col" class="wide">${L('발급', 'Issued')}</th></tr></thead>
  <tbody>${list.data.map(
    (l) => html`<tr><td><a class="mono small" href="/dashboard/licenses/${encodeURIComponent(l.id)}">${l.id}</a><br><span class="small muted">${l.productName}</span></td><td>${l.buyerName} <span class="small muted">${l.buyerEmail}</span></td><td data-label="${L('상태', 'Status')}">${statusTag(ctx.lang, l.status)}</td><td class="wide" data-label="${L('활성화', 'Activations')}">${l.activationCount} / ${l.maxActivations ?? '∞'}</td><td class="wide small">${when(l.issuedAt)}</td></tr>`,
  )}</tbody></table></div>`
}
${pager(ctx.lang, list.page, list.total, list.limit, (p) => `/dashboard/licenses${qs({ q: text, page: p })}`)}`,
    );
  });

  app.get('/dashboard/licenses/:id', { schema: { hide: true }, preHandler: requireRole('licenses') }, async (req, reply) => renderDetail(deps, req, reply, ctxOf(req), (req.params as { id: string }).id, null));

  for (const action of ['revoke', 'reissue'] as const) {
    app.post(`/dashboard/licenses/:id/${action}`, { schema: { hide: true }, preHandler: requireRole('licenses') }, async (req, reply) => {
      const id = (req.params as { id: string }).id;
      const reason = str((req.body as Query | undefined)?.reason, 600) ?? null;
      return act(
        req,
        reply,
        async (ctx) => {
          if (reason && reason.length > 500) throw new ApiError('VALIDATION_FAILED', { details: { fields: [{ field: 'reason', message: '사유는 500자 이하로 입력해 주세요.' }] } });
          if (reason && hasBidiControl(reason)) throw new ApiError('VALIDATION_FAILED', { details: { fields: [{ field: 'reason', message: bidiMessage('사유') }] } });
          const current = await adminGetLicense(deps, ctx.member.storeId, id);
          if (current.mode !== ctx.mode) throw new ApiError('LICENSE_NOT_FOUND');
          return action === 'revoke' ? revokeLicense(deps, ctx.member.storeId, id, reason) : reissueLicense(deps, ctx.member.storeId, id, reason);
        },
        async (lic) => {
          await auditAction(deps.db, deps, req, {
            action: action === 'revoke' ? 'license.revoked' : 'license.reissued',
            target: { type: 'license', id },
            details: { reason, ...(action === 'reissue' ? { newLicenseId: lic.id } : {}) },
          });
          return redirectTo(req, reply, `/dashboard/licenses/${encodeURIComponent(lic.id)}?done=${action === 'revoke' ? 'revoked' : 'reissued'}`);
        },
        (p, ctx) => renderDetail(deps, req, reply, ctx, id, p),
      );
    });
  }
};

export default licensesPage;
