import { base64ToBytes } from './encoding.js';
import { LicenseVerificationError } from './errors.js';

export interface ServiceSignature {
  kid: string;
  alg: 'ed25519';
  signature: Uint8Array<ArrayBuffer>;
}

/**
 * Parses `Service-Signature: kid="<kid>", alg="ed25519", sig="<base64>"`. Parameter order and spacing are free,
 * names are case-insensitive, unknown parameters are ignored (room for later additions), duplicates are refused
 * so a proxy cannot smuggle a second `sig` past us.
 */
export function parseSignatureHeader(header: string | null | undefined): ServiceSignature {
  if (header == null || header.trim() === '') throw new LicenseVerificationError('missing_signature');
  const params = new Map<string, string>();
  const re = /\s*([A-Za-z][A-Za-z0-9_-]*)\s*=\s*(?:"([^"\\]*)"|([^\s",;]+))\s*(,|$)/y;
  let pos = 0;
  while (pos < header.length) {
    re.lastIndex = pos;
    const m = re.exec(header);
    if (!m) throw new LicenseVerificationError('malformed_signature', 'Service-Signature header is not a list of name="value" pairs');
    const name = m[1].toLowerCase();
    if (params.has(name)) throw new LicenseVerificationError('malformed_signature', `Service-Signature repeats "${name}"`);
    params.set(name, m[2] ?? m[3]);
    pos = re.lastIndex;
    if (m[4] === '') break;
  }
  const kid = params.get('kid');
  const alg = params.get('alg');
  const sig = params.get('sig');
  if (!kid || !alg || !sig) throw new LicenseVerificationError('malformed_signature', 'Service-Signature needs kid, alg and sig');
  if (alg.toLowerCase() !== 'ed25519') throw new LicenseVerificationError('malformed_signature', `unsupported signature algorithm "${alg}"`);
  const signature = base64ToBytes(sig);
  if (!signature || signature.length !== 64) throw new LicenseVerificationError('malformed_signature', 'sig is not a base64 64-byte Ed25519 signature');
  return { kid, alg: 'ed25519', signature };
}

/** Imports a raw 32-byte Ed25519 public key for WebCrypto verification. */
export async function importEd25519PublicKey(raw: Uint8Array<ArrayBuffer>): Promise<CryptoKey> {
  if (raw.length !== 32) throw new Error('an Ed25519 public key is 32 bytes');
  return globalThis.crypto.subtle.importKey('raw', raw, { name: 'Ed25519' }, false, ['verify']);
}

/** Ed25519 verification of `message` exactly as given (no re-encoding). */
export async function verifyEd25519(publicKey: CryptoKey | Uint8Array<ArrayBuffer>, signature: Uint8Array<ArrayBuffer>, message: Uint8Array<ArrayBuffer>): Promise<boolean> {
  const key = publicKey instanceof Uint8Array ? await importEd25519PublicKey(publicKey) : publicKey;
  if (signature.length !== 64) return false;
  try {
    return await globalThis.crypto.subtle.verify({ name: 'Ed25519' }, key, signature, message);
  } catch {
    // Some engines throw instead of returning false on malformed points; either way it is not a valid signature.
    return false;
  }
}
