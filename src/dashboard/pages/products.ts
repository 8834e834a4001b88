import type { FastifyReply } from 'fastify';
import type { DashboardPage } from './page';
import type { AppDeps } from '../../deps';
import { html } from '../../pages/html';
import { archiveProduct, createProduct, getProductForOwner, listProductsForOwner, updateProduct } from '../../catalog/service';
import { productView } from '../../catalog/model';
import { CreateProductBody, UpdateProductBody, type CreateProductInput, type ProductView, type UpdateProductInput } from '../../catalog/schemas';
import { ApiError } from '../../platform/errors';
import { auditAction, csrfField, ctxOf, redirectTo, requireRole, sendPage, type DashboardContext } from '../frame';
import { act, BIZ_CSS, flash, money, oneOf, PAGE_SIZE, pageOf, pager, problemBox, qs, str, tag, tr, type Problem, type Query, validateLike } from './kit';
import { productBodyOf, productForm, valuesOf, type ProductFormValues } from './product-form';
import { couponRoutes } from './coupons';
import { priceChangeRoutes, priceChangeSection } from './price-changes';
import { catalogTabs } from './catalog-tabs';

function priceText(ctx: DashboardContext, p: ProductView): string {
  if (p.type === 'one_time') return money(ctx.lang, p.pricing.price);
  return p.pricing.plans
    .map((pl) => [pl.name, pl.monthlyPrice !== null ? `${money(ctx.lang, pl.monthlyPrice)}/${tr(ctx.lang, '월', 'mo')}` : null, pl.yearlyPrice !== null ? `${money(ctx.lang, pl.yearlyPrice)}/${tr(ctx.lang, '년', 'yr')}` : null].filter(Boolean).join(' '))
    .join(' · ');
}

async function renderForm(
  deps: AppDeps,
  reply: FastifyReply,
  ctx: DashboardContext,
  target: { product: ProductView | null; type: 'one_time' | 'subscription' },
  values: ProductFormValues,
  problem: Problem | null,
  done?: string,
  price?: { problem: Problem; typed: Query },
): Promise<FastifyReply> {
  const L = (ko: string, en: string) => tr(ctx.lang, ko, en);
  const p = target.product;
  const action = p ? `/dashboard/products/${encodeURIComponent(p.id)}` : '/dashboard/products';
  return sendPage(
    reply,
    ctx,
    { title: p ? L(`상품 수정: ${p.name}`, `Edit product: ${p.name}`) : L('새 상품', 'New product'), nav: '/dashboard/products' },
    html`${BIZ_CSS}
<p><a href="/dashboard/products">← ${L('상품 목록', 'All products')}</a></p>
${flash(done, {
  created: L('상품을 만들었습니다.', 'Product created.'),
  saved: L('저장했습니다.', 'Saved.'),
  archived: L('보관했습니다. 새 결제를 받지 않습니다.', 'Archived; it takes no new checkouts.'),
  price_change: L('가격 변경을 예약했고 구독자들에게 알렸습니다.', 'Price change scheduled; subscribers were told.'),
  price_change_canceled: L('가격 변경 예약을 취소했습니다.', 'Price change withdrawn.'),
})}
${problemBox(problem)}
${p ? html`<p>${p.status === 'archived' ? tag(L('보관됨', 'Archived'), 'bad') : tag(L('판매 중', 'Active'), 'good')} <span class="mono small">${p.id}</span> · ${L('판매', 'sold')} ${p.soldCount}</p>` : ''}
${productForm(ctx, action, values, { isNew: !p, savedPlanIds: p?.pricing.plans.map((pl) => pl.id) ?? [], errors: problem?.fields ?? [] })}
${p && p.type === 'subscription' ? await priceChangeSection(deps, ctx, p, price?.problem ?? null, price?.typed) : ''}
${
  p && p.status === 'active'
    ? html`<form class="card" method="post" action="${action}/archive"><h2>${L('보관', 'Archive')}</h2><p class="muted">${L('보관한 상품은 새 체크아웃을 만들 수 없습니다. 기존 주문과 구독은 그대로입니다.', 'An archived product takes no new checkouts; existing orders and subscriptions stay.')}</p>${csrfField(ctx)}<button type="submit" class="warn">${L('상품 보관', 'Archive product')}</button></form>`
    : p
      ? html`<form class="card" method="post" action="${action}">${csrfField(ctx)}<input type="hidden" name="restore" value="1"><button type="submit" class="plain">${L('다시 판매', 'Restore')}</button></form>`
      : ''
}`,
    problem?.status ?? price?.problem.status ?? 200,
  );
}

/** /dashboard/products: the catalog of the session's mode: create, edit, archive; plans, refund policy, licenses. */
const productsPage: DashboardPage = async (app, deps) => {
  app.get('/dashboard/products', { schema: { hide: true }, preHandler: requireRole('products') }, async (req, reply) => {
    const ctx = ctxOf(req);
    const L = (ko: string, en: string) => tr(ctx.lang, ko, en);
    const page = pageOf(req.query as Query);
    const list = await listProductsForOwner(deps, ctx.member.storeId, { mode: ctx.mode, page, limit: PAGE_SIZE });
    return sendPage(
      reply,
      ctx,
      { title: L('상품', 'Products'), nav: '/dashboard/products' },
      html`${BIZ_CSS}${catalogTabs(ctx, 'products')}
<div class="actions" style="margin-bottom:12px"><a class="button primary" href="/dashboard/products/new?type=one_time" id="new-one-time">${L('일회성 상품 추가', 'New one-time product')}</a><a class="button plain" href="/dashboard/products/new?type=subscription" id="new-subscription">${L('구독 상품 추가', 'New subscription product')}</a></div>
${
  list.data.length === 0
    ? html`<p class="card" data-testid="empty">${L('상품이 없습니다.', 'No products yet.')}</p>`
    : html`<div class="table-wrap"><table class="stack" data-testid="products-table">
  <thead><tr><th scope="col">${L('상품', 'Product')}</th><th scope="col">${L('가격', 'Price')}</th><th scope="col">${L('상태', 'Status')}</th><th scope="col" class="wide">${L('판매', 'Sold')}</th></tr></thead>
  <tbody>${list.data.map(
    (p) => html`<tr><td><a href="/dashboard/products/${encodeURIComponent(p.id)}">${p.name}</a><br><span class="small muted">${p.type === 'one_time' ? L('일회성', 'one-time') : L('구독', 'subscription')} · ${L('환불', 'refund')} ${p.refundPolicy.refundDays}${L('일', 'd')}${p.license.mode !== 'none' ? L(' · 라이선스', ' · license') : ''}</span></td><td data-label="${L('가격', 'Price')}">${priceText(ctx, p)}</td><td data-label="${L('상태', 'Status')}">${p.status === 'active' ? tag(L('판매 중', 'Active'), 'good') : tag(L('보관됨', 'Archived'), 'bad')}</td><td class="wide num" data-label="${L('판매', 'Sold')}">${p.soldCount}${p.stock !== null ? ` / ${p.stock}` : ''}</td></tr>`,
  )}</tbody></table></div>`
}
${pager(ctx.lang, list.page, list.total, list.limit, (p) => `/dashboard/products${qs({ page: p })}`)}`,
    );
  });

  app.get('/dashboard/products/new', { schema: { hide: true }, preHandler: requireRole('products') }, async (req, reply) => {
    const type = oneOf((req.query as Query).type, ['one_time', 'subscription'] as const) ?? 'one_time';
    return renderForm(deps, reply, ctxOf(req), { product: null, type }, { type, fields: {} }, null);
  });

  app.post('/dashboard/products', { schema: { hide: true }, preHandler: requireRole('products') }, async (req, reply) => {
    const b = (req.body ?? {}) as Query;
    const type = oneOf(b.type, ['one_time', 'subscription'] as const) ?? 'one_time';
    return act(
      req,
      reply,
      async (ctx) => {
        const body = { mode: ctx.mode, type, ...productBodyOf(b, type) };
        validateLike(CreateProductBody, body);
        return createProduct(deps, ctx.member.storeId, body as CreateProductInput);
      },
      async (p) => {
        await auditAction(deps.db, deps, req, { action: 'product.created', target: { type: 'product', id: p.id }, details: { name: p.name, type: p.type } });
        return redirectTo(req, reply, `/dashboard/products/${encodeURIComponent(p.id)}?done=created`);
      },
      (p, ctx) => renderForm(deps, reply, ctx, { product: null, type }, { type, fields: b }, p),
    );
  });

  const loadOwn = async (ctx: DashboardContext, id: string) => {
    const p = productView(await getProductForOwner(deps, ctx.member.storeId, id));
    // The session's mode only.
    if (p.mode !== ctx.mode) throw new ApiError('PRODUCT_NOT_FOUND');
    return p;
  };

  app.get('/dashboard/products/:id', { schema: { hide: true }, preHandler: requireRole('products') }, async (req, reply) => {
    const ctx = ctxOf(req);
    const p = await loadOwn(ctx, (req.params as { id: string }).id);
    return renderForm(deps, reply, ctx, { product: p, type: p.type }, valuesOf(p), null, str((req.query as Query).done));
  });

  app.post('/dashboard/products/:id', { schema: { hide: true }, preHandler: requireRole('products') }, async (req, reply) => {
    const id = (req.params as { id: string }).id;
    const b = (req.body ?? {}) as Query;
    let before: ProductView | null = null;
    return act(
      req,
      reply,
      async (ctx) => {
        before = await loadOwn(ctx, id);
        if (b.restore === '1') return updateProduct(deps, ctx.member.storeId, id, { status: 'active' });
        const body = productBodyOf(b, before.type);
        validateLike(UpdateProductBody, body);
        return updateProduct(deps, ctx.member.storeId, id, body as UpdateProductInput);
      },
      async (p) => {
        await auditAction(deps.db, deps, req, { action: b.restore === '1' ? 'product.restored' : 'product.updated', target: { type: 'product', id }, details: { name: p.name } });
        return redirectTo(req, reply, `/dashboard/products/${encodeURIComponent(id)}?done=saved`);
      },
      async (p, ctx) => {
        const current = before ?? (await loadOwn(ctx, id));
        return renderForm(deps, reply, ctx, { product: current, type: current.type }, { type: current.type, fields: b }, p);
      },
    );
  });

  app.post('/dashboard/products/:id/archive', { schema: { hide: true }, preHandler: requireRole('products') }, async (req, reply) => {
    const ctx = ctxOf(req);
    const id = (req.params as { id: string }).id;
    await loadOwn(ctx, id);
    await archiveProduct(deps, ctx.member.storeId, id);
    await auditAction(deps.db, deps, req, { action: 'product.archived', target: { type: 'product', id } });
    return redirectTo(req, reply, `/dashboard/products/${encodeURIComponent(id)}?done=archived`);
  });

  await priceChangeRoutes(app, deps, async (reply, ctx, id, problem, typed) => {
    const p = await loadOwn(ctx, id);
    return renderForm(deps, reply, ctx, { product: p, type: p.type }, valuesOf(p), null, undefined, { problem, typed });
  });
  await couponRoutes(app, deps);
};

export default productsPage;
