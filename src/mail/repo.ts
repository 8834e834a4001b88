import { sql, type Insertable, type Selectable } from 'kysely';
import type { Db } from '../db';
import { jsonb } from '../db';
import type { Mode } from '../platform/tables';
import type { MailOutboxTable, MailStatus } from './tables';

export type MailRow = Selectable<MailOutboxTable>;

/** One mail per (event, kind, recipient): a second insert of the same is a no-op. Returns whether a row was written. */
export async function insertMail(trx: Db, row: Insertable<MailOutboxTable>): Promise<boolean> {
  const r = await trx.insertInto('mail_outbox').values(row).onConflict((oc) => oc.columns(['event_id', 'kind', 'recipient']).doNothing()).executeTakeFirst();
  return Number(r.numInsertedOrUpdatedRows ?? 0) > 0;
}

export async function disabledKinds(db: Db, storeId: string): Promise<string[]> {
  const row = await db.selectFrom('store_mail_settings').select('disabled_kinds').where('store_id', '=', storeId).executeTakeFirst();
  return row?.disabled_kinds ?? [];
}

export async function setDisabledKinds(db: Db, storeId: string, kinds: string[], now: Date): Promise<void> {
  await db
    .insertInto('store_mail_settings')
    .values({ store_id: storeId, disabled_kinds: jsonb(kinds), updated_at: now })
    .onConflict((oc) => oc.column('store_id').doUpdateSet({ disabled_kinds: jsonb(kinds), updated_at: now }))
    .execute();
}

export async function testCopyRecipients(db: Db, storeId: string): Promise<string[]> {
  const row = await db.selectFrom('store_mail_settings').select('test_copy_recipients').where('store_id', '=', storeId).executeTakeFirst();
  return row?.test_copy_recipients ?? [];
}

export async function setTestCopyRecipients(db: Db, storeId: string, emails: string[], now: Date): Promise<void> {
  await db
    .insertInto('store_mail_settings')
    .values({ store_id: storeId, disabled_kinds: jsonb([]), test_copy_recipients: jsonb(emails), updated_at: now })
    .onConflict((oc) => oc.column('store_id').doUpdateSet({ test_copy_recipients: jsonb(emails), updated_at: now }))
    .execute();
}

/** Records a captured test mail's copies after they were sent by hand ("send this to me"). */
export async function recordTestCopy(db: Db, id: string, o: { at: Date; to: string[]; error: string | null }): Promise<void> {
  await db.updateTable('mail_outbox').set({ test_copy_sent_at: o.error ? null : o.at, test_copy_recipients: jsonb(o.to), test_copy_error: o.error, updated_at: o.at }).where('id', '=', id).execute();
}

export async function buyerEmailOfOrder(db: Db, orderId: string): Promise<string | null> {
  const row = await db.selectFrom('orders').select('buyer_email').where('id', '=', orderId).executeTakeFirst();
  return row?.buyer_email ?? null;
}

/** The buyer's language recorded on an order (migration 022); Korean for an order that is gone. */
export async function localeOfOrder(db: Db, orderId: string): Promise<'ko' | 'en'> {
  const row = await db.selectFrom('orders').select('locale').where('id', '=', orderId).executeTakeFirst();
  return row?.locale ?? 'ko';
}

export async function storeNameOf(db: Db, storeId: string): Promise<string> {
  const row = await db.selectFrom('stores').select('name').where('id', '=', storeId).executeTakeFirst();
  return row?.name ?? '';
}

/**
 * Leases due mails to one worker: pending ones whose time has come and whose lease (if any) ran out, and live mails
 * parked for want of SMTP. FOR UPDATE SKIP LOCKED: two workers never lease the same mail.
 */
export async function leaseDueMails(trx: Db, o: { now: Date; token: string; leaseUntil: Date; limit: number }): Promise<MailRow[]> {
  const due = await trx
    .selectFrom('mail_outbox')
    .select('id')
    .where('status', 'in', ['pending', 'unconfigured'])
    .where('next_attempt_at', '<=', o.now)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', o.now)]))
    .orderBy('next_attempt_at')
    .limit(o.limit)
    .forUpdate()
    .skipLocked()
    .execute();
  if (due.length === 0) return [];
  return trx
    .updateTable('mail_outbox')
    .set({ locked_by: o.token, locked_until: o.leaseUntil, updated_at: o.now })
    .where('id', 'in', due.map((d) => d.id))
    .returningAll()
    .execute();
}

export interface MailOutcome {
  status: MailStatus;
  attempts?: number;
  nextAttemptAt?: Date;
  lastError?: string | null;
  subject?: string | null;
  text?: string | null;
  html?: string | null;
  sentAt?: Date | null;
  /** A captured test mail's copies to the store's own addresses: when they went (null: not sent), to whom, why not. */
  testCopy?: { sentAt: Date | null; to: string[]; error: string | null };
}

/** Records what happened to a leased mail; only the lease holder moves it (a lease that ran out belongs to another). */
export async function settleMail(db: Db, id: string, token: string, o: MailOutcome, now: Date): Promise<boolean> {
  const r = await db
    .updateTable('mail_outbox')
    .set({
      status: o.status,
      ...(o.attempts !== undefined ? { attempts: o.attempts } : {}),
      ...(o.nextAttemptAt ? { next_attempt_at: o.nextAttemptAt } : {}),
      ...(o.lastError !== undefined ? { last_error: o.lastError } : {}),
      ...(o.subject !== undefined ? { subject: o.subject } : {}),
      ...(o.text !== undefined ? { text_body: o.text } : {}),
      ...(o.html !== undefined ? { html_body: o.html } : {}),
      ...(o.sentAt !== undefined ? { sent_at: o.sentAt } : {}),
      ...(o.testCopy ? { test_copy_sent_at: o.testCopy.sentAt, test_copy_recipients: jsonb(o.testCopy.to), test_copy_error: o.testCopy.error } : {}),
      locked_by: null,
      locked_until: null,
      updated_at: now,
    })
    .where('id', '=', id)
    .where('locked_by', '=', token)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export function listMails(db: Db, storeId: string, mode: Mode, limit: number, offset: number): Promise<MailRow[]> {
  return db
    .selectFrom('mail_outbox')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('mode', '=', mode)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
}

export async function countMails(db: Db, storeId: string, mode: Mode): Promise<number> {
  const r = await db.selectFrom('mail_outbox').select(sql<string>`count(*)`.as('n')).where('store_id', '=', storeId).where('mode', '=', mode).executeTakeFirstOrThrow();
  return Number(r.n);
}

export function findMail(db: Db, storeId: string, mode: Mode, id: string): Promise<MailRow | undefined> {
  return db.selectFrom('mail_outbox').selectAll().where('store_id', '=', storeId).where('mode', '=', mode).where('id', '=', id).executeTakeFirst();
}

/** A subscription's earliest price-change decision still standing (open, or charged/ended at its renewal). */
export function firstPriceDecision(db: Db, subscriptionId: string) {
  return db
    .selectFrom('subscription_price_changes')
    .selectAll()
    .where('subscription_id', '=', subscriptionId)
    .where((eb) => eb.or([eb('outcome', 'is', null), eb('outcome', 'in', ['applied', 'ended'])]))
    .orderBy('decide_by')
    .executeTakeFirst();
}

/**
 * Retention: deletes up to `batch` finished mails (sent, captured in test mode, or failed for good) whose last change
 * is older than `before`. Pending mails and live mails parked for want of SMTP (unconfigured) are never touched.
 * Bounded batches keep each statement short; mail_outbox_finished_idx finds them without reading the whole outbox.
 */
export async function deleteFinishedMailsBefore(db: Db, before: Date, batch = 500): Promise<number> {
  // Literal statuses, as in the partial index's predicate, so a generic plan can use the index.
  const r = await sql`
    delete from mail_outbox where id in (
      select id from mail_outbox where status in ('sent', 'captured', 'failed') and updated_at < ${before} order by updated_at limit ${batch}
    ) and status in ('sent', 'captured', 'failed')`.execute(db);
  return Number(r.numAffectedRows ?? 0);
}
