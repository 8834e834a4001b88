import { escapeHtml } from '../pages/html';
import { PRODUCT_NAME } from '../platform/brand';
import type { Guide, Lang, ManualPage } from './guides';

const TEXT = {
  ko: { guides: '가이드', reference: 'API 레퍼런스', console: '판매자 콘솔 API', other: 'English', intro: '판매자 서버에서 결제를 받고, 웹훅을 확인하고, 라이선스를 나눠 주는 방법을 차례로 설명합니다. 모든 코드 예시는 실제 서비스를 상대로 테스트에서 실행됩니다.', refAbout: '모든 엔드포인트, 요청·응답 스키마, 오류 코드 (OpenAPI 3.1)', consoleAbout: '상점, API 키, 설정, 상품, 쿠폰, 웹훅 엔드포인트 (소유자 토큰)', openapi: 'OpenAPI 문서 (JSON)', home: '문서 홈' },
  en: { guides: 'Guides', reference: 'API reference', console: 'Seller console API', other: '한국어', intro: 'How a seller’s server takes payments, checks webhooks and hands out licenses, step by step. Every code example is run by a test against the real service.', refAbout: 'Every endpoint, request and response schema and error code (OpenAPI 3.1)', consoleAbout: 'Stores, API keys, settings, products, coupons, webhook endpoints (owner token)', openapi: 'OpenAPI document (JSON)', home: 'Docs home' },
} as const;

const CSS = `
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font-family:-apple-system,BlinkMacSystemFont,"Apple SD Gothic Neo","Noto Sans KR","Malgun Gothic","NanumGothic","Segoe UI",Roboto,sans-serif;color:#1f2430;background:#fff;line-height:1.75;word-break:keep-all;overflow-wrap:anywhere}
header{background:#1c2434;color:#fff}
.bar{max-width:960px;margin:0 auto;padding:10px 16px;display:flex;align-items:center;gap:12px;flex-wrap:wrap}
.bar a{color:#fff;text-decoration:none}
.brand{display:flex;align-items:center;gap:8px;font-weight:700;font-size:1.1rem;margin-right:auto}
.brand svg{width:28px;height:28px}
.bar nav{display:flex;gap:14px;font-size:.95rem}
.bar nav a{opacity:.9}
.lang{border:1px solid rgba(255,255,255,.5);border-radius:6px;padding:2px 10px}
main{max-width:960px;margin:0 auto;padding:20px 16px 64px}
h1{font-size:1.7rem;line-height:1.35;margin:.4em 0 .6em}
h2{font-size:1.3rem;line-height:1.4;margin:2em 0 .6em;padding-top:.4em;border-top:1px solid #e5e8ef}
h3{font-size:1.08rem;margin:1.6em 0 .4em}
p,li{font-size:1rem}
a{color:#2b59c3}
code{font-family:"D2Coding","NanumGothicCoding",ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em;background:#f1f3f8;border-radius:4px;padding:.1em .35em;word-break:normal;overflow-wrap:anywhere}
td code,th code{white-space:nowrap}
.code{margin:1em 0;background:#141a26;border-radius:8px}
.code pre{margin:0;background:#141a26;color:#e8ecf4;border-radius:8px;padding:14px 16px;overflow-x:auto;line-height:1.55;font-size:.85rem}
.code pre code{background:none;padding:0;color:inherit;word-break:normal;white-space:pre}
.code-lang{display:block;padding:6px 16px 0;text-align:right;font-size:.7rem;line-height:1.4;color:#9aa6bd;text-transform:uppercase;letter-spacing:.05em}
.code-lang+pre{padding-top:4px;border-radius:0 0 8px 8px}
.table{overflow-x:auto;margin:1em 0}
table{border-collapse:collapse;min-width:100%;font-size:.92rem}
img{max-width:100%;height:auto}
th,td{border:1px solid #dde2ec;padding:6px 10px;text-align:left;vertical-align:top}
th{background:#f5f7fb}
blockquote{margin:1em 0;padding:.6em 1em;border-left:4px solid #2b59c3;background:#f5f8ff}
.cards{list-style:none;padding:0;display:grid;grid-template-columns:repeat(auto-fill,minmax(260px,1fr));gap:12px}
.cards li{border:1px solid #dde2ec;border-radius:10px;padding:14px 16px}
.cards a{font-weight:700;text-decoration:none}
.cards p{margin:.4em 0 0;color:#4a5266;font-size:.93rem;line-height:1.6}
.crumb{font-size:.9rem;margin:0 0 .5em}
.crumb a{text-decoration:none}
footer{max-width:960px;margin:0 auto;padding:0 16px 40px;color:#6b7385;font-size:.85rem}
@media (max-width:480px){h1{font-size:1.45rem}.bar{gap:10px}.brand{font-size:1rem}.brand svg{width:24px;height:24px}.bar nav{font-size:.88rem;gap:10px}.bar nav .guides{display:none}.lang{font-size:.85rem;padding:1px 8px}}
`;

const MARK = `<svg viewBox="0 0 32 32" aria-hidden="true"><rect width="32" height="32" rx="7" fill="#2b59c3"/><path d="M7 10l3.2 12L14 12l2 0 3.8 10L23 10" fill="none" stroke="#fff" stroke-width="2.6" stroke-linecap="round" stroke-linejoin="round"/><path d="M6.5 15.5h19" stroke="#fff" stroke-width="2" stroke-linecap="round"/></svg>`;

function page(lang: Lang, title: string, otherLangHref: string, body: string): string {
  const t = TEXT[lang];
  return `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" type="image/svg+xml" href="/docs/favicon.svg">
<style>${CSS}</style>
</head>
<body>
<header><div class="bar">
<a class="brand" href="/docs/${lang}">${MARK}<span>${PRODUCT_NAME}</span></a>
<nav><a class="guides" href="/docs/${lang}">${t.guides}</a><a href="/docs/reference">${t.reference}</a></nav>
<a class="lang" href="${escapeHtml(otherLangHref)}" hreflang="${lang === 'ko' ? 'en' : 'ko'}" lang="${lang === 'ko' ? 'en' : 'ko'}">${t.other}</a>
</div></header>
<main>
${body}
</main>
<footer>${PRODUCT_NAME}</footer>
</body>
</html>`;
}

export function indexPage(lang: Lang, guides: Guide[], manual: ManualPage[] = []): string {
  const t = TEXT[lang];
  const cards = guides
    .filter((g) => g.lang === lang)
    .map((g) => `<li><a href="/docs/${lang}/${g.slug}">${escapeHtml(g.title)}</a><p>${escapeHtml(g.summary)}</p></li>`)
    .join('\n');
  const body = `<h1>${PRODUCT_NAME} ${lang === 'ko' ? '문서' : 'documentation'}</h1>
<p>${t.intro}</p>
<h2>${t.guides}</h2>
<ul class="cards">
${cards}
</ul>
${manual.length ? `<h2>${lang === 'ko' ? '매뉴얼 (영어)' : 'Manual'}</h2>
<ul class="cards">
${manual.map((m) => `<li><a href="/docs/manual/${m.slug}" hreflang="en">${escapeHtml(m.title)}</a><p lang="en">${escapeHtml(m.summary)}</p></li>`).join('\n')}
</ul>` : ''}
<h2>${t.reference}</h2>
<ul class="cards">
<li><a href="/docs/reference">${t.reference}</a><p>${t.refAbout} · <a href="/v1/openapi.json">${t.openapi}</a></p></li>
<li><a href="/admin/docs">${t.console}</a><p>${t.consoleAbout} · <a href="/admin/v1/openapi.json">${t.openapi}</a></p></li>
</ul>`;
  return page(lang, `${PRODUCT_NAME} — ${lang === 'ko' ? '문서' : 'Docs'}`, `/docs/${lang === 'ko' ? 'en' : 'ko'}`, body);
}

export function guidePage(guide: Guide, hasOther: boolean): string {
  const other = guide.lang === 'ko' ? 'en' : 'ko';
  const crumb = `<p class="crumb"><a href="/docs/${guide.lang}">← ${TEXT[guide.lang].home}</a></p>`;
  return page(guide.lang, `${guide.title} — ${PRODUCT_NAME}`, hasOther ? `/docs/${other}/${guide.slug}` : `/docs/${other}`, crumb + guide.html);
}

/** A manual page (English only; the language button leads to the Korean docs home). */
export function manualPage(m: ManualPage): string {
  const crumb = `<p class="crumb"><a href="/docs/en">← ${TEXT.en.home}</a></p>`;
  return page('en', `${m.title} — ${PRODUCT_NAME}`, '/docs/ko', crumb + m.html);
}
