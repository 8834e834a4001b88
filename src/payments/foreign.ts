/**
 * Buyers abroad (issue 41): overseas-issued cards and PayPal, and the money rules of a payment made in a currency that
 * is not the won. Pure functions, no I/O; the gateway adapters and the checkout/refund engines share them.
 *
 * What Toss documents (cited in test/fixtures/toss/README.md, "Buyers abroad"):
 * - 해외카드: Toss's 다국어 카드 결제창 (`useInternationalCardOnly: true`, https://docs.tosspayments.com/guides/payment/international-window):
 *   Visa, Master, JCB, AMEX, UnionPay issued abroad (test: Visa, Master, JCB). Approved and settled in **KRW** (원화 승인·정산)
 *   under a MID contracted for it; a USD card MID is a separate contract we do not use. So the amounts stay won.
 * - PayPal: Toss's 해외간편결제 (`method: FOREIGN_EASY_PAY`, `foreignEasyPay.provider: PAYPAL`,
 *   https://docs.tosspayments.com/guides/v2/payment-widget/integration-paypal, https://docs.tosspayments.com/guides/paypal):
 *   requested in **USD** (`currency: 'USD'`, an amount with cents such as 664.98); a partial cancel must name
 *   `currency: 'USD'` (Payment cancel API, `currency`: "PayPal 해외간편결제 부분 취소에는 필수 값입니다. PayPal에서 사용할 수
 *   있는 통화는 USD입니다"); no 자동결제 (billing) and no settlement API ("PayPal은 자동결제(빌링), 정산 API를 지원하지 않아요").
 *
 * Inside this service every amount is an integer in the currency's minor unit: won for KRW, cents for USD.
 */
import type { PaymentMethod } from './method';

export type PresentmentCurrency = 'USD';
/** What the buyer was charged at the gateway when it is not KRW: integer minor units (cents). */
export interface Presentment {
  amount: number;
  currency: PresentmentCurrency;
}

/** The methods for buyers abroad, each off until the store enables it (each needs its own contract with Toss). */
export const FOREIGN_METHODS = ['foreign_card', 'paypal'] as const satisfies readonly PaymentMethod[];
export type ForeignMethod = (typeof FOREIGN_METHODS)[number];
export const isForeignMethod = (m: string): m is ForeignMethod => (FOREIGN_METHODS as readonly string[]).includes(m);

/** The currency a method is charged in at the gateway (null: KRW, the order's own currency). */
export function presentmentCurrencyOf(method: PaymentMethod): PresentmentCurrency | null {
  return method === 'paypal' ? 'USD' : null;
}

/** Allowed range of the store's fixed rate (won per US$1), as the database checks it. */
export const USD_RATE_MIN = 100;
export const USD_RATE_MAX = 100_000;

/**
 * The USD price of a KRW amount at the store's fixed rate (won per US$1), in cents, rounded half up:
 * 39,000원 at 1,350 → 39,000 × 100 / 1,350 = 2,888.89 → 2,889 cents (US$28.89). Integer arithmetic only.
 */
export function usdCentsOf(krw: number, wonPerUsd: number): number {
  if (!Number.isSafeInteger(krw) || krw < 0 || !Number.isSafeInteger(wonPerUsd) || wonPerUsd <= 0) throw new Error('invalid amount or rate');
  return Math.floor((krw * 200 + wonPerUsd) / (2 * wonPerUsd));
}

/**
 * The presentment share of a refund of `refundKrw` won of an order paid `order.krw` won / `order.presentment` cents,
 * after `refunded` (won and cents already refunded). The seller enters won (the contract's currency); the cents follow:
 * - the refund that brings the won refunded to the whole order takes every cent still held (the sum is exact);
 * - any other takes the same fraction of the cents, rounded half up: round(refundKrw × cents / krw), never more than
 *   is left and never all of it (a cent stays for the refund that completes the order).
 * Example: 39,000원 / US$28.89; refund 10,000원 → round(10,000 × 2,889 / 39,000) = round(740.77) = 741 cents ($7.41);
 * then the remaining 29,000원 → 2,889 − 741 = 2,148 cents ($21.48).
 */
export function refundPresentmentCents(order: { krw: number; cents: number }, refunded: { krw: number; cents: number }, refundKrw: number): number {
  const leftKrw = order.krw - refunded.krw;
  const leftCents = order.cents - refunded.cents;
  if (refundKrw >= leftKrw) return leftCents;
  const share = Math.floor((refundKrw * order.cents * 2 + order.krw) / (2 * order.krw));
  return Math.max(0, Math.min(share, leftCents - 1));
}

/**
 * The won share of a cancel made at the gateway in dollars (Toss's merchant admin on a PayPal order): the cancel that
 * gives back every cent left takes every won left; any other the same fraction of the won, rounded half up, never all.
 */
export function wonShareOfCents(order: { krw: number; cents: number }, refunded: { krw: number; cents: number }, cancelCents: number): number {
  const leftKrw = order.krw - refunded.krw;
  if (cancelCents >= order.cents - refunded.cents) return leftKrw;
  const share = Math.floor((cancelCents * order.krw * 2 + order.cents) / (2 * order.cents));
  return Math.max(0, Math.min(share, leftKrw - 1));
}

/** A minor-unit amount as the gateway's API writes it: 2889 cents → 28.89 (USD), won unchanged. */
export function gatewayAmount(minor: number, currency: 'KRW' | PresentmentCurrency | undefined): number {
  return currency === 'USD' ? Number((minor / 100).toFixed(2)) : minor;
}

/** The gateway's amount back in minor units: 28.89 USD → 2889; won unchanged. NaN when not a whole number of cents. */
export function minorAmount(v: unknown, currency: unknown): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) return NaN;
  if (currency !== 'USD') return v;
  const cents = Math.round(v * 100);
  return Math.abs(cents - v * 100) < 1e-6 ? cents : NaN;
}

/** `US$28.89` for 2889 cents. */
export function formatUsd(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const a = Math.abs(cents);
  return `${sign}US$${Math.floor(a / 100).toLocaleString('en-US')}.${String(a % 100).padStart(2, '0')}`;
}
