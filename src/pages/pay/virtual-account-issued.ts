/**
 * The page a buyer sees when a 가상계좌 is issued (test mode's simulator and Toss's window alike), and again whenever
 * they come back to the payment page while it waits. A 가상계좌 is not a payment: the buyer still has to deposit, so
 * sending them straight to the seller's successUrl (as a paid order is) left them without the account, the exact
 * amount and the deadline. The facts come first; the ways onward (the seller's page, the receipt) follow.
 */
import { successRedirectUrl } from '../../checkout/model';
import type { OrderView } from '../../orders/schemas';
import { html, kst, raw, won } from '../html';
import { layout } from '../layout';
import { footerOf, header, PAY_SCRIPT, type PageContext } from './views';

// Labels on one line at 390 px (the values wrap instead); the number's copy button sits beside it when it fits.
const HEAD = raw('<style>#va-issued dl.amounts dt{white-space:nowrap}#va-issued dl.amounts dd{overflow-wrap:anywhere}#va-issued .key{margin-top:0}</style>');

/** The deadline as a buyer reads it: date and minute in Korea time, said to be so (a buyer abroad reads it too). */
export const depositDeadline = (dueAt: string | Date): string => `${kst(new Date(dueAt))} (한국 시간)`;

export function virtualAccountIssuedPage(ctx: Pick<PageContext, 'storeName' | 'session' | 'business'>, order: OrderView): string {
  const va = order.virtualAccount!;
  const s = ctx.session;
  const onward = s.success_url ? successRedirectUrl(s.success_url, order.id, s.id) : null;
  const body = html`${header(ctx)}
<section class="card" id="va-issued" aria-labelledby="va-issued-title">
  <h1 id="va-issued-title">가상계좌가 발급되었습니다</h1>
  <p class="muted">아래 계좌로 <strong>입금 기한까지 ${won(order.amount)}을 정확히</strong> 입금하면 결제가 완료됩니다. 아직 결제된 것이 아니며, 입금이 확인되면 주문이 완료되고 메일로 알려 드립니다.</p>
  <dl class="amounts">
    <dt>은행</dt><dd id="va-bank">${va.bankName}</dd>
    <dt>계좌번호</dt><dd><div class="key"><code id="va-account" tabindex="0">${va.accountNumber}</code><button type="button" data-copy="va-account" hidden aria-label="계좌번호 복사">복사</button></div></dd>
    ${va.holderName ? html`<dt>예금주</dt><dd id="va-holder">${va.holderName}</dd>` : ''}
    <dt class="total">입금할 금액</dt><dd class="total" id="va-amount">${won(order.amount)}</dd>
    <dt>입금 기한</dt><dd id="va-due">${depositDeadline(va.dueAt)}</dd>
  </dl>
  <ul class="terms" id="va-notes">
    <li>금액이 다르면 입금되지 않습니다. 여러 번에 나누어 입금할 수 없습니다.</li>
    <li>입금 기한이 지나면 계좌가 닫히고 주문은 취소됩니다(결제되지 않습니다).</li>
    <li>계좌와 기한은 ${order.buyerEmail}(으)로 보낸 메일과 영수증 페이지에서도 다시 볼 수 있습니다.</li>
  </ul>
  ${onward ? html`<a class="button pay" id="va-onward" href="${onward}">확인했습니다. ${ctx.storeName}(으)로 돌아가기</a>` : ''}
  <a class="button secondary" style="margin-top:12px" id="va-receipt" href="${order.receiptUrl}">영수증 페이지 열기</a>
</section>`;
  return layout({ title: '가상계좌 발급 안내', footer: footerOf(ctx), script: PAY_SCRIPT, head: HEAD }, body);
}
