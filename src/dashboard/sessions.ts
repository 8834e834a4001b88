import { randomBytes } from 'node:crypto';
import type { AppDeps } from '../deps';
import type { Db } from '../db';
import { sha256Hex } from '../platform/crypto';
import { newId } from '../platform/ids';
import type { Mode } from '../platform/tables';
import type { MemberRole } from './tables';
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
}

/** Starts a session; returns the cookie's token (only its SHA-256 is stored). Sessions start in test mode. */
export async function startSession(deps: Deps, memberId: string, storeId: string, origin: { ip: string | null; userAgent: string | null }): Promise<{ token: string; expiresAt: Date }> {
  const token = randomBytes(32).toString('base64url');
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
  await repo.insertSession(deps.db, {
      id: newId('dss', deps.clock),
      token_hash: sha256Hex(token),
      member_id: memberId,
      store_id: storeId,
      mode: 'test',
      created_at: now,
      expires_at: expiresAt,
      last_seen_at: now,
      ip: origin.ip,
    user_agent: origin.userAgent?.slice(0, 300) ?? null,
  });
  return { token, expiresAt };
}

/** The member behind a session token, or null when the session is unknown, expired, or its member disabled. */
export async function findSession(deps: Deps, token: string): Promise<SignedInMember | null> {
  const row = await repo.findSessionByHash(deps.db, sha256Hex(token));
  if (!row || row.disabled_at || new Date(row.expires_at).getTime() <= deps.clock.now().getTime()) return null;
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
