import { html, raw, type SafeHtml } from '../pages/html';
import { CSS as PAGE_CSS } from '../pages/layout';
import { frameText, type Lang } from './i18n';
import { can, type Permission } from './roles';
import type { MemberRole } from './tables';
import type { Mode } from '../platform/tables';

/** The dashboard's additions to the hosted pages' stylesheet: a wider frame, a header, a nav, tables. */
const DASH_CSS = raw(`
main.dash{max-width:1120px;padding:16px 16px 48px}
.dash .muted,.dash .hint{color:#4e5968}
.skip{position:absolute;left:-9999px}
.skip:focus{left:8px;top:8px;background:#fff;padding:8px;z-index:10}
header.top{background:#191f28;color:#fff;padding:10px 16px;display:flex;flex-wrap:wrap;gap:8px 12px;align-items:center;justify-content:space-between}
body.mode-test header.top{background:#7a4b00}
header.top a{color:#fff;text-decoration:none}
.brand{font-weight:700;font-size:16px;display:flex;gap:8px;align-items:baseline;min-width:0;flex-wrap:wrap}
.brand .storename{font-weight:400;font-size:13px;opacity:.9;overflow-wrap:anywhere}
.modeform{display:flex;align-items:center;gap:8px;margin:0}
.pill{white-space:nowrap;display:inline-block;border-radius:999px;padding:2px 10px;font-size:12px;font-weight:700}
.pill.test{background:#ffd8a8;color:#4a2c00}
.pill.live{background:#b7f0cf;color:#06391d}
.dash button,.dash .button{display:inline-block;width:auto;border-radius:10px;padding:9px 14px;font-size:14px;font-weight:600;margin:0}
header.top button{background:#fff;color:#191f28;border:0;padding:6px 10px;font-size:13px}
.usermenu{display:flex;gap:8px;align-items:center;flex-wrap:wrap;font-size:13px}
.usermenu form{margin:0}
.testbanner{background:#fff4e5;color:#5c3a00;border-bottom:2px dashed #f59f00;padding:8px 16px;font-size:13px;font-weight:600}
nav.sections{background:#fff;border-bottom:1px solid #e5e8eb;display:flex;flex-wrap:wrap;gap:0 4px;padding:0 12px}
nav.sections a{display:block;padding:12px 10px;color:#333d4b;text-decoration:none;font-size:15px;white-space:nowrap;border-bottom:3px solid transparent}
@media (max-width:720px){nav.sections{padding:2px 8px}nav.sections a{padding:8px 8px 6px}}
nav.sections a[aria-current=page]{border-color:#3182f6;color:#1b64da;font-weight:700}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(150px,1fr));gap:12px}
.stat{background:#fff;border-radius:12px;padding:14px}
.stat .label{color:#4e5968;font-size:13px;margin:0}
.stat .value{font-size:20px;font-weight:700;margin:4px 0 0;font-variant-numeric:tabular-nums;overflow-wrap:anywhere}
.table-wrap{overflow-x:auto;background:#fff;border-radius:12px;margin-bottom:12px}
table{border-collapse:collapse;width:100%;font-size:14px}
.table-wrap table{min-width:640px}
td code{overflow-wrap:normal;word-break:break-all}
th,td{text-align:left;padding:10px 12px;border-bottom:1px solid #e5e8eb;vertical-align:top}
th{color:#4e5968;font-weight:600;white-space:nowrap;background:#f9fafb}
td.num{text-align:right;font-variant-numeric:tabular-nums}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:13px;overflow-wrap:anywhere}
.secret{background:#f2f8ff;border:1px solid #b3d4ff;border-radius:10px;padding:12px;margin:0 0 12px;overflow-wrap:anywhere}
.actions{display:flex;gap:8px;flex-wrap:wrap;align-items:center}
.actions form{margin:0}
.primary,.dash-body .pay{background:#1b64da;color:#fff;border:0}
.plain{background:#f2f4f6;color:#333d4b;border:1px solid #d1d6db}
.warn{background:#fff0f0;color:#b3261e;border:1px solid #ffc9c9}
.dash select,.dash input[type=password],.dash input[type=number],.dash input[type=date],.dash input[type=url],.dash textarea{width:100%;font-size:16px;padding:10px 12px;border:1px solid #d1d6db;border-radius:10px;background:#fff;color:#191f28}
.filters{display:grid;grid-template-columns:repeat(auto-fit,minmax(160px,1fr));gap:8px 12px;align-items:end}
.filters label{margin:0 0 4px;word-break:keep-all}
.pager{display:flex;gap:12px;align-items:center;justify-content:space-between;font-size:14px;margin:8px 0}
.testrow td:first-child{box-shadow:inset 4px 0 0 #f59f00}
.tag{display:inline-block;border-radius:6px;padding:1px 6px;font-size:12px;background:#f2f4f6;color:#333d4b}
.tag.test{background:#fff4e5;color:#5c3a00}
.tag.bad{background:#fff0f0;color:#a61b12}
.tag.good{background:#e9f9f0;color:#06582c}
.golive{word-break:keep-all}.checklist{list-style:none;padding:0;margin:0}.checklist li{margin:10px 0;overflow-wrap:anywhere}
.narrow{max-width:420px;margin:24px auto}
.dash .method{overflow-wrap:anywhere;min-width:0;font-size:14px}
.dash pre{max-width:100%;overflow-x:auto}
svg.chart{width:100%;height:140px;display:block}
.chart-box{margin-top:8px}
.chart-max,.chart-axis{color:#4e5968;font-size:13px;margin:0;font-variant-numeric:tabular-nums}
.chart-max{margin-bottom:4px}
.chart-axis{display:flex;justify-content:space-between;gap:8px;margin-top:4px}
`);

export interface NavItem {
  href: string;
  /** A key of the frame's catalog, or a literal label per language. */
  label: { ko: string; en: string };
  permission: Permission;
}

/**
 * The section navigation, in order. A page adds its entry here; entries the member's role may not open are hidden.
 */
export const NAV: NavItem[] = [
  { href: '/dashboard', label: { ko: '홈', en: 'Home' }, permission: 'home' },
  { href: '/dashboard/orders', label: { ko: '주문', en: 'Orders' }, permission: 'orders' },
  { href: '/dashboard/refund-requests', label: { ko: '환불 요청', en: 'Refund requests' }, permission: 'refunds' },
  { href: '/dashboard/subscriptions', label: { ko: '구독', en: 'Subscriptions' }, permission: 'subscriptions.test' },
  { href: '/dashboard/products', label: { ko: '상품', en: 'Products' }, permission: 'products' },
  { href: '/dashboard/licenses', label: { ko: '라이선스', en: 'Licenses' }, permission: 'licenses' },
  { href: '/dashboard/reconciliation', label: { ko: '대사', en: 'Reconciliation' }, permission: 'reconciliation' },
  { href: '/dashboard/vat', label: { ko: '부가세', en: 'VAT' }, permission: 'tax' },
  { href: '/dashboard/tax-invoices', label: { ko: '세금계산서', en: 'Tax invoices' }, permission: 'tax' },
  { href: '/dashboard/developers', label: { ko: '개발자', en: 'Developers' }, permission: 'developers' },
  { href: '/dashboard/settings', label: { ko: '설정', en: 'Settings' }, permission: 'settings' },
  { href: '/dashboard/audit', label: { ko: '감사 로그', en: 'Audit log' }, permission: 'audit' },
];

/** What the layout needs to know about the signed-in person (a subset of the request's DashboardContext). */
export interface LayoutContext {
  lang: Lang;
  csrfToken: string;
  mode: Mode;
  member: { name: string; role: MemberRole; storeName: string };
}

export interface DashboardPageOptions {
  title: string;
  /** The NAV href to mark as current. */
  nav?: string;
}

const HTMX_CONFIG = raw(`{"allowEval":false,"allowScriptTags":false,"includeIndicatorStyles":false,"responseHandling":[{"code":"204","swap":false},{"code":"...","swap":true}]}`);

function head(lang: Lang, title: string): SafeHtml {
  return html`<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="same-origin">
<link rel="icon" href="data:,">
<meta name="htmx-config" content="${HTMX_CONFIG.value}">
<title>${title} · ${frameText(lang, 'app.title')}</title>
<style>${PAGE_CSS}${DASH_CSS}</style>
<script src="/dashboard/assets/htmx.min.js" defer></script>
<script src="/dashboard/assets/webauthn.min.js" defer></script>
<script src="/dashboard/assets/passkey.js" defer></script>
</head>`;
}

export function csrfInput(token: string): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${token}">`;
}

/**
 * The signed-in frame: header (store, mode switch, person, language, sign-out), test banner, section nav, main. */
export function dashboardLayout(ctx: LayoutContext, opts: DashboardPageOptions, body: SafeHtml): string {
  const t = (k: Parameters<typeof frameText>[1], v?: Record<string, string | number>) => frameText(ctx.lang, k, v);
  const other = ctx.mode === 'test' ? 'live' : 'test';
  const nav = NAV.filter((n) => can(ctx.member.role, n.permission));
  // hx-headers puts the CSRF token on every htmx request; plain forms carry it in their _csrf field. Links and forms
  // are boosted (htmx swaps the body); the header's forms are not, because they change <html lang> and the body's
  // mode class, which a body swap keeps.
  const hxHeaders = JSON.stringify({ 'x-csrf-token': ctx.csrfToken });
  return html`${head(ctx.lang, opts.title)}
<body class="dash-body mode-${ctx.mode}" hx-boost="true" hx-headers="${hxHeaders}">
<a class="skip" href="#main">${ctx.lang === 'en' ? 'Skip to content' : '본문으로 건너뛰기'}</a>
<header class="top">
  <div class="brand"><a href="/dashboard">${t('app.title')}</a><span class="storename">${ctx.member.storeName}</span></div>
  <form class="modeform" method="post" action="/dashboard/mode" hx-boost="false">
    ${csrfInput(ctx.csrfToken)}
    <span class="pill ${ctx.mode}" data-testid="mode">${t(ctx.mode === 'test' ? 'mode.test' : 'mode.live')}</span>
    <input type="hidden" name="mode" value="${other}"><button type="submit">${t(other === 'live' ? 'mode.switchToLive' : 'mode.switchToTest')}</button>
  </form>
  <div class="usermenu">
    <a href="/dashboard/account/security" data-testid="account-link">${ctx.member.name} · ${t(`role.${ctx.member.role}`)}</a>
    <form method="post" action="/dashboard/lang" hx-boost="false">${csrfInput(ctx.csrfToken)}<input type="hidden" name="lang" value="${ctx.lang === 'ko' ? 'en' : 'ko'}"><button type="submit" lang="${ctx.lang === 'ko' ? 'en' : 'ko'}">${t('lang.switch')}</button></form>
    <form method="post" action="/dashboard/logout" hx-boost="false">${csrfInput(ctx.csrfToken)}<button type="submit">${t('signout')}</button></form>
  </div>
</header>
${ctx.mode === 'test' ? html`<aside class="testbanner" aria-label="${t('mode.label')}: ${t('mode.test')}">${t('mode.testBanner')}</aside>` : ''}
<nav class="sections" aria-label="${t('nav.menu')}">
  ${nav.map((n) => html`<a href="${n.href}"${opts.nav === n.href ? raw(' aria-current="page"') : ''}>${n.label[ctx.lang]}</a>`)}
</nav>
<main class="dash" id="main">
<h1>${opts.title}</h1>
${body}
</main>
</body>
</html>`.value;
}

/** A page without the signed-in frame (sign-in, errors before sign-in). */
export function bareLayout(lang: Lang, title: string, body: SafeHtml): string {
  return html`${head(lang, title)}
<body class="dash-body">
<main class="dash"><div class="narrow">${body}</div></main>
</body>
</html>`.value;
}
