/**
 * Transactions that PostgreSQL ends as a deadlock's victim run again. The kept counters (row_counts, Home's and the
 * 부가세 figures, kept by triggers: migrations 133–142) make two unrelated transactions update the same few counter
 * rows, each in the order its own statements reach them: a payment's order insert reaches the orders' counters before
 * the day's figures, a refund reaches them the other way round. PostgreSQL then aborts one of the two (SQLSTATE 40P01)
 * and, as its documentation says, the application retries it: the victim rolled back everything it did, and the
 * other transaction has gone on. Before this, the payment page answered that buyer 500 (the 60-minute soak of
 * 2026-12-03: 2 of 16,491 payments, both within a second of one refund).
 *
 * A transaction's body only reads and writes the database (gateways are called outside transactions), so running it
 * again is what a rolled-back attempt followed by a new one would be. A body must not carry state out of a failed
 * attempt into the next (an outer variable set inside and read on the next run): src/refunds/settlement.ts is written
 * so. Serialization failures (40001) are retried the same way; the service runs at READ COMMITTED, where they come
 * only from a future REPEATABLE READ or SERIALIZABLE transaction.
 */
import type { Kysely, TransactionBuilder } from 'kysely';

/** SQLSTATEs after which a whole transaction may simply run again. */
const RETRYABLE = new Set(['40P01', '40001']);
/** Attempts in all: a fourth deadlock in a row is answered as the error it is. */
export const DEADLOCK_ATTEMPTS = 4;

export function isRetryableTransactionError(e: unknown): boolean {
  return typeof e === 'object' && e !== null && RETRYABLE.has((e as { code?: unknown }).code as string);
}

function retrying<DB>(builder: TransactionBuilder<DB>, stats: { deadlockRetries: number }): TransactionBuilder<DB> {
  return new Proxy(builder, {
    get(target, prop, receiver) {
      if (prop === 'execute') {
        return async <T>(fn: (trx: Parameters<Parameters<TransactionBuilder<DB>['execute']>[0]>[0]) => Promise<T>): Promise<T> => {
          for (let attempt = 1; ; attempt++) {
            try {
              return await target.execute(fn);
            } catch (e) {
              if (attempt >= DEADLOCK_ATTEMPTS || !isRetryableTransactionError(e)) throw e;
              stats.deadlockRetries++;
            }
          }
        };
      }
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      // setIsolationLevel, setAccessMode…: each answers a new builder, which retries too.
      return (...args: unknown[]) => {
        const out = value.apply(target, args);
        return out && typeof out === 'object' && typeof (out as { execute?: unknown }).execute === 'function' ? retrying(out as TransactionBuilder<DB>, stats) : out;
      };
    },
  });
}

/** `db` whose `transaction()` runs its body again after a deadlock (at most DEADLOCK_ATTEMPTS times in all). */
export function retryDeadlocks<DB>(db: Kysely<DB>, stats: { deadlockRetries: number }): Kysely<DB> {
  const transaction = db.transaction.bind(db);
  Object.defineProperty(db, 'transaction', { value: () => retrying(transaction(), stats), configurable: true, writable: true });
  return db;
}
