/**
 * Why a signed answer was refused. Every reason means "do not trust this answer"; the app should treat the
 * license as unverified (and may show a "could not verify" message), never as active.
 */
export type VerificationFailure =
  | 'missing_signature' // no Service-Signature header on a 2xx answer
  | 'malformed_signature' // header present but unparsable, not alg="ed25519", or not a 64-byte signature
  | 'unknown_kid' // signed by a key that is not in the signing-keys list, even after refetching it
  | 'bad_signature' // the signature does not match the exact body bytes
  | 'malformed_body' // signed, but not the app-response shape (or not UTF-8 JSON)
  | 'nonce_mismatch' // the echoed nonce is not the one this request sent: a replayed answer
  | 'stale' // issuedAt further than maxSkewMs from now: an old (or future-dated) answer
  | 'activation_mismatch' // asked about activation A, answered about activation B
  | 'product_mismatch' // the answer's productId is not the one this client asked about (or is missing)
  | 'key_mismatch'; // the answer's keyFingerprint is not the fingerprint of the key sent (or is missing): an answer about another license

/** Why `verify()` could not fall back to the last good answer while the service was unreachable. */
export type OfflineFallbackFailure =
  | 'disabled' // offlineGraceMs is 0
  | 'no_cached_answer'
  | 'grace_expired' // the cached answer is older than offlineGraceMs
  | 'clock_rollback' // the device clock is earlier than the cached answer's issuedAt (minus maxSkewMs)
  | 'activation_mismatch' // the cached answer is about another activation
  | 'invalid'; // the cached entry failed re-verification (tampered storage, unknown key) or is unreadable

export class LicenseError extends Error {
  /** Set when verify() tried the offline cache and could not use it. */
  offlineFallback: OfflineFallbackFailure | null = null;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The answer came back but must not be trusted. */
export class LicenseVerificationError extends LicenseError {
  constructor(
    readonly reason: VerificationFailure,
    message?: string,
  ) {
    super(message ?? `license answer refused: ${reason}`);
  }
}

/** The service answered with an error (4xx/5xx). Error answers are never signed, so they carry no license data. */
export class LicenseApiError extends LicenseError {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Seconds to wait before retrying, from Retry-After (null when absent). */
    readonly retryAfter: number | null,
    readonly details: Record<string, unknown> | null,
  ) {
    super(message);
  }
}

/** The service could not be reached: fetch threw, timed out, or the body could not be read. */
export class LicenseNetworkError extends LicenseError {}
