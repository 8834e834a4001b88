import type { FastifyReply } from 'fastify';
import type { App, AppDeps } from '../../deps';
import { html, type SafeHtml } from '../../pages/html';
import type { ProductView } from '../../catalog/schemas';
import { ApiError } from '../../platform/errors';
import { cancelPriceChange, getPriceChange, listPriceChanges, schedulePriceChange } from '../../subscriptions/price-change/service';
import { getProductForOwner } from '../../catalog/service';
import type { PriceChangeView } from '../../subscriptions/price-change/schemas';
import { auditAction, csrfField, redirectTo, requireRole, type DashboardContext } from '../frame';
import { act, intField, kstDay, money, problemBox, str, tag, tr, when, type Problem, type Query } from './kit';

/**
 * The product page's "price change for existing subscribers" section (issue 21): the schedule form (a plan, the new
 * price per interval, an effective date at least 30 days away) and the product's changes with how many subscribers
 * were told, agreed, renewed at the new price or ended. The rules are the console's (src/subscriptions/price-change/service.ts).
 */
export async function priceChangeSection(deps: AppDeps, ctx: DashboardContext, p: ProductView, problem: Problem | null, typed: Query = {}): Promise<SafeHtml> {
  const L = (ko: string, en: string) => tr(ctx.lang, ko, en);
  const changes = (await listPriceChanges(deps, { storeId: ctx.member.storeId, mode: ctx.mode, productId: p.id }, { page: 1, limit: 100 })).data;
  const base = `/dashboard/products/${encodeURIComponent(p.id)}/price-changes`;
  // The earliest day that is surely 30 full days away in KST (a day's midnight, KST).
  const min = new Date(deps.clock.now().getTime() + 31 * 86_400_000 + 9 * 3_600_000).toISOString().slice(0, 10);
  const plans = p.pricing.plans;
  const v = (k: string) => str(typed[k]) ?? '';
  return html`<section class="card" id="price-changes" data-testid="price-changes">
<h2>${L('기존 구독자 가격 변경', 'Price change for existing subscribers')}</h2>
<p class="muted small">${L(
    '정기결제 금액을 올리려면 30일 전에 알리고 구독자의 동의를 받아야 합니다 (전자상거래법 시행령, 2025-02-14 시행). 예약하면 구독자마다 알림 이벤트가 나가고, 구독 관리 페이지에서 동의를 받습니다. 동의한 구독자는 적용일 이후 첫 갱신부터 새 가격으로 결제되고, 동의하지 않은 구독자는 그 갱신일에 결제 없이 종료됩니다. 가격 인하는 동의 없이 적용됩니다. 새 구매자의 가격은 위 요금제 가격입니다.',
    'Raising a recurring charge needs notice 30 days ahead and each subscriber\'s consent (Korean E-Commerce Act enforcement decree, 2025-02-14). Scheduling tells every subscriber (an event each); they agree in the portal. Those who agree renew at the new price from the first renewal on or after the date; those who do not end at that renewal without a charge. A decrease applies without consent. New buyers pay the plan prices above.',
  )}</p>
${problemBox(problem)}
${
  changes.length
    ? html`<div class="table-wrap"><table class="stack" data-testid="price-change-table">
<thead><tr><th scope="col">${L('요금제', 'Plan')}</th><th scope="col">${L('새 가격', 'New price')}</th><th scope="col">${L('적용일', 'Effective')}</th><th scope="col">${L('구독자', 'Subscribers')}</th><th scope="col">${L('상태', 'Status')}</th></tr></thead>
<tbody>${changes.map((c) => changeRow(ctx, p, c, base))}</tbody></table></div>`
    : html`<p class="muted" data-testid="no-price-changes">${L('예약된 가격 변경이 없습니다.', 'No price changes.')}</p>`
}
<form method="post" action="${base}" data-testid="price-change-form">
  ${csrfField(ctx)}
  <label for="pc-plan">${L('요금제', 'Plan')}</label>
  <select id="pc-plan" name="planId">${plans.map((pl) => html`<option value="${pl.id}"${v('planId') === pl.id ? html` selected` : ''}>${pl.name} (${pl.id})</option>`)}</select>
  <label for="pc-monthly">${L('새 월간 가격 (원, 비우면 변경 없음)', 'New monthly price (KRW; empty: unchanged)')}</label>
  <input type="text" id="pc-monthly" name="monthlyPrice" inputmode="numeric" value="${v('monthlyPrice')}">
  <label for="pc-yearly">${L('새 연간 가격 (원, 비우면 변경 없음)', 'New yearly price (KRW; empty: unchanged)')}</label>
  <input type="text" id="pc-yearly" name="yearlyPrice" inputmode="numeric" value="${v('yearlyPrice')}">
  <label for="pc-date">${L('적용일 (30일 이상 뒤)', 'Effective date (30+ days away)')}</label>
  <input id="pc-date" type="date" name="effectiveDate" min="${min}" value="${v('effectiveDate')}" required>
  <p><button type="submit" class="primary">${L('가격 변경 예약', 'Schedule price change')}</button></p>
</form>
</section>`;
}

function changeRow(ctx: DashboardContext, p: ProductView, c: PriceChangeView, base: string): SafeHtml {
  const L = (ko: string, en: string) => tr(ctx.lang, ko, en);
  const plan = p.pricing.plans.find((x) => x.id === c.planId);
  const prices = [c.monthlyPrice !== null ? `${money(ctx.lang, c.monthlyPrice)}/${L('월', 'mo')}` : null, c.yearlyPrice !== null ? `${money(ctx.lang, c.yearlyPrice)}/${L('년', 'yr')}` : null].filter(Boolean).join(' · ');
  const n = c.subscribers;
  const status =
    c.status === 'canceled' ? tag(L('취소됨', 'Canceled'), 'bad') : c.status === 'scheduled' ? tag(L('예약됨', 'Scheduled'), 'test') : tag(L('적용 중', 'In effect'), 'good');
  return html`<tr data-price-change-id="${c.id}">
<td>${plan?.name ?? c.planId}</td>
<td data-label="${L('새 가격', 'New price')}">${prices}</td>
<td data-label="${L('적용일', 'Effective')}">${when(c.effectiveAt)}</td>
<td data-label="${L('구독자', 'Subscribers')}" data-testid="tally">${L(`알림 ${n.notified} · 동의 ${n.accepted}/${n.consentRequired} · 새 가격 갱신 ${n.applied} · 미동의 종료 ${n.ended}`, `told ${n.notified} · agreed ${n.accepted}/${n.consentRequired} · renewed ${n.applied} · ended ${n.ended}`)}</td>
<td data-label="${L('상태', 'Status')}">${status}${
    c.status === 'scheduled'
      ? html`<form method="post" action="${base}/${encodeURIComponent(c.id)}/cancel" style="margin-top:6px">${csrfField(ctx)}<button type="submit" class="plain">${L('예약 취소', 'Withdraw')}</button></form>`
      : ''
  }</td>
</tr>`;
}

/** Registers the section's two form posts (schedule, withdraw) on the dashboard's scope. */
export async function priceChangeRoutes(
  app: App,
  deps: AppDeps,
  rerender: (reply: FastifyReply, ctx: DashboardContext, productId: string, problem: Problem, typed: Query) => Promise<FastifyReply>,
): Promise<void> {
  app.post('/dashboard/products/:id/price-changes', { schema: { hide: true }, preHandler: requireRole('products') }, async (req, reply) => {
    const id = (req.params as { id: string }).id;
    const b = (req.body ?? {}) as Query;
    return act(
      req,
      reply,
      async (ctx) => {
        const monthly = intField(b.monthlyPrice);
        const yearly = intField(b.yearlyPrice);
        const day = kstDay(b.effectiveDate);
        const fields = [
          ...(monthly === 'invalid' ? [{ field: 'monthlyPrice', message: tr(ctx.lang, '숫자로 입력해 주세요.', 'Enter a number.') }] : []),
          ...(yearly === 'invalid' ? [{ field: 'yearlyPrice', message: tr(ctx.lang, '숫자로 입력해 주세요.', 'Enter a number.') }] : []),
          ...(!day ? [{ field: 'effectiveAt', message: tr(ctx.lang, '적용일을 선택해 주세요.', 'Choose the effective date.') }] : []),
        ];
        if (fields.length) throw new ApiError('VALIDATION_FAILED', { details: { fields } });
        const planId = str(b.planId, 100) ?? '';
        return schedulePriceChange(deps, ctx.member.storeId, await ownProductId(deps, ctx, id), planId, {
          ...(typeof monthly === 'number' ? { monthlyPrice: monthly } : {}),
          ...(typeof yearly === 'number' ? { yearlyPrice: yearly } : {}),
          effectiveAt: day!.toISOString(),
        });
      },
      async (c) => {
        await auditAction(deps.db, deps, req, { action: 'price_change.scheduled', target: { type: 'product', id }, details: { priceChangeId: c.id, planId: c.planId, monthlyPrice: c.monthlyPrice, yearlyPrice: c.yearlyPrice, effectiveAt: c.effectiveAt } });
        return redirectTo(req, reply, `/dashboard/products/${encodeURIComponent(id)}?done=price_change#price-changes`);
      },
      (p, ctx) => rerender(reply, ctx, id, p, b),
    );
  });

  app.post('/dashboard/products/:id/price-changes/:changeId/cancel', { schema: { hide: true }, preHandler: requireRole('products') }, async (req, reply) => {
    const { id, changeId } = req.params as { id: string; changeId: string };
    return act(
      req,
      reply,
      async (ctx) => {
        await ownProductId(deps, ctx, id);
        const before = await getPriceChange(deps, ctx.member.storeId, changeId);
        if (before.productId !== id) throw new ApiError('PRICE_CHANGE_NOT_FOUND');
        return cancelPriceChange(deps, ctx.member.storeId, changeId);
      },
      async (c) => {
        await auditAction(deps.db, deps, req, { action: 'price_change.canceled', target: { type: 'product', id }, details: { priceChangeId: c.id } });
        return redirectTo(req, reply, `/dashboard/products/${encodeURIComponent(id)}?done=price_change_canceled#price-changes`);
      },
      (p, ctx) => rerender(reply, ctx, id, p, {}),
    );
  });
}

/** The product, if it is the session's store's and mode's (PRODUCT_NOT_FOUND otherwise). */
async function ownProductId(deps: AppDeps, ctx: DashboardContext, id: string): Promise<string> {
  const p = await getProductForOwner(deps, ctx.member.storeId, id);
  if (p.mode !== ctx.mode) throw new ApiError('PRODUCT_NOT_FOUND');
  return p.id;
}
