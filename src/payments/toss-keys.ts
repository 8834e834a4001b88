/**
 * Toss issues two families of keys (https://docs.tosspayments.com/reference/using-api/api-keys): API individual
 * integration keys (`test_ck_` / `live_ck_` client keys, `test_sk_` / `live_sk_` secret keys), which open the payment
 * and billing-auth windows this service uses (`TossPayments(clientKey).requestPayment / requestBillingAuth`), and
 * payment-widget keys (`test_gck_` / `live_gck_`, `test_gsk_` / `live_gsk_`), which only work with the payment widget.
 * A widget key saved here would make every checkout fail at Toss, so it is refused when saved.
 */
export function isTossWidgetKey(key: string): boolean {
  return /^(test|live)_g[cs]k_/.test(key.trim());
}
