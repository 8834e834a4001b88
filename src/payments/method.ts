/**
 * How a buyer pays: a payment method is the gateway's notion, which orders, sessions and pages record.
 * `transfer`: 계좌이체 (Toss 퀵계좌이체); `virtual_account`: 가상계좌 (paid when the buyer's deposit arrives).
 */
export type PaymentMethod = 'card' | 'kakao_pay' | 'naver_pay' | 'toss' | 'transfer' | 'virtual_account'
  // Buyers abroad (issue 41, src/payments/foreign.ts): an overseas-issued card (Toss's 다국어 카드 결제창, KRW) and
  // PayPal (Toss's 해외간편결제, USD only).
  | 'foreign_card' | 'paypal';
