import type { OrderLicenseView } from '../orders/schemas';
import { html, kst, type SafeHtml } from './html';

const LICENSE_STATUS: Record<OrderLicenseView['status'], string> = { active: '사용 가능', pending: '발급 중', expired: '만료됨', revoked: '회수됨' };

/**
 * The order's license keys, each with a copy button. The key is plain selectable text (user-select: all), so it can
 * be copied without the script; the script only reveals the button (it starts hidden) where the clipboard API exists.
 */
export function licensesCard(licenses: OrderLicenseView[]): SafeHtml {
  if (licenses.length === 0) return html``;
  return html`<section class="card" aria-labelledby="licenses-title" id="licenses">
  <h2 id="licenses-title">라이선스 키</h2>
  <ul class="list">
    ${licenses.map(
      (l, i) => html`<li>
      <div class="line"><span class="status ${l.status === 'active' ? 'approved' : l.status === 'pending' ? 'held' : 'canceled'}">${LICENSE_STATUS[l.status]}</span><span class="muted">${l.expiresAt ? html`${kst(new Date(l.expiresAt))}까지` : '기간 제한 없음'}</span></div>
      ${l.key
        ? html`<div class="key"><code id="license-key-${i}" class="license-key">${l.key}</code><button type="button" data-copy="license-key-${i}" hidden aria-label="라이선스 키 복사">복사</button></div>`
        : html`<p class="muted">판매자가 키를 발급하고 있습니다. 발급되면 이 페이지에서 확인할 수 있습니다.</p>`}
    </li>`,
    )}
  </ul>
  <p class="hint">키를 길게 누르거나 선택해 복사할 수도 있습니다. 앱의 라이선스 입력란에 붙여 넣어 활성화하세요.</p>
</section>`;
}
