import type { Selectable } from 'kysely';
import type { AppDeps } from '../deps';
import { ApiError, validationError } from '../platform/errors';
import { newId } from '../platform/ids';
import { recordAudit, type AuditActor, type AuditOrigin } from '../audit/service';
import { decoyHash, generatePassword, hashPassword, verifyPassword, PASSWORD_MAX, PASSWORD_MIN } from './sign-in/password';
import * as repo from './members-repo';
import type { MemberRole, StoreMembersTable } from './tables';
import { deleteOtherSessions } from './sign-in/sessions-repo';
import { bidiMessage, hasBidiControl, isValidEmail } from '../platform/text';

type Deps = Pick<AppDeps, 'db' | 'clock'>;

export const ROLES: readonly MemberRole[] = ['owner', 'admin', 'support', 'developer'];

export interface MemberView {
  id: string;
  storeId: string;
  email: string;
  name: string;
  role: MemberRole;
  createdAt: Date;
  disabledAt: Date | null;
}

export function memberView(r: Selectable<StoreMembersTable>): MemberView {
  return { id: r.id, storeId: r.store_id, email: r.email, name: r.name, role: r.role, createdAt: r.created_at, disabledAt: r.disabled_at };
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

function assertRole(role: string): asserts role is MemberRole {
  if (!(ROLES as readonly string[]).includes(role)) throw validationError([{ field: 'role', message: 'owner, admin, support, developer 중 하나여야 합니다.' }]);
}

export function assertPasswordAcceptable(password: string): void {
  if (password.length < PASSWORD_MIN || password.length > PASSWORD_MAX) {
    throw validationError([{ field: 'password', message: `비밀번호는 ${PASSWORD_MIN}자 이상 ${PASSWORD_MAX}자 이하여야 합니다.` }]);
  }
}

export interface CreateMemberInput {
  storeId: string;
  email: string;
  name: string;
  role: string;
  /** Omitted: a password is generated and returned (shown once). */
  password?: string;
}

/** Adds a person to a store. The audit entry is written in the same transaction. */
export async function createMember(deps: Deps, input: CreateMemberInput, actor: AuditActor, origin?: AuditOrigin | null): Promise<{ member: MemberView; password: string; generated: boolean }> {
  const email = normalizeEmail(input.email);
  const name = input.name.trim();
  if (!isValidEmail(email)) throw validationError([{ field: 'email', message: '이메일 주소의 형식이 올바르지 않습니다.' }]);
  if (name.length < 1 || name.length > 100) throw validationError([{ field: 'name', message: '이름은 1자 이상 100자 이하여야 합니다.' }]);
  if (hasBidiControl(name)) throw validationError([{ field: 'name', message: bidiMessage('이름') }]);
  assertRole(input.role);
  const role = input.role;
  const generated = input.password === undefined;
  const password = input.password ?? generatePassword();
  assertPasswordAcceptable(password);
  const passwordHash = await hashPassword(password);
  const id = newId('mem', deps.clock);
  const now = deps.clock.now();
  if (!(await repo.storeExists(deps.db, input.storeId))) throw new ApiError('NOT_FOUND', { internal: `store ${input.storeId} not found` });
  await deps.db.transaction().execute(async (trx) => {
    if (await repo.findMemberByEmail(trx, input.storeId, email)) throw validationError([{ field: 'email', message: '이 상점에 이미 등록된 이메일입니다.' }]);
    await repo.insertMember(trx, { id, store_id: input.storeId, email, name, role, password_hash: passwordHash, created_at: now, disabled_at: null });
    await recordAudit(trx, deps.clock, { storeId: input.storeId, mode: null, actor, action: 'member.created', target: { type: 'member', id }, details: { email, name, role }, origin });
  });
  return { member: { id, storeId: input.storeId, email, name, role, createdAt: now, disabledAt: null }, password, generated };
}

async function memberOrThrow(deps: Deps, storeId: string, id: string) {
  const m = await repo.findMember(deps.db, storeId, id);
  if (!m) throw new ApiError('NOT_FOUND', { internal: `member ${id} not found` });
  return m;
}

/** Finds a member by id or e-mail (the CLI accepts either). */
export async function findMemberRef(deps: Deps, storeId: string, ref: string): Promise<MemberView> {
  const row = ref.startsWith('mem_') ? await repo.findMember(deps.db, storeId, ref) : await repo.findMemberByEmail(deps.db, storeId, normalizeEmail(ref));
  if (!row) throw new ApiError('NOT_FOUND', { internal: `member ${ref} not found` });
  return memberView(row);
}

/** Sets a new password (given or generated) and signs the member out everywhere. */
export async function resetPassword(deps: Deps, storeId: string, memberId: string, password: string | undefined, actor: AuditActor, origin?: AuditOrigin | null): Promise<{ member: MemberView; password: string; generated: boolean }> {
  const m = await memberOrThrow(deps, storeId, memberId);
  const generated = password === undefined;
  const pw = password ?? generatePassword();
  assertPasswordAcceptable(pw);
  const hash = await hashPassword(pw);
  await deps.db.transaction().execute(async (trx) => {
    await repo.updateMember(trx, m.id, { password_hash: hash });
    await repo.deleteSessionsOfMember(trx, m.id);
    await recordAudit(trx, deps.clock, { storeId, mode: null, actor, action: 'member.password_reset', target: { type: 'member', id: m.id }, details: { email: m.email }, origin });
  });
  return { member: memberView(m), password: pw, generated };
}

/** A store keeps at least one active owner: the last one cannot be demoted or disabled. */
async function assertOwnerRemains(trx: Deps['db'], storeId: string, member: Selectable<StoreMembersTable>): Promise<void> {
  if (member.role === 'owner' && member.disabled_at === null && (await repo.countActiveOwners(trx, storeId)) <= 1) {
    throw new ApiError('ADMIN_FORBIDDEN', { internal: 'last active owner', message: '상점에는 활성 소유자(owner)가 한 명 이상 있어야 합니다.' });
  }
}

export async function changeRole(deps: Deps, storeId: string, memberId: string, role: string, actor: AuditActor, origin?: AuditOrigin | null): Promise<MemberView> {
  assertRole(role);
  return deps.db.transaction().execute(async (trx) => {
    await repo.lockMembersOfStore(trx, storeId);
    const m = await repo.findMember(trx, storeId, memberId);
    if (!m) throw new ApiError('NOT_FOUND');
    if (m.role === role) return memberView(m);
    if (role !== 'owner') await assertOwnerRemains(trx, storeId, m);
    await repo.updateMember(trx, m.id, { role });
    await recordAudit(trx, deps.clock, { storeId, mode: null, actor, action: 'member.role_changed', target: { type: 'member', id: m.id }, details: { email: m.email, from: m.role, to: role }, origin });
    return memberView({ ...m, role });
  });
}

/** Disables a member and ends their sessions at once. */
export async function disableMember(deps: Deps, storeId: string, memberId: string, actor: AuditActor, origin?: AuditOrigin | null): Promise<MemberView> {
  return deps.db.transaction().execute(async (trx) => {
    await repo.lockMembersOfStore(trx, storeId);
    const m = await repo.findMember(trx, storeId, memberId);
    if (!m) throw new ApiError('NOT_FOUND');
    if (m.disabled_at) return memberView(m);
    await assertOwnerRemains(trx, storeId, m);
    const now = deps.clock.now();
    await repo.updateMember(trx, m.id, { disabled_at: now });
    await repo.deleteSessionsOfMember(trx, m.id);
    await recordAudit(trx, deps.clock, { storeId, mode: null, actor, action: 'member.disabled', target: { type: 'member', id: m.id }, details: { email: m.email }, origin });
    return memberView({ ...m, disabled_at: now });
  });
}

export async function listMembers(deps: Deps, storeId: string): Promise<MemberView[]> {
  return (await repo.listMembers(deps.db, storeId)).map(memberView);
}

/**
 * The member an e-mail and password sign in as, or null. An e-mail may belong to several stores: `storeId` picks one;
 * without it the oldest membership whose password matches wins. Unknown e-mails cost one decoy verification so the
 * answer time does not tell which e-mails exist.
 */
export async function authenticateMember(deps: Deps, emailInput: string, password: string, storeId?: string): Promise<MemberView | null> {
  const email = normalizeEmail(emailInput);
  if (password.length === 0 || password.length > PASSWORD_MAX) return null;
  const candidates = (await repo.activeMembersByEmail(deps.db, email)).filter((m) => !storeId || m.store_id === storeId);
  if (candidates.length === 0) {
    await verifyPassword(password, await decoyHash());
    return null;
  }
  for (const m of candidates) if (await verifyPassword(password, m.password_hash)) return memberView(m);
  return null;
}

/**
 * A member changes their own password: the current one must be right (the caller counts a wrong one as a failed
 * sign-in); every other session of theirs ends. Returns false when the current password is wrong.
 */
export async function changeOwnPassword(deps: Deps, storeId: string, memberId: string, current: string, next: string, keepSession: string, actor: AuditActor, origin?: AuditOrigin | null): Promise<boolean> {
  const m = await memberOrThrow(deps, storeId, memberId);
  if (current.length === 0 || current.length > PASSWORD_MAX || !(await verifyPassword(current, m.password_hash))) return false;
  assertPasswordAcceptable(next);
  const hash = await hashPassword(next);
  await deps.db.transaction().execute(async (trx) => {
    await repo.updateMember(trx, m.id, { password_hash: hash });
    const ended = await deleteOtherSessions(trx, m.id, keepSession);
    await recordAudit(trx, deps.clock, { storeId, mode: null, actor, action: 'member.password_changed', target: { type: 'member', id: m.id }, details: { sessionsEnded: ended }, origin });
  });
  return true;
}
