import { createHash, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { decryptSecret, encryptSecret } from '../platform/crypto';
import { formatLicenseKey, normalizeKey } from './model';

const hashKeys = new WeakMap<Buffer, Buffer>();

/** A key of its own for key hashes, derived from the master key, so the AES key that seals secrets is never an HMAC key too. */
function hashKeyFor(masterKey: Buffer): Buffer {
  let k = hashKeys.get(masterKey);
  if (!k) {
    k = Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), 'commerce-api license-key-hash v1', 32));
    hashKeys.set(masterKey, k);
  }
  return k;
}

/** HMAC-SHA256 of the normalized key, hex. What licenses.key_hash holds and what the app API looks keys up by. */
export function hashLicenseKey(masterKey: Buffer, key: string): string {
  return createHmac('sha256', hashKeyFor(masterKey)).update(normalizeKey(key), 'utf8').digest('hex');
}

/** Domain separation of the key fingerprint, so the digest is useless as any other hash of the key. */
export const KEY_FINGERPRINT_PREFIX = 'commerce-license-key-fingerprint:v1:';

/**
 * The `keyFingerprint` of every signed app answer: base64url (no padding, 43 characters) of the full SHA-256 of
 * `commerce-license-key-fingerprint:v1:` + the normalized request key (NFC, upper-case, whitespace removed), as UTF-8.
 * Unkeyed on purpose, so any client can compute it from the key it sent; it names the key without revealing it.
 */
export function keyFingerprint(key: string): string {
  return createHash('sha256').update(KEY_FINGERPRINT_PREFIX + normalizeKey(key), 'utf8').digest('base64url');
}

export function generateLicenseKey(): string {
  return formatLicenseKey(randomBytes(25));
}

/** The key fields of a license row: the lookup hash and the key sealed for the server read API. */
export function keyColumns(masterKey: Buffer, key: string): { key_hash: string; key_sealed: string } {
  return { key_hash: hashLicenseKey(masterKey, key), key_sealed: encryptSecret(masterKey, key) };
}

export function revealKey(masterKey: Buffer, sealed: string | null): string | null {
  return sealed === null ? null : decryptSecret(masterKey, sealed).toString('utf8');
}
