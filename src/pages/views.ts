import type { SessionRow } from '../checkout/model';
import type { ProductRow } from '../catalog/model';
import type { OrderView } from '../orders/schemas';
import { TEST_CARDS } from '../payments';
import { html, kst, won, type SafeHtml } from './html';
import { layout } from './layout';
import { METHODS, methodLabel, type FieldErrors, type FormValues } from './form';

export interface PageContext {
  session: SessionRow;
  product: ProductRow;
  storeName: string;
  /** Test mode on the simulator: card number field, test cards, simulated approval for simple pay. */
  simulated: boolean;
}

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

function header(ctx: Pick<PageContext, 'storeName' | 'session'>): SafeHtml {
  return html`<div class="store"><span>${ctx.storeName}</span>${ctx.session.mode === 'test' ? html`<span class="badge">테스트 모드</span>` : ''}</div>`;
}

export function summary(ctx: PageContext, price: PriceLine): SafeHtml {
  const plan = planLine(ctx.session, ctx.product);
  return html`<section class="card" aria-label="주문 요약">
  <p class="product">${ctx.product.name}</p>
  ${plan ? html`<p class="muted">${plan}</p>` : ''}
  <dl class="amounts">
    <dt>상품 금액</dt><dd>${won(price.originalAmount)}</dd>
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

export interface FormPage {
  ctx: PageContext;
  price: PriceLine;
  values: FormValues;
  errors?: FieldErrors;
  /** A message for the whole form (a declined payment, a changed amount). */
  banner?: string;
  couponApplied?: boolean;
}

/**
 * The payment form. It works without JavaScript: the coupon button and the pay button are two submit buttons of one
 * form (the coupon one first, so pressing Enter in a field applies the coupon instead of paying), and showing the
 * card field only for card payments is done in CSS (:has), degrading to always visible. The card number is never
 * rendered back (a declined or mistyped number would sit in the page, the browser's cache and history): after any
 * error the buyer types it again.
 */
export function paymentFormPage(f: FormPage): string {
  const { ctx, values, errors = {} } = f;
  const action = `/pay/${encodeURIComponent(ctx.session.id)}`;
  const body = html`${header(ctx)}
${summary(ctx, f.price)}
<section class="card">
  <h1>결제하기</h1>
  ${f.banner ? html`<div class="banner error" role="alert">${f.banner}</div>` : ''}
  <form method="post" action="${action}" novalidate>
    <label for="couponCode">쿠폰 코드</label>
    <div class="row">
      <input id="couponCode" name="couponCode" type="text" value="${values.couponCode}" autocomplete="off" autocapitalize="characters"${invalid(errors.couponCode)}>
      <button class="apply" type="submit" name="action" value="apply_coupon">적용</button>
    </div>
    ${fieldError('couponCode', errors.couponCode)}
    ${f.couponApplied && !errors.couponCode && f.price.discount > 0 ? html`<p class="ok">쿠폰이 적용되어 ${won(f.price.discount)} 할인됩니다.</p>` : ''}

    ${input('buyerName', '이름', values.buyerName, errors.buyerName, html` type="text" autocomplete="name" maxlength="50" required`)}
    ${input('buyerEmail', '이메일', values.buyerEmail, errors.buyerEmail, html` type="email" autocomplete="email" inputmode="email" required`)}
    ${input('buyerPhone', '휴대폰 번호', values.buyerPhone, errors.buyerPhone, html` type="tel" autocomplete="tel" inputmode="tel" placeholder="010-1234-5678" required`)}

    <fieldset style="margin-top:16px">
      <legend>결제 수단</legend>
      <div class="methods">
        ${METHODS.map(
          (m) => html`<label class="method"><input type="radio" name="method" value="${m.value}"${values.method === m.value ? html` checked` : ''}> ${m.label}</label>`,
        )}
      </div>
      ${fieldError('method', errors.method)}
    </fieldset>

    ${ctx.simulated
      ? html`<div class="card-fields">
      ${input('cardNumber', '카드 번호', '', errors.cardNumber, html` type="text" inputmode="numeric" autocomplete="cc-number" placeholder="0000 0000 0000 0000" maxlength="23"`)}
      <div class="test">테스트 모드에서는 실제 결제가 일어나지 않습니다. 테스트 카드:
        <ul>
          <li><code>${cardGroups(TEST_CARDS.success)}</code> 승인</li>
          <li><code>${cardGroups(TEST_CARDS.declined)}</code> 거절</li>
          <li><code>${cardGroups(TEST_CARDS.insufficientFunds)}</code> 잔액 부족</li>
          <li><code>${cardGroups(TEST_CARDS.unknown)}</code> 결과 확인 지연</li>
          <li><code>${cardGroups(TEST_CARDS.refundFails)}</code> 승인, 이후 환불 실패</li>
          <li><code>${cardGroups(TEST_CARDS.refundTimesOut)}</code> 승인, 이후 환불 결과 지연(자동 확인)</li>
        </ul>
        간편결제는 승인 화면을 거칩니다.</div>
    </div>`
      : ''}

    <button class="pay" type="submit" name="action" value="pay">${won(f.price.amount)} 결제하기</button>
  </form>
  ${cancelLink(ctx.session)}
</section>`;
  return layout({ title: `${ctx.product.name} 결제`, }, body);
}

export function cancelLink(s: SessionRow): SafeHtml {
  return s.cancel_url ? html`<a class="cancel" href="${s.cancel_url}">결제를 취소하고 돌아가기</a>` : html``;
}

/** Test mode's stand-in for a wallet app: the buyer approves or cancels the simple-pay payment. */
export function approvalPage(ctx: PageContext, method: FormValues['method'], amount: number): string {
  const action = `/pay/${encodeURIComponent(ctx.session.id)}/approve`;
  const name = methodLabel(method as never);
  return layout(
    { title: `${name} 결제 승인 (테스트)` },
    html`${header(ctx)}
<section class="card center">
  <h1>${name} 결제 승인</h1>
  <p class="muted">테스트 모드의 간편결제 승인 화면입니다. 실제 결제는 일어나지 않습니다.</p>
  <p class="product" style="margin-top:16px">${ctx.product.name}</p>
  <p class="big">${won(amount)}</p>
  <form method="post" action="${action}">
    <button class="pay" type="submit" name="decision" value="approve">승인하기</button>
    <button class="danger" style="margin-top:8px" type="submit" name="decision" value="cancel">취소</button>
  </form>
</section>`,
  );
}

interface StatusPage {
  title: string;
  icon: string;
  message: string;
  ctx?: Pick<PageContext, 'storeName' | 'session'>;
  action?: { href: string; label: string };
  refreshUrl?: string;
  refreshSeconds?: number;
  extra?: SafeHtml;
}

export function statusPage(p: StatusPage): string {
  return layout(
    { title: p.title, refresh: p.refreshUrl ? { url: p.refreshUrl, seconds: p.refreshSeconds ?? 3 } : undefined },
    html`${p.ctx ? header(p.ctx) : ''}
<section class="card center" role="status">
  <p class="big" aria-hidden="true">${p.icon}</p>
  <h1>${p.title}</h1>
  <p class="muted">${p.message}</p>
  ${p.extra ?? ''}
  ${p.action ? html`<a class="button secondary" style="margin-top:20px" href="${p.action.href}">${p.action.label}</a>` : ''}
</section>`,
  );
}

export function receipt(order: OrderView): SafeHtml {
  return html`<dl class="amounts" style="text-align:left">
  <dt>주문 번호</dt><dd>${order.id}</dd>
  <dt>상품</dt><dd>${order.productName}</dd>
  ${order.coupon ? html`<dt>쿠폰 할인 (${order.coupon.code})</dt><dd class="discount">-${won(order.coupon.discountAmount)}</dd>` : ''}
  <dt>결제 수단</dt><dd>${methodLabel(order.method)}</dd>
  <dt>결제 일시</dt><dd>${order.paidAt ? kst(new Date(order.paidAt)) : '-'}</dd>
  <dt class="total">결제 금액</dt><dd class="total">${won(order.amount)}</dd>
</dl>`;
}
