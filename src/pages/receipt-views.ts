import type { Receipt } from '../refunds/requests/service';
import type { RefundRequestView } from '../refunds/requests/model';
import { html, kst, raw, won, type SafeHtml } from './html';
import { layout } from './layout';
import { methodLabel } from './form';
import { kstDate } from '../platform/calendar';
import type { BusinessDetailsView } from '../stores/schemas';
import { licensesCard } from './license-keys';
import { storeFooter } from './footer';
import { PAY_SCRIPT } from './views';



/** The buyer's receipt page (Korean, phone-first): the order, its refunds, and filing or canceling a refund request. */

const EXTRA_CSS = raw(`<style>
textarea{width:100%;min-height:96px;font:inherit;font-size:16px;padding:12px 14px;border:1px solid #d1d6db;border-radius:10px;resize:vertical}
input[inputmode=numeric]{width:100%;font-size:16px;padding:12px 14px;border:1px solid #d1d6db;border-radius:10px}
.status{display:inline-block;border-radius:999px;padding:2px 10px;font-size:13px;font-weight:600;background:#e8f3ff;color:#1b64da}
.status.rejected,.status.canceled{background:#f2f4f6;color:#4e5968}
.status.approved{background:#e9f9ef;color:#0a7c42}
.status.held{background:#fff4e5;color:#b25e00}
ul.list{list-style:none;margin:0;padding:0}
ul.list li{border-top:1px solid #f2f4f6;padding:10px 0}
ul.list li:first-child{border-top:0;padding-top:0}
.line{display:flex;justify-content:space-between;gap:12px}
.amount{font-weight:700;font-variant-numeric:tabular-nums;white-space:nowrap}
dl.amounts dt{white-space:nowrap}
dl.amounts dd{overflow-wrap:anywhere}
@media (min-width:900px){main{max-width:560px;padding-top:40px}}
</style>`);

/** An instant at 00:00 KST shown as the end of the day before ("2026-11-04 24:00"), as Korean deadlines are written. */
const endOfDay = (at: string): string => `${kstDate(new Date(Date.parse(at) - 1))} 24:00`;

const STATUS: Record<RefundRequestView['status'], string> = {
  requested: '접수됨 · 판매자 확인 중',
  held: '보류됨',
  approved: '승인됨 · 환불 완료',
  rejected: '거절됨',
  canceled: '요청 취소됨',
};

const ORDER_STATUS: Record<string, string> = { paid: '결제 완료', refunded: '전액 환불', pending: '결제 대기', failed: '결제 실패', canceled: '결제 취소' };

export interface ReceiptForm {
  amount: string;
  reason: string;
}

export interface ReceiptPageOptions {
  receipt: Receipt;
  token: string;
  /** The seller's business details for the footer. */
  business?: BusinessDetailsView | null;
  /** A message for the whole page: an error (the request was refused) or a confirmation. */
  banner?: { kind: 'error' | 'info'; text: string };
  form?: ReceiptForm;
}

/** How a card was charged, as card receipts say it: " (일시불)" or " (3개월 할부)"; nothing where the gateway did not say. */
export const installmentText = (months: number | null): string => (months === null ? '' : months === 0 ? ' (일시불)' : ` (${months}개월 할부)`);

function orderCard(r: Receipt): SafeHtml {
  const o = r.order;
  const refunded = o.refundedAmount ?? 0;
  const status = o.status === 'paid' && refunded > 0 ? '부분 환불' : ORDER_STATUS[o.status] ?? o.status;
  return html`<section class="card" aria-label="주문 내역">
  <h1>주문 영수증</h1>
  <p class="product">${o.productName}</p>
  <dl class="amounts">
    <dt>주문 번호</dt><dd id="order-id">${o.id}</dd>
    <dt>주문 상태</dt><dd id="order-status">${status}</dd>
    <dt>결제 수단</dt><dd id="payment-method">${methodLabel(o.method)}${installmentText(r.installmentMonths)}</dd>
    <dt>결제 일시</dt><dd>${o.paidAt ? kst(new Date(o.paidAt)) : '-'}</dd>
    ${o.coupon ? html`<dt>쿠폰 할인 (${o.coupon.code})</dt><dd class="discount">-${won(o.coupon.discountAmount)}</dd>` : ''}
    <dt class="total">결제 금액</dt><dd class="total">${won(o.amount)}</dd>
    ${refunded > 0 ? html`<dt>환불된 금액</dt><dd id="refunded-amount" class="discount">-${won(refunded)}</dd>` : ''}
  </dl>
</section>`;
}

function refundsCard(r: Receipt): SafeHtml {
  if (r.order.refunds.length === 0) return html``;
  return html`<section class="card" aria-label="환불 내역" id="refunds">
  <h2>환불 내역</h2>
  <ul class="list">
    ${r.order.refunds.map(
      (f) => html`<li><div class="line"><span>${kst(new Date(f.at))}</span><span class="amount">${won(f.amount)}</span></div>${f.reason ? html`<p class="muted">${f.reason}</p>` : ''}</li>`,
    )}
  </ul>
  <p class="hint">카드 결제의 환불은 카드사 사정에 따라 영업일 기준 3~7일 뒤 카드 명세서에 반영될 수 있습니다.</p>
</section>`;
}

function activeCard(r: Receipt, a: RefundRequestView, token: string, action: string): SafeHtml {
  return html`<section class="card" aria-label="환불 요청" id="refund-request">
  <h2>환불 요청 <span class="status ${a.status}" id="request-status">${STATUS[a.status]}</span></h2>
  <dl class="amounts">
    <dt>요청 금액</dt><dd>${won(a.amount)}</dd>
    <dt>요청 일시</dt><dd>${kst(new Date(a.requestedAt))}</dd>
  </dl>
  ${a.reason ? html`<p class="muted">사유: ${a.reason}</p>` : ''}
  ${a.status === 'held' && a.decisionReason ? html`<div class="banner info" style="margin-top:12px">판매자가 요청을 보류했습니다: ${a.decisionReason}</div>` : ''}
  ${a.statutory && a.autoApproveAt
    ? html`<div class="banner info" style="margin-top:12px">법정 청약철회 기간 안에 접수된 요청입니다. 판매자가 ${endOfDay(a.autoApproveAt)}까지 처리하지 않으면 자동으로 승인되어 환불됩니다.</div>`
    : ''}
  ${a.processing
    ? html`<p class="muted" style="margin-top:12px">판매자가 승인하여 환불을 처리하고 있습니다.</p>`
    : html`<form method="post" action="${action}/cancel">
    <input type="hidden" name="t" value="${token}">
    <button class="danger" style="margin-top:16px" type="submit">환불 요청 취소</button>
  </form>`}
</section>`;
}

function requestForm(r: Receipt, token: string, action: string, form: ReceiptForm | undefined): SafeHtml {
  const windowEnd = r.statutoryOpen ? r.statutoryWindowEndsAt : null;
  return html`<section class="card" aria-label="환불 요청하기" id="refund-form">
  <h2>환불 요청하기</h2>
  <p class="muted">환불 가능한 금액은 <strong id="refundable">${won(r.refundable)}</strong>입니다. 판매자가 요청을 확인한 뒤 환불합니다.</p>
  ${windowEnd ? html`<p class="hint">청약철회 기간: ${endOfDay(windowEnd.toISOString())}까지. 이 기간 안의 요청은 3영업일 안에 처리되지 않으면 자동으로 승인됩니다.</p>` : ''}
  <form method="post" action="${action}" novalidate>
    <input type="hidden" name="t" value="${token}">
    <label for="amount">환불 요청 금액 (원)</label>
    <input id="amount" name="amount" type="text" inputmode="numeric" autocomplete="off" value="${form?.amount ?? String(r.refundable)}">
    <p class="hint">비워 두면 환불 가능한 금액 전체를 요청합니다.</p>
    <label for="reason">사유 (선택)</label>
    <textarea id="reason" name="reason" maxlength="500" placeholder="예: 단순 변심, 중복 결제">${form?.reason ?? ''}</textarea>
    <button class="pay" type="submit">환불 요청하기</button>
  </form>
</section>`;
}

function historyCard(r: Receipt): SafeHtml {
  const past = r.requests.filter((x) => x.status !== 'requested' && x.status !== 'held');
  if (past.length === 0) return html``;
  return html`<section class="card" aria-label="지난 환불 요청" id="request-history">
  <h2>지난 환불 요청</h2>
  <ul class="list">
    ${past.map(
      (x) => html`<li><div class="line"><span class="status ${x.status}">${STATUS[x.status]}</span><span class="amount">${won(x.approvedAmount ?? x.amount)}</span></div>
      <p class="muted">${kst(new Date(x.decidedAt ?? x.requestedAt))}${x.status === 'rejected' && x.decisionReason ? html` · 거절 사유: ${x.decisionReason}` : ''}</p></li>`,
    )}
  </ul>
</section>`;
}

export function receiptPage(p: ReceiptPageOptions): string {
  const r = p.receipt;
  const action = `/receipt/${encodeURIComponent(r.order.id)}/refund-request`;
  let requestSection: SafeHtml;
  if (r.active) requestSection = activeCard(r, r.active, p.token, action);
  else if (r.blocked) requestSection = html`<section class="card" id="refund-form"><h2>환불 요청</h2><p class="muted" id="blocked">${r.blocked}</p></section>`;
  else requestSection = requestForm(r, p.token, action, p.form);
  return layout(
    { title: `${r.order.productName} 주문 영수증`, head: EXTRA_CSS, footer: storeFooter(r.storeName, p.business), script: PAY_SCRIPT },
    html`<div class="store"><span>${r.storeName}</span>${r.order.mode === 'test' ? html`<span class="badge">테스트 모드</span>` : ''}</div>
${p.banner ? html`<div class="banner ${p.banner.kind}" role="${p.banner.kind === 'error' ? 'alert' : 'status'}" id="banner">${p.banner.text}</div>` : ''}
${orderCard(r)}
${licensesCard(r.order.licenses)}
${refundsCard(r)}
${requestSection}
${historyCard(r)}
<p class="hint center">이 페이지의 주소는 주문자 본인만 알고 있어야 합니다.</p>`,
  );
}
