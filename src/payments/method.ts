/** How a buyer pays: a payment method is the gateway's notion, which orders, sessions and pages record. */
export type PaymentMethod = 'card' | 'kakao_pay' | 'naver_pay' | 'toss';
