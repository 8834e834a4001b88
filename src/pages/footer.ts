import type { BusinessDetailsView } from '../stores/schemas';
import { html, type SafeHtml } from './html';

/**
 * The footer's labels: Korean, or English on a page in English. The seller's own details (상호, 대표자, 신고번호,
 * 주소) are their own names, shown as registered and marked `translate="no"`.
 */
export const FOOTER_LABELS = {
  ko: {
    aria: '판매자 정보',
    seller: '판매자',
    missing: '판매자 사업자 정보가 아직 등록되지 않았습니다 (테스트 모드).',
    sample: '아래는 데모 상점의 샘플 정보입니다. 실제 사업자 정보가 아닙니다.',
    representative: '대표자',
    businessNumber: '사업자등록번호',
    mailOrderNumber: '통신판매업 신고번호',
    support: '고객센터',
  },
  en: {
    aria: 'Seller information',
    seller: 'Seller',
    missing: 'The seller has not entered its business details yet (test mode).',
    sample: 'Sample details of the demo store below, not a real business.',
    representative: 'Representative',
    businessNumber: 'Business registration no.',
    mailOrderNumber: 'Mail-order business report no.',
    support: 'Customer service',
  },
} as const;

/** The seller's support phone as a tel: link target (digits and +), or null. */
export const telOf = (b: Pick<BusinessDetailsView, 'supportPhone'>): string | null => (b.supportPhone ? b.supportPhone.replace(/[^0-9+]/g, '') : null);

/** The seller's 고객센터 phone and e-mail as links, separated by " · " (empty when neither is set). */
export function supportLinks(b: Pick<BusinessDetailsView, 'supportPhone' | 'supportEmail'>): SafeHtml {
  const tel = telOf(b);
  return html`${tel ? html`<a href="tel:${tel}">${b.supportPhone}</a>` : ''}${tel && b.supportEmail ? ' · ' : ''}${b.supportEmail ? html`<a href="mailto:${b.supportEmail}">${b.supportEmail}</a>` : ''}`;
}

/**
 * The seller's business details at the foot of every hosted page (전자상거래법 제10조·제13조): 상호, 대표자,
 * 사업자등록번호, 통신판매업 신고번호, 주소, 고객센터. A test-mode store without them gets a note instead; live
 * sessions cannot exist without them (CHECKOUT_NOT_CONFIGURED at creation). The demo store's made-up details are
 * labelled as samples.
 */
export function storeFooter(storeName: string, b: BusinessDetailsView | null | undefined, lang: 'ko' | 'en' = 'ko'): SafeHtml {
  const l = FOOTER_LABELS[lang];
  if (!b) {
    return html`<footer class="biz" aria-label="${l.aria}"><p>${l.seller}: <span translate="no">${storeName}</span></p><p>${l.missing}</p></footer>`;
  }
  return html`<footer class="biz" aria-label="${l.aria}">
  ${b.sample ? html`<p class="sample">${l.sample}</p>` : ''}
  <p><strong translate="no">${b.companyName}</strong> · ${l.representative} <span translate="no">${b.representative}</span></p>
  <p>${l.businessNumber} ${b.businessNumber} · ${l.mailOrderNumber} <span translate="no">${b.mailOrderNumber}</span></p>
  <p translate="no">${b.address}</p>
  <p>${l.support} ${supportLinks(b)}</p>
</footer>`;
}
