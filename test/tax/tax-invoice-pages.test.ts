import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, bearer, type TestApp } from '../helpers/app';
import { postForm, signIn, type DashboardSession } from '../dashboard/helpers';
import { payWith } from './helpers';
import { formPost } from '../checkout/factory';

// The buyer's receipt page asks for a 세금계산서 afterwards and shows the documents; the dashboard lists them with the
// provider's answer and issues a requested one (test mode: the simulator provider).

let t: TestApp;
let owner: DashboardSession;

before(async () => {
  t = await createTestApp();
  owner = await signIn(t, { name: '김사장' });
});
after(() => t.close());

const receiptPath = async (orderId: string) => {
  const o = (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(owner.store.key) })).json();
  const u = new URL(o.receiptUrl);
  return { path: u.pathname, token: u.searchParams.get('t')! };
};
const FIELDS = { businessNumber: '220-81-62517', companyName: '주식회사 영수', representative: '최대표', email: 'tax@buyer.example' };

test('receipt page: a transfer buyer asks for a 세금계산서; a bad number is refused next to the field; the seller issues it from the dashboard; the receipt shows it', async () => {
  const orderId = await payWith(t, owner.store, 55_000, 'transfer');
  const r = await receiptPath(orderId);
  const page = (await t.app.inject({ url: `${r.path}?t=${r.token}` })).body;
  assert.match(page, /id="tax-invoice"/);
  assert.match(page, /action="\/receipt\/[^"]+\/tax-invoice"/);
  const bad = await formPost(t, `${r.path}/tax-invoice`, { t: r.token, ...FIELDS, businessNumber: '220-81-62518' });
  assert.equal(bad.statusCode, 422);
  assert.match(bad.body, /id="ti-businessNumber-err"[^>]*>사업자등록번호가 올바르지 않습니다/);
  const ok = await formPost(t, `${r.path}/tax-invoice`, { t: r.token, ...FIELDS });
  assert.equal(ok.statusCode, 303, ok.body);
  const after = (await t.app.inject({ url: String(ok.headers.location) })).body;
  assert.match(after, /세금계산서를 요청했습니다/);
  assert.match(after, /data-status="requested"/);
  assert.doesNotMatch(after, /action="\/receipt\/[^"]+\/tax-invoice"/, 'no second request form');
  // The dashboard lists it as requested and issues it.
  const list = (await t.app.inject({ url: '/dashboard/tax-invoices', headers: owner.headers })).body;
  assert.match(list, /data-testid="tax-invoices-table"/);
  assert.match(list, /주식회사 영수/);
  const id = /data-id="(ti_[^"]+)"/.exec(list)![1];
  const issued = await postForm(t, owner, `/dashboard/tax-invoices/${id}/issue`, {});
  assert.equal(issued.statusCode, 303, issued.body);
  const listed = (await t.app.inject({ url: '/dashboard/tax-invoices?status=issued', headers: owner.headers })).body;
  assert.match(listed, new RegExp(`data-id="${id}"`));
  assert.match(listed, /승인번호/);
  const shown = (await t.app.inject({ url: `${r.path}?t=${r.token}&lang=en` })).body;
  assert.match(shown, /data-status="issued"/);
  assert.match(shown, /NTS approval number/);
});

test('receipt page: a card order offers no form and says the card slip is the evidence; a forged POST is refused with that message', async () => {
  const orderId = await payWith(t, owner.store, 11_000, 'card');
  const r = await receiptPath(orderId);
  const page = (await t.app.inject({ url: `${r.path}?t=${r.token}` })).body;
  assert.match(page, /id="tax-invoice-card-note"/);
  assert.doesNotMatch(page, /name="businessNumber"/);
  const forged = await formPost(t, `${r.path}/tax-invoice`, { t: r.token, ...FIELDS });
  assert.equal(forged.statusCode, 409);
  assert.match(forged.body, /카드 매출전표가 증빙/);
});

test('the dashboard setting switches the store to automatic issue', async () => {
  const saved = await postForm(t, owner, '/dashboard/tax-invoices/settings', { taxInvoiceIssue: 'auto' });
  assert.equal(saved.statusCode, 303);
  const store = (await t.app.inject({ url: '/admin/v1/store', headers: { authorization: `Bearer ${owner.store.ownerToken}` } })).json();
  assert.equal(store.taxInvoiceIssue, 'auto');
});
