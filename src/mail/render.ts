/**
 * Renders one buyer mail: picks the kind's copy in the buyer's language (the copy lives in copy/, one file per family
 * of kinds) and lays it out as HTML with a plain-text alternative, the store's name and its 사업자 정보 footer.
 */
import type { BusinessDetailsView } from '../stores/schemas';
import { FOOTER_LABELS, storeFooter } from '../pages/footer';
import { html, raw, type SafeHtml } from '../pages/html';
import type { MailKind } from './kinds';
import type { MailLang, RenderedMail, RenderInput } from './render-input';
import { COMMON, FMT, keysOf, receiptLink, s, type Content, type Copy, type Ctx } from './copy/kit';
import { ORDER_COPY } from './copy/orders';
import { REFUND_COPY } from './copy/refunds';
import { LIFECYCLE_COPY } from './copy/subscription-lifecycle';
import { CHANGE_COPY } from './copy/price-and-plan-changes';
import { VIRTUAL_ACCOUNT_COPY } from './copy/virtual-account';

/**
 * Every kind's copy, Korean beside English: one entry per kind with both languages (the compiler refuses a kind or a
 * language missing; test/mail/english.test.ts renders every kind in both). The Korean is the service's original text.
 */
const COPY: Record<MailKind, Record<MailLang, Copy>> = { ...ORDER_COPY, ...REFUND_COPY, ...LIFECYCLE_COPY, ...CHANGE_COPY, ...VIRTUAL_ACCOUNT_COPY };

/** The content of each kind in the mail's language, from what the event said and what the mail read at send time. */
function content(i: RenderInput, lang: MailLang): Content {
  const sub = i.subscription ?? {};
  const words = COMMON[lang];
  const ctx: Ctx = {
    i,
    d: i.data,
    sub,
    change: (i.data.change ?? {}) as Record<string, unknown>,
    name: s(sub.productName) || s(i.order?.productName),
    f: FMT[lang],
    receipt: i.order ? [[words.receipt, receiptLink(i.order.receiptUrl, lang)]] : [],
    keys: keysOf(i.order),
    portal: (label = words.portal) => (i.portalUrl ? [[label, i.portalUrl]] : []),
  };
  return COPY[i.kind][lang](ctx);
}

const STYLE =
  'body{margin:0;padding:0;background:#f5f5f7;font-family:-apple-system,BlinkMacSystemFont,"Apple SD Gothic Neo","Malgun Gothic",sans-serif;color:#1d1d1f}' +
  '.wrap{max-width:560px;margin:0 auto;padding:24px 16px}.card{background:#fff;border-radius:12px;padding:24px}' +
  'h1{font-size:20px;margin:0 0 16px}table{width:100%;border-collapse:collapse;margin:16px 0}th{text-align:left;color:#6e6e73;font-weight:normal;padding:6px 8px 6px 0;width:35%;vertical-align:top}' +
  'td{padding:6px 0;overflow-wrap:anywhere}.keys code{display:block;background:#f5f5f7;padding:8px;border-radius:6px;margin:4px 0;font-size:14px}' +
  'a.btn{display:inline-block;margin:4px 0;color:#0066cc}.notes{color:#424245;font-size:14px}.biz{color:#6e6e73;font-size:12px;margin-top:16px}';

/** Renders one mail: subject, HTML and its plain-text alternative. */
export function renderMail(i: RenderInput): RenderedMail {
  const lang: MailLang = i.lang === 'en' ? 'en' : 'ko';
  const c = withManageLink(content(i, lang), i, lang);
  const subject = `[${i.storeName}] ${c.title}`;
  const keys = c.keys ?? [];
  const text = [
    c.title,
    '',
    ...c.intro,
    '',
    ...c.rows.map(([k, v]) => `${k}: ${v}`),
    ...(keys.length ? ['', `${COMMON[lang].keys}:`, ...keys.map((k) => `  ${k}`)] : []),
    ...(c.links.length ? ['', ...c.links.map(([k, v]) => `${k}: ${v}`)] : []),
    ...(c.notes.length ? ['', ...c.notes] : []),
    '',
    '--',
    ...footerText(i.storeName, i.business, lang),
    '',
  ].join('\n');
  const body: SafeHtml = html`<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${subject}</title><style>${raw(STYLE)}</style></head>
<body><div class="wrap"><div class="card">
<p>${i.storeName}</p>
<h1>${c.title}</h1>
${c.intro.map((p) => html`<p>${p}</p>`)}
<table>${c.rows.map(([k, v]) => html`<tr><th>${k}</th><td>${v}</td></tr>`)}</table>
${keys.length ? html`<div class="keys"><p><strong>${COMMON[lang].keys}</strong></p>${keys.map((k) => html`<code>${k}</code>`)}</div>` : ''}
${c.links.map(([k, v]) => html`<p><a class="btn" href="${v}">${k}</a></p>`)}
${c.notes.length ? html`<div class="notes">${c.notes.map((n) => html`<p>${n}</p>`)}</div>` : ''}
</div>
${storeFooter(i.storeName, i.business, lang)}
</div></body></html>`;
  return { subject, text, html: body.value };
}

/**
 * Every mail about a subscription lets the buyer manage it (cancel where they signed up: 전자상거래법 제21조의2,
 * the KFTC's 2025 guidance): the copy's own portal link where it has one (an action it asks for), else the signed
 * 구독 관리 link, added here once for every kind rather than in each kind's copy.
 */
function withManageLink(c: Content, i: RenderInput, lang: MailLang): Content {
  if (!i.manageUrl || (i.portalUrl && c.links.some(([, url]) => url.startsWith(i.portalUrl!)))) return c;
  return { ...c, links: [...c.links, [COMMON[lang].portal, i.manageUrl]] };
}

function footerText(storeName: string, b: BusinessDetailsView | null, lang: MailLang): string[] {
  const l = FOOTER_LABELS[lang];
  if (!b) return [`${l.seller}: ${storeName}`, l.missing];
  return [
    `${b.companyName} · ${l.representative} ${b.representative}`,
    `${l.businessNumber} ${b.businessNumber} · ${l.mailOrderNumber} ${b.mailOrderNumber}`,
    b.address,
    `${l.support} ${[b.supportPhone, b.supportEmail].filter(Boolean).join(' · ')}`,
  ];
}
