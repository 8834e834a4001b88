/**
 * The payment page's views: the order summary and price, the payment form with its fields (coupon, installments,
 * 현금영수증, agreements, recurring terms), and test mode's approval page. Status pages and the receipt: status-page.ts.
 */
import type { SessionRow } from '../../checkout/model';
import type { ProductRow } from '../../catalog/model';
import { TEST_CARDS } from '../../payments';
import type { BusinessDetailsView } from '../../stores/schemas';
import { html, kstTime, won, type SafeHtml } from '../html';
import { layout } from '../layout';
import { INSTALLMENT_MIN_AMOUNT, INSTALLMENT_MONTHS, METHODS, methodLabel, ONE_TIME_ONLY_METHODS, payText, type FieldErrors, type FormValues } from '../form';
import { storeFooter } from '../footer';
import { formatUsd } from '../../payments/foreign';
import { agreementDocs, refundTerms } from '../terms';
import { termsOfProduct } from '../../orders/terms';
import type { RecurringTerms } from '../../subscriptions/consent';
import type { PaymentMethod } from '../../payments/method';
import { cashReceiptField } from './cash-receipt-field';
import { recurringField } from './recurring-view';


export interface PageContext {
  session: SessionRow;
  product: ProductRow;
  storeName: string;
  /** The seller's business details for the footer; null only in test mode before the seller set them. */
  business: BusinessDetailsView | null;
  /** Test mode on the simulator: card number field, test cards, simulated approval for simple pay. */
  simulated: boolean;
}

export type FooterCtx = Pick<PageContext, 'storeName' | 'session'> & { business?: BusinessDetailsView | null };
export const footerOf = (ctx: FooterCtx | undefined) => (ctx ? storeFooter(ctx.storeName, ctx.business) : undefined);

export interface PriceLine {
  originalAmount: number;
  discount: number;
  amount: number;
  couponCode: string | null;
}

const cardGroups = (n: string) => n.replace(/(\d{4})(?=\d)/g, '$1 ');

const INTERVAL = { monthly: '월간 구독 · 매월 결제', yearly: '연간 구독 · 매년 결제' } as const;

export function planLine(s: SessionRow, p: ProductRow): string | null {
  if (!s.billing_interval) return null;
  const plan = p.plans.find((pl) => pl.id === s.plan_id);
  return `${plan?.name ?? s.plan_id} · ${INTERVAL[s.billing_interval]}`;
}

export function header(ctx: Pick<PageContext, 'storeName' | 'session'>): SafeHtml {
  return html`<div class="store"><span>${ctx.storeName}</span>${ctx.session.mode === 'test' ? html`<span class="badge">테스트 모드</span>` : ''}</div>`;
}

export function summary(ctx: PageContext, price: PriceLine): SafeHtml {
  const plan = planLine(ctx.session, ctx.product);
  return html`<section class="card" aria-label="주문 요약">
  <p class="product">${ctx.product.name}</p>
  ${plan ? html`<p class="muted">${plan}</p>` : ''}
  ${ctx.product.description ? html`<p class="desc" id="product-description">${ctx.product.description}</p>` : ''}
  <dl class="amounts">
    <dt>상품 금액</dt><dd>${won(price.originalAmount)}</dd>
    ${ctx.session.trial_days ? html`<dt>무료 체험</dt><dd id="trial-days">${ctx.session.trial_days}일 (체험 기간 결제 없음)</dd>` : ''}
    ${price.discount > 0 ? html`<dt>쿠폰 할인${price.couponCode ? ` (${price.couponCode})` : ''}</dt><dd class="discount">-${won(price.discount)}</dd>` : ''}
    <dt class="total">결제 금액</dt><dd class="total" id="total">${won(price.amount)}</dd>
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
function lockedEmail(email: string, err: string | undefined): SafeHtml {
  return html`<label for="buyerEmail">이메일</label>
<input id="buyerEmail" name="buyerEmail" value="${email}" type="email" readonly aria-readonly="true" required${invalid(err)} aria-describedby="${err ? 'buyerEmail-locked buyerEmail-err' : 'buyerEmail-locked'}">
<p class="hint" id="buyerEmail-locked">판매자가 지정한 이메일입니다. 주문과 구독은 이 이메일로 등록됩니다.</p>
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

function couponForm(f: FormPage, action: string): SafeHtml {
  const { values, errors = {} } = f;
  return html`<form class="coupon" id="coupon-form" method="post" action="${action}" novalidate>
    <input type="hidden" name="action" value="apply_coupon">
    <label for="couponCode">쿠폰 코드</label>
    <div class="row">
      <input id="couponCode" name="couponCode" type="text" value="${values.couponCode}" autocomplete="off" autocapitalize="characters"${invalid(errors.couponCode)}${errors.couponCode ? html` aria-describedby="couponCode-err"` : ''}>
      <button class="apply" type="submit">적용</button>
    </div>
    ${fieldError('couponCode', errors.couponCode)}
    ${f.couponApplied && !errors.couponCode && f.price.discount > 0 ? html`<p class="ok" role="status">쿠폰이 적용되어 ${won(f.price.discount)} 할인됩니다.</p>` : ''}
  </form>`;
}

function installmentField(f: FormPage): SafeHtml {
  if (f.price.amount < INSTALLMENT_MIN_AMOUNT || f.ctx.session.billing_interval) return html``;
  const v = f.values.installment || '0';
  return html`<div class="installment-field"><label for="installment">할부</label>
    <select id="installment" name="installment"${invalid(f.errors?.installment)}${f.errors?.installment ? html` aria-describedby="installment-err"` : ''}>
      <option value="0"${v === '0' ? html` selected` : ''}>일시불</option>
      ${INSTALLMENT_MONTHS.map((m) => html`<option value="${m}"${v === String(m) ? html` selected` : ''}>${m}개월</option>`)}
    </select>
    ${fieldError('installment', f.errors?.installment)}
    <p class="hint">${won(INSTALLMENT_MIN_AMOUNT)} 이상 카드 결제에서 선택할 수 있습니다. 무이자 여부는 카드사 정책을 따릅니다.</p></div>`;
}

function agreementsField(f: FormPage): SafeHtml {
  const { ctx, values, errors = {} } = f;
  const docs = agreementDocs(ctx.storeName, ctx.business, ctx.session.mode === 'live');
  const all = docs.every((d) => values[d.field]);
  return html`<fieldset class="agreements" id="agreements"${errors.agreements ? html` aria-describedby="agreements-err"` : ''}>
    <legend>약관 동의</legend>
    <label class="check all"><input type="checkbox" name="agreeAll" id="agreeAll" value="on"${all ? html` checked` : ''}> 전체 동의 (필수 항목 모두)</label>
    ${docs.map(
      (d) => html`<div class="agreement">
      <label class="check"><input type="checkbox" name="${d.field}" id="${d.field}" value="on"${values[d.field] ? html` checked` : ''}> [필수] ${d.title}</label>
      <details><summary>내용 보기<span class="sr-only">: ${d.title}</span></summary>${d.body}</details>
    </div>`,
    )}
    ${fieldError('agreements', errors.agreements)}
  </fieldset>`;
}

function refundTermsCard(ctx: PageContext): SafeHtml {
  return html`<section class="card" aria-labelledby="refund-terms-title" id="refund-terms">
  <h2 id="refund-terms-title">환불 및 청약철회 안내</h2>
  <ul class="terms">${refundTerms(termsOfProduct(ctx.product, ctx.session.plan_id), ctx.product.type).map((l) => html`<li>${l}</li>`)}</ul>
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
  const action = `/pay/${encodeURIComponent(ctx.session.id)}`;
  const remaining = Math.max(0, Math.floor((ctx.session.expires_at.getTime() - f.now.getTime()) / 1000));
  const trialButton = f.recurring?.trialEndsAt ? '카드 등록하고 무료 체험 시작' : null;
  const usd = f.paypalCents ?? null;
  const methodsWithAmount = METHODS.filter((m) => f.methods.includes(m.value)).map((m) => ({ value: m.value, text: trialButton ?? payText(m.value, f.price.amount, usd) }));
  const body = html`${header(ctx)}
${summary(ctx, f.price)}
<section class="card">
  <h1>결제하기</h1>
  <p class="expiry" id="expiry" data-remaining="${remaining}">이 결제 페이지는 <strong>${kstTime(ctx.session.expires_at)}</strong>까지 사용할 수 있습니다<span id="countdown" aria-hidden="true"></span>.</p>
  ${f.banner ? html`<div class="banner error" role="alert" id="banner">${f.banner}</div>` : ''}
  ${f.couponField ? couponForm(f, action) : ''}
  <form method="post" action="${action}" id="pay-form" novalidate data-pay-texts="${JSON.stringify(methodsWithAmount)}">
    <input type="hidden" name="action" value="pay">
    <input type="hidden" name="couponCode" value="${f.price.couponCode ?? ''}">
    ${input('buyerName', '이름', values.buyerName, errors.buyerName, html` type="text" autocomplete="name" maxlength="50" required`)}
    ${ctx.session.customer_email_locked
      ? lockedEmail(ctx.session.customer_email ?? '', errors.buyerEmail)
      : input('buyerEmail', '이메일', values.buyerEmail, errors.buyerEmail, html` type="email" autocomplete="email" inputmode="email" required`)}
    ${input('buyerPhone', '휴대폰 번호', values.buyerPhone, errors.buyerPhone, html` type="tel" autocomplete="tel" inputmode="tel" placeholder="010-1234-5678" required`)}

    <fieldset class="method-set">
      <legend>결제 수단</legend>
      <div class="methods">
        ${METHODS.filter((m) => f.methods.includes(m.value)).map(
          (m) => html`<label class="method"><input type="radio" name="method" value="${m.value}"${values.method === m.value ? html` checked` : ''}> <span class="method-name">${m.label}</span></label>`,
        )}
      </div>
      ${f.methods.includes('paypal') && usd != null ? html`<p class="hint" id="paypal-note">PayPal은 미국 달러로 결제됩니다: <strong>${formatUsd(usd)}</strong> (상점이 정한 환율 기준).</p>` : ''}
      ${f.methods.includes('foreign_card') ? html`<p class="hint" id="foreign-card-note">해외 발급 카드(Visa·Mastercard·JCB·AMEX·UnionPay)는 원화로 결제되며 영문 결제창이 열립니다.</p>` : ''}
      ${fieldError('method', errors.method)}
    </fieldset>

    <div class="card-fields">
      ${ctx.simulated
        ? html`${input('cardNumber', '카드 번호', '', errors.cardNumber, html` type="text" inputmode="numeric" autocomplete="cc-number" placeholder="0000 0000 0000 0000" maxlength="23"`)}`
        : ''}
      ${installmentField(f)}
      ${ctx.simulated
        ? html`<div class="test">테스트 모드에서는 실제 결제가 일어나지 않습니다. 테스트 카드:
        <ul>
          <li><code>${cardGroups(TEST_CARDS.success)}</code> 승인</li>
          <li><code>${cardGroups(TEST_CARDS.declined)}</code> 거절</li>
          <li><code>${cardGroups(TEST_CARDS.insufficientFunds)}</code> 잔액 부족</li>
          <li><code>${cardGroups(TEST_CARDS.unknown)}</code> 결과 확인 지연</li>
          <li><code>${cardGroups(TEST_CARDS.refundFails)}</code> 승인, 이후 환불 실패</li>
          <li><code>${cardGroups(TEST_CARDS.refundTimesOut)}</code> 승인, 이후 환불 결과 지연(자동 확인)</li>
          ${ctx.session.billing_interval ? html`<li><code>${cardGroups(TEST_CARDS.renewalDeclined)}</code> 첫 결제 승인, 이후 정기결제(갱신·플랜 변경 차액) 거절</li>` : ''}
        </ul>
        간편결제와 계좌이체는 승인 화면을 거칩니다. 가상계좌는 발급 후 영수증 페이지에서 입금을 흉내 낼 수 있습니다.</div>`
        : ''}
    </div>

    ${ctx.session.billing_interval ? '' : cashReceiptField(f)}

    ${agreementsField(f)}
    ${recurringField(f.recurring, f.values.agreeRecurring, f.errors?.agreeRecurring)}

    <button class="pay" id="pay-button" type="submit">${trialButton ?? payText(values.method, f.price.amount, usd)}</button>
  </form>
  ${cancelLink(ctx.session)}
</section>
${refundTermsCard(ctx)}`;
  return layout({ title: `${ctx.product.name} 결제`, footer: footerOf(ctx), script: PAY_SCRIPT }, body);
}

export function cancelLink(s: SessionRow): SafeHtml {
  return s.cancel_url ? html`<a class="cancel" href="${s.cancel_url}">결제를 취소하고 돌아가기</a>` : html``;
}

/** Test mode's stand-in for a wallet app: the buyer approves or cancels the simple-pay payment. */
export function approvalPage(ctx: PageContext, method: FormValues['method'], amount: number, usdCents: number | null = null): string {
  const action = `/pay/${encodeURIComponent(ctx.session.id)}/approve`;
  const name = methodLabel(method as never);
  return layout(
    { title: `${name} ${method === 'virtual_account' ? '발급' : '결제 승인'} (테스트)`, footer: footerOf(ctx) },
    html`${header(ctx)}
<section class="card center">
  <h1>${name} ${method === 'virtual_account' ? '발급' : '결제 승인'}</h1>
  <p class="muted">${method === 'transfer' ? '테스트 모드의 계좌이체 승인 화면입니다(은행 앱 대신). 실제로 출금되지 않습니다.' : method === 'mobile_phone' ? '테스트 모드의 휴대폰 결제 승인 화면입니다(통신사 인증 대신). 휴대폰 요금에 청구되지 않습니다.' : ONE_TIME_ONLY_METHODS.has(method as never) ? '테스트 모드의 상품권 결제 승인 화면입니다(상품권 사이트 로그인 대신). 상품권 잔액이 차감되지 않습니다.' : method === 'virtual_account' ? '테스트 모드의 가상계좌 발급 화면입니다. 발급 후 영수증 페이지의 "입금하기" 버튼으로 입금을 흉내 낼 수 있습니다.' : '테스트 모드의 간편결제 승인 화면입니다. 실제 결제는 일어나지 않습니다.'}</p>
  <p class="product" style="margin-top:16px">${ctx.product.name}</p>
  ${usdCents != null ? html`<p class="big" id="approve-usd">${formatUsd(usdCents)}</p><p class="muted">${won(amount)} (상점이 정한 환율 기준)</p>` : html`<p class="big">${won(amount)}</p>`}
  <form method="post" action="${action}">
    <button class="pay" type="submit" name="decision" value="approve">${method === 'virtual_account' ? `${won(amount)} 입금할 가상계좌 발급` : usdCents != null ? `${name}로 ${formatUsd(usdCents)} 결제 승인` : `${payText(method, amount)} 승인`}</button>
    <button class="danger" style="margin-top:8px" type="submit" name="decision" value="cancel">취소</button>
  </form>
</section>`,
  );
}
