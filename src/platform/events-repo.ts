import type { Insertable } from 'kysely';
import type { Db } from '../db';
import type { EventsTable } from './tables';

/** Inserts an outbox row; run it in the transaction that makes the change the event reports. */
export async function insertEvent(trx: Db, row: Insertable<EventsTable>): Promise<void> {
  await trx.insertInto('events').values(row).execute();
}
