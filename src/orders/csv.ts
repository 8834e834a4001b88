import type { OrderExportRow } from './repo';

// CSV for spreadsheets (RFC 4180 quoting, plus what Excel needs). Three rules, so no library: a library would still
// leave formula injection to us, and that is the rule that matters most here.

/** Excel opens UTF-8 CSV as the local code page (CP949 in Korea) unless the file starts with a byte-order mark. */
export const CSV_BOM = '\uFEFF';

/**
 * One cell. Text a spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`, a tab or a carriage return,
 * OWASP's list) gets a leading apostrophe, so a buyer named `=HYPERLINK(...)` stays text. Numbers are written as
 * numbers (a refund of -0 never happens; amounts are non-negative integers). A cell with a quote, comma or line
 * break is quoted, quotes doubled.
 */
export function csvCell(v: string | number | null | undefined): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return String(v);
  let s = v;
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) || s !== v ? `"${s.replace(/"/g, '""')}"` : s;
}

/** One CSV line with its CRLF (the RFC's and Excel's line end). */
export const csvLine = (cells: Array<string | number | null | undefined>) => `${cells.map(csvCell).join(',')}\r\n`;

export const ORDER_CSV_HEADER = [
  '주문번호', '모드', '상태', '상품', '상품 ID', '요금제', '결제 주기', '금액', '환불 금액', '통화', '결제 수단',
  '구매자', '이메일', '전화번호', '쿠폰', '결제 시각(UTC)', '환불 시각(UTC)', '생성 시각(UTC)',
];

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function orderCsvRow(o: OrderExportRow): Array<string | number | null> {
  return [
    o.id, o.mode, o.status, o.product_name, o.product_id, o.plan_id, o.billing_interval, Number(o.amount), o.refunded_amount === null ? null : Number(o.refunded_amount),
    'KRW', o.method, o.buyer_name, o.buyer_email, o.buyer_phone, o.coupon?.code ?? null, iso(o.paid_at), iso(o.refunded_at), iso(o.created_at),
  ];
}
