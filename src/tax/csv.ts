import { CSV_BOM, csvLine } from '../orders/csv';
import type { AppDeps } from '../deps';
import { VAT_CATEGORY_LABEL, type VatLine } from './model';
import { scanLines, type LineFilter, type VatScope } from './service';
import { kstDate } from '../platform/calendar';

/** Korean method names as the seller's statements show them (the accountant reads this file, not our codes). */
const METHOD_KO: Record<VatLine['method'], string> = { card: '카드', kakao_pay: '카카오페이', naver_pay: '네이버페이', toss: '토스페이', transfer: '계좌이체', virtual_account: '가상계좌',
  mobile_phone: '휴대폰', culture_gift: '문화상품권', book_gift: '도서문화상품권', game_gift: '게임문화상품권',
  foreign_card: '해외카드', paypal: 'PayPal' };

export const VAT_CSV_HEADER = ['일자(KST)', '구분', '주문번호', '환불번호', '결제 수단', '분류', '합계(공급대가)', '공급가액', '세액', '시각(UTC)'];

export function vatCsvRow(l: VatLine): Array<string | number | null> {
  return [kstDate(l.at), l.kind === 'sale' ? '판매' : '환불', l.orderId, l.refundId, METHOD_KO[l.method], VAT_CATEGORY_LABEL[l.category], l.total, l.supplyAmount, l.vat, l.at.toISOString()];
}

/**
 * The period's lines as CSV an accountant loads into Excel: UTF-8 with a byte-order mark (Excel reads Korean then),
 * CRLF lines, one row per sale or refund (refunds negative), oldest first, streamed in batches. Summing the 합계,
 * 공급가액 and 세액 columns per 분류 gives the report's figures exactly.
 */
export async function* exportVatCsv(deps: Pick<AppDeps, 'db' | 'clock'>, s: VatScope, f: LineFilter = {}): AsyncGenerator<string> {
  yield CSV_BOM + csvLine(VAT_CSV_HEADER);
  for await (const lines of scanLines(deps, s)) {
    const rows = lines.filter((l) => (!f.category || l.category === f.category) && (!f.kind || l.kind === f.kind));
    if (rows.length) yield rows.map((l) => csvLine(vatCsvRow(l))).join('');
  }
}

/** The download's file name: `vat-<mode>-<period or from_to>.csv`. */
export const vatCsvName = (s: VatScope) => `vat-${s.mode}-${s.period.code ?? `${s.period.from}_${s.period.to}`}.csv`;
