import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
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
