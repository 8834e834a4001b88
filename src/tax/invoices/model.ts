import { MESSAGES } from '../../platform/messages';
import type { PaymentMethod } from '../../payments/method';
import { splitVat, type VatSplit } from '../model';

/**
 * 세금계산서 for business buyers: the pure rules. Decision table for a buyer's (or the seller's) request:
 *
 *   the order                                   answer
 *   card or easy pay                            refused: TAX_INVOICE_CARD_PAYMENT (the card slip is the evidence,
 *                                               부가가치세법 제33조 ②: no 세금계산서 where a 신용카드매출전표 was issued)
 *   a 현금영수증 exists (or was asked)           refused: TAX_INVOICE_CASH_RECEIPT_EXISTS (one evidence per sale)
 *   a 세금계산서 exists (any state but canceled)  refused: TAX_INVOICE_EXISTS (one original per order)
 *   not paid, not awaiting its deposit,         refused: TAX_INVOICE_NOT_ALLOWED
 *     or refunded in full
 *   past the deadline (10th of the month after refused: TAX_INVOICE_DEADLINE_PASSED
 *     the supply, 부가가치세법 제34조 ③)
 *   otherwise                                   kept as `requested`; issued now if the store issues automatically
 *                                               and the order is paid, else when paid / when the seller issues it
 */

export const BANK_METHODS: ReadonlySet<PaymentMethod> = new Set<PaymentMethod>(['transfer', 'virtual_account']);

/** 사업자등록번호 check digit: weights 1,3,7,1,3,7,1,3,5 on the first nine digits, plus ⌊(9th × 5) / 10⌋. */
export function brnCheckDigitOk(brn: string): boolean {
  if (!/^\d{10}$/.test(brn)) return false;
  const d = [...brn].map(Number);
  const w = [1, 3, 7, 1, 3, 7, 1, 3, 5];
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += d[i] * w[i];
  sum += Math.floor((d[8] * 5) / 10);
  return (10 - (sum % 10)) % 10 === d[9];
}

export interface RecipientInput {
  businessNumber: string;
  companyName: string;
  representative: string;
  email: string;
}
export interface Recipient {
  brn: string;
  name: string;
  representative: string;
  email: string;
}
export interface FieldError {
  field: string;
  message: string;
}

const EMAIL = /^[^\s@<>"]{1,64}@[^\s@<>"]+\.[^\s@<>"]+$/;

/** Checks the recipient as typed (dashes and spaces in the number are ignored); each bad field gets a Korean message. */
export function checkRecipient(input: Partial<RecipientInput>): { ok: true; recipient: Recipient } | { ok: false; fields: FieldError[] } {
  const fields: FieldError[] = [];
  const brn = String(input.businessNumber ?? '').replace(/[\s-]/g, '');
  if (!brn) fields.push({ field: 'businessNumber', message: MESSAGES.checkout.taxInvoiceBrnRequired });
  else if (!/^\d{10}$/.test(brn)) fields.push({ field: 'businessNumber', message: MESSAGES.checkout.taxInvoiceBrnInvalid });
  else if (!brnCheckDigitOk(brn)) fields.push({ field: 'businessNumber', message: MESSAGES.checkout.taxInvoiceBrnCheckDigit });
  const name = String(input.companyName ?? '').trim();
  if (!name || name.length > 200 || /[\u0000-\u001f]/.test(name)) fields.push({ field: 'companyName', message: MESSAGES.checkout.taxInvoiceNameRequired });
  const rep = String(input.representative ?? '').trim();
  if (!rep || rep.length > 100 || /[\u0000-\u001f]/.test(rep)) fields.push({ field: 'representative', message: MESSAGES.checkout.taxInvoiceRepresentativeRequired });
  const email = String(input.email ?? '').trim();
  if (!EMAIL.test(email) || email.length > 254) fields.push({ field: 'email', message: MESSAGES.checkout.taxInvoiceEmailInvalid });
  if (fields.length) return { ok: false, fields };
  return { ok: true, recipient: { brn, name, representative: rep, email } };
}

const KST_MS = 9 * 3_600_000;
/** yyyy-MM-dd of an instant in KST. */
export const kstDay = (t: Date): string => new Date(t.getTime() + KST_MS).toISOString().slice(0, 10);

/**
 * The last instant a 세금계산서 for a supply at `supplied` may be issued: the end of the 10th of the next month, KST
 * (부가가치세법 제34조 ③, 월합계·지연 특례 aside). A 10th falling on a holiday is not moved: the service keeps to the
 * stricter day rather than carry a holiday calendar.
 */
export function issueDeadline(supplied: Date): Date {
  const k = new Date(supplied.getTime() + KST_MS);
  // Date.UTC(y, m + 1, 11) is the 11th 00:00 of the next month (a December supply rolls into January).
  return new Date(Date.UTC(k.getUTCFullYear(), k.getUTCMonth() + 1, 11) - KST_MS);
}

/** 공급가액 and 세액 of a document: the VAT report's rule (src/tax/model.ts splitVat), so both agree to the won. */
export function invoiceAmounts(total: number): VatSplit {
  return splitVat(total);
}

/**
 * What a refund asks of an issued 세금계산서 (부가가치세법 시행령 제70조 ①): the order's covered amount drops from
 * `covered` to `stillPaid`. Nothing left: 계약의 해제 (CANCELLATION_OF_CONTRACT) for minus all that is covered; some
 * left: 공급가액 변동 (CHANGE_IN_SUPPLY_COST) for minus the difference. No change: no document.
 */
export function amendmentFor(covered: number, stillPaid: number): { type: 'CANCELLATION_OF_CONTRACT' | 'CHANGE_IN_SUPPLY_COST'; total: number } | null {
  if (stillPaid >= covered) return null;
  if (stillPaid <= 0) return { type: 'CANCELLATION_OF_CONTRACT', total: -covered };
  return { type: 'CHANGE_IN_SUPPLY_COST', total: stillPaid - covered };
}

export const MODIFICATION_LABEL: Record<string, string> = {
  CANCELLATION_OF_CONTRACT: '계약의 해제',
  CHANGE_IN_SUPPLY_COST: '공급가액 변동',
};

export const STATUS_LABEL: Record<string, string> = {
  requested: '발급 대기',
  issuing: '발급 중',
  issued: '발급 완료',
  failed: '발급 실패',
  canceled: '취소됨',
};

/** Masks a 사업자등록번호 for lists and logs: 123-45-***90. */
export function maskBrn(brn: string): string {
  return `${brn.slice(0, 3)}-${brn.slice(3, 5)}-***${brn.slice(8)}`;
}
