import ipaddr from 'ipaddr.js';
import type { StoredLicenseStatus } from './tables';

/** The status a license has at a moment: `expired` is never stored, it is an active license past its expiry. */
export type LicenseStatus = 'active' | 'pending' | 'expired' | 'revoked';
/** What the license app API answers: a license's status, or `not_found` for a key it does not know. */
export type AppStatus = LicenseStatus | 'not_found';

export function licenseStatus(l: { status: StoredLicenseStatus; expires_at: Date | null }, now: Date): LicenseStatus {
  if (l.status === 'revoked') return 'revoked';
  if (l.status === 'pending') return 'pending';
  if (l.expires_at && l.expires_at.getTime() <= now.getTime()) return 'expired';
  return 'active';
}

// ---------- keys ----------

/** Crockford base32 without I, L, O, U: nothing a buyer can misread when typing a key. */
export const KEY_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
export const KEY_GROUPS = 5;
export const KEY_GROUP_LENGTH = 5;

/**
 * A service-issued key: 5 groups of 5 Crockford base32 characters, 125 random bits, e.g. `7K3QD-9XW2M-…`.
 * `random` must hold at least 25 uniformly random bytes; each byte gives 5 bits (the low 5 of 8, so no bias).
 */
export function formatLicenseKey(random: Uint8Array): string {
  if (random.length < KEY_GROUPS * KEY_GROUP_LENGTH) throw new Error('not enough randomness for a license key');
  const groups: string[] = [];
  for (let g = 0; g < KEY_GROUPS; g++) {
    let s = '';
    for (let i = 0; i < KEY_GROUP_LENGTH; i++) s += KEY_ALPHABET[random[g * KEY_GROUP_LENGTH + i] & 31];
    groups.push(s);
  }
  return groups.join('-');
}

/**
 * The form a key is hashed in: Unicode NFC, upper-case, whitespace removed. A buyer may type a key in lower case
 * or with spaces and still match; two seller keys that differ only in case or spacing are the same key here.
 */
export function normalizeKey(key: string): string {
  return key.normalize('NFC').toUpperCase().replace(/\s+/g, '');
}

// ---------- nonce ----------

export const NONCE_MIN_BYTES = 16;
export const NONCE_MAX_LENGTH = 512;

/**
 * The nonce rule, as the schema's pattern (anchored; with minLength 22 and maxLength NONCE_MAX_LENGTH). The contract
 * accepts hex (an even count, at least 16 bytes = 32 digits) OR base64/base64url (22 or more characters, optional `=`
 * padding up to 2, at least 16 bytes decoded). Every hex value of 22 or more digits is also a base64 value by those
 * words (hex digits are base64 characters), so the whole rule is the base64 branch: one alphabet (standard `+/` or
 * URL-safe `-_`, not both), at least 22 characters before the padding (22 × 6 bits ≥ 16 bytes; 20 characters + `==`
 * carry only 15), then at most two `=`. The server echoes the nonce and never decodes it, so lengths that strict
 * RFC 4648 decoders refuse (4n+1, padding that does not reach a multiple of 4) are accepted as the contract's words do.
 */
export const NONCE_PATTERN = '^(?:[A-Za-z0-9+/]{22,}|[A-Za-z0-9_-]{22,})={0,2}$';
const NONCE_RE = new RegExp(NONCE_PATTERN);

/** Valid hex by the contract: only hex digits, an even count, decoding to at least 16 bytes. */
export function isHexNonce(nonce: string): boolean {
  return /^[0-9a-fA-F]+$/.test(nonce) && nonce.length % 2 === 0 && nonce.length / 2 >= NONCE_MIN_BYTES;
}

/** Valid base64/base64url by the contract (see NONCE_PATTERN). */
export function isBase64Nonce(nonce: string): boolean {
  return NONCE_RE.test(nonce);
}

/** The contract's nonce rule: valid hex OR valid base64/base64url, at most NONCE_MAX_LENGTH characters. */
export function isValidNonce(nonce: string): boolean {
  if (typeof nonce !== 'string' || nonce.length < 22 || nonce.length > NONCE_MAX_LENGTH) return false;
  return isHexNonce(nonce) || isBase64Nonce(nonce);
}

// ---------- seller-side issuance answer ----------

export interface IssueRequested {
  expiresAt: Date | null;
  maxActivations: number | null;
}

export type SellerAnswer = { ok: true; key: string; expiresAt: Date | null; maxActivations: number | null } | { ok: false; error: string };

export const SELLER_KEY_MAX_CHARS = 256;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;
const MAX_INT4 = 2_147_483_647;

/**
 * The seller's answer to license.issue, by the contract: `key` 1 to 256 characters (required); `expiresAt` a
 * date-time, or null/omitted for the requested value; `maxActivations` an integer ≥ 0, or null/omitted for the
 * requested value, 0 meaning unlimited (stored as null). Other fields are ignored. Anything else is malformed and
 * the request is retried.
 */
export function parseSellerAnswer(body: string, requested: IssueRequested): SellerAnswer {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { ok: false, error: 'answer is not JSON' };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { ok: false, error: 'answer is not a JSON object' };
  const a = parsed as Record<string, unknown>;
  if (typeof a.key !== 'string') return { ok: false, error: 'key missing or not a string' };
  const chars = [...a.key].length;
  if (chars < 1 || chars > SELLER_KEY_MAX_CHARS) return { ok: false, error: `key must be 1 to ${SELLER_KEY_MAX_CHARS} characters` };
  if (normalizeKey(a.key).length === 0) return { ok: false, error: 'key is blank' };
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(a.key)) return { ok: false, error: 'key contains control characters' };

  let expiresAt = requested.expiresAt;
  if (a.expiresAt !== undefined && a.expiresAt !== null) {
    if (typeof a.expiresAt !== 'string' || !DATE_TIME.test(a.expiresAt) || Number.isNaN(Date.parse(a.expiresAt))) {
      return { ok: false, error: 'expiresAt is not an ISO 8601 date-time' };
    }
    expiresAt = new Date(a.expiresAt);
  }

  let maxActivations = requested.maxActivations;
  if (a.maxActivations !== undefined && a.maxActivations !== null) {
    const n = a.maxActivations;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > MAX_INT4) return { ok: false, error: 'maxActivations must be an integer >= 0' };
    maxActivations = normalizeMaxActivations(n);
  }
  return { ok: true, key: a.key, expiresAt, maxActivations };
}

/** 0 means unlimited wherever a limit is given (the seller's answer, the product setting); unlimited is stored as null. */
export function normalizeMaxActivations(n: number | null): number | null {
  return n === null || n === 0 ? null : n;
}

/** A license's expiry at payment: subscriptions follow the paid period; one-time products add the validity days. */
export function expiryAtIssue(input: { periodEnd: Date | null; paidAt: Date; validityDays: number | null; subscription: boolean }): Date | null {
  if (input.subscription) return input.periodEnd;
  if (input.validityDays === null) return null;
  return new Date(input.paidAt.getTime() + input.validityDays * 86_400_000);
}

// ---------- abuse limits ----------

/**
 * The address a client is counted under. IPv6 is counted per /64: one subscriber usually holds a whole /64, so
 * counting single addresses would let one client rotate through 2^64 of them.
 */
export function clientBucket(ip: string): string {
  try {
    const addr = ipaddr.process(ip);
    if (addr.kind() === 'ipv4') return addr.toString();
    const parts = (addr as ipaddr.IPv6).parts.slice(0, 4);
    return `${parts.map((p) => p.toString(16)).join(':')}::/64`;
  } catch {
    return ip;
  }
}
