import { html, raw, type SafeHtml } from './html';

/** The hosted pages' stylesheet; the seller dashboard (src/dashboard/layout.ts) builds on it. */
export const CSS = raw(`
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:#f2f4f6;color:#191f28;font:16px/1.5 -apple-system,BlinkMacSystemFont,"Apple SD Gothic Neo","Noto Sans KR","Malgun Gothic",sans-serif}
:root{--col:480px}
main{max-width:var(--col);margin:0 auto;padding:16px}
.store{display:flex;justify-content:space-between;align-items:center;color:#4e5968;font-size:14px;margin:4px 2px 12px}
.badge{background:#fff4e5;color:#8a4b00;border:1px solid #ffd8a8;border-radius:999px;padding:2px 10px;font-size:12px;font-weight:600}
.card{background:#fff;border-radius:16px;padding:20px;margin-bottom:12px;box-shadow:0 1px 2px rgba(0,0,0,.04)}
h1{font-size:22px;margin:0 0 12px}
h2{font-size:16px;margin:0 0 12px}
.product{font-size:18px;font-weight:700;margin:0}
.muted{color:#6b7684;font-size:14px;margin:4px 0 0}
dl.amounts{display:grid;grid-template-columns:1fr auto;gap:6px 12px;margin:16px 0 0}
dl.amounts dt{color:#4e5968}
dl.amounts dd{margin:0;text-align:right;font-variant-numeric:tabular-nums}
dl.amounts .total{font-weight:700;font-size:18px;color:#191f28}
dl.amounts .discount{color:#c4162a}
label{display:block;font-weight:600;font-size:14px;margin:14px 0 6px}
input[type=text],input[type=email],input[type=tel]{width:100%;font-size:16px;padding:12px 14px;border:1px solid #d1d6db;border-radius:10px;background:#fff;color:#191f28}
input:focus{outline:2px solid #3182f6;outline-offset:1px}
input[aria-invalid=true]{border-color:#c4162a;background:#fff5f5}
input[readonly]{background:#f2f4f6;color:#333d4b;border-style:dashed}
.row{display:flex;gap:8px}
.row input{flex:1}
.err{color:#c4162a;font-size:14px;margin:6px 0 0}
.ok{color:#0a7c42;font-size:14px;margin:6px 0 0}
.hint{color:#4e5968;font-size:13px;margin:6px 0 0}
fieldset{border:0;margin:0;padding:0}
legend{font-weight:600;font-size:14px;padding:0;margin:0 0 8px}
.methods{display:grid;grid-template-columns:1fr 1fr;gap:8px}
.method{display:flex;align-items:center;gap:8px;border:1px solid #d1d6db;border-radius:10px;padding:12px;margin:0;font-weight:500;font-size:15px;cursor:pointer}
.method:has(input:checked){border-color:#3182f6;background:#e8f3ff}
form:has(input[name=method]:checked:not([value=card]):not([value=foreign_card])) .card-fields{display:none}
form:has(input[name=method][value=foreign_card]:checked) .installment-field{display:none}
.cash-fields{margin-top:16px}
.tax-invoice-fields{display:none}.cash-fields:has(input[name=cashReceiptType][value=tax_invoice]:checked) .tax-invoice-fields{display:block}.cash-fields:has(input[name=cashReceiptType][value=tax_invoice]:checked) :is(label[for=cashReceiptNumber],#cashReceiptNumber){display:none}
form:has(input[name=method]:checked:not([value=transfer]):not([value=virtual_account])) .cash-fields,form:not(:has(input[name=method]:checked)) .cash-fields{display:none}
button,.button{display:block;width:100%;border:0;border-radius:12px;padding:15px;font-size:17px;font-weight:700;text-align:center;text-decoration:none;cursor:pointer}
.pay{background:#1b64da;color:#fff;margin-top:20px}
.secondary{background:#e8f3ff;color:#1b64da}
.apply{width:auto;padding:0 18px;font-size:15px;background:#f2f4f6;color:#333d4b;border:1px solid #d1d6db}
.danger{background:#f2f4f6;color:#4e5968}
.banner{border-radius:10px;padding:12px 14px;margin:0 0 12px;font-size:14px}
.banner.error{background:#fff0f0;color:#b3261e}
.banner.info{background:#f2f8ff;color:#1b64da}
.test{background:#fff9ed;border:1px dashed #ffc76b;border-radius:10px;padding:10px 12px;font-size:13px;color:#6b4a00;margin-top:10px}
.test code{font-size:13px}
.test ul{margin:6px 0;padding-left:18px}
.cancel{display:block;text-align:center;color:#4e5968;margin:16px 0 4px;font-size:15px}
.center{text-align:center}
.big{font-size:40px;margin:8px 0}
.desc{color:#333d4b;font-size:14px;margin:8px 0 0;white-space:pre-line}
.expiry{color:#4e5968;font-size:14px;margin:-4px 0 12px}
form.coupon{margin:0 0 4px;padding-bottom:12px;border-bottom:1px solid #f2f4f6}
form.coupon label{margin-top:0}
select{width:100%;font-size:16px;padding:12px 14px;border:1px solid #d1d6db;border-radius:10px;background:#fff;color:#191f28}
.method-set{margin-top:16px}
.method-name{flex:1}
.agreements{margin-top:18px;border:1px solid #e5e8eb;border-radius:10px;padding:8px 12px}
.agreements legend{padding:0 4px}
.recurring{margin-top:18px;border:1px solid #1b64da;border-radius:10px;padding:10px 12px;background:#f4f8ff}
.recurring h2{font-size:15px;margin:0 0 6px}
.recurring .amounts{margin:6px 0}
.recurring .price-change{margin:6px 0;padding:6px 8px;border-left:3px solid #1b64da;background:#fff;font-size:14px}
label.check{display:flex;align-items:flex-start;gap:8px;font-weight:500;font-size:14px;margin:8px 0 2px;cursor:pointer}
label.check input{width:20px;height:20px;margin:1px 0 0;flex:none}
label.check.all{font-weight:700;font-size:15px;padding-bottom:8px;border-bottom:1px solid #f2f4f6}
.agreement details{margin:0 0 4px 28px;font-size:13px;color:#4e5968}
.agreement summary{cursor:pointer;color:#4e5968;text-decoration:underline}
.agreement details p{margin:6px 0;line-height:1.6}
ul.terms{margin:0;padding-left:18px;font-size:14px;color:#333d4b}
ul.terms li{margin:4px 0}
.sr-only{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap;border:0}
button:disabled{opacity:.6;cursor:progress}
.key{display:flex;gap:8px;align-items:center;margin-top:8px}
.key code{flex:1;min-width:0;font-size:15px;background:#f2f4f6;border-radius:8px;padding:10px 12px;user-select:all;-webkit-user-select:all;white-space:nowrap;overflow-x:auto;overflow-wrap:normal}
.key button{width:auto;padding:10px 14px;font-size:14px;background:#e8f3ff;color:#1b64da}
@media (max-width:480px){.key{flex-wrap:wrap}.key code{flex-basis:100%}}
ul.list{list-style:none;margin:0;padding:0}
ul.list li{border-top:1px solid #f2f4f6;padding:10px 0}
ul.list li:first-child{border-top:0;padding-top:0}
.line{display:flex;justify-content:space-between;gap:12px}
.status{display:inline-block;border-radius:999px;padding:2px 10px;font-size:13px;font-weight:600;background:#e8f3ff;color:#1b64da}
.status.rejected,.status.canceled{background:#f2f4f6;color:#4e5968}
.status.approved{background:#e9f9ef;color:#0a7c42}
.status.held{background:#fff4e5;color:#8a4b00}
.card .card{box-shadow:none;border:1px solid #e5e8eb;padding:16px}
footer.biz{width:calc(100% - 32px);max-width:calc(var(--col) - 32px);margin:4px auto 24px;padding:12px 0 0;color:#4e5968;font-size:12px;line-height:1.6;border-top:1px solid #d1d6db}
footer.biz p{margin:0}
footer.biz a{color:#4e5968}
footer.biz .sample{color:#8a5a00;font-weight:600;margin-bottom:4px}
`);

export interface PageOptions {
  title: string;
  /** The page's language (`<html lang>`): Korean unless a page offers English (the receipt's `?lang=en`). */
  lang?: 'ko' | 'en';
  /** Reload this URL after `refreshSeconds` (status pages that wait on a payment being settled). */
  refresh?: { url: string; seconds: number };
  head?: SafeHtml;
  /** The seller's business details (src/pages/footer.ts); every page of a known store passes one. */
  footer?: SafeHtml;
  /** Progressive enhancement only: every page works without it (served same-origin, CSP `script-src 'self'`). */
  script?: string;
}

/**
 * A page that waits on something reloads itself with a meta refresh. When the page also has the script, the refresh
 * is only for browsers without JavaScript (<noscript>): the script polls and moves on only once there is something
 * new to show, instead of reloading on a timer (WCAG 2.2.1).
 */
function refreshTag(opts: PageOptions): SafeHtml | '' {
  if (!opts.refresh) return '';
  const tag = html`<meta http-equiv="refresh" content="${opts.refresh.seconds};url=${opts.refresh.url}">`;
  return opts.script ? html`<noscript>${tag}</noscript>` : tag;
}

/** The page frame: Korean (or the page's language), phone-first (viewport, one column), no external resources. */
export function layout(opts: PageOptions, body: SafeHtml): string {
  return html`<!doctype html>
<html lang="${opts.lang ?? 'ko'}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="strict-origin">
${refreshTag(opts)}
<title>${opts.title}</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<style>${CSS}</style>
${opts.head ?? ''}
</head>
<body>
<main>
${body}
</main>
${opts.footer ?? ''}
${opts.script ? html`<script src="${opts.script}" defer></script>` : ''}
</body>
</html>`.value;
}
