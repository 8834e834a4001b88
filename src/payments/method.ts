/**
 * How a buyer pays: a payment method is the gateway's notion, which orders, sessions and pages record.
 * `transfer`: 계좌이체 (Toss 퀵계좌이체); `virtual_account`: 가상계좌 (paid when the buyer's deposit arrives).
 * `mobile_phone`: 휴대폰 결제 (Toss method 휴대폰 / MOBILE_PHONE; charged on the buyer's phone bill).
 * `culture_gift` / `book_gift` / `game_gift`: 문화상품권 / 도서문화상품권 / 게임문화상품권 (Toss methods of the same names,
 * CULTURE_GIFT_CERTIFICATE / BOOK_GIFT_CERTIFICATE / GAME_GIFT_CERTIFICATE in the payment window).
 */
export type PaymentMethod =
  | 'card'
  | 'kakao_pay'
  | 'naver_pay'
  | 'toss'
  | 'transfer'
  | 'virtual_account'
  | 'mobile_phone'
  | 'culture_gift'
  | 'book_gift'
  | 'game_gift'
  // Buyers abroad (issue 41, src/payments/foreign.ts): an overseas-issued card (Toss's 다국어 카드 결제창, KRW) and
  // PayPal (Toss's 해외간편결제, USD only).
  | 'foreign_card'
  | 'paypal';

/** 휴대폰 결제 and the 상품권 methods (issue 41): one-time payments only (Toss documents 자동결제 for cards alone). */
export const GIFT_CERTIFICATE_METHODS: readonly PaymentMethod[] = ['culture_gift', 'book_gift', 'game_gift'];
export const isGiftCertificate = (m: string): boolean => (GIFT_CERTIFICATE_METHODS as readonly string[]).includes(m);
