import type { OrderView } from '../../orders/schemas';
import { TOSS_BANKS } from '../../payments/banks';
import { html, type SafeHtml } from '../html';
import type { ReceiptCopy } from './copy';

/**
 * The receipt's 가상계좌 card (issue 32): where and by when to deposit while the order waits; once deposited, the
 * buyer's refund account (a refund after the deposit can only go to an account the buyer names: Toss's
 * refundReceiveAccount). Test mode adds the button that makes the deposit arrive.
 */
export interface VirtualAccountCardInput {
  order: OrderView;
  token: string;
  c: ReceiptCopy;
  /** "신한 ****1234 (홍길동)" when the buyer has given one. */
  refundAccount: string | null;
  errors?: Partial<Record<'bankCode' | 'accountNumber' | 'holderName', string>>;
  typed?: { bankCode: string; holderName: string };
}

const T = {
  ko: {
    heading: '가상계좌 입금 안내',
    waiting: '아래 계좌로 입금 기한까지 결제 금액을 정확히 입금하면 결제가 완료됩니다.',
    bank: '은행',
    account: '계좌번호',
    holder: '예금주',
    due: '입금 기한',
    amount: '입금할 금액',
    deposited: '입금 확인',
    expired: '입금 기한이 지나 주문이 만료되었습니다. 결제는 이루어지지 않았습니다.',
    testDeposit: '입금하기 (테스트 모드)',
    testHint: '테스트 모드: 실제 입금 없이 입금이 도착한 것처럼 처리합니다.',
    refundHeading: '환불 계좌',
    refundWhy: '가상계좌 결제는 환불할 때 돈을 돌려받을 본인 계좌가 필요합니다.',
    refundSet: (s: string) => `등록된 환불 계좌: ${s}`,
    refundNone: '아직 환불 계좌가 없습니다. 판매자가 환불하려면 필요하니 여기에 입력하거나, 환불을 요청할 때 요청서에 함께 입력해 주세요.',
    chooseBank: '은행 선택',
    number: '계좌번호 (- 없이)',
    save: '환불 계좌 저장',
    replace: '환불 계좌 변경',
    requestLegend: '환불받을 본인 계좌 (필수)',
    requestWhy: '가상계좌로 결제한 금액은 이 계좌로 환불됩니다. 요청과 함께 저장되며, 계좌번호는 끝 네 자리만 표시됩니다.',
    requestOnFile: (s: string) => `환불받을 본인 계좌: ${s}. 다른 계좌로 받으려면 아래에 입력해 주세요.`,
  },
  en: {
    heading: 'Virtual account deposit',
    waiting: 'Deposit the exact amount to the account below before the deadline to complete the payment.',
    bank: 'Bank',
    account: 'Account number',
    holder: 'Account holder',
    due: 'Deposit by',
    amount: 'Amount to deposit',
    deposited: 'Deposit confirmed',
    expired: 'The deposit deadline passed and the order expired. Nothing was paid.',
    testDeposit: 'Deposit now (test mode)',
    testHint: 'Test mode: makes the deposit arrive without any money moving.',
    refundHeading: 'Refund account',
    refundWhy: 'A virtual-account payment is refunded to an account of yours.',
    refundSet: (s: string) => `Refund account on file: ${s}`,
    refundNone: 'No refund account yet. The seller needs one to refund you: enter it here, or with your refund request.',
    chooseBank: 'Choose a bank',
    number: 'Account number (digits only)',
    save: 'Save refund account',
    replace: 'Change refund account',
    requestLegend: 'Your account for the refund (required)',
    requestWhy: 'A virtual-account payment is refunded to this account. It is saved with the request; only its last four digits are shown.',
    requestOnFile: (s: string) => `Your account for the refund: ${s}. To be refunded to another account, enter it below.`,
  },
};

const hidden = (token: string, lang: string) => html`<input type="hidden" name="t" value="${token}">${lang === 'en' ? html`<input type="hidden" name="lang" value="en">` : ''}`;
const err = (id: string, m: string | undefined) => (m ? html`<p class="err" id="${id}-err" role="alert">${m}</p>` : '');

export type RefundAccountErrors = Partial<Record<'bankCode' | 'accountNumber' | 'holderName', string>>;

function bankSelect(id: string, selected: string, label: string, invalidMsg: string | undefined): SafeHtml {
  return html`<select id="${id}" name="bankCode"${invalidMsg ? html` aria-invalid="true" aria-describedby="${id}-err"` : ''}>
      <option value="">${label}</option>
      ${Object.entries(TOSS_BANKS).map(([code, name]) => html`<option value="${code}"${code === selected ? html` selected` : ''}>${name}</option>`)}
    </select>`;
}

/**
 * The refund account inside the refund-request form of a deposited 가상계좌 (a refund of one is paid only to an account
 * the buyer names, so the request carries it). Its ids are prefixed: the receipt's own refund-account form uses the bare ones.
 */
export function requestAccountFields(p: { c: ReceiptCopy; onFile: string | null; errors?: RefundAccountErrors; typed?: { bankCode: string; holderName: string }; why?: string; legend?: string }): SafeHtml {
  const t = T[p.c.lang];
  const e = p.errors ?? {};
  return html`<fieldset class="refund-account" id="request-account">
    <legend>${p.legend ?? t.requestLegend}</legend>
    <p class="hint" id="request-account-state">${p.onFile ? t.requestOnFile(p.onFile) : (p.why ?? t.requestWhy)}</p>
    <label for="rr-bankCode">${t.bank}</label>
    ${bankSelect('rr-bankCode', p.typed?.bankCode ?? '', t.chooseBank, e.bankCode)}
    ${err('rr-bankCode', e.bankCode)}
    <label for="rr-accountNumber">${t.number}</label>
    <input id="rr-accountNumber" name="accountNumber" type="text" inputmode="numeric" autocomplete="off" maxlength="30"${e.accountNumber ? html` aria-invalid="true" aria-describedby="rr-accountNumber-err"` : ''}>
    ${err('rr-accountNumber', e.accountNumber)}
    <label for="rr-holderName">${t.holder}</label>
    <input id="rr-holderName" name="holderName" type="text" autocomplete="name" maxlength="60" value="${p.typed?.holderName ?? ''}"${e.holderName ? html` aria-invalid="true" aria-describedby="rr-holderName-err"` : ''}>
    ${err('rr-holderName', e.holderName)}
  </fieldset>`;
}

export function virtualAccountCard(p: VirtualAccountCardInput): SafeHtml {
  const va = p.order.virtualAccount;
  if (!va) return html``;
  const t = T[p.c.lang];
  const base = `/receipt/${encodeURIComponent(p.order.id)}`;
  const o = p.order;
  const details = html`<dl class="amounts">
    <dt>${t.bank}</dt><dd id="va-bank">${va.bankName}</dd>
    <dt>${t.account}</dt><dd id="va-account">${va.accountNumber}</dd>
    <dt>${t.holder}</dt><dd id="va-holder">${va.holderName}</dd>
    <dt>${va.depositedAt ? t.deposited : t.due}</dt><dd id="va-due">${p.c.time(new Date(va.depositedAt ?? va.dueAt))}</dd>
    ${o.status === 'awaiting_deposit' ? html`<dt class="total">${t.amount}</dt><dd class="total">${p.c.money(o.amount)}</dd>` : ''}
  </dl>`;
  if (o.status === 'awaiting_deposit') {
    return html`<section class="card" id="virtual-account" aria-label="${t.heading}">
  <h2>${t.heading}</h2>
  <p class="muted">${t.waiting}</p>
  ${details}
  ${o.mode === 'test'
    ? html`<form method="post" action="${base}/test-deposit">${hidden(p.token, p.c.lang)}<button class="pay" type="submit" id="test-deposit">${t.testDeposit}</button><p class="hint">${t.testHint}</p></form>`
    : ''}
</section>`;
  }
  if (o.status === 'expired') return html`<section class="card" id="virtual-account"><h2>${t.heading}</h2><p class="muted">${t.expired}</p>${details}</section>`;
  return html`<section class="card" id="virtual-account" aria-label="${t.heading}">
  <h2>${t.heading}</h2>
  ${details}
  <h2 style="margin-top:16px" id="refund-account-heading">${t.refundHeading}</h2>
  <p class="muted">${t.refundWhy}</p>
  ${refundAccountForm(p)}
</section>`;
}

/** The buyer's refund-account form (a deposited 가상계좌; a 휴대폰 결제 refunded after its month, phone-gift.ts). */
export function refundAccountForm(p: Omit<VirtualAccountCardInput, 'order'> & { order: Pick<OrderView, 'id'> }): SafeHtml {
  const t = T[p.c.lang];
  const base = `/receipt/${encodeURIComponent(p.order.id)}`;
  const e = p.errors ?? {};
  const bank = p.typed?.bankCode ?? '';
  return html`<p class="hint" id="refund-account-state">${p.refundAccount ? t.refundSet(p.refundAccount) : t.refundNone}</p>
  <form method="post" action="${base}/refund-account" novalidate id="refund-account-form">
    ${hidden(p.token, p.c.lang)}
    <label for="bankCode">${t.bank}</label>
    ${bankSelect('bankCode', bank, t.chooseBank, e.bankCode)}
    ${err('bankCode', e.bankCode)}
    <label for="accountNumber">${t.number}</label>
    <input id="accountNumber" name="accountNumber" type="text" inputmode="numeric" autocomplete="off" maxlength="30"${e.accountNumber ? html` aria-invalid="true"` : ''}>
    ${err('accountNumber', e.accountNumber)}
    <label for="holderName">${t.holder}</label>
    <input id="holderName" name="holderName" type="text" autocomplete="name" maxlength="60" value="${p.typed?.holderName ?? ''}"${e.holderName ? html` aria-invalid="true"` : ''}>
    ${err('holderName', e.holderName)}
    <button class="secondary" type="submit" style="margin-top:12px">${p.refundAccount ? t.replace : t.save}</button>
  </form>`;
}
