import type {
  AuthenticationResponseJSON,
  AuthenticatorTransport,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { AppDeps } from '../../deps';
import type { Db } from '../../db';
import { createHash } from 'node:crypto';
import { normalizeEmail } from '../members';
import { newId } from '../../platform/ids';
import { PRODUCT_NAME } from '../../platform/brand';
import { oneLineProblem } from '../../platform/text';
import * as repo from './second-factor-repo';
import { deleteOtherSessions } from './sessions-repo';
import { ensureRecoveryCodes } from './second-factor';

type Deps = Pick<AppDeps, 'db' | 'clock'> & { config: Pick<AppDeps['config'], 'publicBaseUrl'> };

/**
 * Passkeys (WebAuthn) through @simplewebauthn/server. The relying party is the dashboard's public address
 * (PUBLIC_BASE_URL): its host name is the RP ID and its origin the only origin accepted, so a passkey made for one
 * deployment is refused by another. Passkeys are discoverable (resident) credentials: the same passkey is a second
 * factor after the password, or signs in alone (then the authenticator must verify the person: PIN or biometrics).
 */
export const CHALLENGE_TTL_MS = 5 * 60 * 1000;

/**
 * @simplewebauthn/server (and the X.509/ASN.1 packages under it) is loaded on the first passkey operation, not with
 * the app: it costs every process that starts the app, each test file's included, about a quarter of a second of CPU.
 */
const webauthn = () => import('@simplewebauthn/server');
export const PASSKEY_NAME_MAX = 60;

export function relyingParty(publicBaseUrl: string): { rpID: string; origin: string } {
  const u = new URL(publicBaseUrl);
  return { rpID: u.hostname, origin: u.origin };
}

export interface PasskeyView {
  id: string;
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  backedUp: boolean;
}

export async function listPasskeys(deps: Pick<AppDeps, 'db'>, memberId: string): Promise<PasskeyView[]> {
  return (await repo.listPasskeys(deps.db, memberId)).map((p) => ({ id: p.id, name: p.name, createdAt: new Date(p.created_at), lastUsedAt: p.last_used_at ? new Date(p.last_used_at) : null, backedUp: p.backed_up }));
}

async function newChallenge(deps: Deps, purpose: 'register' | 'second_factor' | 'sign_in', sessionId: string | null, challenge: string): Promise<string> {
  const id = newId('wac', deps.clock);
  const now = deps.clock.now();
  await repo.deleteExpiredChallenges(deps.db, now);
  await repo.insertChallenge(deps.db, { id, challenge, purpose, session_id: sessionId, expires_at: new Date(now.getTime() + CHALLENGE_TTL_MS) });
  return id;
}

/** Options for adding a passkey (the member's existing ones excluded, so one authenticator is not added twice). */
export async function registrationOptions(
  deps: Deps,
  member: { memberId: string; email: string; name: string; storeName: string },
  sessionId: string,
): Promise<{ challengeId: string; options: PublicKeyCredentialCreationOptionsJSON }> {
  const { rpID } = relyingParty(deps.config.publicBaseUrl);
  const existing = await repo.listPasskeys(deps.db, member.memberId);
  const { generateRegistrationOptions } = await webauthn();
  const options = await generateRegistrationOptions({
    rpName: `${PRODUCT_NAME} · ${member.storeName}`,
    rpID,
    userID: new TextEncoder().encode(member.memberId),
    userName: member.email,
    userDisplayName: member.name,
    attestationType: 'none',
    excludeCredentials: existing.map((p) => ({ id: p.credential_id, transports: p.transports as AuthenticatorTransport[] })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
  });
  return { challengeId: await newChallenge(deps, 'register', sessionId, options.challenge), options };
}

/** Verifies the browser's answer and keeps the passkey; the member's first factor also gets recovery codes (once). */
export async function finishRegistration(
  deps: Deps,
  member: { memberId: string; storeId: string },
  sessionId: string,
  input: { challengeId: string; response: RegistrationResponseJSON; name: string },
): Promise<{ ok: true; passkey: PasskeyView; recoveryCodes: string[] | null } | { ok: false; reason: string }> {
  // The name is checked before the challenge is spent, so a refused name can be corrected without a new ceremony.
  if (passkeyNameProblem(input.name)) return { ok: false, reason: 'name' };
  const now = deps.clock.now();
  const ch = await repo.takeChallenge(deps.db, input.challengeId, 'register', now);
  if (!ch || ch.session_id !== sessionId) return { ok: false, reason: 'challenge' };
  const { rpID, origin } = relyingParty(deps.config.publicBaseUrl);
  const { verifyRegistrationResponse } = await webauthn();
  let info;
  try {
    const v = await verifyRegistrationResponse({ response: input.response, expectedChallenge: ch.challenge, expectedOrigin: origin, expectedRPID: rpID, requireUserVerification: false });
    if (!v.verified || !v.registrationInfo) return { ok: false, reason: 'unverified' };
    info = v.registrationInfo;
  } catch {
    return { ok: false, reason: 'unverified' };
  }
  if (await repo.findPasskeyByCredential(deps.db, info.credential.id)) return { ok: false, reason: 'duplicate' };
  const id = newId('pk', deps.clock);
  const name = input.name.trim().slice(0, PASSKEY_NAME_MAX) || 'Passkey';
  await repo.insertPasskey(deps.db, {
    id,
    member_id: member.memberId,
    store_id: member.storeId,
    credential_id: info.credential.id,
    public_key: Buffer.from(info.credential.publicKey).toString('base64url'),
    sign_count: info.credential.counter,
    transports: info.credential.transports ?? [],
    name,
    device_type: info.credentialDeviceType,
    backed_up: info.credentialBackedUp,
    created_at: now,
    last_used_at: null,
  });
  const recoveryCodes = await ensureRecoveryCodes(deps, member.memberId);
  return { ok: true, passkey: { id, name, createdAt: now, lastUsedAt: null, backedUp: info.credentialBackedUp }, recoveryCodes };
}

/**
 * Options for proving a passkey: as a second factor (the member's own passkeys, tied to their session) or to sign
 * in without a password (no list: the authenticator offers the passkeys it holds for this site).
 */
export async function authenticationOptions(
  deps: Deps,
  o: { purpose: 'second_factor'; memberId: string; sessionId: string } | { purpose: 'sign_in' },
): Promise<{ challengeId: string; options: PublicKeyCredentialRequestOptionsJSON }> {
  const { rpID } = relyingParty(deps.config.publicBaseUrl);
  const allow = o.purpose === 'second_factor' ? await repo.listPasskeys(deps.db, o.memberId) : [];
  const { generateAuthenticationOptions } = await webauthn();
  const options = await generateAuthenticationOptions({
    rpID,
    allowCredentials: allow.map((p) => ({ id: p.credential_id, transports: p.transports as AuthenticatorTransport[] })),
    userVerification: o.purpose === 'sign_in' ? 'required' : 'preferred',
  });
  return { challengeId: await newChallenge(deps, o.purpose, o.purpose === 'second_factor' ? o.sessionId : null, options.challenge), options };
}

/**
 * Verifies a passkey's answer. Second factor: the passkey must be the session member's. Sign-in: the member is the
 * passkey's owner, and the authenticator must have verified the person. Returns the member id, or null.
 */
export async function verifyAuthentication(
  deps: Deps,
  o: { purpose: 'second_factor'; memberId: string; sessionId: string; challengeId: string; response: AuthenticationResponseJSON } | { purpose: 'sign_in'; challengeId: string; response: AuthenticationResponseJSON },
): Promise<{ memberId: string; storeId: string; passkeyId: string } | null> {
  const now = deps.clock.now();
  const ch = await repo.takeChallenge(deps.db, o.challengeId, o.purpose, now);
  if (!ch || (o.purpose === 'second_factor' && ch.session_id !== o.sessionId)) return null;
  const pk = typeof o.response?.id === 'string' ? await repo.findPasskeyByCredential(deps.db, o.response.id) : undefined;
  if (!pk || (o.purpose === 'second_factor' && pk.member_id !== o.memberId)) return null;
  const { rpID, origin } = relyingParty(deps.config.publicBaseUrl);
  const { verifyAuthenticationResponse } = await webauthn();
  try {
    const v = await verifyAuthenticationResponse({
      response: o.response,
      expectedChallenge: ch.challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      credential: { id: pk.credential_id, publicKey: new Uint8Array(Buffer.from(pk.public_key, 'base64url')), counter: Number(pk.sign_count), transports: pk.transports as AuthenticatorTransport[] },
      requireUserVerification: o.purpose === 'sign_in',
    });
    if (!v.verified) return null;
    await repo.recordPasskeyUse(deps.db, pk.id, v.authenticationInfo.newCounter, now);
  } catch {
    // A wrong signature, origin or RP ID, or a counter gone backwards (a cloned authenticator), is a refusal.
    return null;
  }
  return { memberId: pk.member_id, storeId: pk.store_id, passkeyId: pk.id };
}

/**
 * The sign-in throttle's per-member key for a passwordless passkey attempt: the e-mail key of the member holding the
 * offered credential, so these failures and that member's wrong passwords and codes share one count. A credential no
 * member holds gets a key of its own (guessing ids is stopped by the per-address limit, which every attempt also
 * counts against). Never the address alone: that locked every member behind it after one member's failures.
 */
export async function passkeyThrottleKey(db: Db, credentialId: unknown): Promise<string> {
  const id = typeof credentialId === 'string' ? credentialId.slice(0, 1024) : '';
  const email = id ? await repo.memberEmailOfCredential(db, id) : undefined;
  if (email) return normalizeEmail(email);
  return `passkey-credential:${createHash('sha256').update(id).digest('base64url').slice(0, 22)}`;
}

/**
 * A passkey's name is shown in the member's list, the members page and the audit log, so it follows the rule of
 * every other one-line name (platform/text.ts): no NUL, tab, line break or other control character, and no bidi
 * control that could make "‮yek-kcab" read as something else. Null when the name may be stored.
 */
export function passkeyNameProblem(name: string): 'control' | 'bidi' | null {
  return oneLineProblem(name);
}

/** Renames one of the member's passkeys: `invalid_name` (nothing changed) when the name breaks the one-line rule. */
export async function renamePasskey(deps: Pick<AppDeps, 'db'>, memberId: string, id: string, name: string): Promise<'renamed' | 'not_found' | 'invalid_name'> {
  if (passkeyNameProblem(name)) return 'invalid_name';
  const n = name.trim().slice(0, PASSKEY_NAME_MAX);
  if (!n) return 'not_found';
  return (await repo.renamePasskey(deps.db, memberId, id, n)) ? 'renamed' : 'not_found';
}

/** Removes a passkey and ends the member's other sessions; with no factor left the recovery codes go too. */
export async function removePasskey(deps: Pick<AppDeps, 'db'>, memberId: string, id: string, keepSession: string | null): Promise<boolean> {
  return deps.db.transaction().execute(async (trx) => {
    if (!(await repo.deletePasskey(trx, memberId, id))) return false;
    const totp = await repo.findTotp(trx, memberId);
    if ((await repo.listPasskeys(trx, memberId)).length === 0 && !totp?.confirmed_at) await repo.deleteRecoveryCodes(trx, memberId);
    await deleteOtherSessions(trx, memberId, keepSession);
    return true;
  });
}
