import { html, type SafeHtml } from '../../pages/html';
import type { ProductView } from '../../catalog/schemas';
import type { FieldError } from '../../platform/errors';
import { csrfField, type DashboardContext } from '../frame';
import { checked, kstDateTime, str, toKstInput, tr, type Query } from './kit';

/** Plan rows on the form: the product's plans plus empty rows to add more (a row without a name is skipped). */
const EXTRA_PLAN_ROWS = 2;

/**
 * A number typed in a form: a number when it reads as one, null when empty (the field is cleared), and the text as
 * typed otherwise, so the shared schema check names the field ("정수여야 합니다") instead of this code guessing.
 */
function num(v: unknown): number | null | string {
  const s = str(v, 40)?.replace(/[,\s원]/g, '');
  if (!s) return null;
  return /^-?\d+$/.test(s) && Number.isSafeInteger(Number(s)) ? Number(s) : s;
}

function time(v: unknown): string | null {
  const t = kstDateTime(v);
  // An unreadable date goes to the schema as typed ("date-time 형식이어야 합니다").
  return t === 'invalid' ? String(v) : t ?? null;
}

/** The form's fields as the console API's product body (CreateProductBody / UpdateProductBody shape). */
export function productBodyOf(b: Query, type: 'one_time' | 'subscription'): Record<string, unknown> {
  const plans: Record<string, unknown>[] = [];
  for (let i = 0; i < 20; i++) {
    const name = str(b[`plan${i}_name`], 200);
    if (name === undefined) continue;
    const id = str(b[`plan${i}_id`], 60);
    plans.push({ ...(id ? { id } : {}), name, monthlyPrice: num(b[`plan${i}_monthly`]), yearlyPrice: num(b[`plan${i}_yearly`]), trialDays: num(b[`plan${i}_trial`]) });
  }
  const licenseMode = str(b.licenseMode) ?? 'none';
  return {
    name: str(b.name, 300) ?? '',
    description: str(b.description, 6000) ?? null,
    pricing: type === 'one_time' ? { price: num(b.price) } : { plans },
    // Left empty, the day count and penalty keep what the service has (its defaults on create).
    refundPolicy: {
      ...(num(b.refundDays) === null ? {} : { refundDays: num(b.refundDays) }),
      trialOffered: checked(b.trialOffered),
      usageRestrictionMarked: checked(b.usageRestrictionMarked),
      clawbackDisclosed: checked(b.clawbackDisclosed),
      ...(num(b.penaltyRate) === null ? {} : { penaltyRate: num(b.penaltyRate) }),
    },
    saleStartsAt: time(b.saleStartsAt),
    saleEndsAt: time(b.saleEndsAt),
    stock: num(b.stock),
    license: { mode: licenseMode, maxActivations: num(b.maxActivations), validityDays: num(b.validityDays) },
  };
}

/** What the form shows: the saved product, or what was typed when a save was refused. */
export interface ProductFormValues {
  type: 'one_time' | 'subscription';
  fields: Query;
}

export function valuesOf(p: ProductView): ProductFormValues {
  const f: Query = {
    name: p.name,
    description: p.description ?? '',
    price: p.pricing.price ?? '',
    refundDays: p.refundPolicy.refundDays,
    penaltyRate: p.refundPolicy.penaltyRate,
    trialOffered: p.refundPolicy.trialOffered ? 'on' : '',
    usageRestrictionMarked: p.refundPolicy.usageRestrictionMarked ? 'on' : '',
    clawbackDisclosed: p.refundPolicy.clawbackDisclosed ? 'on' : '',
    saleStartsAt: toKstInput(p.saleStartsAt),
    saleEndsAt: toKstInput(p.saleEndsAt),
    stock: p.stock ?? '',
    licenseMode: p.license.mode,
    maxActivations: p.license.maxActivations ?? '',
    validityDays: p.license.validityDays ?? '',
  };
  p.pricing.plans.forEach((pl, i) => {
    f[`plan${i}_id`] = pl.id;
    f[`plan${i}_name`] = pl.name;
    f[`plan${i}_monthly`] = pl.monthlyPrice ?? '';
    f[`plan${i}_yearly`] = pl.yearlyPrice ?? '';
    f[`plan${i}_trial`] = pl.trialDays ?? '';
  });
  return { type: p.type, fields: f };
}

const v = (f: Query, k: string) => (f[k] === undefined || f[k] === null ? '' : String(f[k]));

export function productForm(ctx: DashboardContext, action: string, values: ProductFormValues, opts: { isNew: boolean; savedPlanIds: string[]; errors: FieldError[] }): SafeHtml {
  const L = (ko: string, en: string) => tr(ctx.lang, ko, en);
  const f = values.fields;
  // The console schema nests prices under `pricing` (as the public Product reads them); the form's inputs are flat.
  const bad = (field: string) => opts.errors.some((e) => [field, `pricing.${field}`].some((n) => e.field === n || e.field.startsWith(`${n}.`)));
  const inv = (field: string) => (bad(field) ? html` aria-invalid="true"` : '');
  const planRows = Math.max(opts.savedPlanIds.length, Object.keys(f).filter((k) => /^plan\d+_name$/.test(k)).length) + EXTRA_PLAN_ROWS;
  const chk = (k: string) => (checked(f[k]) ? html` checked` : '');
  return html`<form class="card" method="post" action="${action}" id="product-form" hx-disabled-elt="find button[type=submit]">
  ${csrfField(ctx)}
  ${opts.isNew ? html`<input type="hidden" name="type" value="${values.type}">` : ''}
  <p class="muted">${values.type === 'one_time' ? L('일회성 상품', 'One-time product') : L('구독 상품', 'Subscription product')}</p>
  ${
    opts.isNew
      ? ''
      : html`<p class="hint" id="future-sales-only">${L(
          '변경 내용은 이후 판매에만 적용됩니다. 이미 판매된 주문과 구독은 구매자가 결제할 때 안내받은 가격과 환불 조건(청약철회 기간, 위약금, 할인 회수, 체험·사용 제한 표시)을 그대로 따릅니다.',
          'Changes apply to future sales only. Orders and subscriptions already sold keep the prices and refund terms (withdrawal period, penalty, discount clawback, trial and usage restriction) their buyers were shown at payment.',
        )}</p>`
  }
  <label for="p-name">${L('상품명', 'Name')}</label>
  <input type="text" id="p-name" name="name" value="${v(f, 'name')}" required maxlength="200"${inv('name')}>
  <label for="p-desc">${L('설명 (선택)', 'Description (optional)')}</label>
  <textarea id="p-desc" name="description" maxlength="5000">${v(f, 'description')}</textarea>
  ${
    values.type === 'one_time'
      ? html`<label for="p-price">${L('가격 (원)', 'Price (KRW)')}</label><input type="text" inputmode="numeric" id="p-price" name="price" value="${v(f, 'price')}"${inv('price')}>`
      : html`<fieldset style="margin-top:14px"><legend>${L('요금제와 가격 (이름이 빈 줄은 무시됩니다)', 'Plans and prices (rows without a name are skipped)')}</legend>
    ${Array.from({ length: planRows }, (_, i) => {
      const saved = i < opts.savedPlanIds.length;
      return html`<div class="planrow"><p class="small muted" style="margin:8px 0 0">${L(`요금제 ${i + 1}`, `Plan ${i + 1}`)}</p><div class="filters">
      <div><label for="plan${i}-id">${L('요금제 ID', 'Plan id')}</label><input type="text" id="plan${i}-id" name="plan${i}_id" value="${v(f, `plan${i}_id`)}"${saved ? html` readonly` : ''} placeholder="${L('자동 생성', 'generated')}"></div>
      <div><label for="plan${i}-name">${L('이름', 'Name')}</label><input type="text" id="plan${i}-name" name="plan${i}_name" value="${v(f, `plan${i}_name`)}"></div>
      <div><label for="plan${i}-monthly">${L('월간 가격', 'Monthly')}</label><input type="text" inputmode="numeric" id="plan${i}-monthly" name="plan${i}_monthly" value="${v(f, `plan${i}_monthly`)}"></div>
      <div><label for="plan${i}-yearly">${L('연간 가격', 'Yearly')}</label><input type="text" inputmode="numeric" id="plan${i}-yearly" name="plan${i}_yearly" value="${v(f, `plan${i}_yearly`)}"></div>
      <div><label for="plan${i}-trial">${L('무료 체험(일)', 'Free trial (days)')}</label><input type="text" inputmode="numeric" id="plan${i}-trial" name="plan${i}_trial" value="${v(f, `plan${i}_trial`)}" placeholder="${L('없음', 'none')}"></div>
    </div></div>`;
    })}</fieldset>`
  }
  <div class="filters" style="margin-top:8px">
    <div><label for="p-stock">${L('판매 수량 (비우면 무제한)', 'Stock (empty: unlimited)')}</label><input type="text" inputmode="numeric" id="p-stock" name="stock" value="${v(f, 'stock')}"${inv('stock')}></div>
    <div><label for="p-start">${L('판매 시작 (한국 시간)', 'Sale starts (KST)')}</label><input type="datetime-local" id="p-start" name="saleStartsAt" value="${v(f, 'saleStartsAt')}"${inv('saleStartsAt')}></div>
    <div><label for="p-end">${L('판매 종료 (한국 시간)', 'Sale ends (KST)')}</label><input type="datetime-local" id="p-end" name="saleEndsAt" value="${v(f, 'saleEndsAt')}"${inv('saleEndsAt')}></div>
  </div>
  <fieldset style="margin-top:14px"><legend>${L('환불 정책', 'Refund policy')}</legend>
  <div class="filters">
    <div><label for="p-days">${L('청약철회 기간 (일, 법정 최소 7일)', 'Withdrawal days (statutory minimum 7)')}</label><input type="number" id="p-days" name="refundDays" min="0" max="365" value="${v(f, 'refundDays')}" placeholder="7"${inv('refundPolicy.refundDays')}></div>
    <div><label for="p-penalty">${L('기간 후 위약금 (%, 최대 10)', 'Penalty after the window (%, max 10)')}</label><input type="number" id="p-penalty" name="penaltyRate" min="0" max="10" value="${v(f, 'penaltyRate')}" placeholder="10"${inv('refundPolicy.penaltyRate')}></div>
  </div>
  <label class="check"><input type="checkbox" name="trialOffered"${chk('trialOffered')}> ${L('체험판·샘플 제공 (전자상거래법 제17조⑥)', 'A trial or sample is offered')}</label>
  <label class="check"><input type="checkbox" name="usageRestrictionMarked"${chk('usageRestrictionMarked')}> ${L('사용 시 청약철회 제한을 표시함', 'Marked that use ends the right of withdrawal')}</label>
  <label class="check"><input type="checkbox" name="clawbackDisclosed"${chk('clawbackDisclosed')}> ${L('연간 할인 회수를 결제 시 고지함', 'Annual-discount clawback disclosed at checkout')}</label>
  </fieldset>
  <fieldset style="margin-top:14px"><legend>${L('라이선스', 'License')}</legend>
  <div class="filters">
    <div><label for="p-lic">${L('발급 방식', 'Issued by')}</label><select id="p-lic" name="licenseMode">
      ${(['none', 'service', 'seller'] as const).map((m) => html`<option value="${m}"${v(f, 'licenseMode') === m ? html` selected` : ''}>${m === 'none' ? L('없음', 'None') : m === 'service' ? L('서비스가 발급', 'This service') : L('판매자가 발급 (license.issue)', 'The seller (license.issue)')}</option>`)}
    </select></div>
    <div><label for="p-max">${L('기기 수 (비우면 무제한)', 'Devices (empty: unlimited)')}</label><input type="text" inputmode="numeric" id="p-max" name="maxActivations" value="${v(f, 'maxActivations')}"${inv('license.maxActivations')}></div>
    <div><label for="p-valid">${L('유효 기간 (일, 일회성만)', 'Valid days (one-time only)')}</label><input type="text" inputmode="numeric" id="p-valid" name="validityDays" value="${v(f, 'validityDays')}"${inv('license.validityDays')}></div>
  </div></fieldset>
  <p style="margin-top:16px"><button type="submit" class="primary">${opts.isNew ? L('상품 만들기', 'Create product') : L('저장', 'Save')}</button></p>
</form>`;
}
