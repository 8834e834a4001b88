import { ownValue } from '../../platform/lookup';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DashboardPage } from './page';
import type { AppDeps } from '../../deps';
import { html } from '../../pages/html';
import { ApiError } from '../../platform/errors';
import { getSubscription, listSubscriptions, subscriptionRail } from '../../subscriptions/service';
import { providerTraits } from '../../payments/registry';
import { cancelSubscription, previewCancel } from '../../subscriptions/cancel/service';
import { advanceTestClockBy, readTestClock } from '../../subscriptions/test-clock';
import type { SubscriptionStatus } from '../../subscriptions/tables';
import { listOrders } from '../../orders/service';
import { auditAction, csrfField, ctxOf, redirectTo, requireRole, sendPage, type DashboardContext } from '../frame';
import type { Lang } from '../i18n';
import { act, BIZ_CSS, flash, intField, money, oneOf, orderStatusTag, PAGE_SIZE, pageOf, pager, problemBox, qs, str, tag, tr, when, type Problem, type Query } from './kit';
import { bidiMessage, hasBidiControl } from '../../platform/text';

const STATUSES: readonly SubscriptionStatus[] = ['active', 'past_due', 'ended'];
const STATUS_LABEL: Record<SubscriptionStatus, [string, string]> = { active: ['이용 중', 'Active'], past_due: ['결제 실패', 'Past due'], ended: ['종료', 'Ended'] };
const REASON_LABEL: Record<string, [string, string]> = {
  initial_full: ['첫 결제 전액 (청약철회 기간, 미사용)', 'Full: first payment, unused, within the window'],
  statutory_full: ['법정 청약철회 전액', 'Full: statutory withdrawal'],
  renewal_full: ['갱신 결제 전액 (청약철회 기간, 미사용)', 'Full: renewal, unused, within the window'],
  prorated: ['사용 기간 비례 환불', 'Prorated'],
  past_due: ['미납 기간 (환불 없음)', 'Past due (nothing to refund)'],
  nothing_refundable: ['환불할 금액 없음', 'Nothing refundable'],
};

function statusTag(lang: Lang, s: SubscriptionStatus) {
  return tag(tr(lang, STATUS_LABEL[s][0], STATUS_LABEL[s][1]), s === 'active' ? 'good' : s === 'past_due' ? 'bad' : '');
}

/**
 * Test-mode subscriptions are open to the developer role too (its sessions are always test mode), for the test clock;
 * live ones need the `subscriptions` permission. Cancelling always does.
 */
const canView = (req: FastifyRequest, reply: FastifyReply) => requireRole(req.dashboardMember?.mode === 'test' ? 'subscriptions.test' : 'subscriptions')(req, reply);

async function renderDetail(deps: AppDeps, req: FastifyRequest, reply: FastifyReply, ctx: DashboardContext, id: string, problem: Problem | null): Promise<FastifyReply> {
  const L = (ko: string, en: string) => tr(ctx.lang, ko, en);
  const scope = { storeId: ctx.member.storeId, mode: ctx.mode, productIds: null };
  const sub = await getSubscription(deps, scope, id);
  const [preview, orders, clock, rail] = await Promise.all([
    previewCancel(deps, scope, id),
    listOrders(deps, scope, { page: 1, limit: 50 }, { subscriptionId: id }),
    readTestClock(deps, ctx.member.storeId, id),
    subscriptionRail(deps, scope, id),
  ]);
  const im = preview.immediate;
  const base = `/dashboard/subscriptions/${encodeURIComponent(sub.id)}`;
  const done = str((req.query as Query).done);
  const mayCancel = ctx.member.role !== 'developer';
  const ended = sub.status === 'ended';
  return sendPage(
    reply,
    ctx,
    { title: L(`구독 ${sub.id}`, `Subscription ${sub.id}`), nav: '/dashboard/subscriptions' },
    html`${BIZ_CSS}
<p><a href="/dashboard/subscriptions">← ${L('구독 목록', 'All subscriptions')}</a></p>
${flash(done, {
  scheduled: L('기간 종료 시 해지되도록 예약했습니다.', 'Cancellation scheduled for the period end.'),
  canceled: L('구독을 지금 해지했습니다.', 'Subscription canceled now.'),
  advanced: L('테스트 시계를 앞으로 옮기고 그 사이의 갱신을 실행했습니다.', 'Test clock moved forward; what became due has run.'),
})}
${problemBox(problem)}
<div class="cols">
<section class="card" aria-labelledby="h-sub"><h2 id="h-sub">${L('구독', 'Subscription')}</h2><dl class="detail">
  <dt>${L('상태', 'Status')}</dt><dd id="sub-status">${statusTag(ctx.lang, sub.status)}${sub.cancelAtPeriodEnd && !ended ? html` ${tag(L('기간 종료 시 해지 예약', 'cancels at period end'))}` : ''}</dd>
  <dt>${L('상품', 'Product')}</dt><dd>${sub.productName} · ${sub.planId ?? ''} (${sub.billingInterval === 'yearly' ? L('연간', 'yearly') : L('월간', 'monthly')})</dd>
  <dt>${L('다음 결제 금액', 'Next charge')}</dt><dd>${money(ctx.lang, sub.amount)}</dd>
  <dt>${L('현재 기간', 'Current period')}</dt><dd>${when(sub.currentPeriodStart)} – ${when(sub.currentPeriodEnd)}</dd>
  <dt>${L('구매자', 'Buyer')}</dt><dd>${sub.buyerName} · ${sub.buyerEmail}</dd>
  <dt>${L('카드', 'Card')}</dt><dd>${sub.card ? `${sub.card.brand ?? ''} ${sub.card.last4 ? `•••• ${sub.card.last4}` : ''}` : '—'}</dd>
  <dt>${L('결제대행 (자동결제 키)', 'Gateway (billing key)')}</dt><dd data-testid="sub-rail">${rail ? L(providerTraits(rail).label.ko, providerTraits(rail).label.en) : '—'}</dd>
  <dt>${L('시작', 'Started')}</dt><dd>${when(sub.startedAt)}</dd>
  ${ended ? html`<dt>${L('종료', 'Ended')}</dt><dd>${when(sub.endedAt)} (${sub.endReason ?? ''})</dd>` : ''}
</dl></section>
${
  ended
    ? ''
    : html`<section class="card" aria-labelledby="h-cancel" data-testid="cancel-preview"><h2 id="h-cancel">${L('해지', 'Cancel')}</h2>
<div class="cols">
  <form method="post" action="${base}/cancel" hx-disabled-elt="find button">
    ${csrfField(ctx)}<input type="hidden" name="timing" value="period_end">
    <h3>${L('기간 종료 시 해지', 'At period end')}</h3>
    <p>${L('환불 없이 ', 'No refund; ends ')}${when(preview.periodEnd.effectiveAt)}${L('에 종료됩니다.', '.')}</p>
    ${mayCancel ? html`<button type="submit" class="plain"${sub.cancelAtPeriodEnd ? html` disabled` : ''}>${sub.cancelAtPeriodEnd ? L('이미 예약됨', 'Already scheduled') : L('기간 종료 시 해지', 'Cancel at period end')}</button>` : ''}
  </form>
  <form method="post" action="${base}/cancel" hx-disabled-elt="find button">
    ${csrfField(ctx)}<input type="hidden" name="timing" value="immediate">
    <h3>${L('지금 해지하고 환불', 'Now, with a refund')}</h3>
    <p><strong data-testid="immediate-refund">${money(ctx.lang, im.refundAmount)}</strong> ${L('환불', 'refunded')} · ${L(ownValue(REASON_LABEL, im.reason)?.[0] ?? im.reason, ownValue(REASON_LABEL, im.reason)?.[1] ?? im.reason)}</p>
    <p class="small muted">${L('사용', 'Used')} ${im.usedDays}/${im.totalDays}${L('일', ' days')} · ${L('공제', 'deduction')} ${money(ctx.lang, im.deduction)} · ${L('위약금', 'penalty')} ${money(ctx.lang, im.penalty)}${im.clawback ? html` · ${L('할인 회수', 'clawback')} ${money(ctx.lang, im.clawback)}` : ''}</p>
    ${im.blockedReason ? html`<p class="err" role="note">${im.blockedReason.message} (${im.blockedReason.code})</p>` : ''}
    ${
      mayCancel
        ? html`<label for="cancel-reason">${L('사유 (선택)', 'Reason (optional)')}</label><textarea id="cancel-reason" name="reason" maxlength="500"></textarea>
    <p><button type="submit" class="warn"${im.blockedReason ? html` disabled` : ''}>${L('지금 해지하고 환불', 'Cancel now and refund')}</button></p>`
        : ''
    }
  </form>
</div></section>`
}
</div>
${
  ctx.mode === 'test' && !ended
    ? html`<section class="card" aria-labelledby="h-clock" data-testid="test-clock"><h2 id="h-clock">${L('테스트 시계', 'Test clock')}</h2>
<p>${L('이 구독의 시간: ', 'This subscription\'s time: ')}<strong id="clock-time">${when(clock.frozenTime)}</strong>${clock.offsetMs ? html` <span class="muted small">(+${Math.round(clock.offsetMs / 86_400_000)}${L('일', ' days')})</span>` : ''}</p>
<form method="post" action="${base}/test-clock" class="filters" hx-disabled-elt="find button">
  ${csrfField(ctx)}
  <div><label for="clock-days">${L('일', 'Days')}</label><input type="number" id="clock-days" name="days" min="0" max="3660" value="31"></div>
  <div><label for="clock-hours">${L('시간', 'Hours')}</label><input type="number" id="clock-hours" name="hours" min="0" max="87840" value="0"></div>
  <div><button type="submit" class="primary">${L('앞으로 이동', 'Move forward')}</button></div>
</form></section>`
    : ''
}
<section class="card" aria-labelledby="h-orders"><h2 id="h-orders">${L('결제 (첫 결제와 갱신)', 'Payments (first and renewals)')}</h2>
${
  orders.data.length
    ? html`<div class="table-wrap"><table class="stack" id="sub-orders"><thead><tr><th scope="col">${L('주문', 'Order')}</th><th scope="col">${L('금액', 'Amount')}</th><th scope="col">${L('상태', 'Status')}</th><th scope="col" class="wide">${L('기간', 'Period')}</th></tr></thead><tbody>
${orders.data.map((o) => html`<tr><td><a class="mono" href="/dashboard/orders/${encodeURIComponent(o.id)}">${o.id}</a></td><td class="num" data-label="${L('금액', 'Amount')}">${money(ctx.lang, o.amount)}</td><td data-label="${L('상태', 'Status')}">${orderStatusTag(ctx.lang, o)}</td><td class="wide small">${when(o.periodStart)} – ${when(o.periodEnd)}</td></tr>`)}
</tbody></table></div>`
    : html`<p class="muted">${L('결제가 없습니다.', 'No payments.')}</p>`
}</section>`,
    problem?.status ?? 200,
  );
}

/** /dashboard/subscriptions: list, detail with the cancel preview, cancel, and the test clock in test mode. */
const subscriptionsPage: DashboardPage = async (app, deps) => {
  app.get('/dashboard/subscriptions', { schema: { hide: true }, preHandler: canView }, async (req, reply) => {
    const ctx = ctxOf(req);
    const L = (ko: string, en: string) => tr(ctx.lang, ko, en);
    const q = req.query as Query;
    const status = oneOf(q.status, STATUSES);
    const buyerEmail = str(q.email, 320);
    const page = pageOf(q);
    const list = await listSubscriptions(deps, { storeId: ctx.member.storeId, mode: ctx.mode, productIds: null }, { status, buyerEmail }, { page, limit: PAGE_SIZE });
    return sendPage(
      reply,
      ctx,
      { title: L('구독', 'Subscriptions'), nav: '/dashboard/subscriptions' },
      html`${BIZ_CSS}
<form class="card filters" method="get" action="/dashboard/subscriptions" role="search">
  <div><label for="f-email">${L('구매자 이메일', 'Buyer e-mail')}</label><input type="email" id="f-email" name="email" value="${buyerEmail ?? ''}"></div>
  <div><label for="f-status">${L('상태', 'Status')}</label><select id="f-status" name="status"><option value="">${L('전체', 'All')}</option>${STATUSES.map((s) => html`<option value="${s}"${status === s ? html` selected` : ''}>${L(STATUS_LABEL[s][0], STATUS_LABEL[s][1])}</option>`)}</select></div>
  <div><button type="submit" class="primary">${L('검색', 'Search')}</button></div>
</form>
${
  list.data.length === 0
    ? html`<p class="card" data-testid="empty">${L('구독이 없습니다.', 'No subscriptions.')}</p>`
    : html`<div class="table-wrap"><table class="stack" data-testid="subs-table">
  <thead><tr><th scope="col">${L('구독', 'Subscription')}</th><th scope="col">${L('상태', 'Status')}</th><th scope="col">${L('금액', 'Amount')}</th><th scope="col" class="wide">${L('기간 종료', 'Period end')}</th></tr></thead>
  <tbody>${list.data.map(
    (s) => html`<tr><td><a href="/dashboard/subscriptions/${encodeURIComponent(s.id)}">${s.buyerName}</a> <span class="small muted">${s.buyerEmail}</span><br><span class="small">${s.productName}</span> <span class="mono small">${s.id}</span></td><td data-label="${L('상태', 'Status')}">${statusTag(ctx.lang, s.status)}${s.cancelAtPeriodEnd && s.status !== 'ended' ? html`<br>${tag(L('해지 예약', 'cancels'))}` : ''}</td><td class="num" data-label="${L('금액', 'Amount')}">${money(ctx.lang, s.amount)}</td><td class="wide small">${when(s.currentPeriodEnd)}</td></tr>`,
  )}</tbody></table></div>`
}
${pager(ctx.lang, list.page, list.total, list.limit, (p) => `/dashboard/subscriptions${qs({ email: buyerEmail, status, page: p })}`)}`,
    );
  });

  app.get('/dashboard/subscriptions/:id', { schema: { hide: true }, preHandler: canView }, async (req, reply) => renderDetail(deps, req, reply, ctxOf(req), (req.params as { id: string }).id, null));

  // Cancelling at once refunds (what the cancel preview shows): it takes the refunds permission, as a refund from the
  // order page does, and above the owner's threshold the step-up (../step-up-actions.ts).
  const canCancel = (req: FastifyRequest, reply: FastifyReply) => requireRole(((req.body ?? {}) as Query).timing === 'immediate' ? 'refunds' : 'subscriptions')(req, reply);
  app.post('/dashboard/subscriptions/:id/cancel', { schema: { hide: true }, preHandler: canCancel }, async (req, reply) => {
    const id = (req.params as { id: string }).id;
    const body = (req.body ?? {}) as Query;
    const timing = oneOf(body.timing, ['period_end', 'immediate'] as const);
    const reason = str(body.reason, 600);
    return act(
      req,
      reply,
      async (ctx) => {
        if (!timing) throw new ApiError('VALIDATION_FAILED', { details: { fields: [{ field: 'timing', message: '해지 시점을 선택해 주세요.' }] } });
        if (reason && reason.length > 500) throw new ApiError('VALIDATION_FAILED', { details: { fields: [{ field: 'reason', message: '사유는 500자 이하로 입력해 주세요.' }] } });
        if (reason && hasBidiControl(reason)) throw new ApiError('VALIDATION_FAILED', { details: { fields: [{ field: 'reason', message: bidiMessage('사유') }] } });
        return cancelSubscription(deps, { storeId: ctx.member.storeId, mode: ctx.mode, productIds: null }, id, { timing, reason }, 'seller');
      },
      async (r) => {
        await auditAction(deps.db, deps, req, {
          action: timing === 'immediate' ? 'subscription.canceled' : 'subscription.cancel_scheduled',
          target: { type: 'subscription', id },
          details: { timing, reason: reason ?? null, refundAmount: r.refundAmount, refundedOrderIds: r.refundedOrderIds },
        });
        return redirectTo(req, reply, `/dashboard/subscriptions/${encodeURIComponent(id)}?done=${timing === 'immediate' ? 'canceled' : 'scheduled'}`);
      },
      (p, ctx) => renderDetail(deps, req, reply, ctx, id, p),
    );
  });

  app.post('/dashboard/subscriptions/:id/test-clock', { schema: { hide: true }, preHandler: requireRole('subscriptions.test') }, async (req, reply) => {
    const id = (req.params as { id: string }).id;
    const body = (req.body ?? {}) as Query;
    return act(
      req,
      reply,
      async (ctx) => {
        const days = intField(body.days);
        const hours = intField(body.hours);
        if (days === 'invalid' || hours === 'invalid' || (days ?? 0) < 0 || (hours ?? 0) < 0) {
          throw new ApiError('VALIDATION_FAILED', { details: { fields: [{ field: 'days', message: '0 이상의 정수로 입력해 주세요.' }] } });
        }
        // Only a subscription of the session's mode (a live one answers TEST_MODE_ONLY from the service).
        await getSubscription(deps, { storeId: ctx.member.storeId, mode: ctx.mode, productIds: null }, id);
        return advanceTestClockBy(deps, ctx.member.storeId, id, { days, hours });
      },
      async (r) => {
        await auditAction(deps.db, deps, req, { action: 'subscription.test_clock_advanced', target: { type: 'subscription', id }, details: { days: body.days, hours: body.hours, processed: r.processed, frozenTime: r.testClock.frozenTime } });
        return redirectTo(req, reply, `/dashboard/subscriptions/${encodeURIComponent(id)}?done=advanced`);
      },
      (p, ctx) => renderDetail(deps, req, reply, ctx, id, p),
    );
  });
};

export default subscriptionsPage;
