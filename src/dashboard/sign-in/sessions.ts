import { randomBytes } from 'node:crypto';
import type { AppDeps } from '../../deps';
import type { Db } from '../../db';
import { sha256Hex } from '../../platform/crypto';
import { newId } from '../../platform/ids';
import type { Mode } from '../../platform/tables';
import type { MemberRole, TwoFactorPolicy } from '../tables';
import * as repo from './sessions-repo';

type Deps = Pick<AppDeps, 'db' | 'clock'>;

/** A dashboard session lasts 12 hours from sign-in (a working day), then the member signs in again. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

export interface SignedInMember {
  sessionId: string;
  memberId: string;
  storeId: string;
  storeName: string;
  email: string;
  name: string;
  role: MemberRole;
  mode: Mode;
  expiresAt: Date;
  /** Signed in with the password; the second factor is still to be given (only the verify page opens). */
  secondFactorPending: boolean;
  /** When the second factor was last given in this session (opens the step-up window), or null. */
  secondFactorAt: Date | null;
  /** The member's confirmed factors. */
  factors: { totp: boolean; passkeys: number };
  /** The store's policy asks this member for a second factor and they have none: only the security page opens. */
  mustEnrol: boolean;
}

/** A session waiting for its second factor lasts this long; then the member starts again with the password. */
export const PENDING_TTL_MS = 10 * 60 * 1000;

/** Whether the store's policy asks a member of this role for a second factor. */
export function policyRequires(policy: TwoFactorPolicy | null | undefined, role: MemberRole): boolean {
  return policy === 'everyone' || (policy === 'admins' && (role === 'owner' || role === 'admin'));
}

/**
 * Starts a session; returns the cookie's token (only its SHA-256 is stored). Sessions start in test mode. `pending`:
 * the password was right and the second factor is still to come (a short session that opens only the verify page);
 * `secondFactor`: it was given already (a passkey sign-in).
 */
export async function startSession(
  deps: Deps,
  memberId: string,
  storeId: string,
  origin: { ip: string | null; userAgent: string | null },
  o: { pending?: boolean; secondFactor?: boolean } = {},
): Promise<{ token: string; expiresAt: Date; sessionId: string }> {
  const token = randomBytes(32).toString('base64url');
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + (o.pending ? PENDING_TTL_MS : SESSION_TTL_MS));
  const id = newId('dss', deps.clock);
  await repo.insertSession(deps.db, {
      id,
      token_hash: sha256Hex(token),
      member_id: memberId,
      store_id: storeId,
      mode: 'test',
      created_at: now,
      expires_at: expiresAt,
      last_seen_at: now,
      ip: origin.ip,
    user_agent: origin.userAgent?.slice(0, 300) ?? null,
    second_factor_pending: o.pending ?? false,
    second_factor_at: o.secondFactor ? now : null,
  });
  return { token, expiresAt, sessionId: id };
}

/**
 * The second factor was given at sign-in: the waiting session becomes a full one under a new token (the one issued
 * before the factor never signs anyone in fully). Returns the new token.
 */
export async function completeSignIn(deps: Deps, sessionId: string): Promise<{ token: string; expiresAt: Date } | null> {
  const token = randomBytes(32).toString('base64url');
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
  const ok = await repo.completeSecondFactor(deps.db, sessionId, { token_hash: sha256Hex(token), expires_at: expiresAt, now });
  return ok ? { token, expiresAt } : null;
}

/** The second factor was given again (step-up): the step-up window (DASHBOARD_STEP_UP_MINUTES) opens now. */
export async function markSecondFactor(deps: Deps, sessionId: string): Promise<void> {
  await repo.completeSecondFactor(deps.db, sessionId, { now: deps.clock.now() });
}

export interface SessionView {
  id: string;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  ip: string | null;
  userAgent: string | null;
  pending: boolean;
}

export async function listSessions(deps: Deps, memberId: string): Promise<SessionView[]> {
  const rows = await repo.listSessionsOfMember(deps.db, memberId, deps.clock.now());
  return rows.map((r) => ({ id: r.id, createdAt: new Date(r.created_at), lastSeenAt: new Date(r.last_seen_at), expiresAt: new Date(r.expires_at), ip: r.ip, userAgent: r.user_agent, pending: r.second_factor_pending }));
}

/** Ends one of the member's own sessions. */
export async function endSessionOf(db: Db, memberId: string, sessionId: string): Promise<boolean> {
  return repo.deleteSessionOfMember(db, memberId, sessionId);
}

/** Ends every session of the member except `keep` (null: every one). */
export async function endOtherSessions(db: Db, memberId: string, keep: string | null): Promise<number> {
  return repo.deleteOtherSessions(db, memberId, keep);
}

/** The member behind a session token, or null when the session is unknown, expired, or its member disabled. */
export async function findSession(deps: Deps, token: string): Promise<SignedInMember | null> {
  const row = await repo.findSessionByHash(deps.db, sha256Hex(token));
  const now = deps.clock.now();
  if (!row || row.disabled_at || new Date(row.expires_at).getTime() <= now.getTime()) return null;
  if (new Date(row.last_seen_at).getTime() < now.getTime() - 60_000) await repo.touchSession(deps.db, row.session_id, now);
  const factors = { totp: !!row.has_totp, passkeys: Number(row.passkeys ?? 0) };
  return {
    sessionId: row.session_id,
    memberId: row.member_id,
    storeId: row.store_id,
    storeName: row.store_name,
    email: row.email,
    name: row.name,
    role: row.role,
    mode: row.mode,
    expiresAt: new Date(row.expires_at),
    secondFactorPending: row.second_factor_pending,
    secondFactorAt: row.second_factor_at ? new Date(row.second_factor_at) : null,
    factors,
    mustEnrol: !factors.totp && factors.passkeys === 0 && policyRequires(row.two_factor_policy, row.role),
  };
}

export async function endSession(db: Db, sessionId: string): Promise<void> {
  await repo.deleteSession(db, sessionId);
}

export async function setSessionMode(db: Db, sessionId: string, mode: Mode): Promise<void> {
  await repo.updateSessionMode(db, sessionId, mode);
}

/** Deletes expired sessions (the maintenance sweep; a lookup already refuses them). */
export async function pruneSessions(db: Db, now: Date): Promise<number> {
  return repo.deleteExpiredSessions(db, now);
}
