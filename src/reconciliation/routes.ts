import type { Module } from '../deps';
import { op } from '../platform/http/route';
import { IdParams } from '../platform/http/schemas';
import { pageParams } from '../platform/http/pagination';
import { CreateReconciliationBody, ReconciliationListQuery, ReconciliationPage, ReconciliationWithDifferencesSchema } from './schemas';
import { DAILY_TASK_INTERVAL_MS, getReconciliation, listReconciliations, runDailyReconciliation, runReconciliation, RUN_JOB, startReconciliation } from './service';
import { paymentSyncFor } from './sync';

const DOC =
  'A reconciliation compares one KST day of Toss Payments\' transactions (GET /v1/transactions: each approval and each cancel, paged with `startingAfter`) ' +
  'with this store\'s orders and refunds of that mode, and records each difference by `kind`: `unknown_here` (paid at Toss but unknown here), ' +
  '`missing_at_toss` (paid here, not at Toss), `amount_differs`, `refunds_differ`. It needs the mode\'s Toss secret key (RECONCILIATION_NOT_AVAILABLE otherwise). ' +
  'Nothing is changed by it except what a lookup of the payment at Toss proves (the same path as Toss\'s webhooks). ' +
  'Runs daily for every store and mode with Toss keys (the day before, from RECONCILIATION_HOUR_KST; RECONCILIATION_SCHEDULE=off disables it) and on demand here; ' +
  'each completed run sends a `reconciliation.completed` event with `differenceCount`.';

const reconciliationModule: Module = async (app, deps) => {
  const sync = paymentSyncFor(deps);
  deps.worker.registerJob(RUN_JOB, async (payload) => {
    await runReconciliation(deps, String(payload.id), sync);
  });
  if (deps.config.reconciliationSchedule === 'daily') {
    deps.worker.addTask({ name: 'reconciliation.daily', intervalMs: DAILY_TASK_INTERVAL_MS, run: (now) => runDailyReconciliation(deps, now) });
  }

  const tags = ['Reconciliation'];
  app.post(
    '/admin/v1/reconciliations',
    op(
      { operationId: 'adminCreateReconciliation', summary: 'Start a reconciliation of one KST day with Toss', description: `${DOC}\n\nAnswers 202 with the run (\`status: running\`); read it by id until it is \`completed\` or \`failed\`.`, tags },
      { auth: 'owner', errors: ['RECONCILIATION_NOT_AVAILABLE', 'RECONCILIATION_IN_PROGRESS'] },
      { body: CreateReconciliationBody, response: { 202: ReconciliationWithDifferencesSchema } },
    ),
    async (req, reply) => {
      const started = await startReconciliation(deps, req.owner!.storeId, { mode: req.body.mode, date: req.body.date, source: 'console', enqueue: true });
      reply.code(202);
      return { ...started, differences: [], settlements: null };
    },
  );
  app.get(
    '/admin/v1/reconciliations',
    op(
      { operationId: 'adminListReconciliations', summary: 'List reconciliations, newest first', description: DOC, tags },
      { auth: 'owner' },
      { querystring: ReconciliationListQuery, response: { 200: ReconciliationPage } },
    ),
    async (req) => listReconciliations(deps, req.owner!.storeId, { ...pageParams(req.query), mode: req.query.mode }),
  );
  app.get(
    '/admin/v1/reconciliations/:id',
    op(
      { operationId: 'adminGetReconciliation', summary: 'Read a reconciliation with its differences', tags },
      { auth: 'owner', errors: ['RECONCILIATION_NOT_FOUND'] },
      { params: IdParams, response: { 200: ReconciliationWithDifferencesSchema } },
    ),
    async (req) => getReconciliation(deps, req.owner!.storeId, req.params.id),
  );
};

export default reconciliationModule;
