import { html, type SafeHtml } from '../../pages/html';
import type { Lang } from '../i18n';
import { catalog } from '../i18n';
import type { GoLiveChecklist, GoLiveItem } from '../../stores/go-live';

const m = catalog(
  {
    title: '라이브 전환 체크리스트',
    intro: '라이브 모드로 실제 결제를 받기 전에, 그리고 받은 직후에 확인할 항목입니다.',
    progress: '{done}/{total} 완료',
    done: '완료',
    missing: '필요',
    businessDetails: '사업자 정보',
    businessDetailsHint: '아래 사업자 정보에 실제 정보를 저장하세요 (샘플 정보는 인정되지 않습니다).',
    verifiedContact: '공개 연락처 인증',
    verifiedContactHint: '서비스 운영자가 상점의 공개 연락처를 인증해야 라이브 결제 세션을 만들 수 있습니다 (commerce store verify).',
    tossKeys: '토스페이먼츠 라이브 키 확인',
    tossKeysHint: '라이브 모드의 결제 설정에서 토스페이먼츠를 고르고 라이브 키(live_ck_…, live_sk_…)를 저장하세요. 저장할 때 토스페이먼츠에 확인합니다.',
    returnUrlDomains: '돌아갈 주소(return URL) 도메인',
    returnUrlDomainsHint: '라이브 모드의 허용 도메인에 결제 후 돌아갈 사이트의 도메인을 등록하세요.',
    tossWebhook: '토스페이먼츠 웹훅 등록',
    tossWebhookHint: '토스페이먼츠 개발자센터에 라이브 모드의 웹훅 주소를 등록하세요. 첫 웹훅이 도착하면 완료로 표시됩니다.',
    firstLivePayment: '첫 라이브 결제',
    firstLivePaymentHint: '낮은 가격의 상품으로 실제 카드 결제를 한 번 해 보세요.',
    firstLiveRefund: '첫 라이브 환불',
    firstLiveRefundHint: '그 결제를 환불해 환불이 토스페이먼츠까지 처리되는지 확인하세요.',
    notReady: '라이브 모드는 아직 실제 결제를 받을 준비가 되지 않아 아래 수치가 비어 있습니다. 남은 준비: {items}.',
    notReadyLink: '설정에서 라이브 전환 체크리스트 보기',
  },
  {
    title: 'Go-live checklist',
    intro: 'What to check before taking real payments in live mode, and right after the first one.',
    progress: '{done} of {total} done',
    done: 'Done',
    missing: 'Missing',
    businessDetails: 'Business details',
    businessDetailsHint: 'Save your real business details below (the sample details do not count).',
    verifiedContact: 'Verified public contact',
    verifiedContactHint: 'The service operator verifies the store’s public contact before live checkout sessions can be made (commerce store verify).',
    tossKeys: 'Toss Payments live keys accepted',
    tossKeysHint: 'In live mode’s payment settings choose Toss Payments and save the live keys (live_ck_…, live_sk_…). They are checked with Toss when saved.',
    returnUrlDomains: 'Return-URL domains',
    returnUrlDomainsHint: 'Add the domains of your site that buyers return to after paying, in live mode.',
    tossWebhook: 'Toss Payments webhook registered',
    tossWebhookHint: 'Register live mode’s webhook URL in the Toss Payments developer center. Done once the first webhook arrives.',
    firstLivePayment: 'First live payment',
    firstLivePaymentHint: 'Make one real card payment with a low-priced product.',
    firstLiveRefund: 'First live refund',
    firstLiveRefundHint: 'Refund that payment to see a refund go through at Toss Payments.',
    notReady: 'Live mode cannot take real payments yet, so the figures below are empty. Still to do: {items}.',
    notReadyLink: 'See the go-live checklist in Settings',
  },
);

/** The checklist card of the settings page: each item done or missing, and for a missing one what to do. */
export function goLiveCard(lang: Lang, list: GoLiveChecklist): SafeHtml {
  const t = (k: Parameters<typeof m>[1], v?: Record<string, string>) => m(lang, k, v);
  const item = (i: { item: GoLiveItem; done: boolean }) =>
    html`<li data-testid="go-live-${i.item}" data-done="${String(i.done)}"><span class="tag ${i.done ? 'good' : 'bad'}">${i.done ? t('done') : t('missing')}</span> <strong>${t(i.item)}</strong>${i.done ? '' : html`<br><span class="hint">${t(`${i.item}Hint`)}</span>`}</li>`;
  return html`<section class="card golive" aria-labelledby="golive-h" data-testid="go-live">
<h2 id="golive-h">${t('title')} <span class="tag ${list.complete ? 'good' : 'bad'}" data-testid="go-live-progress">${t('progress', { done: String(list.done), total: String(list.items.length) })}</span></h2>
<p class="muted">${t('intro')}</p>
<ul class="checklist">${list.items.map(item)}</ul>
</section>`;
}

/**
 * The items without which a live checkout cannot be paid: until they are done, live figures (home, reconciliation)
 * stay empty for a reason the seller should be told rather than shown zeros.
 */
export const LIVE_PAYMENT_PREREQUISITES: readonly GoLiveItem[] = ['businessDetails', 'verifiedContact', 'tossKeys', 'returnUrlDomains'];

/** In live mode, a notice naming what still stops live payments; nothing when they can be taken (or in test mode). */
export function liveNotReadyNotice(lang: Lang, mode: 'test' | 'live', list: GoLiveChecklist): SafeHtml | '' {
  if (mode !== 'live') return '';
  const missing = list.items.filter((i) => !i.done && LIVE_PAYMENT_PREREQUISITES.includes(i.item));
  if (missing.length === 0) return '';
  const items = missing.map((i) => m(lang, i.item)).join(', ');
  return html`<div class="banner info" role="status" data-testid="live-not-ready">${m(lang, 'notReady', { items })} <a href="/dashboard/settings">${m(lang, 'notReadyLink')}</a></div>`;
}
