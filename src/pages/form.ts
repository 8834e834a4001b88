import type { PaymentMethod } from '../orders/tables';
import type { CheckoutAttempt } from '../checkout/tables';

export const METHODS: Array<{ value: PaymentMethod; label: string }> = [
  { value: 'card', label: '신용·체크카드' },
  { value: 'kakao_pay', label: '카카오페이' },
  { value: 'naver_pay', label: '네이버페이' },
  { value: 'toss', label: '토스페이' },
];
export const methodLabel = (m: PaymentMethod): string => METHODS.find((x) => x.value === m)?.label ?? m;

/** What the buyer typed, as typed (re-rendered into the form on any error, except the card number, which never is). */
export interface FormValues {
  buyerName: string;
  buyerEmail: string;
  buyerPhone: string;
  method: string;
  cardNumber: string;
  couponCode: string;
}

export type FieldErrors = Partial<Record<keyof FormValues, string>>;

const MAX_FIELD = 200;

/** Reads a urlencoded (or JSON) body: first value of each field, trimmed, capped in length. */
export function readForm(body: unknown): FormValues & { action: string; decision: string } {
  const b = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const get = (k: string) => {
    const v = Array.isArray(b[k]) ? (b[k] as unknown[])[0] : b[k];
    return typeof v === 'string' ? v.trim().slice(0, MAX_FIELD) : '';
  };
  return {
    buyerName: get('buyerName'),
    buyerEmail: get('buyerEmail'),
    buyerPhone: get('buyerPhone'),
    method: get('method'),
    cardNumber: get('cardNumber'),
    couponCode: get('couponCode'),
    action: get('action'),
    decision: get('decision'),
  };
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Korean mobile/landline number as digits (`+82 10-…` becomes `010…`), or null when it is not one. */
export function normalizePhone(raw: string): string | null {
  let d = raw.replace(/[\s\-().]/g, '');
  if (d.startsWith('+82')) d = `0${d.slice(3).replace(/^0/, '')}`;
  return /^0\d{8,10}$/.test(d) ? d : null;
}

/**
 * Checks the buyer's fields. The card number is only checked for presence here: its format and checksum are the
 * payment provider's to judge (the simulator's authorize), so the message matches what a real gateway would say.
 */
export function validateBuyer(v: FormValues, opts: { needCardNumber: boolean }): { attempt: CheckoutAttempt; errors: null } | { attempt: null; errors: FieldErrors } {
  const errors: FieldErrors = {};
  if (!v.buyerName) errors.buyerName = '이름을 입력해 주세요.';
  else if (v.buyerName.length > 50) errors.buyerName = '이름은 50자 이하로 입력해 주세요.';
  if (!v.buyerEmail) errors.buyerEmail = '이메일을 입력해 주세요.';
  else if (!EMAIL.test(v.buyerEmail) || v.buyerEmail.length > 254) errors.buyerEmail = '올바른 이메일 주소를 입력해 주세요.';
  const phone = normalizePhone(v.buyerPhone);
  if (!v.buyerPhone) errors.buyerPhone = '휴대폰 번호를 입력해 주세요.';
  else if (!phone) errors.buyerPhone = '올바른 휴대폰 번호를 입력해 주세요. (예: 010-1234-5678)';
  const method = METHODS.find((m) => m.value === v.method)?.value;
  if (!method) errors.method = '결제 수단을 선택해 주세요.';
  if (method === 'card' && opts.needCardNumber && !v.cardNumber) errors.cardNumber = '카드 번호를 입력해 주세요.';
  if (v.couponCode.length > 40) errors.couponCode = '쿠폰 코드가 너무 깁니다.';
  if (Object.keys(errors).length) return { attempt: null, errors };
  return {
    attempt: { buyerName: v.buyerName, buyerEmail: v.buyerEmail, buyerPhone: phone!, method: method!, couponCode: v.couponCode || null },
    errors: null,
  };
}

export function valuesFromAttempt(a: CheckoutAttempt): FormValues {
  return { buyerName: a.buyerName, buyerEmail: a.buyerEmail, buyerPhone: a.buyerPhone, method: a.method, cardNumber: '', couponCode: a.couponCode ?? '' };
}
