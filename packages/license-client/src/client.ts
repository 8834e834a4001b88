import { parseAppResponse, toResult, type AppResponse, type LicenseResult } from './answer.js';
import { base64ToBytes, bytesToBase64, decodeUtf8, keyFingerprint, makeNonce, sha256Hex } from './encoding.js';
import { LicenseApiError, LicenseError, LicenseNetworkError, LicenseVerificationError, type OfflineFallbackFailure } from './errors.js';
import { exchange, toApiError, type FetchLike, type RawResponse } from './http.js';
import { SigningKeys, type SigningKeyInput } from './keys.js';
import { parseSignatureHeader, verifyEd25519 } from './signature.js';
import { adaptStorage, decodeStoredAnswer, MemoryStorage, safeGet, safeSet, type LicenseStorage, type WebStorageLike } from './storage.js';

const MINUTE = 60_000;

export interface LicenseClientOptions {
  /** The service's base address, e.g. `https://api.example.com` (the client appends `/v1/licenses/...`). */
  baseUrl: string;
  /** The product this app unlocks; sent with every call. */
  productId: string;
  /** Defaults to the global fetch. */
  fetch?: FetchLike;
  /** The device clock; injectable for tests. */
  now?: () => Date;
  /** Keeps the last good signed answer and the signing keys; `localStorage` works as is. Defaults to memory (lost when the process ends). */
  storage?: LicenseStorage | WebStorageLike;
  /** How long after its issuedAt a stored answer may stand in for the service while it is unreachable. 0 (default) = never. */
  offlineGraceMs?: number;
  /** Largest accepted distance between issuedAt and the device clock. The contract says 5 minutes. */
  maxSkewMs?: number;
  /** Deadline for one request including its body. */
  timeoutMs?: number;
  /** Public keys built into the app. When given, the signing-keys list is never fetched and only these are trusted. */
  signingKeys?: readonly SigningKeyInput[];
  /** Refetch the signing-keys list when the held copy is older than this, so withdrawn keys stop being trusted. */
  keysMaxAgeMs?: number;
  /** Prefix for storage keys, to share one storage between several clients. */
  storagePrefix?: string;
}

interface Expectation {
  /** The license key this request sent (or the stored answer is looked up by): the answer's keyFingerprint must be its fingerprint. */
  key: string;
  /** The nonce this request sent; absent when re-checking a stored answer (its nonce belonged to an older request). */
  nonce?: string;
  activationId?: string;
}

interface Verified {
  answer: AppResponse;
  kid: string;
}

function requireText(name: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') throw new TypeError(`${name} must be a non-empty string`);
  return value;
}

/**
 * Calls the license app API and trusts an answer only after checking it: Ed25519 signature over the exact body bytes
 * by a listed key, the productId and key fingerprint it names, the echoed nonce, and issuedAt within maxSkewMs. See README.md for what each check protects.
 */
export class LicenseClient {
  private readonly baseUrl: string;
  private readonly productId: string;
  private readonly fetchFn: FetchLike;
  private readonly now: () => Date;
  private readonly storage: LicenseStorage;
  private readonly offlineGraceMs: number;
  private readonly maxSkewMs: number;
  private readonly timeoutMs: number;
  private readonly prefix: string;
  private readonly keys: SigningKeys;

  constructor(options: LicenseClientOptions) {
    this.baseUrl = requireText('baseUrl', options.baseUrl).replace(/\/+$/, '');
    this.productId = requireText('productId', options.productId);
    // Bound to globalThis: browsers throw "Illegal invocation" for a detached window.fetch.
    this.fetchFn = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.now = options.now ?? (() => new Date());
    this.storage = options.storage ? adaptStorage(options.storage) : new MemoryStorage();
    this.offlineGraceMs = Math.max(0, options.offlineGraceMs ?? 0);
    this.maxSkewMs = options.maxSkewMs ?? 5 * MINUTE;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.prefix = options.storagePrefix ?? 'commerce-license:';
    this.keys = new SigningKeys({
      pinned: options.signingKeys,
      fetchList: () => this.fetchSigningKeys(),
      storage: this.storage,
      storageKey: `${this.prefix}signing-keys:${this.baseUrl}`,
      now: () => this.now().getTime(),
      maxAgeMs: options.keysMaxAgeMs ?? 60 * MINUTE,
    });
  }

  /** Registers this device. A full license answers 409 MAX_ACTIVATIONS_REACHED (LicenseApiError). */
  async activate(key: string, options: { label?: string } = {}): Promise<LicenseResult> {
    const extra: Record<string, string> = options.label === undefined ? {} : { label: options.label };
    return this.call('activate', requireText('key', key), extra, {});
  }

  /**
   * Asks for the license's current status (and, with activationId, refreshes that activation's lastVerifiedAt).
   * When the service is unreachable (network failure, timeout, 5xx) and offlineGraceMs allows, answers with the
   * last good signed answer from storage, re-verified, with `fromCache: true`.
   */
  async verify(key: string, options: { activationId?: string } = {}): Promise<LicenseResult> {
    requireText('key', key);
    const activationId = options.activationId === undefined ? undefined : requireText('activationId', options.activationId);
    try {
      return await this.call('verify', key, activationId === undefined ? {} : { activationId }, { activationId });
    } catch (err) {
      if (!isUnreachable(err)) throw err;
      return this.fromStorage(key, activationId, err);
    }
  }

  /** Frees this device's slot. */
  async deactivate(key: string, activationId: string): Promise<LicenseResult> {
    requireText('activationId', activationId);
    return this.call('deactivate', requireText('key', key), { activationId }, { activationId });
  }

  private async call(endpoint: 'activate' | 'verify' | 'deactivate', key: string, extra: Record<string, string>, expect: Omit<Expectation, 'key'>): Promise<LicenseResult> {
    const nonce = makeNonce();
    const res = await exchange(
      this.fetchFn,
      `${this.baseUrl}/v1/licenses/${endpoint}`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ key, productId: this.productId, nonce, ...extra }),
      },
      this.timeoutMs,
    );
    if (!res.ok) throw toApiError(res, this.now());
    const header = res.headers.get('service-signature');
    const { answer, kid } = await this.check(res.bytes, header, { ...expect, key, nonce }, 'live');
    // Every verified answer replaces the stored one, revoked or expired included: otherwise going offline right
    // after a revocation would bring back the older "active" answer.
    await safeSet(this.storage, await this.answerKey(key), JSON.stringify({ v: 1, body: bytesToBase64(res.bytes), signature: header }));
    return toResult(answer, kid, false);
  }

  private async check(bytes: Uint8Array<ArrayBuffer>, header: string | null, expect: Expectation, source: 'live' | 'stored'): Promise<Verified> {
    const sig = parseSignatureHeader(header);
    const publicKey = source === 'live' ? await this.keys.forLiveAnswer(sig.kid) : await this.keys.forStoredAnswer(sig.kid);
    if (!publicKey) throw new LicenseVerificationError('unknown_kid', `answer signed by unknown key "${sig.kid}"`);
    if (!(await verifyEd25519(publicKey, sig.signature, bytes))) throw new LicenseVerificationError('bad_signature');
    const text = decodeUtf8(bytes);
    if (text === null) throw new LicenseVerificationError('malformed_body', 'signed answer is not UTF-8');
    const answer = parseAppResponse(text);
    // The signing key is service-wide: only these two say the signed answer is about the product and key we asked
    // about, and not another license's answer that a proxy obtained by rewriting our request (nonce kept).
    if (answer.productId !== this.productId) throw new LicenseVerificationError('product_mismatch', 'the answer is about another product');
    if (answer.keyFingerprint !== (await keyFingerprint(expect.key))) throw new LicenseVerificationError('key_mismatch', 'the answer is about another license key');
    if (expect.activationId !== undefined && answer.activation && answer.activation.id !== expect.activationId) throw new LicenseVerificationError('activation_mismatch');
    if (expect.nonce !== undefined) {
      if (answer.nonce !== expect.nonce) throw new LicenseVerificationError('nonce_mismatch', 'the answer echoes another request\'s nonce (replayed)');
      const age = this.now().getTime() - Date.parse(answer.issuedAt);
      if (Math.abs(age) > this.maxSkewMs) throw new LicenseVerificationError('stale', `answer issued ${Math.round(age / 1000)} s from the device clock (limit ${this.maxSkewMs / 1000} s)`);
    }
    return { answer, kid: sig.kid };
  }

  private async fromStorage(key: string, activationId: string | undefined, cause: LicenseError): Promise<LicenseResult> {
    const refuse = (why: OfflineFallbackFailure): never => {
      cause.offlineFallback = why;
      throw cause;
    };
    if (this.offlineGraceMs <= 0) return refuse('disabled');
    const stored = decodeStoredAnswer(await safeGet(this.storage, await this.answerKey(key)));
    if (!stored) return refuse('no_cached_answer');
    const bytes = base64ToBytes(stored.body);
    if (!bytes) return refuse('invalid');
    let verified: Verified;
    try {
      // The same product and key checks as live answers: a stored entry copied from another license is refused.
      verified = await this.check(bytes, stored.signature, { key, activationId }, 'stored');
    } catch (err) {
      if (!(err instanceof LicenseVerificationError)) throw err;
      return refuse(err.reason === 'activation_mismatch' ? 'activation_mismatch' : 'invalid');
    }
    const now = this.now().getTime();
    const issuedAt = Date.parse(verified.answer.issuedAt);
    // A device clock set back before the answer was signed would otherwise stretch the grace period forever.
    if (now < issuedAt - this.maxSkewMs) return refuse('clock_rollback');
    if (now - issuedAt > this.offlineGraceMs) return refuse('grace_expired');
    const result = toResult(verified.answer, verified.kid, true);
    // The service evaluated "active" at issuedAt; offline grace must not outlive the license itself.
    if (result.status === 'active' && result.expiresAt !== null && Date.parse(result.expiresAt) <= now) result.status = 'expired';
    return result;
  }

  private async fetchSigningKeys(): Promise<{ text: string; status: number }> {
    const res: RawResponse = await exchange(this.fetchFn, `${this.baseUrl}/v1/licenses/signing-keys`, { method: 'GET', headers: { accept: 'application/json' } }, this.timeoutMs);
    if (!res.ok) throw toApiError(res, this.now());
    return { text: decodeUtf8(res.bytes) ?? '', status: res.status };
  }

  /** Hashed so storage listings (localStorage, files) do not show license keys. */
  private async answerKey(key: string): Promise<string> {
    return `${this.prefix}answer:${await sha256Hex(JSON.stringify([this.baseUrl, this.productId, key]))}`;
  }
}

/** The service did not give a usable answer of its own: the cases where offline grace may stand in. */
function isUnreachable(err: unknown): err is LicenseError {
  return err instanceof LicenseNetworkError || (err instanceof LicenseApiError && err.status >= 500);
}
