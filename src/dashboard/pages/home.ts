import type { DashboardPage } from './page';
import { html } from '../../pages/html';
import { ctxOf, requireRole, sendPage } from '../frame';
import { getGoLiveChecklist } from '../../stores/go-live-service';
import { liveNotReadyNotice } from './go-live-view';
import { catalog, frameText, type Lang } from '../i18n';
import { homeFigures } from '../home';
import { barChart } from '../chart';
import { can } from '../roles';

const m = catalog(
  {
    today: '오늘',
    '7d': '최근 7일',
    '30d': '최근 30일',
    paid: '결제 금액',
    refunds: '환불',
    net: '순매출',
    orders: '주문',
    newSubs: '신규 구독',
    activeSubs: '활성 구독',
    mrr: '월 반복 매출(MRR)',
    chart: '최근 30일 일별 결제 금액',
    chartTotal: '30일 합계 {amount}',
    paidRule: '결제 금액·주문·그래프는 모두 같은 기준입니다: 결제가 완료된 주문(나중에 환불된 주문 포함, 환불은 따로 표시)을 결제 시각(한국 시간)의 날짜로 셉니다.',
    futureRule: '테스트 시계로 앞당긴 결제 {n}건({amount})은 그 결제 시각이 되면 포함됩니다.',
    waiting: '처리 대기 중인 환불 요청',
    waitingNone: '대기 중인 환불 요청이 없습니다.',
    statutory: '법정 청약철회',
    deadline: '자동 승인까지',
    requested: '요청',
    held: '보류',
    more: '외 {n}건',
    failing: '실패 중인 웹훅 엔드포인트',
    failingNone: '모든 웹훅 엔드포인트가 정상입니다.',
    failingSince: '{since}부터 실패',
    disabled: '비활성화됨',
    overdue: '기한 지남',
    hours: '{h}시간 {m}분',
    days: '{d}일 {h}시간',
  },
  {
    today: 'Today',
    '7d': 'Last 7 days',
    '30d': 'Last 30 days',
    paid: 'Paid',
    refunds: 'Refunds',
    net: 'Net',
    orders: 'Orders',
    newSubs: 'New subscriptions',
    activeSubs: 'Active subscriptions',
    mrr: 'Monthly recurring revenue',
    chart: 'Paid amount per day, last 30 days',
    chartTotal: '30-day total {amount}',
    paidRule: 'Paid, orders and the chart all count the same way: orders whose payment went through (refunded ones included; refunds shown apart), on the date of their payment time (KST).',
    futureRule: '{n} test-clock payment(s) ({amount}) dated ahead are counted once their time comes.',
    waiting: 'Refund requests waiting',
    waitingNone: 'No refund requests waiting.',
    statutory: 'Statutory withdrawal',
    deadline: 'Auto-approval in',
    requested: 'Requested',
    held: 'Held',
    more: 'and {n} more',
    failing: 'Failing webhook endpoints',
    failingNone: 'All webhook endpoints are healthy.',
    failingSince: 'failing since {since}',
    disabled: 'Disabled',
    overdue: 'overdue',
    hours: '{h} h {m} min',
    days: '{d} d {h} h',
  },
);

export function money(lang: Lang, n: number): string {
  return lang === 'en' ? `₩${n.toLocaleString('en-US')}` : `${n.toLocaleString('ko-KR')}원`;
}

const KST_SHORT = new Intl.DateTimeFormat('sv-SE', { timeZone: 'Asia/Seoul', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit' });

function countdown(lang: Lang, ms: number): string {
  if (ms <= 0) return m(lang, 'overdue');
  const mins = Math.floor(ms / 60_000);
  const d = Math.floor(mins / 1440);
  const h = Math.floor((mins % 1440) / 60);
  return d > 0 ? m(lang, 'days', { d, h }) : m(lang, 'hours', { h, m: mins % 60 });
}

/** /dashboard: the store at a glance, in the session's mode. */
const homePage: DashboardPage = async (app, deps) => {
  app.get('/dashboard', { schema: { hide: true }, preHandler: requireRole('home') }, async (req, reply) => {
    const ctx = ctxOf(req);
    const L = ctx.lang;
    const f = await homeFigures(deps, ctx.member.storeId, ctx.mode);
    const notReady = ctx.mode === 'live' ? liveNotReadyNotice(L, ctx.mode, await getGoLiveChecklist(deps, ctx.member.storeId)) : '';
    const now = deps.clock.now().getTime();
    const money30 = f.daily.reduce((s, d) => s + d.amount, 0);
    const canRefunds = can(ctx.member.role, 'refunds');
    const canDev = can(ctx.member.role, 'developers');
    const body = html`${notReady}
${f.windows.map(
  (w) => html`<section class="card" aria-labelledby="w-${w.window}" data-testid="window-${w.window}">
  <h2 id="w-${w.window}">${m(L, w.window)}</h2>
  <div class="grid">
    <div class="stat"><p class="label">${m(L, 'paid')}</p><p class="value" data-testid="paid-${w.window}">${money(L, w.paid)}</p></div>
    <div class="stat"><p class="label">${m(L, 'refunds')}</p><p class="value">${money(L, w.refunds)}</p></div>
    <div class="stat"><p class="label">${m(L, 'net')}</p><p class="value" data-testid="net-${w.window}">${money(L, w.net)}</p></div>
    <div class="stat"><p class="label">${m(L, 'orders')}</p><p class="value">${w.orders.toLocaleString()}</p></div>
    <div class="stat"><p class="label">${m(L, 'newSubs')}</p><p class="value">${w.newSubscriptions.toLocaleString()}</p></div>
  </div>
</section>`,
)}
<section class="card" aria-labelledby="subs">
  <h2 id="subs" class="skip">${m(L, 'mrr')}</h2>
  <div class="grid">
    <div class="stat"><p class="label">${m(L, 'activeSubs')}</p><p class="value" data-testid="active-subs">${f.activeSubscriptions.toLocaleString()}</p></div>
    <div class="stat"><p class="label">${m(L, 'mrr')}</p><p class="value" data-testid="mrr">${money(L, f.mrr)}</p></div>
  </div>
</section>
<section class="card" aria-labelledby="chart-h">
  <h2 id="chart-h">${m(L, 'chart')}</h2>
  <p class="muted" data-testid="chart-total">${m(L, 'chartTotal', { amount: money(L, money30) })}</p>
  ${barChart(
    f.daily.map((d) => ({ label: d.day.slice(5), value: d.amount, title: `${d.day}: ${money(L, d.amount)}` })),
    { label: `${m(L, 'chart')} — ${m(L, 'chartTotal', { amount: money(L, money30) })}`, maxLabel: (v) => money(L, v) },
  )}
  <p class="hint" data-testid="paid-definition">${m(L, 'paidRule')}${f.future.orders ? html` ${m(L, 'futureRule', { n: f.future.orders, amount: money(L, f.future.amount) })}` : ''}</p>
</section>
${
  canRefunds
    ? html`<section class="card" aria-labelledby="waiting-h" data-testid="waiting">
  <h2 id="waiting-h">${m(L, 'waiting')} (${f.waitingRequests.total})</h2>
  ${
    f.waitingRequests.items.length === 0
      ? html`<p class="muted">${m(L, 'waitingNone')}</p>`
      : html`<div class="table-wrap" tabindex="0"><table><thead><tr><th scope="col">ID</th><th scope="col">${frameText(L, 'audit.when')}</th><th scope="col">${m(L, 'deadline')}</th><th scope="col" class="num">${m(L, 'refunds')}</th></tr></thead><tbody>
    ${f.waitingRequests.items.map(
      (r) => html`<tr><td><code>${r.id}</code> ${r.statutory ? html`<span class="tag bad">${m(L, 'statutory')}</span>` : ''} ${r.status === 'held' ? html`<span class="tag">${m(L, 'held')}</span>` : ''}</td>
      <td class="mono">${KST_SHORT.format(new Date(r.requested_at))}</td>
      <td>${r.auto_approve_at ? countdown(L, new Date(r.auto_approve_at).getTime() - now) : '—'}</td>
      <td class="num">${money(L, Number(r.amount))}</td></tr>`,
    )}</tbody></table></div>
    ${f.waitingRequests.total > f.waitingRequests.items.length ? html`<p class="muted">${m(L, 'more', { n: f.waitingRequests.total - f.waitingRequests.items.length })}</p>` : ''}`
  }
</section>`
    : ''
}
${
  canDev
    ? html`<section class="card" aria-labelledby="failing-h" data-testid="failing">
  <h2 id="failing-h">${m(L, 'failing')} (${f.failingEndpoints.length})</h2>
  ${
    f.failingEndpoints.length === 0
      ? html`<p class="muted">${m(L, 'failingNone')}</p>`
      : html`<ul>${f.failingEndpoints.map(
          (e) => html`<li><a href="/dashboard/developers/webhooks" class="mono">${e.url}</a> — ${e.status === 'disabled' ? html`<span class="tag bad">${m(L, 'disabled')}</span>` : m(L, 'failingSince', { since: e.failing_since ? KST_SHORT.format(new Date(e.failing_since)) : '' })}</li>`,
        )}</ul>`
  }
</section>`
    : ''
}`;
    return sendPage(reply, ctx, { title: frameText(L, 'nav.home'), nav: '/dashboard' }, body);
  });
};

export default homePage;
