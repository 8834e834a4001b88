import { crc32, randomBase62, sha256Hex, toBase62 } from './crypto';
import type { Mode } from './tables';

/**
 * API key format: `svc_<mode>_` + 32 base62 body characters + 6 base62 checksum characters.
 * The checksum is the CRC-32 (IEEE) of the 32 body characters' ASCII bytes, written in base62
 * (digits, A–Z, a–z) and left-padded with `0` to 6 characters. It lets a typo be refused without a lookup.
 */
const KEY_RE = /^svc_(live|test)_([0-9A-Za-z]{32})([0-9A-Za-z]{6})$/;

export function checksumOf(body: string): string {
  return toBase62(crc32(body), 6);
}

export function generateApiKey(mode: Mode): { plaintext: string; hash: string; hint: string } {
  const body = randomBase62(32);
  const plaintext = `svc_${mode}_${body}${checksumOf(body)}`;
  return { plaintext, hash: sha256Hex(plaintext), hint: plaintext.slice(0, 13) };
}

/** Returns the key's mode when its shape and checksum are right, else null (the caller answers 401 either way). */
export function parseApiKey(raw: string): { mode: Mode; hash: string } | null {
  const m = KEY_RE.exec(raw);
  if (!m) return null;
  if (checksumOf(m[2]) !== m[3]) return null;
  return { mode: m[1] as Mode, hash: sha256Hex(raw) };
}
