import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A local stand-in for PortOne's V2 B2B tax-invoice API, built from PortOne's published OpenAPI (see
 * test/fixtures/portone-b2b/README.md for each path and schema it follows): `Authorization: PortOne <secret>`,
 * `{ type, message }` error bodies with the documented statuses, `supplierDocumentKey` unique per supplier.
 */

export interface FakeDoc {
  id: string;
  test: boolean;
  status: string;
  documentModificationType: 'NORMAL' | 'MODIFICATION';
  body: any;
  modification?: { type: string; taxInvoiceKey: string };
  ntsApprovalNumber: string;
}

export interface FakePortoneB2b {
  baseUrl: string;
  secret: string;
  calls: Array<{ method: string; path: string; query: URLSearchParams; body: any; auth: string | undefined }>;
  docs: FakeDoc[];
  loseNextAnswer(): void;
  refuseNext(type: string, status?: number): void;
  close(): Promise<void>;
}

export async function startFakePortoneB2b(): Promise<FakePortoneB2b> {
  const secret = 'portone-b2b-test-secret';
  const calls: FakePortoneB2b['calls'] = [];
  const docs: FakeDoc[] = [];
  let lose = false;
  let refuse: { type: string; status: number } | null = null;
  const sockets = new Set<Socket>();

  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const err = (res: ServerResponse, status: number, type: string, message: string) => send(res, status, { type, message });

  const view = (d: FakeDoc) => ({
    id: d.id,
    status: d.status,
    taxationType: d.body.taxationType,
    documentModificationType: d.documentModificationType,
    issuanceType: d.body.issuanceType ?? 'REVERSE',
    writeDate: d.body.writeDate,
    issuanceDueDate: d.body.writeDate,
    purposeType: d.body.purposeType,
    totalSupplyAmount: d.body.totalSupplyAmount,
    totalTaxAmount: d.body.totalTaxAmount,
    totalAmount: d.body.totalAmount,
    remarks: d.body.remarks ?? [],
    supplierDocumentKey: d.body.supplierDocumentKey,
    supplier: d.body.supplier,
    recipient: d.body.recipient,
    items: d.body.items ?? [],
    additionalContacts: [],
    ...(d.modification ? { modification: { type: d.modification.type, originalNtsApprovalNumber: docs.find((o) => o.body.supplierDocumentKey === d.modification!.taxInvoiceKey)?.ntsApprovalNumber } } : {}),
    issuedAt: new Date().toISOString(),
    ntsApprovalNumber: d.ntsApprovalNumber,
  });

  const find = (key: string, keyType: string, brn: string | null, test: boolean) =>
    docs.find((d) => d.test === test && (keyType === 'TAX_INVOICE_ID' ? d.id === key : keyType === 'SUPPLIER' ? d.body.supplierDocumentKey === key && d.body.supplier.brn === brn : d.body.recipientDocumentKey === key && d.body.recipient.brn === brn));

  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const body = raw ? JSON.parse(raw) : null;
    calls.push({ method: req.method ?? '', path: url.pathname, query: url.searchParams, body, auth: req.headers.authorization });
    if (req.headers.authorization !== `PortOne ${secret}`) return err(res, 401, 'UNAUTHORIZED', '인증 정보가 올바르지 않은 경우');
    const test = url.searchParams.get('test') === 'true';

    if (req.method === 'POST' && url.pathname === '/b2b/tax-invoices/issue-immediately') {
      const ti = body?.taxInvoice;
      // B2bTaxInvoiceInput's required fields and B2bTaxInvoiceCompany's.
      const company = (c: any) => c && /^\d{10}$/.test(c.brn) && c.name && c.representativeName && c.contact?.email;
      if (!ti || !ti.taxationType || !/^\d{4}-\d{2}-\d{2}$/.test(ti.writeDate ?? '') || !ti.purposeType || !company(ti.supplier) || !company(ti.recipient)) {
        return err(res, 400, 'INVALID_REQUEST', '요청된 입력 정보가 유효하지 않은 경우');
      }
      if (![ti.totalSupplyAmount, ti.totalTaxAmount, ti.totalAmount].every(Number.isInteger) || ti.totalSupplyAmount + ti.totalTaxAmount !== ti.totalAmount) {
        return err(res, 400, 'INVALID_REQUEST', '합계 금액이 공급가액과 세액의 합과 다릅니다');
      }
      if (ti.supplierDocumentKey && !/^[A-Za-z0-9_-]+$/.test(ti.supplierDocumentKey)) return err(res, 400, 'INVALID_REQUEST', 'supplierDocumentKey');
      if (refuse) {
        const r = refuse;
        refuse = null;
        return err(res, r.status, r.type, 'refused by the fake');
      }
      if (ti.supplierDocumentKey && find(ti.supplierDocumentKey, 'SUPPLIER', ti.supplier.brn, test)) {
        return err(res, 400, 'B2B_TAX_INVOICE_SUPPLIER_DOCUMENT_KEY_ALREADY_USED', '세금계산서에 공급자 문서 번호가 이미 사용 중인 경우');
      }
      let modification: FakeDoc['modification'];
      if (body.modification) {
        const m = body.modification;
        const original = find(m.taxInvoiceKey, m.taxInvoiceKeyType ?? 'RECIPIENT', m.brn ?? null, test);
        if (!original) return err(res, 404, 'B2B_ORIGINAL_TAX_INVOICE_NOT_FOUND', '원본 세금계산서가 존재하지 않은 경우');
        modification = { type: m.type, taxInvoiceKey: m.taxInvoiceKey };
      }
      const n = docs.length + 1;
      const doc: FakeDoc = {
        id: `b2b-ti-${String(n).padStart(6, '0')}`,
        test,
        status: 'ISSUED',
        documentModificationType: modification ? 'MODIFICATION' : 'NORMAL',
        body: ti,
        modification,
        ntsApprovalNumber: `${ti.writeDate.replace(/-/g, '')}4100000${String(n).padStart(8, '0')}`,
      };
      docs.push(doc);
      if (lose) {
        lose = false;
        // Issued, but the answer never arrives.
        req.socket.destroy();
        return;
      }
      return send(res, 200, { taxInvoice: view(doc) });
    }
    const pdf = /^\/b2b\/tax-invoices\/([^/]+)\/pdf-download-url$/.exec(url.pathname);
    if (req.method === 'GET' && pdf) {
      const d = find(decodeURIComponent(pdf[1]), url.searchParams.get('taxInvoiceKeyType') ?? 'TAX_INVOICE_ID', url.searchParams.get('brn'), test);
      if (!d) return err(res, 404, 'B2B_TAX_INVOICE_NOT_FOUND', '세금계산서가 존재하지 않은 경우');
      return send(res, 200, { url: `https://fake-portone.test/pdf/${d.id}.pdf` });
    }
    const one = /^\/b2b\/tax-invoices\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && one) {
      const d = find(decodeURIComponent(one[1]), url.searchParams.get('taxInvoiceKeyType') ?? 'TAX_INVOICE_ID', url.searchParams.get('brn'), test);
      if (!d) return err(res, 404, 'B2B_TAX_INVOICE_NOT_FOUND', '세금계산서가 존재하지 않은 경우');
      return send(res, 200, view(d));
    }
    return err(res, 404, 'NOT_FOUND', 'no such path in the fake');
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    secret,
    calls,
    docs,
    loseNextAnswer: () => {
      lose = true;
    },
    refuseNext: (type, status = 400) => {
      refuse = { type, status };
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
