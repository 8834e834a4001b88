import { Readable } from 'node:stream';
import type { Module } from '../deps';
import { op } from '../platform/http/route';
import { pageParams } from '../platform/http/pagination';
import { VatCsvResponse, VatLinePage, VatLinesQuery, VatReportQuery, VatReportSchema } from './schemas';
import { resolvePeriod, vatLines, vatReport, type VatScope } from './service';
import { exportVatCsv, vatCsvName } from './csv';

const DOC =
  'The 부가세 신고 figures of one mode for a period of KST days: each 과세기간 (`period=2026-1`, `2026-2`), each quarter (`2026-Q1` … `2026-Q4`; ' +
  'Q1 and Q3 are the 예정신고 periods), or `from`/`to` (`to` excluded, at most 366 days); without any, the current quarter. ' +
  'Sales count at their payment time (a 가상계좌: the deposit), refunds (negative) at their completion, in the category of the original sale. ' +
  'Each sale and refund is split on its own: 세액 = round(|합계| × 10 / 110), 공급가액 = 합계 − 세액, so 공급가액 + 세액 = 합계 exactly and every figure ' +
  'is the sum of its lines (`/admin/v1/tax/vat-report/lines`, or the CSV). Test and live mode are never mixed. See the manual, "VAT report".';

const taxModule: Module = async (app, deps) => {
  const tags = ['Tax'];
  const scope = (storeId: string, q: { mode?: 'live' | 'test'; period?: string; from?: string; to?: string }): VatScope => ({
    storeId,
    mode: q.mode ?? 'test',
    period: resolvePeriod(q, deps.clock.now()),
  });

  app.get(
    '/admin/v1/tax/vat-report',
    op(
      { operationId: 'adminGetVatReport', summary: 'The 부가세 신고 figures of a period, by evidence category and by month', description: DOC, tags },
      { auth: 'owner' },
      { querystring: VatReportQuery, response: { 200: VatReportSchema } },
    ),
    async (req) => vatReport(deps, scope(req.owner!.storeId, req.query)),
  );
  app.get(
    '/admin/v1/tax/vat-report/lines',
    op(
      {
        operationId: 'adminListVatLines',
        summary: 'The sales and refunds behind the 부가세 figures, oldest first',
        description: `${DOC}\n\nOne line per sale or refund of the period, filtered by \`category\` and \`kind\`; their sums are the report's figures.`,
        tags,
      },
      { auth: 'owner' },
      { querystring: VatLinesQuery, response: { 200: VatLinePage } },
    ),
    async (req) => vatLines(deps, scope(req.owner!.storeId, req.query), { category: req.query.category, kind: req.query.kind }, pageParams(req.query)),
  );
  app.get(
    '/admin/v1/tax/vat-report.csv',
    op(
      {
        operationId: 'adminExportVatCsv',
        summary: 'The 부가세 lines of a period as CSV for an accountant',
        description:
          `${DOC}\n\nUTF-8 with a byte-order mark (Excel reads the Korean), CRLF lines, one row per sale or refund, oldest first: ` +
          '일자(KST), 구분 (판매/환불), 주문번호, 환불번호, 결제 수단, 분류, 합계(공급대가), 공급가액, 세액, 시각(UTC). Answered as `text/csv`.',
        tags,
      },
      { auth: 'owner' },
      { querystring: VatReportQuery, response: { 200: VatCsvResponse } },
    ),
    async (req, reply) => {
      const s = scope(req.owner!.storeId, req.query);
      return reply
        .type('text/csv; charset=utf-8')
        .header('Content-Disposition', `attachment; filename="${vatCsvName(s)}"`)
        .send(Readable.from(exportVatCsv(deps, s)) as never);
    },
  );
};

export default taxModule;
