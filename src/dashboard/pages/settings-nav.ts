import { html, raw, type SafeHtml } from '../../pages/html';
import type { Lang } from '../i18n';
import { can } from '../roles';
import type { MemberRole } from '../tables';

const TABS = [
  { href: '/dashboard/settings', ko: '상점·결제', en: 'Store & payments', permission: 'settings' as const },
  { href: '/dashboard/settings/members', ko: '멤버', en: 'Members', permission: 'members' as const },
  { href: '/dashboard/settings/security', ko: '보안', en: 'Security', permission: 'members' as const },
  { href: '/dashboard/settings/settlements', ko: '정산', en: 'Settlements', permission: 'settlements' as const },
  { href: '/dashboard/settings/mails', ko: '구매자 메일', en: 'Buyer mails', permission: 'settings' as const },
];

export function settingsTabs(lang: Lang, role: MemberRole, current: string): SafeHtml {
  return html`<nav class="sections" aria-label="${lang === 'en' ? 'Settings' : '설정'}" style="margin:0 0 12px;border-radius:12px">${TABS.filter((t) => can(role, t.permission)).map(
    (t) => html`<a href="${t.href}"${t.href === current ? raw(' aria-current="page"') : ''}>${t[lang]}</a>`,
  )}</nav>`;
}
