/**
 * Reconciliation runs: starting one for a store, mode and KST day, running it (Toss's side from gateway-day.ts against
 * our books), reading and listing runs, and the daily task that starts yesterday's.
 */
import type { AppDeps } from '../deps';
import { enqueueJob } from '../jobs/queue';
import { addDays, kstDate } from '../platform/calendar';
import { ApiError, validationError } from '../platform/errors';
import { writeEvent } from '../platform/events';
import { listPage, type PageParams } from '../platform/http/pagination';
import type { Page } from '../platform/http/schemas';
import { newId } from '../platform/ids';
import { MESSAGES } from '../platform/messages';
import type { Mode } from '../platform/tables';
import { getModeSettings } from '../stores/service';
import { providerFor, providersWith, type PaymentProviderName } from '../payments';
import { compareDay, isCalendarDay, type Difference } from './model';
import * as repo from './repo';
import { noSync, type SyncTossPayment } from './sync';
import type { ReconciliationSource, ReconciliationStatus } from './tables';
import { counter } from '../platform/metrics-registry';
import { dayRange, gatewayDay, settlementsDay, settlementTotals, type SettlementRecord, type SettlementsReport } from './gateway-day';

/** Differences found between Toss's ledger and our books, by kind (unknown_here, amount_differs, missing_at_toss, refunds_differ). */
const differencesTotal = counter({ name: 'commerce_reconciliation_differences_total', help: 'Differences found by completed reconciliations, by kind', labelNames: ['kind'] });

type Log = Pick<AppDeps['log'], 'info' | 'warn' | 'error'>;
export type Deps = Pick<AppDeps, 'db' | 'clock' | 'config'> & { log?: Log };

export const RUN_JOB = 'reconciliation.run';
/** The daily task checks this often; it starts at most one run per store, mode and day however often it runs. */
export const DAILY_TASK_INTERVAL_MS = 10 * 60_000;

export interface ReconciliationView {
  id: string;
  mode: Mode;
  date: string;
  status: ReconciliationStatus;
  source: ReconciliationSource;
  gatewayTransactions: number;
  differenceCount: number;
  failure: { code: string; message: string } | null;
  createdAt: string;
  completedAt: string | null;
}

export type ReconciliationWithDifferences = ReconciliationView & { differences: Difference[]; settlements: SettlementsReport | null };

type Row = NonNullable<Awaited<ReturnType<typeof repo.findReconciliationById>>>;

function view(r: Row): ReconciliationView {
  return {
    id: r.id,
    mode: r.mode,
    date: r.day,
    status: r.status,
    source: r.source,
    gatewayTransactions: r.gateway_transactions,
    differenceCount: r.difference_count,
    failure: r.failure_code ? { code: r.failure_code, message: r.failure_message ?? '' } : null,
    createdAt: r.created_at.toISOString(),
    completedAt: r.completed_at ? r.completed_at.toISOString() : null,
  };
}
function assertDay(deps: Deps, date: string): void {
  if (!isCalendarDay(date)) throw validationError([{ field: 'date', message: MESSAGES.reconciliation.dateInvalid }]);
  if (date > kstDate(deps.clock.now())) throw validationError([{ field: 'date', message: MESSAGES.reconciliation.dateInFuture }]);
}

/**
 * A run needs a gateway that answers the reconciliation read (PaymentProvider.listTransactions): Toss with the mode's
 * secret key, or in test mode the simulator, so a seller can try reconciliation before going live.
 */
async function assertTossConfigured(deps: Deps, storeId: string, mode: Mode): Promise<void> {
  const settings = await getModeSettings(deps.db, storeId, mode);
  if (!providerFor(deps, settings.raw)) throw new ApiError('RECONCILIATION_NOT_AVAILABLE');
}

/**
 * Records a run of one store, mode and KST day as `running`. With `enqueue` the run is a job (claimed by a worker,
 * enqueued in the same transaction); without it the caller runs it at once (CLI). One run of a day at a time:
 * RECONCILIATION_IN_PROGRESS with `details.id` of the running one.
 */
export async function startReconciliation(
  deps: Deps,
  storeId: string,
  input: { mode: Mode; date: string; source: ReconciliationSource; enqueue: boolean },
): Promise<ReconciliationView> {
  assertDay(deps, input.date);
  await assertTossConfigured(deps, storeId, input.mode);
  const now = deps.clock.now();
  const id = newId('rcn', deps.clock);
  try {
    await deps.db.transaction().execute(async (trx) => {
      const running = await repo.runningFor(trx, storeId, input.mode, input.date);
      if (running) throw new ApiError('RECONCILIATION_IN_PROGRESS', { details: { id: running } });
      await repo.insertReconciliation(trx, {
        id, store_id: storeId, mode: input.mode, day: input.date, status: 'running', source: input.source,
        gateway_transactions: 0, difference_count: 0, failure_code: null, failure_message: null, created_at: now, completed_at: null,
      });
      if (input.enqueue) await enqueueJob(trx, deps.clock, { name: RUN_JOB, payload: { id }, dedupeKey: `${RUN_JOB}:${id}`, maxAttempts: 1 });
    });
  } catch (err) {
    if (err instanceof ApiError) throw err;
    // Two starts raced past the check: the partial unique index kept one.
    if (/reconciliations_running|unique/i.test(String((err as Error).message))) {
      throw new ApiError('RECONCILIATION_IN_PROGRESS', { details: { id: (await repo.runningFor(deps.db, storeId, input.mode, input.date)) ?? '' } });
    }
    throw err;
  }
  return view((await repo.findReconciliationById(deps.db, id))!);
}

/**
 * Runs a `running` reconciliation to its end: reads the day at the gateway (no transaction open meanwhile), then our
 * orders and refunds, and in one transaction stores the differences, marks it `completed` and writes the
 * `reconciliation.completed` event. A gateway that refuses or does not answer marks it `failed` (start another).
 * Nothing of ours changes here: each difference is handed to `sync`, which changes only what a lookup at the gateway
 * proves. A run that is no longer `running` is left alone, so a retried job does nothing twice.
 */
export async function runReconciliation(deps: Deps, id: string, sync: SyncTossPayment = noSync): Promise<ReconciliationWithDifferences | null> {
  const row = await repo.findReconciliationById(deps.db, id);
  if (!row || row.status !== 'running') return row ? getReconciliation(deps, row.store_id, id) : null;
  const { from, to } = dayRange(row.day);
  // Each order is compared with the ledger of the rail that took it, whatever the mode's provider is now.
  const rails = await repo.providersInRange(deps.db, row.store_id, row.mode, from, to);
  const day = await gatewayDay(deps, row.store_id, row.mode, row.day, rails);
  const now = () => deps.clock.now();
  if (!day.ok) {
    await repo.finishReconciliation(deps.db, id, { status: 'failed', gateway_transactions: 0, difference_count: 0, failure_code: day.code, failure_message: day.message, completed_at: now() });
    deps.log?.warn({ reconciliationId: id, code: day.code }, 'reconciliation failed');
    return getReconciliation(deps, row.store_id, id);
  }
  const all = day.ledgers.flatMap((l) => l.transactions);
  const keys = [...new Set(all.map((t) => t.paymentKey))];
  const orderIds = [...new Set(all.map((t) => t.orderId))];
  const known = await repo.ordersByKeysOrIds(deps.db, row.store_id, row.mode, keys, orderIds);
  const differences: Difference[] = [];
  const provenBy = new Map<Difference, PaymentProviderName>();
  for (const ledger of day.ledgers) {
    const [paidHere, refundsHere] = await Promise.all([
      repo.paidInRange(deps.db, row.store_id, row.mode, from, to, ledger.provider),
      repo.refundsInRange(deps.db, row.store_id, row.mode, from, to, ledger.provider),
    ]);
    for (const d of compareDay({ transactions: ledger.transactions, paidHere, known, refundsHere })) {
      differences.push(d);
      provenBy.set(d, ledger.provider);
    }
  }
  const settled = await settlementsDay(deps, row.store_id, row.mode, row.day);
  const finished = await deps.db.transaction().execute(async (trx) => {
    const done = await repo.finishReconciliation(trx, id, {
      status: 'completed', gateway_transactions: all.length, difference_count: differences.length, failure_code: null, failure_message: null, completed_at: now(),
    });
    if (!done) return false;
    await repo.insertDifferences(
      trx,
      differences.map((d, seq) => ({ reconciliation_id: id, seq, kind: d.kind, order_id: d.orderId, payment_key: d.paymentKey, our_amount: d.ourAmount, gateway_amount: d.gatewayAmount })),
    );
    await repo.recordSettlements(
      trx,
      id,
      settled.ok ? 'read' : 'unavailable',
      settled.ok ? null : settled.message,
      (settled.ok ? settled.records : []).map((s, seq) => ({
        reconciliation_id: id, seq, toss_key_pair: s.keyPair, payment_key: s.paymentKey, transaction_key: s.transactionKey, order_id: s.orderId, method: s.method,
        amount: s.amount, fee: s.fee, fee_supply_amount: s.feeSupplyAmount, fee_vat: s.feeVat, pay_out_amount: s.payOutAmount,
        sold_date: s.soldDate, paid_out_date: s.paidOutDate, canceled: s.canceled,
      })),
    );
    const summary = view((await repo.findReconciliationById(trx, id))!);
    await writeEvent(trx, deps.clock, { storeId: row.store_id, mode: row.mode, type: 'reconciliation.completed', data: { ...summary } });
    return true;
  });
  if (finished) {
    deps.log?.info({ reconciliationId: id, day: row.day, differences: differences.length }, 'reconciliation completed');
    for (const d of differences) differencesTotal.labels(d.kind).inc();
    for (const d of differences) {
      try {
        await sync({ storeId: row.store_id, mode: row.mode, paymentKey: d.paymentKey ?? undefined, orderId: d.orderId, provider: provenBy.get(d) });
      } catch (err) {
        deps.log?.warn({ err, reconciliationId: id, paymentKey: d.paymentKey }, 'reconciliation: payment sync failed');
      }
    }
  }
  return getReconciliation(deps, row.store_id, id);
}

export async function getReconciliation(deps: Pick<Deps, 'db'>, storeId: string, id: string): Promise<ReconciliationWithDifferences> {
  const r = await repo.findReconciliation(deps.db, storeId, id);
  if (!r) throw new ApiError('RECONCILIATION_NOT_FOUND');
  const rows = await repo.differencesOf(deps.db, id);
  let settlements: SettlementsReport | null = null;
  if (r.settlements_status) {
    const records: SettlementRecord[] = (await repo.settlementsOf(deps.db, id)).map((s) => ({
      keyPair: s.toss_key_pair, paymentKey: s.payment_key, transactionKey: s.transaction_key, orderId: s.order_id, method: s.method,
      amount: Number(s.amount), fee: Number(s.fee), feeSupplyAmount: Number(s.fee_supply_amount), feeVat: Number(s.fee_vat), payOutAmount: Number(s.pay_out_amount),
      soldDate: s.sold_date, paidOutDate: s.paid_out_date, canceled: s.canceled,
    }));
    settlements = { status: r.settlements_status, failure: r.settlements_failure, ...settlementTotals(records), records };
  }
  return {
    ...view(r),
    differences: rows.map((d) => ({ kind: d.kind, orderId: d.order_id, paymentKey: d.payment_key, ourAmount: d.our_amount === null ? null : Number(d.our_amount), gatewayAmount: d.gateway_amount === null ? null : Number(d.gateway_amount) })),
    settlements,
  };
}

export async function listReconciliations(deps: Pick<Deps, 'db'>, storeId: string, q: PageParams & { mode?: Mode }): Promise<Page<ReconciliationView>> {
  return listPage(
    q,
    () => repo.countReconciliations(deps.db, storeId, q.mode),
    (offset, limit) => repo.pageReconciliations(deps.db, storeId, q.mode, offset, limit),
    view,
  );
}

/**
 * The daily scheduler: from RECONCILIATION_HOUR_KST on, each KST day, a run of the day before for every store and
 * mode with Toss keys. Safe to run any number of times: a job run of a day exists at most once (a unique index).
 */
export async function runDailyReconciliation(deps: Deps, now: Date): Promise<number> {
  const hourKst = new Date(now.getTime() + 9 * 3_600_000).getUTCHours();
  if (hourKst < deps.config.reconciliationHourKst) return 0;
  const day = addDays(kstDate(now), -1);
  let started = 0;
  for (const s of await repo.dailyReconciledStoreModes(deps.db, providersWith('reconciledDaily'))) {
    if (await repo.jobRunExists(deps.db, s.store_id, s.mode, day)) continue;
    try {
      await startReconciliation(deps, s.store_id, { mode: s.mode, date: day, source: 'job', enqueue: true });
      started++;
    } catch (err) {
      // A run of that day is going on (console), or another process started the job's first: nothing to do now.
      if (err instanceof ApiError && err.code === 'RECONCILIATION_IN_PROGRESS') continue;
      if (/reconciliations_job_day|unique/i.test(String((err as Error).message))) continue;
      throw err;
    }
  }
  return started;
}
