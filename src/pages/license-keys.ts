import type { OrderLicenseView } from '../orders/schemas';
import { html, kst, type SafeHtml } from './html';

/** The card's words: Korean everywhere, English on the receipt's `?lang=en`. */
const COPY = {
  ko: {
    status: { active: '사용 가능', pending: '발급 중', expired: '만료됨', revoked: '회수됨' } as Record<OrderLicenseView['status'], string>,
    title: '라이선스 키',
    until: (d: Date) => `${kst(d)}까지`,
    noExpiry: '기간 제한 없음',
    copyLabel: '라이선스 키 복사',
    /** The script's own word after copying (src/pages/assets.ts); only the English page names another. */
    copied: '복사됨',
    copy: '복사',
    pending: '판매자가 키를 발급하고 있습니다. 발급되면 이 페이지에서 확인할 수 있습니다.',
    hint: '키를 길게 누르거나 선택해 복사할 수도 있습니다. 앱의 라이선스 입력란에 붙여 넣어 활성화하세요.',
  },
  en: {
    status: { active: 'Active', pending: 'Being issued', expired: 'Expired', revoked: 'Revoked' } as Record<OrderLicenseView['status'], string>,
    title: 'License keys',
    until: (d: Date, fmt?: (d: Date) => string) => `Valid until ${fmt ? fmt(d) : d.toISOString()}`,
    noExpiry: 'No expiry',
    copyLabel: 'Copy the license key',
    copy: 'Copy',
    copied: 'Copied',
    pending: 'The seller is issuing the key. It will appear on this page once issued.',
    hint: 'You can also long-press or select the key to copy it. Paste it into the app’s license field to activate it.',
  },
};

/**
 * The order's license keys, each with a copy button. The key is plain selectable text (user-select: all), so it can
 * be copied without the script; the script only reveals the button (it starts hidden) where the clipboard API exists.
 * `dateEn` formats an expiry for the English page (the receipt's own format).
 */
export function licensesCard(licenses: OrderLicenseView[], lang: 'ko' | 'en' = 'ko', dateEn?: (d: Date) => string): SafeHtml {
  if (licenses.length === 0) return html``;
  const c = COPY[lang];
  const until = (d: Date) => (lang === 'en' ? COPY.en.until(d, dateEn) : COPY.ko.until(d));
  return html`<section class="card" aria-labelledby="licenses-title" id="licenses">
  <h2 id="licenses-title">${c.title}</h2>
  <ul class="list">
    ${licenses.map(
      (l, i) => html`<li>
      <div class="line"><span class="status ${l.status === 'active' ? 'approved' : l.status === 'pending' ? 'held' : 'canceled'}">${c.status[l.status]}</span><span class="muted">${l.expiresAt ? until(new Date(l.expiresAt)) : c.noExpiry}</span></div>
      ${l.key
        ? html`<div class="key"><code id="license-key-${i}" class="license-key" tabindex="0">${l.key}</code><button type="button" data-copy="license-key-${i}"${lang === 'en' ? html` data-copied="${c.copied}"` : ''} hidden aria-label="${c.copyLabel}">${c.copy}</button></div>`
        : html`<p class="muted">${c.pending}</p>`}
    </li>`,
    )}
  </ul>
  <p class="hint">${c.hint}</p>
</section>`;
}
