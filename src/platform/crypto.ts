import { createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual, createCipheriv, createDecipheriv } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export function sha256Hex(input: string | Buffer): string {
  return createHash('sha256').update(input).digest('hex');
}

/** Uniformly random base62 string (rejection sampling, no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b < 248) out += BASE62[b % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export function toBase62(n: number, width: number): string {
  let out = '';
  let v = n;
  do {
    out = BASE62[v % 62] + out;
    v = Math.floor(v / 62);
  } while (v > 0);
  return out.padStart(width, '0');
}

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** CRC-32 (IEEE 802.3, the zlib polynomial). node:zlib.crc32 only arrives in Node 22. */
export function crc32(input: string | Buffer): number {
  const buf = typeof input === 'string' ? Buffer.from(input, 'utf8') : input;
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

export function safeEqualHex(a: string, b: string): boolean {
  const ab = Buffer.from(a, 'hex');
  const bb = Buffer.from(b, 'hex');
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}

export function safeEqualString(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}

/** AES-256-GCM under the master key; output `v1.<iv>.<tag>.<ciphertext>` in base64url. */
export function encryptSecret(masterKey: Buffer, plaintext: Buffer | string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', masterKey, iv);
  const ct = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
}

export function decryptSecret(masterKey: Buffer, sealed: string): Buffer {
  const [v, iv, tag, ct] = sealed.split('.');
  if (v !== 'v1' || !iv || !tag || ct === undefined) throw new Error('unrecognized sealed secret');
  const decipher = createDecipheriv('aes-256-gcm', masterKey, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]);
}

/**
 * A key check value of the master key: an HMAC under a key derived from it (so neither the key nor anything sealed
 * with it can be recovered from this value). Stored in the database (master_key_check), it travels in every backup,
 * so a restore or a start with another key is refused before anything is sealed under the wrong one.
 */
export function masterKeyCheckValue(masterKey: Buffer): string {
  const derived = Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), 'commerce-api master-key-check v1', 32));
  return createHmac('sha256', derived).update('master key check').digest('hex').slice(0, 32);
}

const purposeKeys = new WeakMap<Buffer, Map<string, Buffer>>();

/**
 * An HMAC-SHA256 of `message` under a key derived from the master key for one purpose (HKDF, info `commerce-api
 * <purpose>`), as base64url. Each purpose has its own key, so a MAC made for one kind of link is worthless as another,
 * and the AES key that seals secrets is never an HMAC key.
 */
export function purposeMac(masterKey: Buffer, purpose: string, message: string): string {
  let keys = purposeKeys.get(masterKey);
  if (!keys) purposeKeys.set(masterKey, (keys = new Map()));
  let k = keys.get(purpose);
  if (!k) {
    k = Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), `commerce-api ${purpose}`, 32));
    keys.set(purpose, k);
  }
  return createHmac('sha256', k).update(message, 'utf8').digest('base64url');
}
