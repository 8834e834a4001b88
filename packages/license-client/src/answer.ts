import { LicenseVerificationError } from './errors.js';

export type LicenseStatus = 'active' | 'expired' | 'revoked' | 'pending' | 'not_found';
export type LicenseMode = 'live' | 'test';

export interface Activation {
  id: string;
  label: string | null;
  activatedAt: string;
  lastVerifiedAt: string | null;
  deactivatedAt: string | null;
}

/**
 * The service's signed app response: the contract's fields, then `productId` and `keyFingerprint`, which the
 * service adds so an answer names the product and key it is about (the client holds both to what it asked).
 */
export interface AppResponse {
  status: LicenseStatus;
  expiresAt: string | null;
  maxActivations: number | null;
  activationCount: number;
  mode: LicenseMode;
  activation: Activation | null;
  nonce: string;
  issuedAt: string;
  /** The productId of the request, exactly as sent. */
  productId: string;
  /** See keyFingerprint() in encoding.ts. */
  keyFingerprint: string;
}

export interface LicenseResult extends AppResponse {
  /** True when the service was unreachable and this is the last good signed answer from storage. */
  fromCache: boolean;
  /** Which signing key vouched for this answer. */
  kid: string;
}

const STATUSES: ReadonlySet<string> = new Set(['active', 'expired', 'revoked', 'pending', 'not_found']);

const isStr = (v: unknown): v is string => typeof v === 'string';
const isStrOrNull = (v: unknown): v is string | null => v === null || typeof v === 'string';
const isDate = (v: unknown): v is string => typeof v === 'string' && !Number.isNaN(Date.parse(v));
const isDateOrNull = (v: unknown): v is string | null => v === null || isDate(v);
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;

function isActivation(v: unknown): v is Activation {
  if (typeof v !== 'object' || v === null) return false;
  const a = v as Record<string, unknown>;
  return isStr(a.id) && a.id !== '' && isStrOrNull(a.label) && isDate(a.activatedAt) && isDateOrNull(a.lastVerifiedAt) && isDateOrNull(a.deactivatedAt);
}

/**
 * Checks the shape of a body whose signature already verified. A signed but malformed body means the service and
 * this library disagree on the contract; refusing it beats handing the app `undefined` where it expects a status.
 */
export function parseAppResponse(text: string): AppResponse & Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new LicenseVerificationError('malformed_body', 'signed answer is not JSON');
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new LicenseVerificationError('malformed_body', 'signed answer is not an object');
  const b = v as Record<string, unknown>;
  const ok =
    isStr(b.status) &&
    STATUSES.has(b.status) &&
    isDateOrNull(b.expiresAt) &&
    (b.maxActivations === null || isCount(b.maxActivations)) &&
    isCount(b.activationCount) &&
    (b.mode === 'live' || b.mode === 'test') &&
    (b.activation === null || isActivation(b.activation)) &&
    isStr(b.nonce) &&
    isDate(b.issuedAt);
  if (!ok) throw new LicenseVerificationError('malformed_body', 'signed answer does not have the app-response fields');
  // productId and keyFingerprint are checked against the request by the caller (a missing one is a mismatch there).
  return b as unknown as AppResponse & Record<string, unknown>;
}

/** Copies only the known fields so extra server fields never leak into the typed result. */
export function toResult(a: AppResponse, kid: string, fromCache: boolean): LicenseResult {
  return {
    status: a.status,
    expiresAt: a.expiresAt,
    maxActivations: a.maxActivations,
    activationCount: a.activationCount,
    mode: a.mode,
    activation: a.activation && {
      id: a.activation.id,
      label: a.activation.label,
      activatedAt: a.activation.activatedAt,
      lastVerifiedAt: a.activation.lastVerifiedAt,
      deactivatedAt: a.activation.deactivatedAt,
    },
    nonce: a.nonce,
    issuedAt: a.issuedAt,
    productId: a.productId,
    keyFingerprint: a.keyFingerprint,
    fromCache,
    kid,
  };
}
