import { CompiledQuery } from 'kysely';
import type { Db } from '../db';
import { jsonb } from '../db';
import type { Mode } from '../platform/tables';
import type { SessionRow } from './model';

/**
 * The store's checkout setup for one mode in one round trip: allow-list, provider settings, contact verification,
 * and whether business details are set (`business_details_set`, required for live mode).
 */
export function findCheckoutSetup(db: Db, storeId: string, mode: Mode) {
  return db
    .selectFrom('store_mode_settings as m')
    .innerJoin('stores as s', 's.id', 'm.store_id')
    .leftJoin('store_business_details as b', 'b.store_id', 'm.store_id')
    .select(['m.mode', 'm.return_url_domains', 'm.payment_provider', 'm.toss_client_key', 'm.toss_secret_key_sealed', 'm.portone_store_id', 'm.portone_api_secret_sealed', 's.public_contact_verified'])
    .select((eb) => eb('b.store_id', 'is not', null).as('business_details_set'))
    .where('m.store_id', '=', storeId)
    .where('m.mode', '=', mode)
    .executeTakeFirstOrThrow();
}

/** The request's Idempotency-Key, claimed by the same statement that writes the session (see claimInWrite). */
export interface KeyClaim {
  key: string;
  fingerprint: string;
  expiresAt: Date;
}

/**
 * The whole write of session creation in one statement and one round trip: the Idempotency-Key is inserted already
 * holding its answer (`done`, 200, `answer`), and the session is inserted only if that insert claimed the key. If the
 * key exists (a retry, a conflicting request, a stale claim) nothing is written and the result is false; the caller
 * then goes the ordinary way (read the stored key, replay or refuse). A fixed text, sent as a named prepared
 * statement, so neither Kysely nor PostgreSQL compiles or plans it per call. Columns not written here keep their
 * defaults (order, attempt lock, completion) as on the other insert path; `attempt` and `payment` are JSON null there
 * too.
 */
const INSERT_CLAIMING = `with claim as (
  insert into idempotency_keys (store_id, mode, key, fingerprint, state, created_at, locked_until, expires_at, response_status, response_body, response_content_type)
  values ($1::text, $2::text, $3::text, $4::text, 'done', $5::timestamptz, $5::timestamptz, $6::timestamptz, 200, $7::text, 'application/json; charset=utf-8')
  on conflict (store_id, mode, key) do nothing
  returning key
)
insert into checkout_sessions (id, store_id, mode, product_id, plan_id, billing_interval, amount, customer_name, customer_email, customer_phone, metadata, success_url, cancel_url, status, pending_order_id, expires_at, created_at, attempt, payment, trial_days, locale, customer_email_locked, locale_fixed)
select $8::text, $1::text, $2::text, $9::text, $10::text, $11::text, $12::bigint, $13::text, $14::text, $15::text, $16::jsonb, $17::text, $18::text, 'open', $19::text, $20::timestamptz, $5::timestamptz, 'null'::jsonb, 'null'::jsonb, $21::integer, $22::text, $23::boolean, $24::boolean
from claim
returning id`;

export async function insertSessionClaimingKey(db: Db, s: SessionRow, claim: KeyClaim, answer: string): Promise<boolean> {
  const params = [
    s.store_id,
    s.mode,
    claim.key,
    claim.fingerprint,
    s.created_at,
    claim.expiresAt,
    answer,
    s.id,
    s.product_id,
    s.plan_id,
    s.billing_interval,
    s.amount,
    s.customer_name,
    s.customer_email,
    s.customer_phone,
    JSON.stringify(s.metadata),
    s.success_url,
    s.cancel_url,
    s.pending_order_id,
    s.expires_at,
    s.trial_days,
    s.locale,
    s.customer_email_locked ?? false,
    s.locale_fixed ?? false,
  ];
  const r = await db.executeQuery(CompiledQuery.raw(INSERT_CLAIMING, params));
  return r.rows.length === 1;
}

/** Inserts the session (the ordinary path: no Idempotency-Key, or its answer stored by the idempotency layer). */
export async function insertSession(db: Db, s: SessionRow): Promise<void> {
  await sessionInsert(db, s).execute();
}

const sessionInsert = (db: Db, s: SessionRow) =>
  db.insertInto('checkout_sessions').values({ ...s, metadata: jsonb(s.metadata), attempt: jsonb(null), payment: jsonb(null) });

/**
 * One statement: the session and the idempotent answer that describes it (the key `claimed` before) are written
 * together, or neither is.
 */
export async function insertSessionStoringAnswer(
  db: Db,
  s: SessionRow,
  claimed: { storeId: string; mode: string; key: string },
  answer: { status: number; body: string; contentType: string },
): Promise<void> {
  await db
    .with('s', () => sessionInsert(db, s).returning('id'))
    .updateTable('idempotency_keys')
    .set({ state: 'done', response_status: answer.status, response_body: answer.body, response_content_type: answer.contentType })
    .where('store_id', '=', claimed.storeId)
    .where('mode', '=', claimed.mode)
    .where('key', '=', claimed.key)
    .where((eb) => eb.exists(eb.selectFrom('s').select('s.id')))
    .execute();
}

export function findStoreSession(db: Db, storeId: string, mode: Mode, id: string): Promise<SessionRow | undefined> {
  return db
    .selectFrom('checkout_sessions')
    .selectAll()
    .where('id', '=', id)
    .where('store_id', '=', storeId)
    .where('mode', '=', mode)
    .executeTakeFirst();
}
