/**
 * How a buyer pays: a payment method is the gateway's notion, which orders, sessions and pages record.
 * `transfer`: 계좌이체 (Toss 퀵계좌이체); `virtual_account`: 가상계좌 (paid when the buyer's deposit arrives).
 */
export type PaymentMethod = 'card' | 'kakao_pay' | 'naver_pay' | 'toss' | 'transfer' | 'virtual_account';
