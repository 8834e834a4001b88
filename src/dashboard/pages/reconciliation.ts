import type { FastifyReply } from 'fastify';
import type { DashboardPage } from './page';
import type { AppDeps } from '../../deps';
import { html } from '../../pages/html';
import { addDays, kstDate } from '../../platform/calendar';
import { ApiError } from '../../platform/errors';
import { getReconciliation, listReconciliations, startReconciliation } from '../../reconciliation/service';
import { type SettlementsReport } from '../../reconciliation/gateway-day';
import type { DifferenceKind } from '../../reconciliation/tables';
import { auditAction, csrfField, ctxOf, notice, redirectTo, requireRole, sendPage, type DashboardContext } from '../frame';
import { catalog } from '../i18n';
import { money } from './home';
import { errorText } from './errors';
import { getGoLiveChecklist } from '../../stores/go-live-service';
import { liveNotReadyNotice } from './go-live-view';

const m = catalog(
  {
    title: '대사',
    explain: '하루(한국 시간) 동안 토스페이먼츠에 기록된 승인·취소 거래를 이 상점의 주문·환불과 비교해 차이를 보여 줍니다. 토스페이먼츠 키가 있는 모드는 매일 전날을 자동으로 대사합니다. 대사는 아무것도 바꾸지 않으며, 토스페이먼츠 조회로 확인된 변경만 반영됩니다.',
    date: '날짜',
    run: '대사 실행',
    started: '대사를 시작했습니다. 잠시 뒤 이 화면을 새로 고치면 결과가 보입니다.',
    created: '실행 시각',
    status: '상태',
    running: '진행 중',
    completed: '완료',
    failed: '실패',
    transactions: '토스 거래 수',
    differences: '차이',
    source: '실행',
    job: '자동',
    console: '수동',
    cli: 'CLI',
    none: '대사 기록이 없습니다.',
    noDifferences: '차이가 없습니다.',
    kind: '종류',
    order: '주문',
    paymentKey: '결제 키',
    ours: '우리 기록',
    // The gateway's column: the only provider reconciled so far is Toss (a second one brings its own name here).
    gatewayAmount: '토스페이먼츠',
    back: '대사 목록',
    unknown_here: '토스에만 있는 결제',
    missing_at_toss: '토스에 없는 결제',
    amount_differs: '결제 금액 다름',
    refunds_differ: '환불 합계 다름',
    notFound: '대사 기록을 찾을 수 없습니다.',
    settlements: '토스 정산',
    settlementsExplain: '이날 결제분에 대해 토스페이먼츠가 지급할 금액과 지급일, 떼는 수수료(공급가액·부가세)입니다. 지급일별 합계가 통장에 들어오는 금액과 같아야 합니다.',
    settlementsUnavailable: '토스 정산 내역을 읽지 못했습니다',
    settlementsNone: '이날 정산 내역이 없습니다.',
    paidOutDate: '지급일',
    mid: 'MID',
    payments: '일반',
    billing: '자동결제',
    count: '건수',
    sales: '결제액',
    feeSupply: '수수료(공급가액)',
    feeVat: '수수료 부가세',
    fee: '수수료 합계',
    payOut: '지급액',
    total: '합계',
    records: '정산 내역',
    canceledRecord: '취소',
  },
  {
    title: 'Reconciliation',
    explain: "Compares one day (KST) of Toss Payments' approvals and cancels with this store's orders and refunds and shows the differences. Modes with Toss keys are reconciled daily for the day before. Reconciliation changes nothing itself; only what a lookup at Toss proves is applied.",
    date: 'Date',
    run: 'Reconcile',
    started: 'Reconciliation started. Reload this page in a moment to see the result.',
    created: 'Run at',
    status: 'Status',
    running: 'running',
    completed: 'completed',
    failed: 'failed',
    transactions: 'Toss transactions',
    differences: 'Differences',
    source: 'Run by',
    job: 'schedule',
    console: 'manual',
    cli: 'CLI',
    none: 'No reconciliations yet.',
    noDifferences: 'No differences.',
    kind: 'Kind',
    order: 'Order',
    paymentKey: 'Payment key',
    ours: 'Ours',
    gatewayAmount: 'Toss Payments',
    back: 'All reconciliations',
    unknown_here: 'Paid at Toss, unknown here',
    missing_at_toss: 'Not at Toss',
    amount_differs: 'Amount differs',
    refunds_differ: 'Refunds differ',
    notFound: 'Reconciliation not found.',
    settlements: 'Toss settlements',
    settlementsExplain: "What Toss Payments will pay out for this day's payments, when, and the fee it keeps (supply amount and VAT). Each payout day's total should match a deposit on your bank statement.",
    settlementsUnavailable: "Toss's settlements could not be read",
    settlementsNone: 'No settlements for this day.',
    paidOutDate: 'Payout date',
    mid: 'MID',
    payments: 'payments',
    billing: '자동결제 (billing)',
    count: 'Records',
    sales: 'Sales',
    feeSupply: 'Fee (supply)',
    feeVat: 'VAT on fee',
    fee: 'Fee total',
    payOut: 'Payout',
    total: 'Total',
    records: 'Settlement records',
    canceledRecord: 'cancel',
  },
);

const KST = new Intl.DateTimeFormat('sv-SE', { timeZone: 'Asia/Seoul', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit' });

type Key = Parameters<typeof m>[1];

async function renderList(deps: AppDeps, reply: FastifyReply, ctx: DashboardContext, flash: { ok?: string; error?: string } = {}, status = 200): Promise<FastifyReply> {
  const L = ctx.lang;
  const t = (k: Key) => m(L, k);
  const list = await listReconciliations(deps, ctx.member.storeId, { mode: ctx.mode, page: 1, limit: 50 });
  const yesterday = addDays(kstDate(deps.clock.now()), -1);
  const notReady = ctx.mode === 'live' ? liveNotReadyNotice(L, ctx.mode, await getGoLiveChecklist(deps, ctx.member.storeId)) : '';
  const body = html`${flash.ok ? notice('ok', flash.ok) : ''}${flash.error ? notice('error', flash.error) : ''}${notReady}
<p class="muted">${t('explain')}</p>
<form method="post" action="/dashboard/reconciliation" class="card">${csrfField(ctx)}<label for="rc-date">${t('date')}</label> <input id="rc-date" name="date" type="date" value="${yesterday}" max="${kstDate(deps.clock.now())}" required> <button type="submit" class="primary">${t('run')}</button></form>
${
  list.data.length === 0
    ? html`<p class="card">${t('none')}</p>`
    : html`<div class="table-wrap" tabindex="0"><table data-testid="reconciliations"><thead><tr><th scope="col">${t('date')}</th><th scope="col">${t('status')}</th><th scope="col" class="num">${t('transactions')}</th><th scope="col" class="num">${t('differences')}</th><th scope="col">${t('source')}</th><th scope="col">${t('created')}</th></tr></thead><tbody>
${list.data.map(
  (r) => html`<tr class="${r.mode === 'test' ? 'testrow' : ''}"><td><a href="/dashboard/reconciliation/${r.id}">${r.date}</a></td><td>${t(r.status)}</td><td class="num">${r.gatewayTransactions}</td><td class="num">${r.differenceCount}</td><td>${t(r.source)}</td><td class="mono">${KST.format(new Date(r.createdAt))}</td></tr>`,
)}</tbody></table></div>`
}`;
  return sendPage(reply, ctx, { title: t('title'), nav: '/dashboard/reconciliation' }, body, status);
}

/** What Toss settles for the run's day: payouts by date (a bank-statement line each), their total, then each record. */
function settlementsSection(L: DashboardContext['lang'], s: SettlementsReport | null) {
  if (!s) return '';
  const t = (k: Key) => m(L, k);
  const w = (n: number) => money(L, n);
  const head = html`<h2 id="st-h">${t('settlements')}</h2><p class="muted">${t('settlementsExplain')}</p>`;
  if (s.status === 'unavailable') return html`<section class="card" aria-labelledby="st-h" data-testid="settlements">${head}${notice('error', `${t('settlementsUnavailable')}: ${s.failure ?? ''}`)}</section>`;
  if (s.records.length === 0) return html`<section class="card" aria-labelledby="st-h" data-testid="settlements">${head}<p>${t('settlementsNone')}</p></section>`;
  // The payout first: on a narrow screen the figure to find on the bank statement is the one in view.
  const cols = html`<th scope="col" class="num">${t('payOut')}</th><th scope="col" class="num">${t('sales')}</th><th scope="col" class="num">${t('fee')}</th><th scope="col" class="num">${t('feeSupply')}</th><th scope="col" class="num">${t('feeVat')}</th><th scope="col" class="num">${t('count')}</th>`;
  const sums = (x: SettlementsReport['totals']) =>
    html`<td class="num"><strong>${w(x.payOutAmount)}</strong></td><td class="num">${w(x.amount)}</td><td class="num">${w(x.fee)}</td><td class="num">${w(x.feeSupplyAmount)}</td><td class="num">${w(x.feeVat)}</td><td class="num">${x.count}</td>`;
  return html`<section class="card" aria-labelledby="st-h" data-testid="settlements">${head}
<div class="table-wrap" tabindex="0"><table data-testid="payouts"><thead><tr><th scope="col">${t('paidOutDate')}</th><th scope="col">${t('mid')}</th>${cols}</tr></thead><tbody>
${s.payouts.map((p) => html`<tr><td class="mono">${p.paidOutDate}</td><td>${t(p.keyPair)}</td>${sums(p)}</tr>`)}
<tr data-testid="settlement-total"><th scope="row" colspan="2">${t('total')}</th>${sums(s.totals)}</tr></tbody></table></div>
<details><summary>${t('records')} (${s.records.length})</summary><div class="table-wrap" tabindex="0"><table data-testid="settlement-records"><thead><tr><th scope="col">${t('order')}</th><th scope="col" class="num">${t('payOut')}</th><th scope="col" class="num">${t('sales')}</th><th scope="col" class="num">${t('fee')}</th><th scope="col" class="num">${t('feeVat')}</th><th scope="col">${t('paidOutDate')}</th><th scope="col">${t('mid')}</th></tr></thead><tbody>
${s.records.map(
  (r) => html`<tr><td class="mono">${r.orderId}${r.canceled ? html` <span class="tag">${t('canceledRecord')}</span>` : ''}</td><td class="num">${w(r.payOutAmount)}</td><td class="num">${w(r.amount)}</td><td class="num">${w(r.fee)}</td><td class="num">${w(r.feeVat)}</td><td class="mono">${r.paidOutDate}</td><td>${t(r.keyPair)}</td></tr>`,
)}</tbody></table></div></details></section>`;
}

/** /dashboard/reconciliation: the runs of the session's mode, "reconcile a day", and each run's differences. */
const reconciliationPage: DashboardPage = async (app, deps) => {
  const guard = { schema: { hide: true }, preHandler: requireRole('reconciliation') };
  app.get('/dashboard/reconciliation', guard, async (req, reply) => renderList(deps, reply, ctxOf(req)));
  app.post<{ Body: { date?: string } }>('/dashboard/reconciliation', guard, async (req, reply) => {
    const ctx = ctxOf(req);
    try {
      const r = await startReconciliation(deps, ctx.member.storeId, { mode: ctx.mode, date: String(req.body?.date ?? ''), source: 'console', enqueue: true });
      await auditAction(deps.db, deps, req, { action: 'reconciliation.started', target: { type: 'reconciliation', id: r.id }, details: { date: r.date } });
      return redirectTo(req, reply, `/dashboard/reconciliation/${r.id}?started=1`);
    } catch (e) {
      if (e instanceof ApiError && e.statusCode < 500) return renderList(deps, reply, ctx, { error: errorText(e) }, e.statusCode);
      throw e;
    }
  });
  app.get<{ Params: { id: string }; Querystring: { started?: string } }>('/dashboard/reconciliation/:id', guard, async (req, reply) => {
    const ctx = ctxOf(req);
    const L = ctx.lang;
    const t = (k: Key) => m(L, k);
    let r;
    try {
      r = await getReconciliation(deps, ctx.member.storeId, req.params.id);
    } catch (e) {
      if (e instanceof ApiError && e.code === 'RECONCILIATION_NOT_FOUND') {
        return sendPage(reply, ctx, { title: t('title'), nav: '/dashboard/reconciliation' }, html`${notice('error', t('notFound'))}<p><a href="/dashboard/reconciliation">${t('back')}</a></p>`, 404);
      }
      throw e;
    }
    const amount = (n: number | null) => (n === null ? '—' : money(L, n));
    const body = html`${req.query.started && r.status === 'running' ? notice('ok', t('started')) : ''}
<p><a href="/dashboard/reconciliation">${t('back')}</a></p>
<dl class="card"><dt>${t('date')}</dt><dd>${r.date}</dd><dt>${t('status')}</dt><dd data-testid="status">${t(r.status)}${r.failure ? html` — ${r.failure.message}` : ''}</dd><dt>${t('transactions')}</dt><dd>${r.gatewayTransactions}</dd><dt>${t('differences')}</dt><dd>${r.differenceCount}</dd></dl>
${
  r.status !== 'completed'
    ? ''
    : r.differences.length === 0
      ? html`<p class="card">${t('noDifferences')}</p>`
      : html`<div class="table-wrap" tabindex="0"><table data-testid="differences"><thead><tr><th scope="col">${t('kind')}</th><th scope="col">${t('order')}</th><th scope="col">${t('paymentKey')}</th><th scope="col" class="num">${t('ours')}</th><th scope="col" class="num">${t('gatewayAmount')}</th></tr></thead><tbody>
${r.differences.map(
  (d) => html`<tr data-kind="${d.kind}"><td>${t(d.kind as DifferenceKind)}</td><td class="mono">${d.orderId}</td><td class="mono">${d.paymentKey ?? '—'}</td><td class="num">${amount(d.ourAmount)}</td><td class="num">${amount(d.gatewayAmount)}</td></tr>`,
)}</tbody></table></div>`
}
${settlementsSection(L, r.settlements)}`;
    return sendPage(reply, ctx, { title: `${t('title')} ${r.date}`, nav: '/dashboard/reconciliation' }, body);
  });
};

export default reconciliationPage;
