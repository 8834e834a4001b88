import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { startFakePortoneB2b } from './fake-portone-b2b';
import { portoneProvider } from '../../src/tax/invoices/portone';
import { readPortOneOpenApi } from '../payments/portone-openapi';

// The fake PortOne B2B API against PortOne's own OpenAPI (read as test/payments/portone-openapi.ts finds it): what our adapter sends
// carries every field B2bTaxInvoiceInput / B2bTaxInvoiceCompany / B2bTaxInvoiceContact require, and what the fake
// answers carries every field B2bTaxInvoice requires, with status words from B2bTaxInvoiceStatus.

test('the adapter\'s request and the fake\'s answer carry the fields PortOne\'s OpenAPI requires', async () => {
  const doc = parse(readPortOneOpenApi(), { maxAliasCount: -1 });
  const schemas = doc.components.schemas;
  const required = (name: string): string[] => schemas[name].required ?? [];
  assert.ok(doc.paths['/b2b/tax-invoices/issue-immediately'].post, 'the issue path exists');
  assert.ok(doc.paths['/b2b/tax-invoices/{taxInvoiceKey}'].get, 'the lookup path exists');
  const fake = await startFakePortoneB2b();
  try {
    const p = portoneProvider({ secret: fake.secret, baseUrl: fake.baseUrl, test: true });
    const party = (brn: string) => ({ brn, name: '회사', representative: '대표', email: 'a@b.example' });
    const out = await p.issue({ documentKey: 'ti_contract-1', writeDate: '2026-11-01', supplier: party('1234567891'), recipient: party('2208162517'), totalAmount: 11_000, supplyAmount: 10_000, taxAmount: 1_000, itemName: '상품' });
    assert.equal(out.status, 'succeeded');
    const sent = fake.calls.find((c) => c.path === '/b2b/tax-invoices/issue-immediately')!.body;
    for (const k of required('IssueB2bTaxInvoiceImmediatelyBody')) assert.ok(k in sent, `body.${k}`);
    for (const k of required('B2bTaxInvoiceInput')) assert.ok(k in sent.taxInvoice, `taxInvoice.${k}`);
    for (const side of ['supplier', 'recipient']) {
      for (const k of required('B2bTaxInvoiceCompany')) assert.ok(k in sent.taxInvoice[side], `${side}.${k}`);
      for (const k of required('B2bTaxInvoiceContact')) assert.ok(k in sent.taxInvoice[side].contact, `${side}.contact.${k}`);
    }
    assert.ok(schemas.B2bTaxInvoiceIssuanceType.enum.includes(sent.taxInvoice.issuanceType));
    assert.ok(schemas.B2bTaxInvoicePurposeType.enum.includes(sent.taxInvoice.purposeType));
    assert.ok(schemas.B2bTaxInvoiceTaxationType.enum.includes(sent.taxInvoice.taxationType));
    const answer = fake.docs[0];
    const res = await fetch(`${fake.baseUrl}/b2b/tax-invoices/${answer.id}?test=true`, { headers: { authorization: `PortOne ${fake.secret}` } });
    const got = await res.json();
    for (const k of required('B2bTaxInvoice')) assert.ok(k in got, `B2bTaxInvoice.${k}`);
    assert.ok(schemas.B2bTaxInvoiceStatus.enum.includes(got.status));
    assert.ok(schemas.B2bTaxInvoiceDocumentModificationType.enum.includes(got.documentModificationType));
    const missing = await fetch(`${fake.baseUrl}/b2b/tax-invoices/nope?taxInvoiceKeyType=SUPPLIER&brn=1234567891&test=true`, { headers: { authorization: `PortOne ${fake.secret}` } });
    assert.equal(missing.status, Number(schemas.B2bTaxInvoiceNotFoundError['x-portone-status-code']));
    assert.equal((await missing.json()).type, 'B2B_TAX_INVOICE_NOT_FOUND');
    const mod = await p.issue({ documentKey: 'ti_contract-2', writeDate: '2026-11-02', supplier: party('1234567891'), recipient: party('2208162517'), totalAmount: -11_000, supplyAmount: -10_000, taxAmount: -1_000, itemName: '상품', modification: { type: 'CANCELLATION_OF_CONTRACT', originalDocumentKey: 'ti_contract-1' } });
    assert.equal(mod.status, 'succeeded');
    const modBody = fake.calls.filter((c) => c.path === '/b2b/tax-invoices/issue-immediately')[1].body.modification;
    for (const k of required('B2bTaxInvoiceModificationCreateBody')) assert.ok(k in modBody, `modification.${k}`);
    assert.ok(schemas.B2bTaxInvoiceModificationType.enum.includes(modBody.type));
    assert.ok(schemas.B2bTaxInvoiceKeyType.enum.includes(modBody.taxInvoiceKeyType));
  } finally {
    await fake.close();
  }
});
