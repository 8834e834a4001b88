/**
 * The buyer's own door: the rules of signing in by e-mail to a store's "내 구매내역" page (one store, one mode), as
 * data and small pure helpers the service, the pages and the sign-in mail share.
 */
import { purposeMac } from '../platform/crypto';
import type { Mode } from '../platform/tables';

/** A sign-in link opens once, within 15 minutes of being asked for (long enough to open a mail, short enough that an old mail is useless). */
export const SIGN_IN_LINK_TTL_MS = 15 * 60_000;
/** A signed-in buyer stays signed in for 12 hours at most (then asks for a new link), or until 로그아웃. */
export const BUYER_SESSION_TTL_MS = 12 * 3_600_000;
/** Sign-in links asked per e-mail address (per store and mode) in an hour: the 6th is refused, so nobody floods an inbox. */
export const SIGN_IN_PER_EMAIL = { points: 5, durationSec: 3_600 };
/** Sign-in links asked per client address in an hour (over all addresses it types). */
export const SIGN_IN_PER_CLIENT = { points: 20, durationSec: 3_600 };

/** The buyer page of a store and mode: `/s/{storeId}/orders` (live), `/s/{storeId}/test/orders` (test mode). */
export function buyerPagePath(storeId: string, mode: Mode): string {
  return `/s/${encodeURIComponent(storeId)}${mode === 'test' ? '/test' : ''}/orders`;
}

/**
 * The token of a sign-in link, derived from the link's id under a key of its own (HMAC under a key derived from the
 * master key): the mail is rendered from the id alone, so the token itself is never stored, only its hash.
 */
export function signInLinkToken(masterKey: Buffer, linkId: string): string {
  return purposeMac(masterKey, 'buyer-sign-in-link v1', linkId);
}

/** Addresses are compared as buyers type them, case aside (orders keep the address as it was typed). */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase();
