// Byte helpers that run the same in Node 20 and browsers: atob/btoa and WebCrypto only, no Buffer.

/** Decodes standard or URL-safe base64 (padding optional). Returns null for anything else. */
export function base64ToBytes(input: string): Uint8Array<ArrayBuffer> | null {
  let s = input.replace(/-/g, '+').replace(/_/g, '/');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s)) return null;
  s = s.replace(/=+$/, '');
  if (s.length % 4 === 1) return null;
  s += '='.repeat((4 - (s.length % 4)) % 4);
  let bin: string;
  try {
    bin = atob(s);
  } catch {
    return null;
  }
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

export function bytesToBase64(bytes: Uint8Array): string {
  let bin = '';
  // Chunked so very large bodies do not blow the argument limit of String.fromCharCode.
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

export function bytesToHex(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
}

/** A fresh request nonce: 32 random bytes as 64 hex characters (the spec's recommended form). */
export function makeNonce(): string {
  return bytesToHex(globalThis.crypto.getRandomValues(new Uint8Array(32)));
}

export function bytesToBase64Url(bytes: Uint8Array): string {
  return bytesToBase64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Domain separation of the key fingerprint (the service's `keyFingerprint`, version 1). */
export const KEY_FINGERPRINT_PREFIX = 'commerce-license-key-fingerprint:v1:';

/**
 * The `keyFingerprint` the service puts in every signed answer: base64url without padding (43 characters) of
 * SHA-256 over the UTF-8 bytes of KEY_FINGERPRINT_PREFIX + the key normalized the way the service matches keys
 * (Unicode NFC, upper-case, whitespace removed). It names a key without revealing it.
 */
export async function keyFingerprint(key: string): Promise<string> {
  const normalized = key.normalize('NFC').toUpperCase().replace(/\s+/g, '');
  return bytesToBase64Url(new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(KEY_FINGERPRINT_PREFIX + normalized))));
}

export async function sha256Hex(text: string): Promise<string> {
  return bytesToHex(new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))));
}

/** Strict UTF-8: an answer that is not valid UTF-8 cannot be the JSON the service signed. BOM kept so bytes round-trip. */
export function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return null;
  }
}
