/**
 * The payment form's 현금영수증 fields for 계좌이체·가상계좌 (hidden for other methods by the layout's CSS, which needs no
 * script; the server ignores them for other methods), with the 의무발행 notice where it applies.
 */
import { CASH_RECEIPT_MANDATORY_MIN_AMOUNT } from '../../checkout/cash-receipt';
import { html, won, type SafeHtml } from '../html';
import type { FieldErrors, FormValues } from '../form';

const fieldError = (id: string, msg: string | undefined) => (msg ? html`<p class="err" id="${id}-err" role="alert">${msg}</p>` : '');

/**
 * 현금영수증 의무발행 (조세특례제한법 시행령 §121-3): a store in a 의무발행업종 must issue one for a cash sale of 100,000원
 * or more even when the buyer asks for none, to the National Tax Service's self-issue number (010-000-1234); the
 * service does so (withMandatoryCashReceipt). The buyer is told before paying, and that their own number takes its
 * place. Rendered only when the amount after the coupon reaches the threshold on such a store; shown only with a bank
 * method chosen, as the fields around it are (CSS).
 */
function mandatoryNotice(): SafeHtml {
  return html`<p class="banner info" id="cash-receipt-mandatory">이 상점은 현금영수증 의무발행 사업자입니다. ${won(CASH_RECEIPT_MANDATORY_MIN_AMOUNT)} 이상을 계좌이체·가상계좌로 결제하면 "신청 안 함"을 선택해도 현금영수증이 국세청 자진발급번호(010-000-1234)로 발급됩니다. 본인 명의로 받으려면 소득공제(휴대폰 번호) 또는 지출증빙(사업자등록번호)을 선택해 번호를 입력해 주세요.</p>`;
}

/** What the fields read of the payment form (kept narrow so this file and views.ts do not import each other). */
export interface CashReceiptFieldInput {
  values: FormValues;
  errors?: FieldErrors;
  ctx: { simulated: boolean };
  cashReceiptMandatory: boolean;
}

export function cashReceiptField(f: CashReceiptFieldInput): SafeHtml {
  const v = f.values.cashReceiptType || 'none';
  const err = f.errors?.cashReceiptNumber;
  const described = [f.cashReceiptMandatory ? 'cash-receipt-mandatory' : '', err ? 'cashReceiptNumber-err' : ''].filter(Boolean).join(' ');
  const opt = (value: string, label: string) => html`<label class="method"><input type="radio" name="cashReceiptType" value="${value}"${v === value ? html` checked` : ''}> <span class="method-name">${label}</span></label>`;
  return html`<fieldset class="cash-fields"${f.cashReceiptMandatory ? html` aria-describedby="cash-receipt-mandatory"` : ''}>
      <legend>현금영수증 (계좌이체·가상계좌)</legend>
      ${f.cashReceiptMandatory ? mandatoryNotice() : ''}
      <div class="methods">${opt('none', f.cashReceiptMandatory ? '신청 안 함 (자진발급)' : '신청 안 함')}${opt('income', '소득공제 (개인)')}${opt('expense', '지출증빙 (사업자)')}${opt('tax_invoice', '세금계산서 (사업자, 현금영수증 대신)')}</div>
      <label for="cashReceiptNumber">휴대폰 번호·카드 번호 (소득공제) 또는 사업자등록번호 (지출증빙)</label>
      <input id="cashReceiptNumber" name="cashReceiptNumber" type="text" inputmode="numeric" autocomplete="off" maxlength="23" value="${f.values.cashReceiptNumber ?? ''}"${err ? html` aria-invalid="true"` : ''}${described ? html` aria-describedby="${described}"` : ''}>
      ${fieldError('cashReceiptNumber', err)}
      ${taxInvoiceFields(f)}
      ${f.ctx.simulated ? html`<p class="hint">테스트 모드: 어떤 올바른 번호로도 테스트 현금영수증이 발급됩니다(발급번호가 T로 시작, 국세청에 보고되지 않음).</p>` : ''}
    </fieldset>`;
}

/**
 * 세금계산서 instead of a 현금영수증 (src/tax/invoices/): the business buyer's 사업자등록번호 (check digit verified),
 * 상호, 대표자명 and e-mail. Read only when the 세금계산서 choice is ticked; the seller issues it after the payment (a
 * 가상계좌: after the deposit), by the 10th of the next month.
 */
function taxInvoiceFields(f: CashReceiptFieldInput): SafeHtml {
  const e = f.errors ?? {};
  const input = (name: 'taxInvoiceBrn' | 'taxInvoiceCompany' | 'taxInvoiceRepresentative' | 'taxInvoiceEmail', label: string, attrs: SafeHtml) =>
    html`<label for="${name}">${label}</label>
      <input id="${name}" name="${name}" ${attrs} value="${f.values[name] ?? ''}"${e[name] ? html` aria-invalid="true" aria-describedby="${name}-err"` : ''}>
      ${fieldError(name, e[name])}`;
  return html`<div class="tax-invoice-fields" id="tax-invoice-fields">
      <p class="hint" id="tax-invoice-hint">세금계산서를 선택하면 현금영수증은 발급되지 않습니다. 아래 정보로 판매자가 전자세금계산서를 발급합니다(결제일이 속한 달의 다음 달 10일까지).</p>
      ${input('taxInvoiceBrn', '사업자등록번호 (세금계산서)', html`type="text" inputmode="numeric" autocomplete="off" maxlength="12"`)}
      ${input('taxInvoiceCompany', '상호', html`type="text" autocomplete="organization" maxlength="200"`)}
      ${input('taxInvoiceRepresentative', '대표자명', html`type="text" autocomplete="off" maxlength="100"`)}
      ${input('taxInvoiceEmail', '세금계산서 받을 이메일', html`type="email" autocomplete="email" maxlength="254"`)}
    </div>`;
}
