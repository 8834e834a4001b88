/**
 * The payment form's 현금영수증 fields for 계좌이체·가상계좌 (hidden for other methods by the layout's CSS, which needs no
 * script; the server ignores them for other methods), with the 의무발행 notice where it applies.
 */
import { html, type SafeHtml } from '../html';
import { payCopy, type PayCopy } from './copy';
import type { FieldErrors, FormValues } from '../form';

const fieldError = (id: string, msg: string | undefined) => (msg ? html`<p class="err" id="${id}-err" role="alert">${msg}</p>` : '');

/**
 * 현금영수증 의무발행 (조세특례제한법 시행령 §121-3): a store in a 의무발행업종 must issue one for a cash sale of 100,000원
 * or more even when the buyer asks for none, to the National Tax Service's self-issue number (010-000-1234); the
 * service does so (withMandatoryCashReceipt). The buyer is told before paying, and that their own number takes its
 * place. Rendered only when the amount after the coupon reaches the threshold on such a store; shown only with a bank
 * method chosen, as the fields around it are (CSS).
 */
function mandatoryNotice(c: PayCopy): SafeHtml {
  return html`<p class="banner info" id="cash-receipt-mandatory">${c.cash.mandatory}</p>`;
}

/** What the fields read of the payment form (kept narrow so this file and views.ts do not import each other). */
export interface CashReceiptFieldInput {
  values: FormValues;
  errors?: FieldErrors;
  ctx: { simulated: boolean };
  cashReceiptMandatory: boolean;
}

export function cashReceiptField(f: CashReceiptFieldInput, t: PayCopy = payCopy('ko')): SafeHtml {
  const c = t.cash;
  const v = f.values.cashReceiptType || 'none';
  const err = f.errors?.cashReceiptNumber;
  const described = [f.cashReceiptMandatory ? 'cash-receipt-mandatory' : '', err ? 'cashReceiptNumber-err' : ''].filter(Boolean).join(' ');
  const opt = (value: string, label: string) => html`<label class="method"><input type="radio" name="cashReceiptType" value="${value}"${v === value ? html` checked` : ''}> <span class="method-name">${label}</span></label>`;
  return html`<fieldset class="cash-fields"${f.cashReceiptMandatory ? html` aria-describedby="cash-receipt-mandatory"` : ''}>
      <legend>${c.legend}</legend>
      ${f.cashReceiptMandatory ? mandatoryNotice(t) : ''}
      <div class="methods">${opt('none', f.cashReceiptMandatory ? c.noneMandatory : c.none)}${opt('income', c.income)}${opt('expense', c.expense)}${opt('tax_invoice', c.taxInvoice)}</div>
      <label for="cashReceiptNumber">${c.number}</label>
      <input id="cashReceiptNumber" name="cashReceiptNumber" type="text" inputmode="numeric" autocomplete="off" maxlength="23" value="${f.values.cashReceiptNumber ?? ''}"${err ? html` aria-invalid="true"` : ''}${described ? html` aria-describedby="${described}"` : ''}>
      ${fieldError('cashReceiptNumber', err)}
      ${taxInvoiceFields(f, c)}
      ${f.ctx.simulated ? html`<p class="hint">${c.testHint}</p>` : ''}
    </fieldset>`;
}

/**
 * 세금계산서 instead of a 현금영수증 (src/tax/invoices/): the business buyer's 사업자등록번호 (check digit verified),
 * 상호, 대표자명 and e-mail. Read only when the 세금계산서 choice is ticked; the seller issues it after the payment (a
 * 가상계좌: after the deposit), by the 10th of the next month.
 */
function taxInvoiceFields(f: CashReceiptFieldInput, c: PayCopy['cash']): SafeHtml {
  const e = f.errors ?? {};
  const input = (name: 'taxInvoiceBrn' | 'taxInvoiceCompany' | 'taxInvoiceRepresentative' | 'taxInvoiceEmail', label: string, attrs: SafeHtml) =>
    html`<label for="${name}">${label}</label>
      <input id="${name}" name="${name}" ${attrs} value="${f.values[name] ?? ''}"${e[name] ? html` aria-invalid="true" aria-describedby="${name}-err"` : ''}>
      ${fieldError(name, e[name])}`;
  return html`<div class="tax-invoice-fields" id="tax-invoice-fields">
      <p class="hint" id="tax-invoice-hint">${c.taxInvoiceHint}</p>
      ${input('taxInvoiceBrn', c.taxInvoiceBrn, html`type="text" inputmode="numeric" autocomplete="off" maxlength="12"`)}
      ${input('taxInvoiceCompany', c.taxInvoiceCompany, html`type="text" autocomplete="organization" maxlength="200"`)}
      ${input('taxInvoiceRepresentative', c.taxInvoiceRepresentative, html`type="text" autocomplete="off" maxlength="100"`)}
      ${input('taxInvoiceEmail', c.taxInvoiceEmail, html`type="email" autocomplete="email" maxlength="254"`)}
    </div>`;
}
