import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, type TestApp, type TestStore } from '../helpers/app';
import { payWith } from './helpers';
import { refund, eventsOf } from '../refunds/factory';
import { startFakePortoneB2b, type FakePortoneB2b } from './fake-portone-b2b';
import { brnCheckDigitOk, checkRecipient, issueDeadline, amendmentFor } from '../../src/tax/invoices/model';

// 세금계산서 for business buyers (src/tax/invoices/) against a stand-in for PortOne's B2B tax-invoice API built from
// PortOne's OpenAPI (test/fixtures/portone-b2b/README.md). The app runs with TAX_INVOICE_PROVIDER=portone, so test-mode
// invoices go through the official SDK to the fake with `test=true`.

let t: TestApp;
let s: TestStore;
let fake: FakePortoneB2b;

before(async () => {
  fake = await startFakePortoneB2b();
  t = await createTestApp({ config: { taxInvoiceProvider: 'portone', portoneB2bApiSecret: fake.secret, portoneB2bApiBaseUrl: fake.baseUrl } });
  s = await createTestStore(t);
});
after(async () => {
  await t.close();
  await fake.close();
});

const owner = () => ({ authorization: `Bearer ${s.ownerToken}` });
const BUYER = { businessNumber: '220-81-62517', companyName: '주식회사 구매자', representative: '이구매', email: 'tax@buyer.example' };
const ask = (orderId: string, body: Record<string, unknown> = BUYER) => t.app.inject({ method: 'POST', url: `/admin/v1/orders/${orderId}/tax-invoice`, headers: owner(), payload: { mode: 'test', ...body } });
/** PortOne's documents for the order: those carrying one of its invoices' document keys (every attempt's). */
async function issuedAtFake(orderId: string) {
  const rows = await t.db.selectFrom('tax_invoices').select(['attempt', 'id']).where('order_id', '=', orderId).execute();
  const keys = new Set(rows.flatMap((r) => Array.from({ length: r.attempt }, (_, a) => `${r.id}-${a + 1}`)));
  return fake.docs.filter((d) => keys.has(d.body.supplierDocumentKey));
}

test('사업자등록번호 check digit: the 1,3,7,1,3,7,1,3,5 weights (real numbers pass, one digit off fails)', () => {
  for (const ok of ['2208162517', '1208147521', '1048137225', '1234567891']) assert.equal(brnCheckDigitOk(ok), true, ok);
  for (const bad of ['2208162518', '1234567890', '123456789', '12345678901', 'abcdefghij']) assert.equal(brnCheckDigitOk(bad), false, bad);
  const r = checkRecipient({ businessNumber: '220-81-62518', companyName: '', representative: 'x', email: 'nope' });
  assert.equal(r.ok, false);
  const fields = !r.ok ? Object.fromEntries(r.fields.map((f) => [f.field, f.message])) : {};
  assert.match(fields.businessNumber, /검증번호/);
  assert.match(fields.companyName, /상호/);
  assert.match(fields.email, /이메일/);
});

test('the deadline is the end of the 10th of the next month (KST), and refunds ask for the documented 수정 사유', () => {
  // Paid 2026-11-30 23:30 KST (14:30Z): deadline 2026-12-10 24:00 KST = 2026-12-10T15:00Z.
  assert.equal(issueDeadline(new Date('2026-11-30T14:30:00Z')).toISOString(), '2026-12-10T15:00:00.000Z');
  // A December supply rolls into January.
  assert.equal(issueDeadline(new Date('2026-12-15T00:00:00Z')).toISOString(), '2027-01-10T15:00:00.000Z');
  assert.deepEqual(amendmentFor(50_000, 0), { type: 'CANCELLATION_OF_CONTRACT', total: -50_000 });
  assert.deepEqual(amendmentFor(50_000, 30_000), { type: 'CHANGE_IN_SUPPLY_COST', total: -20_000 });
  assert.equal(amendmentFor(50_000, 50_000), null);
});

test('a transfer order\'s 세금계산서 is issued once under a double click: one document at PortOne, both answers the same', async () => {
  const orderId = await payWith(t, s, 50_000, 'transfer');
  const [a, b] = await Promise.all([ask(orderId), ask(orderId)]);
  const ok = [a, b].filter((r) => r.statusCode === 200);
  const refused = [a, b].filter((r) => r.statusCode !== 200);
  assert.equal(ok.length, 1, `${a.body} ${b.body}`);
  assert.equal(refused[0].json().code, 'TAX_INVOICE_EXISTS', 'the second click finds the first');
  const inv = ok[0].json();
  assert.equal(inv.status, 'issued', a.body);
  assert.equal(inv.totalAmount, 50_000);
  assert.equal(inv.taxAmount, 4_545, 'round(50,000 / 11), the VAT report\'s rule');
  assert.equal(inv.supplyAmount, 45_455);
  assert.equal(inv.provider, 'portone');
  assert.ok(inv.ntsApprovalNumber);
  assert.ok(inv.pdfUrl?.endsWith('.pdf'));
  // Issuing it by hand again (another click on the dashboard's button) answers the same document.
  const again = await t.app.inject({ method: 'POST', url: `/admin/v1/tax-invoices/${inv.id}/issue`, headers: owner(), payload: { mode: 'test' } });
  assert.equal(again.json().id, inv.id);
  await t.deps.worker.runOnce();
  const docs = await issuedAtFake(orderId);
  assert.equal(docs.length, 1, 'PortOne holds one document for the order');
  const sent = docs[0].body;
  assert.equal(sent.recipient.brn, '2208162517');
  assert.equal(sent.supplier.brn, '1234567891', 'the store\'s own 사업자등록번호 is the supplier');
  assert.equal(sent.issuanceType, 'NORMAL');
  assert.equal(sent.purposeType, 'RECEIPT');
  assert.equal((await eventsOf(t, s.storeId, 'tax_invoice.issued')).filter((e) => (e.data as any).taxInvoice.orderId === orderId).length, 1);
});

test('a crash between PortOne\'s issue and our record: the retry looks the document up by its key and never issues twice', async () => {
  const orderId = await payWith(t, s, 33_000, 'transfer');
  fake.loseNextAnswer();
  const first = await ask(orderId);
  assert.equal(first.statusCode, 200, first.body);
  assert.equal(first.json().status, 'issuing', 'no answer: the state written before the call stays');
  assert.equal((await issuedAtFake(orderId)).length, 1, 'PortOne did issue it');
  // The job (or another click) sends the same key: it asks PortOne first and records what PortOne holds.
  const issueCallsBefore = fake.calls.filter((c) => c.path.endsWith('/issue-immediately')).length;
  await t.deps.worker.runOnce();
  const row = await t.db.selectFrom('tax_invoices').selectAll().where('order_id', '=', orderId).executeTakeFirstOrThrow();
  assert.equal(row.status, 'issued');
  assert.equal(fake.calls.filter((c) => c.path.endsWith('/issue-immediately')).length, issueCallsBefore, 'no second issue call');
  const lookups = fake.calls.filter((c) => c.method === 'GET' && c.path === `/b2b/tax-invoices/${row.document_key}`);
  assert.ok(lookups.length >= 1);
  assert.equal(lookups[0].query.get('taxInvoiceKeyType'), 'SUPPLIER');
  assert.equal(lookups[0].query.get('test'), 'true', 'test mode uses PortOne\'s own test mode');
  assert.equal((await issuedAtFake(orderId)).length, 1);
  assert.equal(row.provider_invoice_id, (await issuedAtFake(orderId))[0].id);
});

test('refunds issue their 수정세금계산서: partial as 공급가액 변동, the rest as 계약의 해제, negative amounts, same recipient', async () => {
  const orderId = await payWith(t, s, 50_000, 'transfer');
  assert.equal((await ask(orderId)).json().status, 'issued');
  assert.equal((await refund(t, s.key, orderId, { amount: 20_000, reason: '일부 환불' })).statusCode, 200);
  await t.deps.worker.runOnce();
  // A minute later, so the two documents sort by their time.
  t.clock.advance(60_000);
  assert.equal((await refund(t, s.key, orderId, { reason: '나머지 환불' })).statusCode, 200);
  await t.deps.worker.runOnce();
  const rows = await t.db.selectFrom('tax_invoices').selectAll().where('order_id', '=', orderId).where('kind', '=', 'amendment').orderBy('created_at').execute();
  assert.equal(rows.length, 2);
  assert.deepEqual(rows.map((r) => [r.status, r.modification_type, r.total_amount, r.supply_amount, r.tax_amount]), [
    ['issued', 'CHANGE_IN_SUPPLY_COST', -20_000, -18_182, -1_818],
    ['issued', 'CANCELLATION_OF_CONTRACT', -30_000, -27_273, -2_727],
  ]);
  const docs = await issuedAtFake(orderId);
  const mods = docs.filter((d) => d.documentModificationType === 'MODIFICATION');
  assert.equal(mods.length, 2, 'PortOne got both amendments');
  const original = docs.find((d) => d.documentModificationType === 'NORMAL')!;
  for (const m of mods) {
    assert.equal(m.modification!.taxInvoiceKey, original.body.supplierDocumentKey, 'each names the original by its supplier key');
    assert.equal(m.body.recipient.brn, original.body.recipient.brn);
  }
  assert.deepEqual(mods.map((m) => m.modification!.type), ['CHANGE_IN_SUPPLY_COST', 'CANCELLATION_OF_CONTRACT']);
  assert.equal((await eventsOf(t, s.storeId, 'tax_invoice.amended')).filter((e) => (e.data as any).taxInvoice.orderId === orderId).length, 2);
});

test('a card payment is refused a 세금계산서 with a clear message (the card slip is the evidence)', async () => {
  const orderId = await payWith(t, s, 11_000, 'card');
  const res = await ask(orderId);
  assert.equal(res.statusCode, 409);
  assert.equal(res.json().code, 'TAX_INVOICE_CARD_PAYMENT');
  assert.match(res.json().message, /카드 매출전표/);
  assert.equal((await t.db.selectFrom('tax_invoices').select('id').where('order_id', '=', orderId).execute()).length, 0);
});

test('a bad 사업자등록번호 is refused in Korean, naming the field', async () => {
  const orderId = await payWith(t, s, 11_000, 'transfer');
  const res = await ask(orderId, { ...BUYER, businessNumber: '220-81-62518' });
  assert.equal(res.statusCode, 400);
  assert.equal(res.json().code, 'VALIDATION_FAILED');
  assert.deepEqual(res.json().details.fields.map((f: any) => f.field), ['businessNumber']);
  assert.match(res.json().details.fields[0].message, /사업자등록번호/);
});

test('never both: a 현금영수증 order is refused a 세금계산서, and a 세금계산서 order is refused a 현금영수증', async () => {
  const withCash = await payWith(t, s, 22_000, 'transfer', { cashReceiptType: 'expense', cashReceiptNumber: '123-45-67890' });
  const a = await ask(withCash);
  assert.equal(a.statusCode, 409);
  assert.equal(a.json().code, 'TAX_INVOICE_CASH_RECEIPT_EXISTS');
  const withInvoice = await payWith(t, s, 22_000, 'transfer');
  assert.equal((await ask(withInvoice)).statusCode, 200);
  const b = await t.app.inject({ method: 'POST', url: `/admin/v1/orders/${withInvoice}/cash-receipt`, headers: owner(), payload: { mode: 'test', type: '지출증빙', customerIdentityNumber: '220-81-62517' } });
  assert.equal(b.statusCode, 409, b.body);
  assert.equal(b.json().code, 'CASH_RECEIPT_TAX_INVOICE_EXISTS');
});

test('asked on the payment page: kept with the order; a store set to auto issues it at payment; the VAT report counts it as 세금계산서 발급분', async () => {
  const fields = { cashReceiptType: 'tax_invoice', taxInvoiceBrn: '120-81-47521', taxInvoiceCompany: '주식회사 페이지', taxInvoiceRepresentative: '박대표', taxInvoiceEmail: 'ap@page.example' };
  const manual = await payWith(t, s, 44_000, 'transfer', fields);
  const m = await t.db.selectFrom('tax_invoices').selectAll().where('order_id', '=', manual).executeTakeFirstOrThrow();
  assert.equal(m.status, 'requested', 'a manual store issues it by hand');
  assert.equal(m.recipient_brn, '1208147521');
  assert.equal((await t.db.selectFrom('order_cash_receipts').select('order_id').where('order_id', '=', manual).execute()).length, 0, 'no 현금영수증 beside it');
  const patched = await t.app.inject({ method: 'PATCH', url: '/admin/v1/store', headers: owner(), payload: { taxInvoiceIssue: 'auto' } });
  assert.equal(patched.statusCode, 200, patched.body);
  assert.equal(patched.json().taxInvoiceIssue, 'auto');
  const auto = await payWith(t, s, 44_000, 'transfer', fields);
  await t.deps.worker.runOnce();
  const row = await t.db.selectFrom('tax_invoices').selectAll().where('order_id', '=', auto).executeTakeFirstOrThrow();
  assert.equal(row.status, 'issued');
  const lines = await t.app.inject({ url: `/admin/v1/tax/vat-report/lines?mode=test&category=tax_invoice&limit=100&from=2026-10-01&to=2026-12-31`, headers: owner() });
  assert.equal(lines.statusCode, 200, lines.body);
  const ids = lines.json().data.map((l: any) => l.orderId);
  assert.ok(ids.includes(auto), 'the issued one is 세금계산서 발급분');
  assert.ok(!ids.includes(manual), 'a request not issued yet is not');
  await t.app.inject({ method: 'PATCH', url: '/admin/v1/store', headers: owner(), payload: { taxInvoiceIssue: 'manual' } });
});

test('the payment page refuses a bad number and a card payment\'s 세금계산서 in Korean', async () => {
  const { createProduct, createSession, submitPayForm } = await import('../checkout/factory');
  const product = await createProduct(t, s, { name: '폼 테스트', price: 11_000 });
  const session = await createSession(t, s.key, { productId: product.id, successUrl: 'https://example.com/ok' });
  const bad = await submitPayForm(t, session, { method: 'transfer', cashReceiptType: 'tax_invoice', taxInvoiceBrn: '123-45-67890', taxInvoiceCompany: '회사', taxInvoiceRepresentative: '대표', taxInvoiceEmail: 'a@b.example' });
  assert.equal(bad.statusCode, 422, bad.body.slice(0, 200));
  assert.match(bad.body, /검증번호 불일치/);
  const card = await submitPayForm(t, session, { method: 'card', cardNumber: '4242424242424242', cashReceiptType: 'tax_invoice', taxInvoiceBrn: '220-81-62517', taxInvoiceCompany: '회사', taxInvoiceRepresentative: '대표', taxInvoiceEmail: 'a@b.example' });
  assert.match(card.body, /카드 매출전표가 증빙/);
});

test('a 가상계좌 request waits for the deposit: requested while awaiting it, issued at the deposit on an automatic store', async () => {
  await t.app.inject({ method: 'PATCH', url: '/admin/v1/store', headers: owner(), payload: { taxInvoiceIssue: 'auto' } });
  const { createProduct, createSession, submitPayForm, formPost, payPath } = await import('../checkout/factory');
  const product = await createProduct(t, s, { name: '가상계좌 세금계산서', price: 66_000 });
  const session = await createSession(t, s.key, { productId: product.id, successUrl: 'https://example.com/ok' });
  const fields = { cashReceiptType: 'tax_invoice', taxInvoiceBrn: '104-81-37225', taxInvoiceCompany: '주식회사 입금', taxInvoiceRepresentative: '정대표', taxInvoiceEmail: 'va@buyer.example' };
  assert.equal((await submitPayForm(t, session, { method: 'virtual_account', ...fields })).statusCode, 303);
  assert.equal((await formPost(t, `${payPath(session)}/approve`, { decision: 'approve' })).statusCode, 200);
  const orderId = (await t.db.selectFrom('checkout_sessions').select('order_id').where('id', '=', session.id).executeTakeFirstOrThrow()).order_id!;
  const waiting = await t.db.selectFrom('tax_invoices').selectAll().where('order_id', '=', orderId).executeTakeFirstOrThrow();
  assert.equal(waiting.status, 'requested', 'nothing is issued before the money arrives');
  const dep = await t.app.inject({ method: 'POST', url: `/admin/v1/orders/${orderId}/test-deposit`, headers: owner() });
  assert.ok(dep.statusCode < 300, dep.body);
  await t.deps.worker.runOnce();
  const row = await t.db.selectFrom('tax_invoices').selectAll().where('order_id', '=', orderId).executeTakeFirstOrThrow();
  assert.equal(row.status, 'issued');
  assert.equal(row.total_amount, 66_000);
  assert.equal(row.tax_amount, 6_000);
  await t.app.inject({ method: 'PATCH', url: '/admin/v1/store', headers: owner(), payload: { taxInvoiceIssue: 'manual' } });
});

test('two processes on one database asking at once: one document at PortOne', async () => {
  const t2 = await createTestApp({ database: t.deps.database, clock: t.clock, config: { taxInvoiceProvider: 'portone', portoneB2bApiSecret: fake.secret, portoneB2bApiBaseUrl: fake.baseUrl } });
  try {
    const orderId = await payWith(t, s, 77_000, 'transfer');
    const other = (orderIdArg: string) => t2.app.inject({ method: 'POST', url: `/admin/v1/orders/${orderIdArg}/tax-invoice`, headers: owner(), payload: { mode: 'test', ...BUYER } });
    const answers = await Promise.all([ask(orderId), other(orderId)]);
    assert.deepEqual(answers.map((a) => a.statusCode).sort(), [200, 409], answers.map((a) => a.body).join('\n'));
    await Promise.all([t.deps.worker.runOnce(), t2.deps.worker.runOnce()]);
    assert.equal((await issuedAtFake(orderId)).length, 1);
    assert.equal((await t.db.selectFrom('tax_invoices').select('status').where('order_id', '=', orderId).executeTakeFirstOrThrow()).status, 'issued');
  } finally {
    await t2.close();
  }
});

test('PortOne refuses: the invoice is failed with PortOne\'s error and an event; issuing it again sends a new document key', async () => {
  const orderId = await payWith(t, s, 12_100, 'transfer');
  fake.refuseNext('B2B_RECIPIENT_NOT_FOUND', 404);
  const first = await ask(orderId);
  assert.equal(first.statusCode, 200, first.body);
  const inv = first.json();
  assert.equal(inv.status, 'failed');
  assert.match(inv.providerMessage, /B2B_RECIPIENT_NOT_FOUND/);
  assert.equal((await eventsOf(t, s.storeId, 'tax_invoice.failed')).filter((e) => (e.data as any).taxInvoice.id === inv.id).length, 1);
  const again = await t.app.inject({ method: 'POST', url: `/admin/v1/tax-invoices/${inv.id}/issue`, headers: owner(), payload: { mode: 'test' } });
  assert.equal(again.statusCode, 200, again.body);
  assert.equal(again.json().status, 'issued');
  assert.equal(again.json().documentKey, `${inv.id}-2`, 'a new attempt, a new key');
  assert.equal((await issuedAtFake(orderId)).length, 1);
});
