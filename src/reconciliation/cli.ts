import pino from 'pino';
import type { Db } from '../db';
import type { Config } from '../config';
import type { Clock } from '../platform/clock';
import { ApiError } from '../platform/errors';
import { runReconciliation, startReconciliation } from './service';
import { paymentSyncFor } from './sync';
import { getModeSettings } from '../stores/service';
import { providerFor } from '../payments';

function flag(args: string[], name: string): string | undefined {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
}

/**
 * `commerce reconcile --store ID --date YYYY-MM-DD [--mode live|test]`: one run, here and now (no worker needed),
 * printed as a table. Refusals (no Toss keys, a run of that day going on, a bad date) are errors with the code.
 */
export async function reconcileCommand(deps: { db: Db; clock: Clock; config: Config }, args: string[]): Promise<{ text: string; failed: boolean }> {
  const store = flag(args, 'store');
  const date = flag(args, 'date');
  const mode = flag(args, 'mode') ?? 'live';
  if (!store || !date) throw new Error('--store and --date YYYY-MM-DD are required');
  if (mode !== 'live' && mode !== 'test') throw new Error('--mode must be live or test');
  // A separate process sees none of the simulator's ledger (it lives in the server's memory): every test order would
  // read as missing at the gateway. Test mode on the simulator is reconciled from the dashboard or the API instead.
  if (await ledgerInServerOnly(deps, store, mode)) {
    throw new Error("RECONCILIATION_NOT_AVAILABLE: test mode's simulator keeps its ledger in the running server's memory; start this run from the dashboard (대사) or POST /admin/v1/reconciliations");
  }
  let id: string;
  try {
    id = (await startReconciliation(deps, store, { mode, date, source: 'cli', enqueue: false })).id;
  } catch (err) {
    if (err instanceof ApiError) {
      const fields = (err.details as { fields?: Array<{ field: string; message: string }> } | undefined)?.fields;
      throw new Error(`${err.code}: ${fields?.map((f) => `${f.field}: ${f.message}`).join('; ') || err.message}`);
    }
    throw err;
  }
  // What the sync logs (a lookup Toss could not answer) goes to stderr, apart from the printed table.
  const log = pino({ level: deps.config.logLevel ?? 'warn' }, pino.destination(2));
  const r = (await runReconciliation(deps, id, paymentSyncFor({ ...deps, log })))!;
  const lines = [
    `reconciliation : ${r.id}`,
    `store          : ${store} (${r.mode})`,
    `date (KST)     : ${r.date}`,
    `status         : ${r.status}${r.failure ? ` (${r.failure.code}: ${r.failure.message})` : ''}`,
    `transactions   : ${r.gatewayTransactions}`,
    `differences    : ${r.differenceCount}`,
    ...r.differences.map((d) => `  ${d.kind.padEnd(16)} order ${d.orderId}  payment ${d.paymentKey ?? '-'}  ours ${d.ourAmount ?? '-'}  toss ${d.gatewayAmount ?? '-'}`),
  ];
  return { text: lines.join('\n') + '\n', failed: r.status === 'failed' };
}

async function ledgerInServerOnly(deps: { db: Db; clock: Clock; config: Config }, storeId: string, mode: 'live' | 'test'): Promise<boolean> {
  const settings = await getModeSettings(deps.db, storeId, mode).catch(() => null);
  return !!settings && providerFor(deps, settings.raw)?.ledger === 'process';
}
