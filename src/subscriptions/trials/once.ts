import type { Db } from '../../db';
import { sha256Hex } from '../../platform/crypto';
import type { Mode } from '../../platform/tables';
import { allowsRepeatTrials } from '../../stores/repo';
import * as repo from '../repo';
import { trialEmailKey, trialPhoneKey } from './identity';

/**
 * Free trials once per buyer and product (issue 30): a store offers a product's trial to an e-mail address once, and to
 * a card once, unless it allows repeat trials (`allowRepeatTrials`, stores.allow_repeat_trials). A second trial is
 * refused on the payment page, not charged: the buyer agreed to a first charge at the trial's end, and charging at
 * once would take money on terms nobody agreed to.
 *
 * The card is known by what the gateway tells about it when it registers it. Toss's Billing object (the answer of
 * POST /v1/billing/authorizations/issue, https://docs.tosspayments.com/reference#billing-객체) carries `card.issuerCode`
 * and `card.number`, the card number masked as `12345678****000*` (first 8 digits and 3 of the last 4; Toss masks it
 * so everywhere, https://techchat.tosspayments.com/m/1237228930805534770); src/payments/toss-model.ts makes the card
 * summary `신한 43301234****123*` of them. Its sha256 is the fingerprint. It is not unique to one card (another card of
 * the same issuer and BIN with the same visible digits shares it), so a rare stranger may be refused a trial; the e-mail
 * check does not depend on it. The test simulator's summary has only the last 4 digits.
 */
export function cardFingerprint(cardSummary: string | null): string | null {
  const s = cardSummary?.replace(/\s+/g, ' ').trim();
  return s && /\d/.test(s) ? sha256Hex(s) : null;
}

/** E-mail addresses compared as the service compares them everywhere (trimmed, case-insensitive). */
export function sameEmail(a: string | null | undefined, b: string | null | undefined): boolean {
  return !!a && !!b && a.trim().toLowerCase() === b.trim().toLowerCase();
}

/**
 * Whether this buyer already started a trial of the product in this store and mode (any status: an ended or canceled
 * trial counts), and the store does not allow repeat trials. The buyer is the same person when the e-mail box, the
 * phone number or the card is the same, each compared normalised (./identity.ts: `t.rial@gmail.com`,
 * `trial+2@gmail.com` and `trial@gmail.com` are one box; `+82 10-1234-5678` is `010-1234-5678`).
 */
export async function trialAlreadyTaken(db: Db, q: { storeId: string; mode: Mode; productId: string; email: string | null; phone: string | null; cardFingerprint: string | null }): Promise<boolean> {
  if (await allowsRepeatTrials(db, q.storeId)) return false;
  const emailKey = trialEmailKey(q.email);
  const phoneKey = trialPhoneKey(q.phone);
  if (!emailKey && !phoneKey && !q.cardFingerprint) return false;
  return repo.trialStartedBy(db, { storeId: q.storeId, mode: q.mode, productId: q.productId, emailKey, phoneKey, cardFingerprint: q.cardFingerprint });
}
