// @commerce/license-client: verify signed answers of the Commerce API license app API in Node 20+ and browsers.
export { LicenseClient, type LicenseClientOptions } from './client.js';
export { LicenseError, LicenseVerificationError, LicenseApiError, LicenseNetworkError, type VerificationFailure, type OfflineFallbackFailure } from './errors.js';
export type { LicenseResult, LicenseStatus, LicenseMode, Activation, AppResponse } from './answer.js';
export { MemoryStorage, type LicenseStorage, type WebStorageLike } from './storage.js';
export type { SigningKeyInput } from './keys.js';
export type { FetchLike } from './http.js';
export { makeNonce, keyFingerprint } from './encoding.js';
export { parseSignatureHeader, verifyEd25519, type ServiceSignature } from './signature.js';
