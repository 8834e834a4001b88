import type { BusinessDetailsView } from '../stores/schemas';
import { html, type SafeHtml } from './html';

/**
 * The seller's business details at the foot of every hosted page (전자상거래법 제10조·제13조): 상호, 대표자,
 * 사업자등록번호, 통신판매업 신고번호, 주소, 고객센터. A test-mode store without them gets a note instead; live
 * sessions cannot exist without them (CHECKOUT_NOT_CONFIGURED at creation). The demo store's made-up details are
 * labelled as samples.
 */
export function storeFooter(storeName: string, b: BusinessDetailsView | null | undefined): SafeHtml {
  if (!b) {
    return html`<footer class="biz" aria-label="판매자 정보"><p>판매자: ${storeName}</p><p>판매자 사업자 정보가 아직 등록되지 않았습니다 (테스트 모드).</p></footer>`;
  }
  const tel = b.supportPhone ? b.supportPhone.replace(/[^0-9+]/g, '') : null;
  return html`<footer class="biz" aria-label="판매자 정보">
  ${b.sample ? html`<p class="sample">아래는 데모 상점의 샘플 정보입니다. 실제 사업자 정보가 아닙니다.</p>` : ''}
  <p><strong>${b.companyName}</strong> · 대표자 ${b.representative}</p>
  <p>사업자등록번호 ${b.businessNumber} · 통신판매업 신고번호 ${b.mailOrderNumber}</p>
  <p>${b.address}</p>
  <p>고객센터 ${tel ? html`<a href="tel:${tel}">${b.supportPhone}</a>` : ''}${tel && b.supportEmail ? ' · ' : ''}${b.supportEmail ? html`<a href="mailto:${b.supportEmail}">${b.supportEmail}</a>` : ''}</p>
</footer>`;
}
