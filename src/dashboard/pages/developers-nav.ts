import { html, raw, type SafeHtml } from '../../pages/html';
import type { Lang } from '../i18n';

const TABS = [
  { href: '/dashboard/developers', ko: 'API 키', en: 'API keys' },
  { href: '/dashboard/developers/webhooks', ko: '웹훅', en: 'Webhooks' },
  { href: '/dashboard/developers/events', ko: '이벤트 로그', en: 'Event log' },
  { href: '/dashboard/developers/mailbox', ko: '메일함', en: 'Mailbox' },
];

/** The tabs of the Developers section. */
export function developersTabs(lang: Lang, current: string): SafeHtml {
  return html`<nav class="sections" aria-label="${lang === 'en' ? 'Developers' : '개발자'}" style="margin:0 0 12px;border-radius:12px">${TABS.map(
    (t) => html`<a href="${t.href}"${t.href === current ? raw(' aria-current="page"') : ''}>${t[lang]}</a>`,
  )}</nav>`;
}
