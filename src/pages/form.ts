import type { PaymentMethod } from '../payments/method';
import type { CheckoutAttempt } from '../checkout/tables';
import { won } from './html';
import { formatUsd, isForeignMethod } from '../payments/foreign';
import { consentRecord, type RecurringTerms } from '../subscriptions/consent';
import { MESSAGES } from '../platform/messages';
import { checkRecipient } from '../tax/invoices/model';
import { bidiMessage, hasBidiControl, isValidEmail } from '../platform/text';

export const METHODS: Array<{ value: PaymentMethod; label: string; payWith: string }> = [
  { value: 'card', label: '신용·체크카드', payWith: '카드로' },
  { value: 'kakao_pay', label: '카카오페이', payWith: '카카오페이로' },
  { value: 'naver_pay', label: '네이버페이', payWith: '네이버페이로' },
  { value: 'toss', label: '토스페이', payWith: '토스페이로' },
  { value: 'transfer', label: '계좌이체', payWith: '계좌이체로' },
  { value: 'virtual_account', label: '가상계좌', payWith: '가상계좌로' },
  { value: 'mobile_phone', label: '휴대폰', payWith: '휴대폰으로' },
  { value: 'culture_gift', label: '문화상품권', payWith: '문화상품권으로' },
  { value: 'book_gift', label: '도서문화상품권', payWith: '도서문화상품권으로' },
  { value: 'game_gift', label: '게임문화상품권', payWith: '게임문화상품권으로' },
  // Buyers abroad (issue 41): offered only where the store enabled them (src/checkout/foreign.ts).
  { value: 'foreign_card', label: '해외 발급 카드 (Overseas card)', payWith: '해외 발급 카드로' },
  { value: 'paypal', label: 'PayPal (USD)', payWith: 'PayPal로' },
];

/** Methods that move the buyer's bank money (현금성 결제): no card to keep for 자동결제, and 현금영수증 applies. */
export const BANK_METHODS: ReadonlySet<PaymentMethod> = new Set(['transfer', 'virtual_account']);
/** 휴대폰 결제 and 상품권: one-time payments only (Toss documents 자동결제 billing keys for cards alone). */
export const ONE_TIME_ONLY_METHODS: ReadonlySet<PaymentMethod> = new Set(['mobile_phone', 'culture_gift', 'book_gift', 'game_gift']);
export const methodLabel = (m: PaymentMethod): string => METHODS.find((x) => x.value === m)?.label ?? m;

/** The pay button's text for a method: "카드로 12,000원 결제", "카카오페이로 12,000원 결제". */
export function payText(method: string, amount: number, usdCents?: number | null): string {
  const m = METHODS.find((x) => x.value === method);
  // PayPal charges dollars: the button names what PayPal will take, the won price beside it.
  if (m && method === 'paypal' && usdCents != null) return `${m.payWith} ${formatUsd(usdCents)} (${won(amount)}) 결제`;
  return m ? `${m.payWith} ${won(amount)} 결제` : `${won(amount)} 결제하기`;
}

/** 할부 is offered for card payments from this amount on (the card companies' and Toss's 5만 원 rule). */
export const INSTALLMENT_MIN_AMOUNT = 50_000;
export const INSTALLMENT_MONTHS = [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12] as const;

/** The agreements a Korean payment page asks for; every one is required before paying. */
export const AGREEMENTS = ['agreeTerms', 'agreePrivacy', 'agreeThirdParty'] as const;
export type AgreementField = (typeof AGREEMENTS)[number];

/** What the buyer typed, as typed (re-rendered into the form on any error, except the card number, which never is). */
export interface FormValues {
  buyerName: string;
  buyerEmail: string;
  buyerPhone: string;
  method: string;
  cardNumber: string;
  couponCode: string;
  /** `0` (일시불) or 2–12; '' when not chosen. */
  installment: string;
  agreeTerms: boolean;
  agreePrivacy: boolean;
  agreeThirdParty: boolean;
  /** Subscriptions: the separate recurring-charge consent (never ticked by "전체 동의"). */
  agreeRecurring: boolean;
  /** 계좌이체·가상계좌: 현금영수증 `none`, `income` (소득공제) or `expense` (지출증빙); '' = none. */
  cashReceiptType?: string;
  /** The 현금영수증 identity number as typed (phone or card number; 사업자번호). */
  cashReceiptNumber?: string;
  /** `cashReceiptType` = `tax_invoice`: the 세금계산서 recipient (사업자등록번호, 상호, 대표자명, e-mail). */
  taxInvoiceBrn?: string;
  taxInvoiceCompany?: string;
  taxInvoiceRepresentative?: string;
  taxInvoiceEmail?: string;
}

export type FieldErrors = Partial<Record<keyof FormValues | 'agreements', string>>;

const MAX_FIELD = 200;

/** Reads a urlencoded (or JSON) body: first value of each field, trimmed, capped in length. */
export function readForm(body: unknown): FormValues & { action: string; decision: string } {
  const b = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const get = (k: string) => {
    const v = Array.isArray(b[k]) ? (b[k] as unknown[])[0] : b[k];
    return typeof v === 'string' ? v.trim().slice(0, MAX_FIELD) : '';
  };
  const ticked = (k: string) => get(k) !== '';
  // Without JavaScript "전체 동의" cannot tick the others, so the server reads it as consent to each of them.
  const all = ticked('agreeAll');
  return {
    buyerName: get('buyerName'),
    buyerEmail: get('buyerEmail'),
    buyerPhone: get('buyerPhone'),
    method: get('method'),
    cardNumber: get('cardNumber'),
    couponCode: get('couponCode'),
    installment: get('installment'),
    agreeTerms: all || ticked('agreeTerms'),
    agreePrivacy: all || ticked('agreePrivacy'),
    agreeThirdParty: all || ticked('agreeThirdParty'),
    // Separate on purpose: consent to a recurring charge is its own decision (전자상거래법 제13조⑥), not part of "전체 동의".
    agreeRecurring: ticked('agreeRecurring'),
    cashReceiptType: get('cashReceiptType'),
    cashReceiptNumber: get('cashReceiptNumber'),
    taxInvoiceBrn: get('taxInvoiceBrn'),
    taxInvoiceCompany: get('taxInvoiceCompany'),
    taxInvoiceRepresentative: get('taxInvoiceRepresentative'),
    taxInvoiceEmail: get('taxInvoiceEmail'),
    action: get('action'),
    decision: get('decision'),
  };
}

/** Korean mobile/landline number as digits (`+82 10-…` becomes `010…`), or null when it is not one. */
export function normalizePhone(raw: string): string | null {
  let d = raw.replace(/[\s\-().]/g, '');
  if (d.startsWith('+82')) d = `0${d.slice(3).replace(/^0/, '')}`;
  return /^0\d{8,10}$/.test(d) ? d : null;
}

/**
 * Checks the buyer's fields. The card number is only checked for presence here: its format and checksum are the
 * payment provider's to judge (the simulator's authorize), so the message matches what a real gateway would say.
 * `amount` is what will be charged (after the coupon): 할부 is refused below INSTALLMENT_MIN_AMOUNT, for other methods
 * and for subscriptions (a billing key is charged 일시불).
 */
export function validateBuyer(
  v: FormValues,
  opts: { needCardNumber: boolean; amount?: number; subscription?: boolean; now: Date; recurring?: RecurringTerms },
): { attempt: CheckoutAttempt; errors: null } | { attempt: null; errors: FieldErrors } {
  const errors: FieldErrors = {};
  if (!v.buyerName) errors.buyerName = '이름을 입력해 주세요.';
  else if (v.buyerName.length > 50) errors.buyerName = '이름은 50자 이하로 입력해 주세요.';
  else if (hasBidiControl(v.buyerName)) errors.buyerName = bidiMessage('이름');
  if (!v.buyerEmail) errors.buyerEmail = '이메일을 입력해 주세요.';
  else if (!isValidEmail(v.buyerEmail)) errors.buyerEmail = '올바른 이메일 주소를 입력해 주세요.';
  const phone = normalizePhone(v.buyerPhone);
  if (!v.buyerPhone) errors.buyerPhone = '휴대폰 번호를 입력해 주세요.';
  else if (!phone) errors.buyerPhone = '올바른 휴대폰 번호를 입력해 주세요. (예: 010-1234-5678)';
  const method = METHODS.find((m) => m.value === v.method)?.value;
  if (!method) errors.method = '결제 수단을 선택해 주세요.';
  if ((method === 'card' || method === 'foreign_card') && opts.needCardNumber && !v.cardNumber) errors.cardNumber = '카드 번호를 입력해 주세요.';
  if (method && opts.subscription && isForeignMethod(method)) errors.method = MESSAGES.checkout.methodNotOffered;
  // 자동결제 charges a registered card; a bank payment leaves nothing to charge at renewal.
  if (method && opts.subscription && (BANK_METHODS.has(method) || ONE_TIME_ONLY_METHODS.has(method))) errors.method = MESSAGES.checkout.subscriptionNeedsCard;
  if (v.couponCode.length > 40) errors.couponCode = '쿠폰 코드가 너무 깁니다.';
  let installmentMonths = 0;
  if (v.installment !== '' && v.installment !== '0') {
    const n = Number(v.installment);
    if (!(INSTALLMENT_MONTHS as readonly number[]).includes(n)) errors.installment = '할부 개월 수를 다시 선택해 주세요.';
    else if (method !== 'card' || opts.subscription || (opts.amount ?? 0) < INSTALLMENT_MIN_AMOUNT) {
      errors.installment = `할부는 ${won(INSTALLMENT_MIN_AMOUNT)} 이상 카드 결제에서만 선택할 수 있습니다. 일시불로 다시 선택해 주세요.`;
    } else installmentMonths = n;
  }
  if (!AGREEMENTS.every((a) => v[a])) errors.agreements = '결제를 진행하려면 필수 약관에 모두 동의해 주세요.';
  if (opts.recurring && !v.agreeRecurring) errors.agreeRecurring = MESSAGES.checkout.recurringConsentRequired;
  // 현금영수증 applies to bank money only; a card payment ignores whatever the (hidden) fields hold.
  const asksInvoice = v.cashReceiptType === 'tax_invoice';
  const cash = method && BANK_METHODS.has(method) && !asksInvoice ? cashReceiptChoice(v) : { choice: null };
  if ('error' in cash) errors.cashReceiptNumber = cash.error;
  // 세금계산서 instead of a 현금영수증 (one radio, so never both); a card payment is refused one (the card slip is the evidence).
  const invoice = asksInvoice && method ? taxInvoiceChoice(v, BANK_METHODS.has(method)) : { recipient: null };
  if ('errors' in invoice) Object.assign(errors, invoice.errors);
  if (Object.keys(errors).length) return { attempt: null, errors };
  return {
    attempt: {
      buyerName: v.buyerName,
      buyerEmail: v.buyerEmail,
      buyerPhone: phone!,
      method: method!,
      couponCode: v.couponCode || null,
      ...(installmentMonths ? { installmentMonths } : {}),
      buyerPhoneTyped: v.buyerPhone,
      agreedAt: opts.now.toISOString(),
      ...(opts.recurring ? { recurringConsent: consentRecord(opts.recurring, opts.now) } : {}),
      ...('choice' in cash && cash.choice ? { cashReceipt: { ...cash.choice, requestedBy: 'buyer' as const } } : {}),
      ...('recipient' in invoice && invoice.recipient ? { taxInvoice: invoice.recipient } : {}),
    },
    errors: null,
  };
}

export function valuesFromAttempt(a: CheckoutAttempt): FormValues {
  return {
    buyerName: a.buyerName,
    buyerEmail: a.buyerEmail,
    buyerPhone: a.buyerPhoneTyped ?? a.buyerPhone,
    method: a.method,
    cardNumber: '',
    couponCode: a.couponCode ?? '',
    installment: a.installmentMonths ? String(a.installmentMonths) : '',
    agreeTerms: !!a.agreedAt,
    agreePrivacy: !!a.agreedAt,
    agreeThirdParty: !!a.agreedAt,
    agreeRecurring: !!a.recurringConsent,
    cashReceiptType: a.cashReceipt?.requestedBy === 'buyer' ? (a.cashReceipt.type === '지출증빙' ? 'expense' : 'income') : 'none',
    cashReceiptNumber: a.cashReceipt?.requestedBy === 'buyer' ? a.cashReceipt.identity : '',
    ...(a.taxInvoice
      ? { cashReceiptType: 'tax_invoice', taxInvoiceBrn: a.taxInvoice.brn, taxInvoiceCompany: a.taxInvoice.name, taxInvoiceRepresentative: a.taxInvoice.representative, taxInvoiceEmail: a.taxInvoice.email }
      : {}),
  };
}

/** The payment form's 세금계산서 recipient, checked as the API checks it; a card-type method is refused one. */
function taxInvoiceChoice(v: FormValues, bank: boolean): { recipient: NonNullable<CheckoutAttempt['taxInvoice']> } | { errors: FieldErrors } {
  if (!bank) return { errors: { method: MESSAGES.checkout.taxInvoiceCardRefused } };
  const r = checkRecipient({ businessNumber: v.taxInvoiceBrn, companyName: v.taxInvoiceCompany, representative: v.taxInvoiceRepresentative, email: v.taxInvoiceEmail });
  if (r.ok) return { recipient: r.recipient };
  const field: Record<string, keyof FormValues> = { businessNumber: 'taxInvoiceBrn', companyName: 'taxInvoiceCompany', representative: 'taxInvoiceRepresentative', email: 'taxInvoiceEmail' };
  return { errors: Object.fromEntries(r.fields.map((f) => [field[f.field], f.message])) };
}

/**
 * The buyer's 현금영수증 choice: 소득공제 with a mobile phone number (010…, 10–11 digits) or a card number (13–19 digits;
 * 현금영수증 카드 or credit card), 지출증빙 with a 10-digit 사업자등록번호, or none.
 */
export function cashReceiptChoice(v: Pick<FormValues, 'cashReceiptType' | 'cashReceiptNumber'>): { choice: { type: '소득공제' | '지출증빙'; identity: string } | null } | { error: string } {
  if (!v.cashReceiptType || v.cashReceiptType === 'none') return { choice: null };
  const digits = (v.cashReceiptNumber ?? '').replace(/[\s\-]/g, '');
  if (v.cashReceiptType === 'income') {
    if (!digits) return { error: '현금영수증(소득공제)을 받을 휴대폰 번호나 카드 번호를 입력해 주세요.' };
    if (/^01\d{8,9}$/.test(digits) || /^\d{13,19}$/.test(digits)) return { choice: { type: '소득공제', identity: digits } };
    return { error: '소득공제용 현금영수증은 휴대폰 번호(예: 010-1234-5678)나 카드 번호(13~19자리)로 받을 수 있습니다.' };
  }
  if (v.cashReceiptType === 'expense') {
    if (!digits) return { error: '현금영수증(지출증빙)을 받을 사업자등록번호를 입력해 주세요.' };
    if (/^\d{10}$/.test(digits)) return { choice: { type: '지출증빙', identity: digits } };
    return { error: '사업자등록번호 10자리를 입력해 주세요. (예: 123-45-67890)' };
  }
  return { error: '현금영수증 종류를 다시 선택해 주세요.' };
}
