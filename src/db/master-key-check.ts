import { sql } from 'kysely';
import type { Db } from './database';
import { decryptSecret, masterKeyCheckValue } from '../platform/crypto';

/**
 * The master key against the database (issue 30): the check value stored in master_key_check must be the key's own.
 * A database without one (created before it existed) is checked against a secret sealed in it, then records it.
 */

export class MasterKeyMismatchError extends Error {
  constructor(where: string) {
    super(
      `the master key does not match ${where}: its secrets (Toss secret keys, webhook secrets, billing keys, license keys) were sealed with another key. ` +
        `Set MASTER_KEY (or DATA_DIR/master.key) to the key in use when this database was written, then try again.`,
    );
    this.name = 'MasterKeyMismatchError';
  }
}

/** Sealed values a database may hold, one query each (a table a migration has not created yet is skipped). */
const SEALED_SAMPLES = [
  'select toss_secret_key_sealed as v from store_mode_settings where toss_secret_key_sealed is not null limit 1',
  'select private_key_sealed as v from signing_keys limit 1',
  'select key_sealed as v from licenses where key_sealed is not null limit 1',
  'select billing_key_sealed as v from subscriptions where billing_key_sealed is not null limit 1',
];

/** Raw query access, so the same check runs on Kysely and on a bare PGlite (the restore). */
export type RawQuery = (text: string) => Promise<Array<Record<string, unknown>>>;

/**
 * 'match' (the stored check value is this key's), 'mismatch', or 'unknown' (no check value stored: then a sealed
 * secret in the database is opened with the key, 'mismatch' when it cannot be; 'unknown' when there is none).
 */
export async function checkMasterKey(query: RawQuery, masterKey: Buffer): Promise<'match' | 'mismatch' | 'unknown'> {
  let stored: string | null = null;
  try {
    const rows = await query('select check_value from master_key_check where id = 1');
    stored = rows.length ? String(rows[0]!.check_value) : null;
  } catch {
    stored = null; // a database from before migration 057
  }
  if (stored !== null) return stored === masterKeyCheckValue(masterKey) ? 'match' : 'mismatch';
  for (const text of SEALED_SAMPLES) {
    let rows: Array<Record<string, unknown>>;
    try {
      rows = await query(text);
    } catch {
      continue;
    }
    if (!rows.length || typeof rows[0]!.v !== 'string') continue;
    try {
      decryptSecret(masterKey, rows[0]!.v);
      return 'match';
    } catch {
      return 'mismatch';
    }
  }
  return 'unknown';
}

/**
 * At start (and before CLI commands that seal secrets): refuses a master key that is not the database's; records the
 * check value of this key when none is stored yet. Several processes starting together record the same value.
 */
export async function verifyMasterKey(db: Db, masterKey: Buffer, where = 'this database'): Promise<void> {
  const query: RawQuery = async (text) => (await sql.raw<Record<string, unknown>>(text).execute(db)).rows;
  const result = await checkMasterKey(query, masterKey);
  if (result === 'mismatch') throw new MasterKeyMismatchError(where);
  await sql`insert into master_key_check (id, check_value) values (1, ${masterKeyCheckValue(masterKey)}) on conflict (id) do nothing`.execute(db);
  // Another process may have recorded a different key's value in between: read it back.
  if ((await checkMasterKey(query, masterKey)) === 'mismatch') throw new MasterKeyMismatchError(where);
}
