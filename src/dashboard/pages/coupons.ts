import type { FastifyReply } from 'fastify';
import type { App, AppDeps } from '../../deps';
import { html } from '../../pages/html';
import { archiveCoupon, createCoupon, getCoupon, listCoupons, updateCoupon } from '../../catalog/coupons';
import { listProductsForOwner } from '../../catalog/service';
import { CreateCouponBody, UpdateCouponBody, type CouponView, type CreateCouponInput, type UpdateCouponInput } from '../../catalog/schemas';
import { ApiError } from '../../platform/errors';
import { auditAction, csrfField, ctxOf, redirectTo, requireRole, sendPage, type DashboardContext } from '../frame';
import { act, BIZ_CSS, flash, kstDateTime, money, PAGE_SIZE, pageOf, pager, problemBox, qs, str, tag, toKstInput, tr, validateLike, when, type Problem, type Query } from './kit';
import { catalogTabs } from './catalog-tabs';

function num(v: unknown): number | null | string {
  const s = str(v, 40)?.replace(/[,\s원%]/g, '');
  if (!s) return null;
  return /^-?\d+$/.test(s) && Number.isSafeInteger(Number(s)) ? Number(s) : s;
}
const time = (v: unknown) => {
  const t = kstDateTime(v);
  return t === 'invalid' ? String(v) : t ?? null;
};
const ids = (v: unknown): string[] => (Array.isArray(v) ? v : v === undefined || v === '' ? [] : [v]).map(String).filter(Boolean);

function valuesOf(c: CouponView): Query {
  return {
    code: c.code,
    name: c.name,
    discountType: c.discountType,
    discountValue: c.discountValue,
    validFrom: toKstInput(c.validFrom),
    validUntil: toKstInput(c.validUntil),
    maxRedemptions: c.maxRedemptions ?? '',
    productIds: c.productIds ?? [],
  };
}

async function renderForm(deps: AppDeps, reply: FastifyReply, ctx: DashboardContext, coupon: CouponView | null, f: Query, problem: Problem | null, done?: string): Promise<FastifyReply> {
  const L = (ko: string, en: string) => tr(ctx.lang, ko, en);
  const products = await listProductsForOwner(deps, ctx.member.storeId, { mode: ctx.mode, page: 1, limit: 100 });
  const v = (k: string) => (f[k] === undefined || f[k] === null ? '' : String(f[k]));
  const chosen = new Set(ids(f.productIds));
  const action = coupon ? `/dashboard/coupons/${encodeURIComponent(coupon.id)}` : '/dashboard/coupons';
  return sendPage(
    reply,
    ctx,
    { title: coupon ? L(`쿠폰 ${coupon.code}`, `Coupon ${coupon.code}`) : L('새 쿠폰', 'New coupon'), nav: '/dashboard/products' },
    html`${BIZ_CSS}
<p><a href="/dashboard/coupons">← ${L('쿠폰 목록', 'All coupons')}</a></p>
${flash(done, { created: L('쿠폰을 만들었습니다.', 'Coupon created.'), saved: L('저장했습니다.', 'Saved.'), archived: L('보관했습니다. 더 이상 사용할 수 없습니다.', 'Archived; it can no longer be redeemed.') })}
${problemBox(problem)}
${coupon ? html`<p>${coupon.status === 'active' ? tag(L('사용 가능', 'Active'), 'good') : tag(L('보관됨', 'Archived'), 'bad')} · ${L('사용', 'redeemed')} ${coupon.redeemedCount}${coupon.maxRedemptions ? ` / ${coupon.maxRedemptions}` : ''}</p>` : ''}
<form class="card" method="post" action="${action}" id="coupon-form" hx-disabled-elt="find button[type=submit]">
  ${csrfField(ctx)}
  <div class="filters">
    <div><label for="c-code">${L('코드', 'Code')}</label><input type="text" id="c-code" name="code" value="${v('code')}"${coupon ? html` readonly` : html` required`} maxlength="40"></div>
    <div><label for="c-name">${L('이름', 'Name')}</label><input type="text" id="c-name" name="name" value="${v('name')}" required maxlength="100"></div>
    <div><label for="c-type">${L('할인 방식', 'Discount')}</label><select id="c-type" name="discountType"${coupon ? html` disabled` : ''}>
      <option value="fixed"${v('discountType') !== 'percent' ? html` selected` : ''}>${L('정액 (원)', 'Fixed (KRW)')}</option>
      <option value="percent"${v('discountType') === 'percent' ? html` selected` : ''}>${L('정률 (%)', 'Percent')}</option></select></div>
    <div><label for="c-value">${L('할인 값', 'Value')}</label><input type="text" inputmode="numeric" id="c-value" name="discountValue" value="${v('discountValue')}"${coupon ? html` readonly` : ''}></div>
    <div><label for="c-from">${L('사용 시작 (한국 시간)', 'Valid from (KST)')}</label><input type="datetime-local" id="c-from" name="validFrom" value="${v('validFrom')}"></div>
    <div><label for="c-until">${L('사용 종료 (한국 시간)', 'Valid until (KST)')}</label><input type="datetime-local" id="c-until" name="validUntil" value="${v('validUntil')}"></div>
    <div><label for="c-max">${L('사용 한도 (비우면 무제한)', 'Usage limit (empty: unlimited)')}</label><input type="text" inputmode="numeric" id="c-max" name="maxRedemptions" value="${v('maxRedemptions')}"></div>
  </div>
  <fieldset style="margin-top:14px"><legend>${L('적용 상품 (선택하지 않으면 모든 상품)', 'Products (none chosen: every product)')}</legend>
    ${products.data.map((p) => html`<label class="check"><input type="checkbox" name="productIds" value="${p.id}"${chosen.has(p.id) ? html` checked` : ''}> ${p.name}</label>`)}
  </fieldset>
  <p style="margin-top:16px"><button type="submit" class="primary">${coupon ? L('저장', 'Save') : L('쿠폰 만들기', 'Create coupon')}</button></p>
</form>
${coupon && coupon.status === 'active' ? html`<form class="card" method="post" action="${action}/archive">${csrfField(ctx)}<button type="submit" class="warn">${L('쿠폰 보관', 'Archive coupon')}</button></form>` : ''}`,
    problem?.status ?? 200,
  );
}

/** /dashboard/coupons: create, edit (name, validity, limit, products), archive. */
export async function couponRoutes(app: App, deps: AppDeps): Promise<void> {
  app.get('/dashboard/coupons', { schema: { hide: true }, preHandler: requireRole('products') }, async (req, reply) => {
    const ctx = ctxOf(req);
    const L = (ko: string, en: string) => tr(ctx.lang, ko, en);
    const page = pageOf(req.query as Query);
    const list = await listCoupons(deps, ctx.member.storeId, { mode: ctx.mode, page, limit: PAGE_SIZE });
    return sendPage(
      reply,
      ctx,
      { title: L('쿠폰', 'Coupons'), nav: '/dashboard/products' },
      html`${BIZ_CSS}${catalogTabs(ctx, 'coupons')}
<p><a class="button primary" href="/dashboard/coupons/new">${L('쿠폰 추가', 'New coupon')}</a></p>
${
  list.data.length === 0
    ? html`<p class="card" data-testid="empty">${L('쿠폰이 없습니다.', 'No coupons yet.')}</p>`
    : html`<div class="table-wrap"><table class="stack" data-testid="coupons-table"><thead><tr><th scope="col">${L('코드', 'Code')}</th><th scope="col">${L('할인', 'Discount')}</th><th scope="col">${L('상태', 'Status')}</th><th scope="col" class="wide">${L('사용', 'Redeemed')}</th><th scope="col" class="wide">${L('종료', 'Until')}</th></tr></thead><tbody>
${list.data.map(
  (c) => html`<tr><td><a class="mono" href="/dashboard/coupons/${encodeURIComponent(c.id)}">${c.code}</a><br><span class="small muted">${c.name}</span></td><td data-label="${L('할인', 'Discount')}">${c.discountType === 'percent' ? `${c.discountValue}%` : money(ctx.lang, c.discountValue)}</td><td data-label="${L('상태', 'Status')}">${c.status === 'active' ? tag(L('사용 가능', 'Active'), 'good') : tag(L('보관됨', 'Archived'), 'bad')}</td><td class="wide num">${c.redeemedCount}${c.maxRedemptions ? ` / ${c.maxRedemptions}` : ''}</td><td class="wide small">${when(c.validUntil)}</td></tr>`,
)}</tbody></table></div>`
}
${pager(ctx.lang, list.page, list.total, list.limit, (p) => `/dashboard/coupons${qs({ page: p })}`)}`,
    );
  });

  app.get('/dashboard/coupons/new', { schema: { hide: true }, preHandler: requireRole('products') }, async (req, reply) => renderForm(deps, reply, ctxOf(req), null, {}, null));

  app.post('/dashboard/coupons', { schema: { hide: true }, preHandler: requireRole('products') }, async (req, reply) => {
    const b = (req.body ?? {}) as Query;
    return act(
      req,
      reply,
      async (ctx) => {
        const body = {
          mode: ctx.mode,
          code: str(b.code, 60) ?? '',
          name: str(b.name, 200) ?? '',
          discountType: str(b.discountType) ?? 'fixed',
          discountValue: num(b.discountValue) ?? '',
          validFrom: time(b.validFrom),
          validUntil: time(b.validUntil),
          maxRedemptions: num(b.maxRedemptions),
          productIds: ids(b.productIds),
        };
        validateLike(CreateCouponBody, body);
        return createCoupon(deps, ctx.member.storeId, body as CreateCouponInput);
      },
      async (c) => {
        await auditAction(deps.db, deps, req, { action: 'coupon.created', target: { type: 'coupon', id: c.id }, details: { code: c.code } });
        return redirectTo(req, reply, `/dashboard/coupons/${encodeURIComponent(c.id)}?done=created`);
      },
      (p, ctx) => renderForm(deps, reply, ctx, null, b, p),
    );
  });

  const loadOwn = async (ctx: DashboardContext, id: string) => {
    const c = await getCoupon(deps, ctx.member.storeId, id);
    if (c.mode !== ctx.mode) throw new ApiError('COUPON_NOT_FOUND');
    return c;
  };

  app.get('/dashboard/coupons/:id', { schema: { hide: true }, preHandler: requireRole('products') }, async (req, reply) => {
    const ctx = ctxOf(req);
    const c = await loadOwn(ctx, (req.params as { id: string }).id);
    return renderForm(deps, reply, ctx, c, valuesOf(c), null, str((req.query as Query).done));
  });

  app.post('/dashboard/coupons/:id', { schema: { hide: true }, preHandler: requireRole('products') }, async (req, reply) => {
    const id = (req.params as { id: string }).id;
    const b = (req.body ?? {}) as Query;
    return act(
      req,
      reply,
      async (ctx) => {
        await loadOwn(ctx, id);
        const body = { name: str(b.name, 200) ?? '', validFrom: time(b.validFrom), validUntil: time(b.validUntil), maxRedemptions: num(b.maxRedemptions), productIds: ids(b.productIds) };
        validateLike(UpdateCouponBody, body);
        return updateCoupon(deps, ctx.member.storeId, id, body as UpdateCouponInput);
      },
      async (c) => {
        await auditAction(deps.db, deps, req, { action: 'coupon.updated', target: { type: 'coupon', id }, details: { code: c.code } });
        return redirectTo(req, reply, `/dashboard/coupons/${encodeURIComponent(id)}?done=saved`);
      },
      async (p, ctx) => renderForm(deps, reply, ctx, await loadOwn(ctx, id), { ...b, code: (await loadOwn(ctx, id)).code }, p),
    );
  });

  app.post('/dashboard/coupons/:id/archive', { schema: { hide: true }, preHandler: requireRole('products') }, async (req, reply) => {
    const ctx = ctxOf(req);
    const id = (req.params as { id: string }).id;
    await loadOwn(ctx, id);
    await archiveCoupon(deps, ctx.member.storeId, id);
    await auditAction(deps.db, deps, req, { action: 'coupon.archived', target: { type: 'coupon', id } });
    return redirectTo(req, reply, `/dashboard/coupons/${encodeURIComponent(id)}?done=archived`);
  });
}
