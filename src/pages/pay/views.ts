/**
 * The payment page's views: the order summary and price, the payment form with its fields (coupon, installments,
 * 현금영수증, agreements, recurring terms), and test mode's approval page. Status pages and the receipt: status-page.ts.
 */
import type { SessionRow } from '../../checkout/model';
import type { ProductRow } from '../../catalog/model';
import { TEST_CARDS } from '../../payments';
import type { BusinessDetailsView } from '../../stores/schemas';
import { html, raw, type SafeHtml } from '../html';
import { layout } from '../layout';
import { INSTALLMENT_MIN_AMOUNT, INSTALLMENT_MONTHS, METHODS, ONE_TIME_ONLY_METHODS, type FieldErrors, type FormValues } from '../form';
import { storeFooter } from '../footer';
import { formatUsd } from '../../payments/foreign';
import { agreementDocs, agreementEnglish, refundTerms, refundTermsEn } from '../terms';
import { termsOfProduct } from '../../orders/terms';
import type { RecurringTerms } from '../../subscriptions/consent';
import type { PaymentMethod } from '../../payments/method';
import { cashReceiptField } from './cash-receipt-field';
import { payCopy, type PayCopy } from './copy';
import { langSwitch, type Lang } from '../lang';
import { recurringField } from './recurring-view';


export interface PageContext {
  session: SessionRow;
  product: ProductRow;
  storeName: string;
  /** The seller's business details for the footer; null only in test mode before the seller set them. */
  business: BusinessDetailsView | null;
  /** Test mode on the simulator: card number field, test cards, simulated approval for simple pay. */
  simulated: boolean;
  /** The page's language (src/pages/lang.ts); Korean when absent. */
  lang?: Lang;
  /** This page's address (path and query), for the language switch; no switch when absent. */
  here?: string;
}

export type FooterCtx = Pick<PageContext, 'storeName' | 'session'> & { business?: BusinessDetailsView | null; lang?: Lang; here?: string };
export const footerOf = (ctx: FooterCtx | undefined) => (ctx ? storeFooter(ctx.storeName, ctx.business, ctx.lang) : undefined);

export interface PriceLine {
  originalAmount: number;
  discount: number;
  amount: number;
  couponCode: string | null;
}

const cardGroups = (n: string) => n.replace(/(\d{4})(?=\d)/g, '$1 ');

export function planLine(s: SessionRow, p: ProductRow, c: PayCopy = payCopy('ko')): SafeHtml | null {
  if (!s.billing_interval) return null;
  const plan = p.plans.find((pl) => pl.id === s.plan_id);
  return html`<span translate="no">${plan?.name ?? s.plan_id}</span> · ${c.interval[s.billing_interval]}`;
}

/** The store's name (its own name, never translated: `translate="no"`), the test badge and the language switch. */
export function header(ctx: Pick<PageContext, 'storeName' | 'session'> & { lang?: Lang; here?: string }): SafeHtml {
  const c = payCopy(ctx.lang);
  const badge = ctx.session.mode === 'test' ? html`<span class="badge">${c.testMode}</span>` : '';
  return html`<div class="store"><span translate="no">${ctx.storeName}</span>${ctx.here ? html`<span class="tools">${badge}${langSwitch(ctx.here, c.lang)}</span>` : badge}</div>`;
}

export function summary(ctx: PageContext, price: PriceLine): SafeHtml {
  const c = payCopy(ctx.lang);
  const plan = planLine(ctx.session, ctx.product, c);
  return html`<section class="card" aria-label="${c.summary.aria}">
  <p class="product" translate="no">${ctx.product.name}</p>
  ${plan ? html`<p class="muted">${plan}</p>` : ''}
  ${ctx.product.description ? html`<p class="desc" translate="no" id="product-description">${ctx.product.description}</p>` : ''}
  <dl class="amounts">
    <dt>${c.summary.price}</dt><dd>${c.money(price.originalAmount)}</dd>
    ${ctx.session.trial_days ? html`<dt>${c.summary.trial}</dt><dd id="trial-days">${c.summary.trialDays(ctx.session.trial_days)}</dd>` : ''}
    ${price.discount > 0 ? html`<dt>${c.summary.coupon}${price.couponCode ? ` (${price.couponCode})` : ''}</dt><dd class="discount">-${c.money(price.discount)}</dd>` : ''}
    <dt class="total">${c.summary.total}</dt><dd class="total" id="total">${c.money(price.amount)}</dd>
  </dl>
</section>`;
}

const fieldError = (id: string, msg: string | undefined) => (msg ? html`<p class="err" id="${id}-err" role="alert">${msg}</p>` : '');
const invalid = (msg: string | undefined) => (msg ? html` aria-invalid="true"` : '');

function input(name: keyof FormValues, label: string, value: string, err: string | undefined, attrs: SafeHtml): SafeHtml {
  return html`<label for="${name}">${label}</label>
<input id="${name}" name="${name}" value="${value}"${attrs}${invalid(err)}${err ? html` aria-describedby="${name}-err"` : ''}>
${fieldError(name, err)}`;
}

/** The e-mail the seller fixed on the session (customerEmailLocked): read-only, with why; the server refuses any other. */
function lockedEmail(email: string, err: string | undefined, c: PayCopy): SafeHtml {
  return html`<label for="buyerEmail">${c.email}</label>
<input id="buyerEmail" name="buyerEmail" value="${email}" type="email" readonly aria-readonly="true" required${invalid(err)} aria-describedby="${err ? 'buyerEmail-locked buyerEmail-err' : 'buyerEmail-locked'}">
<p class="hint" id="buyerEmail-locked">${c.lockedEmail}</p>
${fieldError('buyerEmail', err)}`;
}

export interface FormPage {
  ctx: PageContext;
  price: PriceLine;
  values: FormValues;
  errors?: FieldErrors;
  /** A message for the whole form (a declined payment, a changed amount). */
  banner?: string;
  couponApplied?: boolean;
  now: Date;
  /** Subscriptions: what will be charged and when (the recurring-charge notice and its consent box). */
  recurring?: RecurringTerms;
  /** The methods offered: all of them, or for a subscription or trial only those the provider can make a billing key with. */
  methods: PaymentMethod[];
  /** PayPal offered: what it charges in US cents (the won amount at the store's rate). */
  paypalCents?: number | null;
  /** Whether any coupon could apply to this session (none for a free trial, nor where the store has none for the product). */
  couponField: boolean;
  /** 현금영수증 의무발행 applies to a bank payment of this amount (the store's setting and the amount after the coupon). */
  cashReceiptMandatory: boolean;
}

export const PAY_SCRIPT = '/pay-assets/pay.js';

function couponForm(f: FormPage, action: string, c: PayCopy): SafeHtml {
  const { values, errors = {} } = f;
  return html`<form class="coupon" id="coupon-form" method="post" action="${action}" novalidate>
    <input type="hidden" name="action" value="apply_coupon">${langField(c)}
    <label for="couponCode">${c.couponCode}</label>
    <div class="row">
      <input id="couponCode" name="couponCode" type="text" value="${values.couponCode}" autocomplete="off" autocapitalize="characters"${invalid(errors.couponCode)}${errors.couponCode ? html` aria-describedby="couponCode-err"` : ''}>
      <button class="apply" type="submit">${c.apply}</button>
    </div>
    ${fieldError('couponCode', errors.couponCode)}
    ${f.couponApplied && !errors.couponCode && f.price.discount > 0 ? html`<p class="ok" role="status">${c.couponApplied(f.price.discount)}</p>` : ''}
  </form>`;
}

function installmentField(f: FormPage, c: PayCopy): SafeHtml {
  if (f.price.amount < INSTALLMENT_MIN_AMOUNT || f.ctx.session.billing_interval) return html``;
  const v = f.values.installment || '0';
  return html`<div class="installment-field"><label for="installment">${c.installment}</label>
    <select id="installment" name="installment"${invalid(f.errors?.installment)}${f.errors?.installment ? html` aria-describedby="installment-err"` : ''}>
      <option value="0"${v === '0' ? html` selected` : ''}>${c.lumpSum}</option>
      ${INSTALLMENT_MONTHS.map((m) => html`<option value="${m}"${v === String(m) ? html` selected` : ''}>${c.months(m)}</option>`)}
    </select>
    ${fieldError('installment', f.errors?.installment)}
    <p class="hint">${c.installmentHint}</p></div>`;
}

function agreementsField(f: FormPage, c: PayCopy): SafeHtml {
  const { ctx, values, errors = {} } = f;
  const docs = agreementDocs(ctx.storeName, ctx.business, ctx.session.mode === 'live');
  const all = docs.every((d) => values[d.field]);
  return html`<fieldset class="agreements" id="agreements"${errors.agreements ? html` aria-describedby="agreements-err"` : ''}>
    <legend>${c.agreements.legend}</legend>
    <label class="check all"><input type="checkbox" name="agreeAll" id="agreeAll" value="on"${all ? html` checked` : ''}> ${c.agreements.all}</label>
    ${docs.map(
      (d) => html`<div class="agreement">
      <label class="check"><input type="checkbox" name="${d.field}" id="${d.field}" value="on"${values[d.field] ? html` checked` : ''}> ${c.agreements.required} ${c.lang === 'en' ? html`<span>${agreementEnglish(d.field).title} (<span lang="ko">${d.title}</span>)</span>` : d.title}</label>
      <details><summary>${c.agreements.show}<span class="sr-only">: ${c.lang === 'en' ? agreementEnglish(d.field).title : d.title}</span></summary>${c.lang === 'en' ? html`<p>${c.agreements.note}</p><div lang="ko">${d.body}</div><p>${agreementEnglish(d.field).body}</p>` : d.body}</details>
    </div>`,
    )}
    ${fieldError('agreements', errors.agreements)}
  </fieldset>`;
}

function refundTermsCard(ctx: PageContext): SafeHtml {
  const c = payCopy(ctx.lang);
  const terms = termsOfProduct(ctx.product, ctx.session.plan_id);
  const ko = refundTerms(terms, ctx.product.type);
  // English: each statement in Korean as the law has it (marked lang="ko"), its English rendering beneath.
  const en = c.lang === 'en' ? refundTermsEn(terms, ctx.product.type) : null;
  return html`<section class="card" aria-labelledby="refund-terms-title" id="refund-terms">
  <h2 id="refund-terms-title">${c.refundTerms.heading}</h2>
  <ul class="terms">${ko.map((l, i) => (en ? html`<li>${en[i]}<br><span lang="ko" class="hint">${l}</span></li>` : html`<li>${l}</li>`))}</ul>
</section>`;
}

/**
 * The payment form. It works without JavaScript (the script at PAY_SCRIPT only enhances: the countdown, the pay
 * button's text, "전체 동의", disabling the button once submitted). The coupon has a form of its own, so Enter in
 * any field of the payment form pays (its only submit button is the default button) and Enter in the coupon field
 * applies the coupon; the applied code travels with the payment in a hidden field. Showing the card fields only for
 * card payments is done in CSS (:has), degrading to always visible. The card number is never rendered back (a
 * declined or mistyped number would sit in the page, the browser's cache and history): after any error the buyer
 * types it again.
 */
export function paymentFormPage(f: FormPage): string {
  const { ctx, values, errors = {} } = f;
  const c = payCopy(ctx.lang);
  const msg = (m: string | undefined) => (m === undefined ? undefined : c.message(m));
  const e = Object.fromEntries(Object.entries(errors).map(([k, v]) => [k, msg(v)])) as typeof errors;
  const fe: FormPage = { ...f, errors: e };
  const action = `/pay/${encodeURIComponent(ctx.session.id)}`;
  const remaining = Math.max(0, Math.floor((ctx.session.expires_at.getTime() - f.now.getTime()) / 1000));
  const trialButton = f.recurring?.trialEndsAt ? c.trialButton : null;
  const usd = f.paypalCents ?? null;
  const methodsWithAmount = METHODS.filter((m) => f.methods.includes(m.value)).map((m) => ({ value: m.value, text: trialButton ?? c.payText(m.value, f.price.amount, usd) }));
  const body = html`${header(ctx)}
${summary(ctx, f.price)}
<section class="card">
  <h1>${c.heading}</h1>
  <p class="expiry" id="expiry" data-remaining="${remaining}">${c.expiryBefore}<strong>${c.clock(ctx.session.expires_at)}</strong>${c.expiryAfter}<span id="countdown" aria-hidden="true"></span>.</p>
  ${f.banner ? html`<div class="banner error" role="alert" id="banner">${c.message(f.banner)}</div>` : ''}
  ${f.couponField ? couponForm(fe, action, c) : ''}
  <form method="post" action="${action}" id="pay-form" novalidate data-pay-texts="${JSON.stringify(methodsWithAmount)}">
    <input type="hidden" name="action" value="pay">${langField(c)}
    <input type="hidden" name="couponCode" value="${f.price.couponCode ?? ''}">
    ${input('buyerName', c.name, values.buyerName, e.buyerName, html` type="text" autocomplete="name" maxlength="50" required`)}
    ${ctx.session.customer_email_locked
      ? lockedEmail(ctx.session.customer_email ?? '', e.buyerEmail, c)
      : input('buyerEmail', c.email, values.buyerEmail, e.buyerEmail, html` type="email" autocomplete="email" inputmode="email" required`)}
    ${input('buyerPhone', c.phone, values.buyerPhone, e.buyerPhone, html` type="tel" autocomplete="tel" inputmode="tel" placeholder="010-1234-5678" required`)}

    <fieldset class="method-set">
      <legend>${c.method}</legend>
      <div class="methods">
        ${METHODS.filter((m) => f.methods.includes(m.value)).map(
          (m) => html`<label class="method"><input type="radio" name="method" value="${m.value}"${values.method === m.value ? html` checked` : ''}> <span class="method-name">${c.methodLabel(m.value)}</span></label>`,
        )}
      </div>
      ${f.methods.includes('paypal') && usd != null ? html`<p class="hint" id="paypal-note">${c.paypalNote(usd)}</p>` : ''}
      ${f.methods.includes('foreign_card') ? html`<p class="hint" id="foreign-card-note">${c.foreignCardNote}</p>` : ''}
      ${fieldError('method', e.method)}
    </fieldset>

    <div class="card-fields">
      ${ctx.simulated
        ? html`${input('cardNumber', c.cardNumber, '', e.cardNumber, html` type="text" inputmode="numeric" autocomplete="cc-number" placeholder="0000 0000 0000 0000" maxlength="23"`)}`
        : ''}
      ${installmentField(fe, c)}
      ${ctx.simulated
        ? html`<div class="test">${c.test.intro}
        <ul>
          <li><code>${cardGroups(TEST_CARDS.success)}</code> ${c.test.success}</li>
          <li><code>${cardGroups(TEST_CARDS.declined)}</code> ${c.test.declined}</li>
          <li><code>${cardGroups(TEST_CARDS.insufficientFunds)}</code> ${c.test.insufficient}</li>
          <li><code>${cardGroups(TEST_CARDS.unknown)}</code> ${c.test.unknown}</li>
          <li><code>${cardGroups(TEST_CARDS.refundFails)}</code> ${c.test.refundFails}</li>
          <li><code>${cardGroups(TEST_CARDS.refundTimesOut)}</code> ${c.test.refundTimesOut}</li>
          ${ctx.session.billing_interval ? html`<li><code>${cardGroups(TEST_CARDS.renewalDeclined)}</code> ${c.test.renewalDeclined}</li>` : ''}
        </ul>
        ${c.test.outro}</div>`
        : ''}
    </div>

    ${ctx.session.billing_interval ? '' : cashReceiptField(fe, c)}

    ${agreementsField(fe, c)}
    ${recurringField(f.recurring, f.values.agreeRecurring, e.agreeRecurring, c)}

    <button class="pay" id="pay-button" type="submit">${trialButton ?? c.payText(values.method, f.price.amount, usd)}</button>
  </form>
  ${cancelLink(ctx.session, c)}
</section>
${refundTermsCard(ctx)}`;
  return layout({ title: c.title(ctx.product.name), lang: c.lang, head: LANG_CSS, footer: footerOf(ctx), script: PAY_SCRIPT }, body);
}

export function cancelLink(s: SessionRow, c: PayCopy = payCopy('ko')): SafeHtml {
  return s.cancel_url ? html`<a class="cancel" href="${s.cancel_url}">${c.cancel}</a>` : html``;
}

/** The page's language carried through a POST (the form's action has no query). */
export const langField = (c: PayCopy): SafeHtml => html`<input type="hidden" name="lang" value="${c.lang}">`;

/** The language switch beside the test badge (as on the receipt). */
export const LANG_CSS = raw('<style>.store .tools{display:flex;gap:10px;align-items:center}.store a.lang{color:#1b64da;font-weight:600;text-decoration:none;padding:4px 0}</style>');

/** Test mode's stand-in for a wallet app: the buyer approves or cancels the simple-pay payment. */
export function approvalPage(ctx: PageContext, method: FormValues['method'], amount: number, usdCents: number | null = null): string {
  const c = payCopy(ctx.lang);
  const action = `/pay/${encodeURIComponent(ctx.session.id)}/approve`;
  const name = c.methodLabel(method as PaymentMethod);
  const what = `${name} ${method === 'virtual_account' ? c.approval.issue : c.approval.approve}`;
  return layout(
    { title: `${what}${c.approval.testSuffix}`, lang: c.lang, head: LANG_CSS, footer: footerOf(ctx) },
    html`${header(ctx)}
<section class="card center">
  <h1>${what}</h1>
  <p class="muted">${method === 'transfer' ? c.approval.transfer : method === 'mobile_phone' ? c.approval.mobilePhone : ONE_TIME_ONLY_METHODS.has(method as never) ? c.approval.giftCertificate : method === 'virtual_account' ? c.approval.virtualAccount : c.approval.wallet}</p>
  <p class="product" style="margin-top:16px" translate="no">${ctx.product.name}</p>
  ${usdCents != null ? html`<p class="big" id="approve-usd">${formatUsd(usdCents)}</p><p class="muted">${c.approval.atStoreRate(amount)}</p>` : html`<p class="big">${c.money(amount)}</p>`}
  <form method="post" action="${action}">${langField(c)}
    <button class="pay" type="submit" name="decision" value="approve">${method === 'virtual_account' ? c.approval.issueButton(amount) : usdCents != null ? c.approval.approveUsdButton(name, usdCents) : c.approval.approveButton(name, amount)}</button>
    <button class="danger" style="margin-top:8px" type="submit" name="decision" value="cancel">${c.approval.cancel}</button>
  </form>
</section>`,
  );
}
