import { randomBytes } from 'node:crypto';
import * as OTPAuth from 'otpauth';
import QRCode from 'qrcode';
import type { AppDeps } from '../../deps';
import { decryptSecret, encryptSecret, sha256Hex } from '../../platform/crypto';
import { newId } from '../../platform/ids';
import { PRODUCT_NAME } from '../../platform/brand';
import * as repo from './second-factor-repo';
import { deleteOtherSessions } from './sessions-repo';

type Deps = Pick<AppDeps, 'db' | 'clock'>;
type KeyDeps = Deps & { config: Pick<AppDeps['config'], 'masterKey'> };

/**
 * Authenticator apps (TOTP, RFC 6238 through the `otpauth` package: SHA-1, 6 digits, 30-second steps, the defaults
 * every app supports) and one-time recovery codes. A code is accepted for the current step or one step either side
 * (clocks drift), and never for a step at or before the last one accepted for that member: a code seen over a
 * shoulder or replayed from a log is worthless.
 */
export const TOTP_PERIOD_SEC = 30;
export const TOTP_WINDOW = 1;
export const RECOVERY_CODE_COUNT = 10;

function totpOf(secretBase32: string, label = 'member'): OTPAuth.TOTP {
  return new OTPAuth.TOTP({ issuer: PRODUCT_NAME, label, algorithm: 'SHA1', digits: 6, period: TOTP_PERIOD_SEC, secret: OTPAuth.Secret.fromBase32(secretBase32) });
}

/** The 30-second step a code matches now (within ±TOTP_WINDOW), or null. */
export function matchingStep(secretBase32: string, code: string, nowMs: number): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = totpOf(secretBase32).validate({ token: code, timestamp: nowMs, window: TOTP_WINDOW });
  return delta === null ? null : Math.floor(nowMs / 1000 / TOTP_PERIOD_SEC) + delta;
}

/** A code for the app behind `secretBase32` at `nowMs` (tests, and nothing else, make codes). */
export function totpCode(secretBase32: string, nowMs: number): string {
  return totpOf(secretBase32).generate({ timestamp: nowMs });
}

export interface TotpEnrolment {
  /** Base32, shown once for typing into an app by hand. */
  secret: string;
  /** The otpauth:// URI the QR code holds. */
  uri: string;
  /** The QR code as an SVG data URL (no script, no network: fits the dashboard's CSP). */
  qr: string;
}

/**
 * Makes a new secret for a member who has no confirmed app and keeps it sealed until they confirm it with a code.
 * Returns null when an app is already confirmed (it must be removed first).
 */
export async function startTotp(deps: KeyDeps, member: { id: string; email: string; storeName: string }): Promise<TotpEnrolment | null> {
  const secret = new OTPAuth.Secret({ size: 20 }).base32;
  const sealed = encryptSecret(deps.config.masterKey, secret);
  if (!(await repo.putPendingTotp(deps.db, member.id, sealed, deps.clock.now()))) return null;
  const uri = totpOf(secret, `${member.storeName} (${member.email})`).toString();
  const svg = await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  return { secret, uri, qr: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}` };
}

/** The pending (unconfirmed) enrolment of a member, shown again when the page is reloaded before confirming. */
export async function pendingTotp(deps: KeyDeps, member: { id: string; email: string; storeName: string }): Promise<TotpEnrolment | null> {
  const row = await repo.findTotp(deps.db, member.id);
  if (!row || row.confirmed_at) return null;
  const secret = decryptSecret(deps.config.masterKey, row.secret_sealed).toString('utf8');
  const uri = totpOf(secret, `${member.storeName} (${member.email})`).toString();
  const svg = await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  return { secret, uri, qr: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}` };
}

/** Checks a code against the member's app (confirmed, or pending when `confirm`) and spends its step. */
async function acceptTotp(deps: KeyDeps, memberId: string, code: string, confirm: boolean): Promise<boolean> {
  const row = await repo.findTotp(deps.db, memberId);
  if (!row || (confirm ? row.confirmed_at !== null : row.confirmed_at === null)) return false;
  const secret = decryptSecret(deps.config.masterKey, row.secret_sealed).toString('utf8');
  const now = deps.clock.now();
  const step = matchingStep(secret, code, now.getTime());
  if (step === null || (row.last_step !== null && step <= Number(row.last_step))) return false;
  return repo.claimTotpStep(deps.db, memberId, step, now, confirm);
}

/**
 * Confirms a pending app with a code from it. The member's first factor also gets ten recovery codes, returned once;
 * null codes when they had a set already (a passkey came first).
 */
export async function confirmTotp(deps: KeyDeps, memberId: string, code: string): Promise<{ ok: boolean; recoveryCodes: string[] | null }> {
  if (!(await acceptTotp(deps, memberId, normalizeCode(code), true))) return { ok: false, recoveryCodes: null };
  return { ok: true, recoveryCodes: await ensureRecoveryCodes(deps, memberId) };
}

export function normalizeCode(code: string): string {
  return code.replace(/[\s-]/g, '').toLowerCase().slice(0, 40);
}

/**
 * A second factor typed into a form: six digits are an app's code, anything else a recovery code (spent if right).
 * Returns which one matched, or null.
 */
export async function verifyCode(deps: KeyDeps, memberId: string, input: string): Promise<'totp' | 'recovery_code' | null> {
  const code = normalizeCode(input);
  if (/^\d{6}$/.test(code)) return (await acceptTotp(deps, memberId, code, false)) ? 'totp' : null;
  if (code.length !== 10) return null;
  return (await repo.useRecoveryCode(deps.db, memberId, sha256Hex(code), deps.clock.now())) ? 'recovery_code' : null;
}

// No 0/o, 1/l/i: a code read off paper is typed right. 32 symbols: 10 characters carry 50 bits.
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

function recoveryCode(): string {
  let out = '';
  while (out.length < 10) for (const b of randomBytes(16)) if (b < 248 && out.length < 10) out += ALPHABET[b % ALPHABET.length];
  return out;
}

/** Shown as `xxxxx-xxxxx`. */
export const formatRecoveryCode = (c: string): string => `${c.slice(0, 5)}-${c.slice(5)}`;

/** Replaces the member's recovery codes with ten new ones; returns them (only their hashes are kept). */
export async function regenerateRecoveryCodes(deps: Deps, memberId: string): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, recoveryCode);
  await repo.replaceRecoveryCodes(deps.db, memberId, codes.map((c) => ({ id: newId('mrc', deps.clock), code_hash: sha256Hex(c) })), deps.clock.now());
  return codes.map(formatRecoveryCode);
}

/** Ten codes when the member has none left unused (their first factor, or the last code spent); else null. */
export async function ensureRecoveryCodes(deps: Deps, memberId: string): Promise<string[] | null> {
  if ((await repo.countUnusedRecoveryCodes(deps.db, memberId)) > 0) return null;
  return regenerateRecoveryCodes(deps, memberId);
}

export async function unusedRecoveryCodes(deps: Deps, memberId: string): Promise<number> {
  return repo.countUnusedRecoveryCodes(deps.db, memberId);
}

/**
 * Removes the member's app; their other sessions end (a factor removed may mean a device lost). When no factor is
 * left the recovery codes go too.
 */
export async function removeTotp(deps: Deps, memberId: string, keepSession: string | null): Promise<boolean> {
  return deps.db.transaction().execute(async (trx) => {
    const removed = (await repo.deleteTotp(trx, memberId)) > 0;
    if (!removed) return false;
    if ((await repo.listPasskeys(trx, memberId)).length === 0) await repo.deleteRecoveryCodes(trx, memberId);
    await deleteOtherSessions(trx, memberId, keepSession);
    return true;
  });
}

/** Every factor of a member removed (owner's reset, the CLI's reset-2fa) and every session ended. */
export async function resetSecondFactors(deps: Deps, memberId: string): Promise<{ totp: boolean; passkeys: number }> {
  return deps.db.transaction().execute(async (trx) => {
    const totp = (await repo.deleteTotp(trx, memberId)) > 0;
    const passkeys = await repo.deletePasskeysOfMember(trx, memberId);
    await repo.deleteRecoveryCodes(trx, memberId);
    await deleteOtherSessions(trx, memberId, null);
    return { totp, passkeys };
  });
}
