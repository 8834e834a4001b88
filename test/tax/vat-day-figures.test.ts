import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { createTestApp, createTestStore, type TestApp } from '../helpers/app';
import { insertPaidOrder, product, refund } from '../refunds/factory';
import { recordCashReceipt } from '../../src/checkout/cash-receipt';
import { lineGroups, lineGroupsScanned, type LineGroup, type LineScope } from '../../src/tax/repo';
import { periodInstants, periodOf } from '../../src/tax/periods';
import { scanLines } from '../../src/tax/service';
import type { VatLine } from '../../src/tax/model';
import type { PaymentMethod } from '../../src/payments/method';
import { ownerGet } from './helpers';

/**
 * The 부가세 report reads figures kept per KST day (migrations 141, 142) and moves the lines of orders with an issued
 * 현금영수증 or 세금계산서 to their own groups at read time. Whatever happens to the orders, refunds, receipts and
 * invoices after the sale, the groups must equal the same groups added up from every line (lineGroupsScanned), and the
 * migration's count of the rows already there must add up to the same.
 */

const sortGroups = (gs: LineGroup[]) =>
  [...gs].sort((a, b) => JSON.stringify([a.kind, a.month, a.method, a.currency, a.cashReceiptIssued, a.taxInvoiceIssued]).localeCompare(JSON.stringify([b.kind, b.month, b.method, b.currency, b.cashReceiptIssued, b.taxInvoiceIssued])));

async function same(t: TestApp, scope: LineScope, what: string) {
  const kept = sortGroups(await lineGroups(t.db, scope));
  const scanned = sortGroups(await lineGroupsScanned(t.db, scope));
  assert.deepEqual(kept, scanned, what);
  return kept;
}

const BUYER = { buyerName: '김구매', buyerEmail: 'buyer@example.com', buyerPhone: '01012345678', couponCode: null };

async function issueReceipt(t: TestApp, storeId: string, orderId: string, amount: number, method: PaymentMethod, issued: boolean, at: Date) {
  const asked = { ...BUYER, method, cashReceipt: { type: '소득공제' as const, identity: '01012345678', requestedBy: 'buyer' as const } };
  const done = issued ? { type: '소득공제' as const, receiptKey: `rk_${orderId}`, issueNumber: 'T12345678', receiptUrl: null, amount } : null;
  await t.db.transaction().execute((trx) => recordCashReceipt(trx, t.deps, { id: orderId, store_id: storeId, mode: 'test', amount, status: 'paid' }, asked, done, at));
}

async function issueTaxInvoice(t: TestApp, storeId: string, orderId: string, status: 'requested' | 'issued', at: Date) {
  await t.db
    .insertInto('tax_invoices')
    .values({
      id: `ti_${orderId}`, order_id: orderId, store_id: storeId, mode: 'test', kind: 'original', status, requested_by: 'buyer',
      recipient_brn: '1208800767', recipient_name: '주식회사 구매', recipient_representative: '김대표', recipient_email: 'tax@example.com',
      created_at: at, updated_at: at,
    } as any)
    .execute();
}

test('the kept VAT figures equal every line added up, through sales across KST midnight, refunds, receipts and invoices issued later, moves and changes of status', async (tc) => {
  const t = await createTestApp();
  tc.after(() => t.close());
  const s = await createTestStore(t);
  const other = await createTestStore(t);
  const p = await product(t, s, { price: 10_000 });
  const po = await product(t, other, { price: 10_000 });
  // 2026-2 (July–December KST); its first instant is 2026-06-30T15:00Z.
  const scope: LineScope = { storeId: s.storeId, mode: 'test', ...periodInstants({ from: '2026-07-01', to: '2027-01-01' }) };
  const pay = (amount: number, method: PaymentMethod, paidAt: string, storeId = s.storeId, productId = p.id) =>
    insertPaidOrder(t, storeId, productId, { amount, method, paidAt: new Date(paidAt) });

  t.clock.set('2026-06-30T14:00:00Z');
  const beforeMidnight = await pay(11_000, 'card', '2026-06-30T14:59:59.999Z'); // 23:59 KST, June: not in 2026-2
  const atMidnight = await pay(22_000, 'card', '2026-06-30T15:00:00Z'); // 00:00 KST, July 1: in it
  const bank = await pay(33_000, 'transfer', '2026-07-15T03:00:00Z');
  const bankLater = await pay(7_777, 'transfer', '2026-08-01T03:00:00Z');
  const b2b = await pay(1_100_000, 'card', '2026-09-01T03:00:00Z');
  const free = await pay(0, 'card', '2026-09-02T03:00:00Z');
  const lastDay = await pay(5_005, 'kakao_pay', '2026-12-31T14:59:59Z'); // 23:59:59 KST, December 31: in it
  const nextPeriod = await pay(9_999, 'card', '2026-12-31T15:00:00Z'); // January 1 KST: not in it
  await pay(10_000, 'card', '2026-07-20T03:00:00Z', other.storeId, po.id);
  assert.ok(free && nextPeriod && beforeMidnight);
  await same(t, scope, 'after the sales');

  // Refunds, partial and whole, at later times; one of them fails, then its status is changed to succeeded.
  t.clock.set('2026-07-20T03:00:00Z');
  assert.equal((await refund(t, s.key, atMidnight, { amount: 2_000 })).statusCode, 200);
  t.clock.set('2026-08-20T03:00:00Z');
  assert.equal((await refund(t, s.key, bank, { amount: 33_000 })).statusCode, 200);
  t.clock.set('2026-12-31T14:30:00Z');
  assert.equal((await refund(t, s.key, lastDay, { amount: 5 })).statusCode, 200);
  await same(t, scope, 'after the refunds');
  const one = await t.db.selectFrom('order_refunds').select(['id']).where('order_id', '=', atMidnight).executeTakeFirstOrThrow();
  await t.db.updateTable('order_refunds').set({ status: 'failed' }).where('id', '=', one.id).execute();
  await same(t, scope, 'a refund that failed after all');
  await t.db.updateTable('order_refunds').set({ status: 'succeeded' }).where('id', '=', one.id).execute();

  // Evidence issued after the sale moves the order's lines (its sale and its refund) to their category.
  await issueReceipt(t, s.storeId, bank, 33_000, 'transfer', true, new Date('2026-07-15T03:01:00Z'));
  await issueReceipt(t, s.storeId, bankLater, 7_777, 'transfer', false, new Date('2026-08-01T03:01:00Z'));
  await issueTaxInvoice(t, s.storeId, b2b, 'requested', new Date('2026-09-01T04:00:00Z'));
  let groups = await same(t, scope, 'a receipt issued, one only asked for, an invoice requested');
  assert.ok(groups.some((g) => g.cashReceiptIssued && g.kind === 'refund'), 'the bank order\'s refund follows its receipt');
  assert.ok(!groups.some((g) => g.taxInvoiceIssued), 'a requested invoice is no evidence yet');
  await t.db.updateTable('tax_invoices').set({ status: 'issued' }).where('order_id', '=', b2b).execute();
  await t.db.updateTable('order_cash_receipts').set({ status: 'issued' }).where('order_id', '=', bankLater).execute();
  groups = await same(t, scope, 'the invoice issued, the asked-for receipt issued');
  assert.ok(groups.some((g) => g.taxInvoiceIssued && g.count === 1 && g.amount === 1_100_000));

  // An order moved to the other mode, one paid again at another time and amount, one's status undone.
  await t.db.updateTable('orders').set({ mode: 'live' }).where('id', '=', lastDay).execute();
  await t.db.updateTable('orders').set({ paid_at: new Date('2026-10-10T10:00:00Z'), amount: 12_345 }).where('id', '=', atMidnight).execute();
  await t.db.updateTable('orders').set({ status: 'canceled' }).where('id', '=', bankLater).execute();
  await same(t, scope, 'after a move, a change of time and amount, a cancellation');
  await same(t, { ...scope, mode: 'live' }, 'the live mode');
  await same(t, { ...scope, ...periodInstants({ from: '2026-06-01', to: '2026-08-01' }) }, 'a custom range across the periods');
  await same(t, { ...scope, storeId: other.storeId }, 'the other store');

  // The report and its lines read the same figures: the 세금계산서 sale is the one line of its category.
  const report = await ownerGet(t, s, '/admin/v1/tax/vat-report?mode=test&period=2026-2');
  assert.equal(report.statusCode, 200, report.body);
  assert.equal(report.json().categories.find((c: { category: string }) => c.category === 'tax_invoice').sales.total, 1_100_000);
  const lines = await ownerGet(t, s, '/admin/v1/tax/vat-report/lines?mode=test&period=2026-2&category=tax_invoice');
  assert.equal(lines.json().total, 1);
  assert.equal(lines.json().data[0].orderId, b2b);

  // Every page of the lines, at several sizes and filters, read in turn: the lines of a full scan of the period
  // (scanLines, the CSV's stream), in the same order, none skipped or repeated at a page's edge, nothing past the end.
  const all: VatLine[] = [];
  for await (const batch of scanLines(t.deps, { storeId: s.storeId, mode: 'test', period: periodOf('2026-2')! })) all.push(...batch);
  assert.ok(all.length >= 6, `${all.length} lines`);
  const id = (l: { kind: string; orderId: string; refundId: string | null }) => `${l.kind}:${l.orderId}:${l.refundId ?? ''}`;
  const filters: Array<[string, (l: VatLine) => boolean]> = [
    ['', () => true],
    ['&kind=refund', (l) => l.kind === 'refund'],
    ['&category=card', (l) => l.category === 'card'],
    ['&category=cash_receipt', (l) => l.category === 'cash_receipt'],
    ['&category=cash_receipt&kind=sale', (l) => l.category === 'cash_receipt' && l.kind === 'sale'],
  ];
  for (const [query, pick] of filters) {
    const expected = all.filter(pick).map(id);
    for (const limit of [1, 2, 3, 7]) {
      const got: string[] = [];
      for (let pageNo = 1; ; pageNo++) {
        const r = await ownerGet(t, s, `/admin/v1/tax/vat-report/lines?mode=test&period=2026-2&limit=${limit}&page=${pageNo}${query}`);
        assert.equal(r.statusCode, 200, r.body);
        assert.equal(r.json().total, expected.length, `total${query}`);
        if (r.json().data.length === 0) break;
        got.push(...r.json().data.map(id));
      }
      assert.deepEqual(got, expected, `pages of ${limit}${query}`);
    }
  }
});

test('migrations 141–142 add up the sales and refunds made before them, and count none twice', async (tc) => {
  const t = await createTestApp();
  tc.after(() => t.close());
  const s = await createTestStore(t);
  const p = await product(t, s, { price: 10_000 });
  t.clock.set('2026-07-01T00:00:00Z');
  const a = await insertPaidOrder(t, s.storeId, p.id, { amount: 10_000, method: 'card', paidAt: new Date('2026-07-02T00:00:00Z') });
  await insertPaidOrder(t, s.storeId, p.id, { amount: 20_000, method: 'transfer', paidAt: new Date('2026-07-03T00:00:00Z') });
  assert.equal((await refund(t, s.key, a, { amount: 1_000 })).statusCode, 200);
  const scope: LineScope = { storeId: s.storeId, mode: 'test', ...periodInstants({ from: '2026-07-01', to: '2027-01-01' }) };
  const expected = sortGroups(await lineGroupsScanned(t.db, scope));
  assert.equal(expected.reduce((n, g) => n + g.count, 0), 3);
  const fills = [...readFileSync(join(process.cwd(), 'src/db/migrations/142_vat_day_figures_fill.sql'), 'utf8').matchAll(/^insert into vat_day_figures [\s\S]*?;$/gm)].map((m) => m[0]);
  assert.equal(fills.length, 2);
  // Every row here was written with the triggers in place: the migration's count subtracts what they kept.
  for (const fill of fills) await sql.raw(fill).execute(t.db);
  assert.deepEqual(sortGroups(await lineGroups(t.db, scope)), expected, 'nothing counted twice');
  // As before the migration: nothing kept; its count alone.
  await sql`delete from vat_day_figures`.execute(t.db);
  for (const fill of fills) await sql.raw(fill).execute(t.db);
  assert.deepEqual(sortGroups(await lineGroups(t.db, scope)), expected, 'the count of the rows already there');
});
