/**
 * The simulator's sealed payment keys: `sim_<outcome>_<method>_<amount>_<random>_<mac>`, made by authorize and
 * read back by confirm, refund and lookup, with a MAC binding each key to its order and amount. Also what is derived
 * from a key alone (a 가상계좌's secret, a test 현금영수증), so it all survives restarts and other processes.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { PaymentMethod } from './method';
import type { CashReceiptIssued, CashReceiptRequest } from './provider';
import type { SimOutcome } from './simulator-cards';

// The binding between a payment key and its order/amount only guards against mix-ups in test mode (no money moves),
// so a fixed key is enough and keeps payment keys valid across restarts and between server processes.
const MAC_KEY = 'commerce-api/payment-simulator/v1';

/** What a simulator payment key says about itself: `sim_<outcome>_<method>_<amount>_<random>_<mac>`. */
export interface SimKey {
  outcome: SimOutcome;
  method: PaymentMethod;
  amount: number;
  nonce: string;
  mac: string;
}

const KEY_RE = /^sim_(success|declined|insufficient|unknown|refundfail|refundlost)_(card|kakao_pay|naver_pay|toss|transfer|virtual_account|mobile_phone|culture_gift|book_gift|game_gift|foreign_card|paypal)_(\d{1,15})_([0-9a-f]{16})_([0-9a-f]{24})$/;

function mac(outcome: SimOutcome, method: PaymentMethod, amount: number, nonce: string, orderId: string): string {
  return createHmac('sha256', MAC_KEY).update(`${outcome}|${method}|${amount}|${nonce}|${orderId}`).digest('hex').slice(0, 24);
}

export function parseKey(paymentKey: string): SimKey | null {
  const m = KEY_RE.exec(paymentKey);
  if (!m) return null;
  return { outcome: m[1] as SimOutcome, method: m[2] as PaymentMethod, amount: Number(m[3]), nonce: m[4], mac: m[5] };
}

export function makeKey(outcome: SimOutcome, method: PaymentMethod, amount: number, orderId: string): string {
  const nonce = randomBytes(8).toString('hex');
  return `sim_${outcome}_${method}_${amount}_${nonce}_${mac(outcome, method, amount, nonce, orderId)}`;
}

/** A simulated 가상계좌's secret: derived from its key, so it survives restarts like the key itself. */
export function simulatedSecret(paymentKey: string): string {
  return `ps_sim_${createHmac('sha256', MAC_KEY).update(`secret|${paymentKey}`).digest('hex').slice(0, 32)}`;
}

/**
 * The simulator's 현금영수증: issued for any valid number, never reported to the National Tax Service. Its issue number is
 * `T` and 8 digits derived from the payment key (Toss's are 9 characters too); it has no receipt page (receiptUrl null).
 */
export function simulatedCashReceipt(paymentKey: string, req: CashReceiptRequest, amount: number): CashReceiptIssued {
  const h = createHmac('sha256', MAC_KEY).update(`cash-receipt|${paymentKey}`).digest('hex');
  return { type: req.type, receiptKey: `sim_cr_${h.slice(0, 20)}`, issueNumber: `T${(parseInt(h.slice(0, 12), 16) % 100_000_000).toString().padStart(8, '0')}`, receiptUrl: null, amount };
}

export function boundTo(key: SimKey, orderId: string, amount: number): boolean {
  if (key.amount !== amount) return false;
  const expected = Buffer.from(mac(key.outcome, key.method, key.amount, key.nonce, orderId));
  const given = Buffer.from(key.mac);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
