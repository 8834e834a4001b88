import type { FastifyReply } from 'fastify';
import type { DashboardPage } from './page';
import type { AppDeps } from '../../deps';
import { html } from '../../pages/html';
import { ApiError } from '../../platform/errors';
import { createRoundFromConsole, listRounds } from '../../refunds/settlement';
import { auditAction, csrfField, ctxOf, notice, requireRole, sendPage, type DashboardContext } from '../frame';
import { catalog } from '../i18n';
import { money } from './home';
import { settingsTabs } from './settings-nav';
import { errorText } from './errors';

const m = catalog(
  {
    title: '정산',
    explain: '정산 회차는 청약철회 기간이 지난 결제 완료 주문을 묶어 지급 기록을 만듭니다. 정산에 포함된 주문은 더 이상 환불할 수 없습니다. 매주 자동으로 실행되며, 여기서 바로 실행할 수도 있습니다.',
    run: '지금 정산 실행',
    runConfirm: '지금까지 정산 가능한 주문으로 정산 회차를 만들까요? 포함된 주문은 환불할 수 없게 됩니다.',
    created: '만든 시각',
    cutoff: '기준 시각',
    orders: '주문 수',
    gross: '결제액',
    refunds: '환불액',
    fees: '수수료',
    net: '지급액',
    source: '실행',
    job: '자동',
    console: '수동',
    none: '정산 회차가 없습니다.',
    done: '정산 회차를 만들었습니다: 주문 {n}건, 지급액 {net}',
  },
  {
    title: 'Settlements',
    explain: 'A settlement round closes paid orders past their withdrawal window into a payout record. Orders in a round can no longer be refunded. Rounds run weekly; you can also run one now.',
    run: 'Run a settlement now',
    runConfirm: 'Create a settlement round of every order that qualifies now? Orders in it can no longer be refunded.',
    created: 'Created',
    cutoff: 'Cutoff',
    orders: 'Orders',
    gross: 'Gross',
    refunds: 'Refunds',
    fees: 'Fees',
    net: 'Payout',
    source: 'Run by',
    job: 'schedule',
    console: 'manual',
    none: 'No settlement rounds.',
    done: 'Settlement round created: {n} orders, payout {net}',
  },
);

const KST = new Intl.DateTimeFormat('sv-SE', { timeZone: 'Asia/Seoul', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit' });

async function render(deps: AppDeps, reply: FastifyReply, ctx: DashboardContext, flash: { ok?: string; error?: string } = {}, status = 200): Promise<FastifyReply> {
  const L = ctx.lang;
  const t = (k: Parameters<typeof m>[1], v?: Record<string, string | number>) => m(L, k, v);
  const rounds = await listRounds(deps, ctx.member.storeId, { mode: ctx.mode, page: 1, limit: 50 });
  const body = html`${settingsTabs(L, ctx.member.role, '/dashboard/settings/settlements')}
${flash.ok ? notice('ok', flash.ok) : ''}${flash.error ? notice('error', flash.error) : ''}
<p class="muted">${t('explain')}</p>
<form method="post" action="/dashboard/settings/settlements" hx-confirm="${t('runConfirm')}" class="card">${csrfField(ctx)}<button type="submit" class="primary">${t('run')}</button></form>
${
  rounds.data.length === 0
    ? html`<p class="card">${t('none')}</p>`
    : html`<div class="table-wrap" tabindex="0"><table data-testid="settlements"><thead><tr><th scope="col">${t('created')}</th><th scope="col">${t('cutoff')}</th><th scope="col" class="num">${t('orders')}</th><th scope="col" class="num">${t('gross')}</th><th scope="col" class="num">${t('refunds')}</th><th scope="col" class="num">${t('fees')}</th><th scope="col" class="num">${t('net')}</th><th scope="col">${t('source')}</th></tr></thead><tbody>
${rounds.data.map(
  (r) => html`<tr class="${r.mode === 'test' ? 'testrow' : ''}"><td class="mono">${KST.format(new Date(r.createdAt))}</td><td class="mono">${KST.format(new Date(r.cutoff))}</td><td class="num">${r.orderCount}</td><td class="num">${money(L, r.gross)}</td><td class="num">${money(L, r.refunds)}</td><td class="num">${money(L, r.fees)}</td><td class="num">${money(L, r.net)}</td><td>${t(r.source)}</td></tr>`,
)}</tbody></table></div>`
}`;
  return sendPage(reply, ctx, { title: t('title'), nav: '/dashboard/settings' }, body, status);
}

/** /dashboard/settings/settlements: the rounds of the session's mode and "run a round now" (src/refunds/settlement.ts). */
const settingsSettlementsPage: DashboardPage = async (app, deps) => {
  const guard = { schema: { hide: true }, preHandler: requireRole('settlements') };
  app.get('/dashboard/settings/settlements', guard, async (req, reply) => render(deps, reply, ctxOf(req)));
  app.post('/dashboard/settings/settlements', guard, async (req, reply) => {
    const ctx = ctxOf(req);
    try {
      const round = await createRoundFromConsole(deps, ctx.member.storeId, { mode: ctx.mode });
      await auditAction(deps.db, deps, req, { action: 'settlement.created', target: { type: 'settlement', id: round.id }, details: { orderCount: round.orderCount, net: round.net } });
      return render(deps, reply, ctx, { ok: m(ctx.lang, 'done', { n: round.orderCount, net: money(ctx.lang, round.net) }) });
    } catch (e) {
      if (e instanceof ApiError && e.statusCode < 500) return render(deps, reply, ctx, { error: errorText(e) }, e.statusCode);
      throw e;
    }
  });
};

export default settingsSettlementsPage;
