import type { Insertable } from 'kysely';
import type { Db } from '../../db';
import { jsonb } from '../../db';
import type { MemberPasskeysTable, TwoFactorPolicy, WebauthnChallengesTable } from '../tables';

/** Queries of the second factors (migration 050): TOTP, recovery codes, passkeys, WebAuthn challenges, store policy. */

export async function findTotp(db: Db, memberId: string) {
  return db.selectFrom('member_totp').selectAll().where('member_id', '=', memberId).executeTakeFirst();
}

/** A fresh, unconfirmed secret replaces any earlier unconfirmed one (a confirmed app is never replaced here). */
export async function putPendingTotp(db: Db, memberId: string, secretSealed: string, now: Date): Promise<boolean> {
  const r = await db
    .insertInto('member_totp')
    .values({ member_id: memberId, secret_sealed: secretSealed, created_at: now, confirmed_at: null, last_step: null })
    .onConflict((oc) => oc.column('member_id').doUpdateSet({ secret_sealed: secretSealed, created_at: now, last_step: null }).where('member_totp.confirmed_at', 'is', null))
    .executeTakeFirst();
  return Number(r.numInsertedOrUpdatedRows ?? 0) > 0;
}

/**
 * Records that a code of `step` was accepted: only when no code of this step or a later one was accepted before, so
 * two processes (or two tabs) given the same code accept it once. `confirm` also confirms a pending app.
 */
export async function claimTotpStep(db: Db, memberId: string, step: number, now: Date, confirm: boolean): Promise<boolean> {
  const r = await db
    .updateTable('member_totp')
    .set(confirm ? { last_step: step, confirmed_at: now } : { last_step: step })
    .where('member_id', '=', memberId)
    .where((eb) => eb.or([eb('last_step', 'is', null), eb('last_step', '<', step)]))
    .where('confirmed_at', confirm ? 'is' : 'is not', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function deleteTotp(db: Db, memberId: string): Promise<number> {
  const r = await db.deleteFrom('member_totp').where('member_id', '=', memberId).executeTakeFirst();
  return Number(r.numDeletedRows ?? 0);
}

export async function replaceRecoveryCodes(db: Db, memberId: string, rows: Array<{ id: string; code_hash: string }>, now: Date): Promise<void> {
  await db.deleteFrom('member_recovery_codes').where('member_id', '=', memberId).execute();
  await db.insertInto('member_recovery_codes').values(rows.map((r) => ({ ...r, member_id: memberId, created_at: now, used_at: null }))).execute();
}

/** Spends an unused code; false when it is unknown or already used (two processes racing: one wins). */
export async function useRecoveryCode(db: Db, memberId: string, codeHash: string, now: Date): Promise<boolean> {
  const r = await db.updateTable('member_recovery_codes').set({ used_at: now }).where('member_id', '=', memberId).where('code_hash', '=', codeHash).where('used_at', 'is', null).executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function countUnusedRecoveryCodes(db: Db, memberId: string): Promise<number> {
  const r = await db.selectFrom('member_recovery_codes').select((eb) => eb.fn.countAll<number>().as('n')).where('member_id', '=', memberId).where('used_at', 'is', null).executeTakeFirstOrThrow();
  return Number(r.n);
}

export async function deleteRecoveryCodes(db: Db, memberId: string): Promise<void> {
  await db.deleteFrom('member_recovery_codes').where('member_id', '=', memberId).execute();
}

export async function insertPasskey(db: Db, row: Insertable<MemberPasskeysTable>): Promise<void> {
  await db.insertInto('member_passkeys').values({ ...row, transports: jsonb(row.transports ?? []) }).execute();
}

export async function listPasskeys(db: Db, memberId: string) {
  return db.selectFrom('member_passkeys').selectAll().where('member_id', '=', memberId).orderBy('created_at').orderBy('id').execute();
}

export async function findPasskeyByCredential(db: Db, credentialId: string) {
  return db.selectFrom('member_passkeys').selectAll().where('credential_id', '=', credentialId).executeTakeFirst();
}

/** The e-mail of the member holding a passkey credential (whatever their state), or undefined. */
export async function memberEmailOfCredential(db: Db, credentialId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('member_passkeys')
    .innerJoin('store_members', 'store_members.id', 'member_passkeys.member_id')
    .select('store_members.email')
    .where('member_passkeys.credential_id', '=', credentialId)
    .executeTakeFirst();
  return row?.email;
}

export async function recordPasskeyUse(db: Db, id: string, signCount: number, now: Date): Promise<void> {
  await db.updateTable('member_passkeys').set({ sign_count: signCount, last_used_at: now }).where('id', '=', id).execute();
}

export async function renamePasskey(db: Db, memberId: string, id: string, name: string): Promise<boolean> {
  const r = await db.updateTable('member_passkeys').set({ name }).where('member_id', '=', memberId).where('id', '=', id).executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function deletePasskey(db: Db, memberId: string, id: string): Promise<boolean> {
  const r = await db.deleteFrom('member_passkeys').where('member_id', '=', memberId).where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows ?? 0) > 0;
}

export async function deletePasskeysOfMember(db: Db, memberId: string): Promise<number> {
  const r = await db.deleteFrom('member_passkeys').where('member_id', '=', memberId).executeTakeFirst();
  return Number(r.numDeletedRows ?? 0);
}

export async function insertChallenge(db: Db, row: Insertable<WebauthnChallengesTable>): Promise<void> {
  await db.insertInto('webauthn_challenges').values(row).execute();
}

/** Takes a challenge (deletes it): each is answered once, and only before it expires. */
export async function takeChallenge(db: Db, id: string, purpose: WebauthnChallengesTable['purpose'], now: Date) {
  const row = await db.deleteFrom('webauthn_challenges').where('id', '=', id).where('purpose', '=', purpose).returningAll().executeTakeFirst();
  return row && new Date(row.expires_at).getTime() > now.getTime() ? row : undefined;
}

export async function deleteExpiredChallenges(db: Db, now: Date): Promise<void> {
  await db.deleteFrom('webauthn_challenges').where('expires_at', '<=', now).execute();
}

export async function getStoreSecurity(db: Db, storeId: string) {
  return db.selectFrom('store_security').selectAll().where('store_id', '=', storeId).executeTakeFirst();
}

export async function putStoreSecurity(db: Db, storeId: string, set: { two_factor_policy: TwoFactorPolicy; refund_step_up_amount: number | null }, now: Date): Promise<void> {
  await db
    .insertInto('store_security')
    .values({ store_id: storeId, ...set, updated_at: now })
    .onConflict((oc) => oc.column('store_id').doUpdateSet({ ...set, updated_at: now }))
    .execute();
}

/** The active owners of a store (who is told of payout-relevant changes). */
export async function activeOwners(db: Db, storeId: string) {
  return db.selectFrom('store_members').select(['id', 'email', 'name']).where('store_id', '=', storeId).where('role', '=', 'owner').where('disabled_at', 'is', null).orderBy('created_at').execute();
}

/** A member's confirmed factors: whether an authenticator app is confirmed, and how many passkeys they have. */
export async function factorsOf(db: Db, memberId: string): Promise<{ totp: boolean; passkeys: number }> {
  const totp = await db.selectFrom('member_totp').select('member_id').where('member_id', '=', memberId).where('confirmed_at', 'is not', null).executeTakeFirst();
  const pk = await db.selectFrom('member_passkeys').select((eb) => eb.fn.countAll<number>().as('n')).where('member_id', '=', memberId).executeTakeFirstOrThrow();
  return { totp: !!totp, passkeys: Number(pk.n) };
}

/** Each member's factors in a store (the owner's members page). */
export async function factorsOfStore(db: Db, storeId: string): Promise<Map<string, { totp: boolean; passkeys: number }>> {
  const rows = await db
    .selectFrom('store_members as m')
    .select((eb) => [
      'm.id',
      eb.exists(eb.selectFrom('member_totp as t').select('t.member_id').whereRef('t.member_id', '=', 'm.id').where('t.confirmed_at', 'is not', null)).as('totp'),
      eb.selectFrom('member_passkeys as p').select((e) => e.fn.countAll<number>().as('n')).whereRef('p.member_id', '=', 'm.id').as('passkeys'),
    ])
    .where('m.store_id', '=', storeId)
    .execute();
  return new Map(rows.map((r) => [r.id, { totp: !!r.totp, passkeys: Number(r.passkeys ?? 0) }]));
}
