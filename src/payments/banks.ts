import { isOwnKey, ownValue } from '../platform/lookup';

/**
 * Toss's bank codes for the banks that issue virtual accounts and receive refunds
 * (https://docs.tosspayments.com/codes/org-codes#은행-코드).
 */
export const TOSS_BANKS: Readonly<Record<string, string>> = {
  '39': '경남',
  '34': '광주',
  '12': '단위농협',
  '32': '부산',
  '45': '새마을',
  '64': '산림',
  '88': '신한',
  '48': '신협',
  '27': '씨티',
  '20': '우리',
  '71': '우체국',
  '50': '저축',
  '37': '전북',
  '35': '제주',
  '90': '카카오뱅크',
  '89': '케이뱅크',
  '92': '토스뱅크',
  '81': '하나',
  '54': '홍콩상하이',
  '03': 'IBK기업',
  '06': 'KB국민',
  '31': 'iM뱅크(대구)',
  '02': 'KDB산업',
  '11': 'NH농협',
  '23': 'SC제일',
  '07': 'Sh수협',
};
/** The bank's Korean name; an unknown code (or an inherited name like `toString`) is shown as it is. */
export const bankName = (code: string): string => ownValue(TOSS_BANKS, code) ?? code;
/** True only for a code in Toss's table (own keys: `toString`, `__proto__` … are not bank codes). */
export const isTossBankCode = (code: unknown): code is string => isOwnKey(TOSS_BANKS, code);
