import { html, won, type SafeHtml } from '../html';
import type { Lang } from './copy';
import type { TaxInvoiceView } from '../../tax/invoices/view';

/**
 * The receipt's 세금계산서 card (src/tax/invoices/): the order's documents (the original and each refund's
 * 수정세금계산서) with the provider's PDF link, or, for a bank payment with no 현금영수증 and still within the legal
 * deadline, the business buyer's request form. A card payment is told the card slip is its evidence. Words in Korean
 * and English in one object of the same shape for both.
 */

export interface TaxInvoiceCardInput {
  orderId: string;
  token: string;
  lang: Lang;
  /** The order's documents, oldest first. */
  invoices: TaxInvoiceView[];
  /** Whether the request form is offered (bank payment, no 현금영수증, no invoice, within the deadline). */
  canRequest: boolean;
  /** A card-type payment: no form, the card slip is the evidence. */
  cardPayment: boolean;
  /** The last day to ask (KST, yyyy-MM-dd), when the order is paid. */
  deadline: string | null;
  typed?: Record<string, string>;
  errors?: Record<string, string>;
}

const TI_COPY = {
  ko: {
    heading: '세금계산서',
    original: '세금계산서',
    amendment: (t: string | null) => `수정세금계산서 (${t === 'CANCELLATION_OF_CONTRACT' ? '계약의 해제' : '공급가액 변동'})`,
    status: { requested: '발급 대기', issuing: '발급 중', issued: '발급 완료', failed: '발급 실패 (판매자 확인 중)', canceled: '취소됨' } as Record<string, string>,
    supply: '공급가액',
    tax: '세액',
    approval: '국세청 승인번호',
    pdf: '세금계산서 PDF 보기',
    to: (name: string) => `공급받는자: ${name}`,
    card: '카드·간편결제는 카드 매출전표가 증빙이 되어 세금계산서를 발급하지 않습니다.',
    intro: (d: string | null) => `사업자라면 현금영수증 대신 전자세금계산서를 요청할 수 있습니다.${d ? ` 요청 기한: ${d}` : ''}`,
    brn: '사업자등록번호',
    company: '상호',
    rep: '대표자명',
    email: '세금계산서 받을 이메일',
    submit: '세금계산서 요청',
  },
  en: {
    heading: 'Tax invoice',
    original: 'Tax invoice',
    amendment: (t: string | null) => `Amended tax invoice (${t === 'CANCELLATION_OF_CONTRACT' ? 'contract cancelled' : 'supply value changed'})`,
    status: { requested: 'Waiting to be issued', issuing: 'Being issued', issued: 'Issued', failed: 'Not issued (the seller is checking)', canceled: 'Cancelled' } as Record<string, string>,
    supply: 'Supply value',
    tax: 'VAT',
    approval: 'NTS approval number',
    pdf: 'View the tax invoice (PDF)',
    to: (name: string) => `Issued to: ${name}`,
    card: 'Card and easy-pay payments get no tax invoice: the card slip is the evidence.',
    intro: (d: string | null) => `A business buyer may ask for an electronic tax invoice instead of a cash receipt.${d ? ` Ask by ${d}.` : ''}`,
    brn: 'Business registration number',
    company: 'Company name',
    rep: 'Representative',
    email: 'E-mail for the tax invoice',
    submit: 'Request a tax invoice',
  },
} satisfies Record<Lang, unknown>;

const money = (lang: Lang, n: number) => (lang === 'en' ? `₩${n.toLocaleString('en-US')}` : won(n));

export function taxInvoiceCard(p: TaxInvoiceCardInput): SafeHtml {
  const c = TI_COPY[p.lang];
  if (p.invoices.length === 0 && !p.canRequest && !p.cardPayment) return html``;
  const docs = p.invoices.map(
    (i) => html`<li class="tax-invoice" data-status="${i.status}"><div class="line"><span>${i.kind === 'original' ? c.original : c.amendment(i.modificationType)}</span><span class="amount">${i.totalAmount !== null ? money(p.lang, i.totalAmount) : ''}</span></div>
    <p class="muted"><span class="status">${c.status[i.status] ?? i.status}</span> · ${c.to(i.recipient.companyName)}${i.supplyAmount !== null ? html` · ${c.supply} ${money(p.lang, i.supplyAmount)} · ${c.tax} ${money(p.lang, i.taxAmount ?? 0)}` : ''}</p>
    ${i.ntsApprovalNumber ? html`<p class="muted">${c.approval} <span class="nts">${i.ntsApprovalNumber}</span></p>` : ''}
    ${i.pdfUrl ? html`<p><a class="tax-invoice-pdf" href="${i.pdfUrl}" target="_blank" rel="noopener">${c.pdf}</a></p>` : ''}</li>`,
  );
  const e = p.errors ?? {};
  const v = p.typed ?? {};
  const field = (name: string, label: string, attrs: SafeHtml) => html`<label for="ti-${name}">${label}</label>
    <input id="ti-${name}" name="${name}" ${attrs} value="${v[name] ?? ''}"${e[name] ? html` aria-invalid="true" aria-describedby="ti-${name}-err"` : ''}>
    ${e[name] ? html`<p class="err" id="ti-${name}-err" role="alert">${e[name]}</p>` : ''}`;
  const form = p.canRequest
    ? html`<p class="muted">${c.intro(p.deadline)}</p>
  <form method="post" action="/receipt/${encodeURIComponent(p.orderId)}/tax-invoice" novalidate>
    <input type="hidden" name="t" value="${p.token}">${p.lang === 'en' ? html`<input type="hidden" name="lang" value="en">` : ''}
    ${field('businessNumber', c.brn, html`type="text" inputmode="numeric" autocomplete="off" maxlength="12"`)}
    ${field('companyName', c.company, html`type="text" autocomplete="organization" maxlength="200"`)}
    ${field('representative', c.rep, html`type="text" autocomplete="off" maxlength="100"`)}
    ${field('email', c.email, html`type="email" autocomplete="email" maxlength="254"`)}
    <button class="pay" type="submit">${c.submit}</button>
  </form>`
    : '';
  return html`<section class="card" aria-label="${c.heading}" id="tax-invoice">
  <h2>${c.heading}</h2>
  ${docs.length ? html`<ul class="list">${docs}</ul>` : ''}
  ${p.cardPayment && docs.length === 0 ? html`<p class="muted" id="tax-invoice-card-note">${c.card}</p>` : ''}
  ${form}
</section>`;
}
