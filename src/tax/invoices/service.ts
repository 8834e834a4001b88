import { sql } from 'kysely';
import type { AppDeps } from '../../deps';
import type { Db } from '../../db';
import { enqueueJob } from '../../jobs/queue';
import { ApiError, validationError } from '../../platform/errors';
import { MESSAGES } from '../../platform/messages';
import { writeEvent } from '../../platform/events';
import { newId } from '../../platform/ids';
import type { Mode } from '../../platform/tables';
import type { OrderRow } from '../../orders/model';
import { amendmentFor, BANK_METHODS, checkRecipient, invoiceAmounts, issueDeadline, kstDay, type RecipientInput } from './model';
import { taxInvoiceProviderFor, type InvoiceDocument, type IssuedDocument, type Outcome } from './provider';
import * as repo from './repo';
import { invoiceView } from './view';

/**
 * 세금계산서 use cases. Crash-safe in three steps, like a refund:
 *   1. one transaction locks the order, checks the rules, and moves the invoice to `issuing` with its document key
 *      (`<id>-<attempt>`), its amounts and 작성일자, and enqueues the issue job (dedupe per invoice);
 *   2. the provider is called outside any transaction: first `find` by the document key (an earlier call may have
 *      issued it), then `issue` only if the provider has none;
 *   3. a second transaction records the answer with its event (`tax_invoice.issued` / `.amended` / `.failed`).
 * A crash or a lost answer leaves `issuing`: the job sends the same key again and reads the provider's answer first,
 * so one order never gets two originals. A double click or a second process waits on the order's lock and finds the
 * invoice already `issuing`: it runs step 2 with the same key. The unique index (one original per order) holds even
 * if two requests raced past the checks.
 */

type Deps = Pick<AppDeps, 'db' | 'clock' | 'config' | 'log'>;

export const ISSUE_JOB = 'tax.invoice.issue';

/** Thrown by the job when the provider did not answer (or an amendment waits for its original): retried later. */
export class TaxInvoiceRetryLater extends Error {}

/** The rules a request must pass, on the locked order (the decision table in model.ts). */
async function assertRequestable(trx: Db, order: OrderRow, now: Date): Promise<void> {
  if (!BANK_METHODS.has(order.method)) throw new ApiError('TAX_INVOICE_CARD_PAYMENT', { details: { method: order.method } });
  if (await repo.hasCashReceipt(trx, order.id)) throw new ApiError('TAX_INVOICE_CASH_RECEIPT_EXISTS');
  const existing = await repo.findOriginal(trx, order.id);
  if (existing) throw new ApiError('TAX_INVOICE_EXISTS', { details: { taxInvoiceId: existing.id, status: existing.status } });
  const left = order.amount - (order.refunded_amount ?? 0);
  if ((order.status !== 'paid' && order.status !== 'awaiting_deposit') || left <= 0) throw new ApiError('TAX_INVOICE_NOT_ALLOWED', { details: { status: order.status } });
  if (order.paid_at && now >= issueDeadline(order.paid_at)) throw new ApiError('TAX_INVOICE_DEADLINE_PASSED', { details: { deadline: issueDeadline(order.paid_at).toISOString() } });
}

/**
 * A buyer (the receipt page) or the seller (console, dashboard) asks for the order's 세금계산서. Kept as `requested`;
 * issued at once when the seller asks, or when the store issues automatically and the order is paid. `scope`: the
 * console's store and mode (another store's order is ORDER_NOT_FOUND).
 */
export async function requestTaxInvoice(
  deps: Deps,
  orderId: string,
  input: Partial<RecipientInput>,
  by: 'buyer' | 'seller',
  scope?: { storeId: string; mode: Mode },
): Promise<repo.TaxInvoiceRow> {
  const checked = checkRecipient(input);
  if (!checked.ok) throw validationError(checked.fields);
  const r = checked.recipient;
  const row = await deps.db.transaction().execute(async (trx) => {
    const order = await repo.lockOrder(trx, orderId);
    if (!order || (scope && (order.store_id !== scope.storeId || order.mode !== scope.mode))) throw new ApiError('ORDER_NOT_FOUND');
    const now = deps.clock.now();
    await assertRequestable(trx, order, now);
    const inserted = await repo.insertInvoice(trx, {
      id: newId('ti', deps.clock),
      order_id: order.id,
      store_id: order.store_id,
      mode: order.mode,
      kind: 'original',
      status: 'requested',
      requested_by: by,
      recipient_brn: r.brn,
      recipient_name: r.name,
      recipient_representative: r.representative,
      recipient_email: r.email,
      attempt: 0,
      created_at: now,
      updated_at: now,
    });
    const auto = by === 'seller' || (await repo.issueSetting(trx, order.store_id)) === 'auto';
    if (auto && order.status === 'paid') return startIssue(trx, deps, order, inserted, now);
    return inserted;
  });
  if (row.status === 'issuing') await runIssue(deps, row.id).catch((err) => deps.log.warn({ err, taxInvoiceId: row.id }, 'tax invoice issue deferred to the job'));
  return (await repo.findInvoice(deps.db, row.id))!;
}

/**
 * The seller issues a requested invoice (or tries a failed one again, with a new document key) by hand. An invoice
 * already `issuing` is sent again with its own key (a double click, a retry after a crash); an issued one is answered.
 */
export async function issueTaxInvoice(deps: Deps, storeId: string, mode: Mode, invoiceId: string): Promise<repo.TaxInvoiceRow> {
  const found = await repo.findInvoice(deps.db, invoiceId);
  if (!found || found.store_id !== storeId || found.mode !== mode) throw new ApiError('TAX_INVOICE_NOT_FOUND');
  const row = await deps.db.transaction().execute(async (trx) => {
    const order = (await repo.lockOrder(trx, found.order_id))!;
    const inv = (await repo.lockInvoice(trx, invoiceId))!;
    if (inv.status === 'issuing' || inv.status === 'issued') return inv;
    if (inv.kind !== 'original' || (inv.status !== 'requested' && inv.status !== 'failed')) throw new ApiError('TAX_INVOICE_NOT_ISSUABLE', { details: { status: inv.status } });
    const now = deps.clock.now();
    if (order.status !== 'paid') throw new ApiError('TAX_INVOICE_NOT_ALLOWED', { details: { status: order.status } });
    if (await repo.hasCashReceipt(trx, order.id)) throw new ApiError('TAX_INVOICE_CASH_RECEIPT_EXISTS');
    if (order.paid_at && now >= issueDeadline(order.paid_at)) throw new ApiError('TAX_INVOICE_DEADLINE_PASSED', { details: { deadline: issueDeadline(order.paid_at).toISOString() } });
    return startIssue(trx, deps, order, inv, now);
  });
  if (row.status === 'issuing') await runIssue(deps, row.id).catch((err) => deps.log.warn({ err, taxInvoiceId: row.id }, 'tax invoice issue deferred to the job'));
  return (await repo.findInvoice(deps.db, row.id))!;
}

/**
 * Step 1 (in the caller's transaction, order locked): fixes the document (amounts from what is still paid, 작성일자 =
 * the payment's KST day, a new attempt's key) and enqueues the job. The supplier must be known before anything is sent.
 */
async function startIssue(trx: Db, deps: Pick<AppDeps, 'clock'>, order: OrderRow, inv: repo.TaxInvoiceRow, now: Date): Promise<repo.TaxInvoiceRow> {
  if (!(await supplierOf(trx, order.store_id))) throw new ApiError('TAX_INVOICE_SUPPLIER_MISSING');
  const total = order.amount - (order.refunded_amount ?? 0);
  if (total <= 0) return repo.updateInvoice(trx, inv.id, { status: 'canceled', updated_at: now });
  const split = invoiceAmounts(total);
  const attempt = inv.attempt + 1;
  const row = await repo.updateInvoice(trx, inv.id, {
    status: 'issuing',
    attempt,
    document_key: `${inv.id}-${attempt}`,
    total_amount: split.total,
    supply_amount: split.supplyAmount,
    tax_amount: split.vat,
    write_date: kstDay(order.paid_at ?? now),
    provider_message: null,
    updated_at: now,
  });
  await enqueueIssue(trx, deps, row.id);
  return row;
}

async function enqueueIssue(trx: Db, deps: Pick<AppDeps, 'clock'>, id: string): Promise<void> {
  await enqueueJob(trx, deps.clock, { name: ISSUE_JOB, payload: { taxInvoiceId: id }, dedupeKey: `${ISSUE_JOB}:${id}` });
}

async function supplierOf(db: Db, storeId: string) {
  const s = await repo.findSupplier(db, storeId);
  if (!s || !s.support_email || !s.business_number) return null;
  return { brn: s.business_number.replace(/\D/g, ''), name: s.company_name, representative: s.representative, address: s.address, email: s.support_email };
}

/**
 * Steps 2 and 3 for an `issuing` invoice: asks the provider for the document by its key, issues it only if the
 * provider has none, and records the answer. Throws TaxInvoiceRetryLater when nothing could be learnt (the job retries).
 */
export async function runIssue(deps: Deps, id: string): Promise<void> {
  const inv = await repo.findInvoice(deps.db, id);
  if (!inv || inv.status !== 'issuing') return;
  const order = (await repo.findOrder(deps.db, inv.order_id))!;
  const supplier = await supplierOf(deps.db, inv.store_id);
  const provider = taxInvoiceProviderFor(deps, inv.mode);
  let modification: InvoiceDocument['modification'];
  if (inv.kind === 'amendment') {
    const original = await repo.findInvoice(deps.db, inv.original_id!);
    if (!original || original.status === 'failed' || original.status === 'canceled') {
      await record(deps, id, { status: 'failed', code: 'ORIGINAL_NOT_ISSUED', message: MESSAGES.checkout.taxInvoiceOriginalNotIssued });
      return;
    }
    if (original.status !== 'issued') throw new TaxInvoiceRetryLater('the original is not issued yet');
    modification = { type: inv.modification_type as 'CANCELLATION_OF_CONTRACT' | 'CHANGE_IN_SUPPLY_COST', originalDocumentKey: original.document_key! };
  }
  if (!supplier || !provider) {
    const message = !supplier ? MESSAGES.checkout.taxInvoiceSupplierMissing : MESSAGES.checkout.taxInvoiceProviderNotConfigured;
    await record(deps, id, { status: 'failed', code: !supplier ? 'SUPPLIER_MISSING' : 'PROVIDER_NOT_CONFIGURED', message });
    return;
  }
  let outcome: Outcome<IssuedDocument>;
  const found = await provider.find(inv.document_key!, supplier.brn);
  if (found.status === 'succeeded' && found.value) {
    outcome = found.value.refused ? { status: 'failed', code: found.value.status, message: `provider: ${found.value.status}` } : { status: 'succeeded', value: found.value };
  } else if (found.status !== 'succeeded') {
    outcome = { status: 'unknown', message: found.message };
  } else {
    outcome = await provider.issue({
      documentKey: inv.document_key!,
      writeDate: inv.write_date!,
      supplier,
      recipient: { brn: inv.recipient_brn, name: inv.recipient_name, representative: inv.recipient_representative, email: inv.recipient_email },
      totalAmount: inv.total_amount!,
      supplyAmount: inv.supply_amount!,
      taxAmount: inv.tax_amount!,
      itemName: order.product_name,
      modification,
    });
  }
  await record(deps, id, outcome, provider.name);
  if (outcome.status === 'unknown') throw new TaxInvoiceRetryLater(outcome.message);
}

/** Step 3: records the provider's answer and its event; a second answer for the same attempt changes nothing. */
async function record(deps: Deps, id: string, outcome: Outcome<IssuedDocument>, providerName?: string): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const inv = await repo.lockInvoice(trx, id);
    if (!inv || inv.status !== 'issuing') return;
    const now = deps.clock.now();
    if (outcome.status === 'unknown') {
      await repo.updateInvoice(trx, id, { provider_message: outcome.message.slice(0, 300), updated_at: now });
      return;
    }
    const row =
      outcome.status === 'succeeded'
        ? await repo.updateInvoice(trx, id, {
            status: 'issued',
            provider: providerName ?? null,
            provider_invoice_id: outcome.value.providerInvoiceId,
            provider_status: outcome.value.status,
            nts_approval_number: outcome.value.ntsApprovalNumber,
            pdf_url: outcome.value.pdfUrl,
            provider_message: null,
            issued_at: now,
            updated_at: now,
          })
        : await repo.updateInvoice(trx, id, { status: 'failed', provider: providerName ?? null, provider_status: outcome.code, provider_message: `${outcome.code}: ${outcome.message}`.slice(0, 300), updated_at: now });
    const type = row.status === 'failed' ? 'tax_invoice.failed' : row.kind === 'amendment' ? 'tax_invoice.amended' : 'tax_invoice.issued';
    await writeEvent(trx, deps.clock, { storeId: row.store_id, mode: row.mode, type, data: { taxInvoice: invoiceView(row) } });
    // A refund recorded while the original was being issued: its 수정세금계산서 follows now.
    if (row.status === 'issued' && row.kind === 'original') await amendAfterRefund(trx, deps, row.order_id, null, now);
  });
}

/**
 * A refund changed what the order still has paid (in the refund's transaction, from the `order.refunded` hook): an
 * issued (or issuing) original gets its 수정세금계산서 for the difference (model.ts amendmentFor); a requested one is
 * issued later for what is left (or canceled when nothing is). One amendment per refund (unique index).
 */
export async function amendAfterRefund(trx: Db, deps: Pick<AppDeps, 'clock'>, orderId: string, refundId: string | null, now: Date): Promise<void> {
  const original = await repo.findOriginal(trx, orderId);
  if (!original) return;
  const order = (await trx.selectFrom('orders').selectAll().where('id', '=', orderId).executeTakeFirst())!;
  const stillPaid = order.amount - (order.refunded_amount ?? 0);
  if (original.status === 'requested') {
    if (stillPaid <= 0) await repo.updateInvoice(trx, original.id, { status: 'canceled', updated_at: now });
    return;
  }
  if (original.status !== 'issued' && original.status !== 'issuing') return;
  if (original.status === 'issuing' && refundId === null) return;
  const covered = original.total_amount! + (await repo.amendedTotal(trx, original.id));
  const change = amendmentFor(covered, stillPaid);
  if (!change) return;
  const split = invoiceAmounts(change.total);
  const id = newId('ti', deps.clock);
  const inserted = await trx
    .insertInto('tax_invoices')
    .values({
      id,
      order_id: orderId,
      store_id: original.store_id,
      mode: original.mode,
      kind: 'amendment',
      original_id: original.id,
      refund_id: refundId ?? `after:${original.id}:${stillPaid}`,
      modification_type: change.type,
      status: 'issuing',
      requested_by: 'refund',
      recipient_brn: original.recipient_brn,
      recipient_name: original.recipient_name,
      recipient_representative: original.recipient_representative,
      recipient_email: original.recipient_email,
      total_amount: split.total,
      supply_amount: split.supplyAmount,
      tax_amount: split.vat,
      write_date: kstDay(now),
      document_key: `${id}-1`,
      attempt: 1,
      created_at: now,
      updated_at: now,
    })
    // A literal, not a parameter: PostgreSQL infers the partial unique index from the predicate at plan time.
    .onConflict((oc) => oc.column('refund_id').where('kind', '=', sql.lit('amendment')).doNothing())
    .returning('id')
    .executeTakeFirst();
  if (inserted) await enqueueIssue(trx, deps, id);
}

/** The `order.paid` hook: a buyer's request waiting for the payment (or the deposit) is issued if the store is automatic. */
export async function issueOnPayment(trx: Db, deps: Pick<AppDeps, 'clock'>, orderId: string): Promise<void> {
  const inv = await repo.findOriginal(trx, orderId);
  if (!inv || inv.status !== 'requested') return;
  if ((await repo.issueSetting(trx, inv.store_id)) !== 'auto') return;
  const order = (await trx.selectFrom('orders').selectAll().where('id', '=', orderId).executeTakeFirst())!;
  const now = deps.clock.now();
  if (order.status !== 'paid' || (order.paid_at && now >= issueDeadline(order.paid_at))) return;
  if (!(await supplierOf(trx, order.store_id))) return;
  await startIssue(trx, deps, order, inv, now);
}
