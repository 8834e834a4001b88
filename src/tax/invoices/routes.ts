import type { Module } from '../../deps';
import { registerEventHook } from '../../platform/events';
import { ApiError } from '../../platform/errors';
import { op } from '../../platform/http/route';
import { pageParams, listPage } from '../../platform/http/pagination';
import { IdParams } from '../../platform/http/schemas';
import { ModeBody, ModeQuery, RequestTaxInvoiceBody, TaxInvoiceListQuery, TaxInvoicePage, TaxInvoiceSchema } from './schemas';
import { ISSUE_JOB, issueTaxInvoice, requestTaxInvoice, runIssue } from './service';
import { onOrderEvent } from './hooks';
import * as repo from './repo';
import { invoiceView } from './view';

const tags = ['Tax invoices'];
const DOC =
  '세금계산서 for business buyers who paid by 계좌이체 or 가상계좌, issued through the electronic tax-invoice provider (PortOne\'s B2B API; test mode: a simulator unless ' +
  'the service is set up with PortOne, whose own test mode is then used). One original per order, never beside a 현금영수증; a refund issues its 수정세금계산서 ' +
  '(`kind: amendment`; full refund: 계약의 해제, partial: 공급가액 변동, negative amounts). 공급가액/세액 follow the VAT report\'s rounding. See the manual, "Tax invoices".';

const taxInvoicesModule: Module = async (app, deps) => {
  registerEventHook('tax-invoices', (trx, clock, e) => onOrderEvent(trx, { clock }, e));
  deps.worker.registerJob(ISSUE_JOB, async (payload) => {
    await runIssue(deps, String(payload.taxInvoiceId));
  });

  app.get(
    '/admin/v1/tax-invoices',
    op(
      { operationId: 'adminListTaxInvoices', summary: 'List 세금계산서 and 수정세금계산서, newest first', description: DOC, tags },
      { auth: 'owner' },
      { querystring: TaxInvoiceListQuery, response: { 200: TaxInvoicePage } },
    ),
    async (req) => {
      const storeId = req.owner!.storeId;
      const mode = req.query.mode ?? 'test';
      const status = req.query.status;
      return listPage(
        pageParams(req.query),
        () => repo.countInvoices(deps.db, storeId, mode, status),
        (offset, limit) => repo.listInvoices(deps.db, storeId, mode, status, offset, limit),
        invoiceView,
      );
    },
  );

  app.get(
    '/admin/v1/tax-invoices/:id',
    op(
      { operationId: 'adminGetTaxInvoice', summary: 'Read a 세금계산서 with the provider\'s answer', description: DOC, tags },
      { auth: 'owner', errors: ['TAX_INVOICE_NOT_FOUND'] },
      { params: IdParams, querystring: ModeQuery, response: { 200: TaxInvoiceSchema } },
    ),
    async (req) => {
      const row = await repo.findInvoice(deps.db, req.params.id);
      if (!row || row.store_id !== req.owner!.storeId || row.mode !== (req.query.mode ?? row.mode)) throw new ApiError('TAX_INVOICE_NOT_FOUND');
      return invoiceView(row);
    },
  );

  app.post(
    '/admin/v1/orders/:id/tax-invoice',
    op(
      {
        operationId: 'adminRequestTaxInvoice',
        summary: 'Issue a 세금계산서 for a paid 계좌이체 / 가상계좌 order',
        description:
          `${DOC}\n\nThe seller issues the order's 세금계산서 to the business buyer given (its 사업자등록번호 is checked by its check digit) for what is not refunded, ` +
          'by the 10th of the month after the payment (부가가치세법 제34조). Answers the TaxInvoice: `issued`, `failed` (the provider refused; `providerMessage`), or `issuing` ' +
          '(no answer yet: the service asks again with the same document key and never issues twice). An order awaiting its deposit keeps the request as `requested`. ' +
          '`TAX_INVOICE_CARD_PAYMENT`: a card or easy-pay order (the card slip is the evidence); `TAX_INVOICE_CASH_RECEIPT_EXISTS`: the order has a 현금영수증; ' +
          '`TAX_INVOICE_EXISTS`: it has a 세금계산서 (issue a failed one again with `POST /admin/v1/tax-invoices/{id}/issue`).',
        tags,
      },
      {
        auth: 'owner',
        errors: ['ORDER_NOT_FOUND', 'VALIDATION_FAILED', 'TAX_INVOICE_CARD_PAYMENT', 'TAX_INVOICE_NOT_ALLOWED', 'TAX_INVOICE_EXISTS', 'TAX_INVOICE_CASH_RECEIPT_EXISTS', 'TAX_INVOICE_DEADLINE_PASSED', 'TAX_INVOICE_SUPPLIER_MISSING'],
      },
      { params: IdParams, body: RequestTaxInvoiceBody, response: { 200: TaxInvoiceSchema } },
    ),
    async (req) => {
      const { mode, ...recipient } = req.body;
      return invoiceView(await requestTaxInvoice(deps, req.params.id, recipient, 'seller', { storeId: req.owner!.storeId, mode }));
    },
  );

  app.post(
    '/admin/v1/tax-invoices/:id/issue',
    op(
      {
        operationId: 'adminIssueTaxInvoice',
        summary: 'Issue a requested (or failed) 세금계산서 by hand',
        description:
          `${DOC}\n\nFor a buyer's request on a store that issues by hand, or a refused one tried again (with a new document key). Safe to repeat: an invoice already ` +
          '`issuing` is sent again with its own key (the provider is asked for it first), an `issued` one is answered as it is.',
        tags,
      },
      { auth: 'owner', errors: ['TAX_INVOICE_NOT_FOUND', 'TAX_INVOICE_NOT_ISSUABLE', 'TAX_INVOICE_NOT_ALLOWED', 'TAX_INVOICE_CASH_RECEIPT_EXISTS', 'TAX_INVOICE_DEADLINE_PASSED', 'TAX_INVOICE_SUPPLIER_MISSING'] },
      { params: IdParams, body: ModeBody, response: { 200: TaxInvoiceSchema } },
    ),
    async (req) => invoiceView(await issueTaxInvoice(deps, req.owner!.storeId, req.body.mode, req.params.id)),
  );
};

export default taxInvoicesModule;
