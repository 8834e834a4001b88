import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lineOf } from '../../src/tax/model';
import { vatCsvRow } from '../../src/tax/csv';

// Issue 41: 휴대폰 결제 and 상품권 sales are 기타 매출 (정규영수증 외) in the 부가세 report: no 신용카드매출전표등 of
// 부가세법 제46조 ① is issued for them (docs/manual/16-vat-report.md). A refund lands in the same line, negated; the CSV
// names the method in Korean.
test('휴대폰 and 상품권 sales and their refunds are 기타 매출, split exactly, and the CSV names the method', () => {
  const at = new Date('2026-11-10T03:00:00.000Z');
  const base = { currency: 'KRW', cashReceiptIssued: false, taxInvoiceIssued: false, at, refundId: null };
  const phone = lineOf({ ...base, kind: 'sale', method: 'mobile_phone', orderId: 'ord_p', amount: 33_000 });
  assert.deepEqual([phone.category, phone.total, phone.supplyAmount, phone.vat], ['other', 33_000, 30_000, 3_000]);
  const refund = lineOf({ ...base, kind: 'refund', method: 'mobile_phone', orderId: 'ord_p', refundId: 'rf_p', amount: 33_000 });
  assert.deepEqual([refund.category, refund.total, refund.supplyAmount, refund.vat], ['other', -33_000, -30_000, -3_000]);
  for (const [method, name] of [['culture_gift', '문화상품권'], ['book_gift', '도서문화상품권'], ['game_gift', '게임문화상품권']] as const) {
    const l = lineOf({ ...base, kind: 'sale', method, orderId: `ord_${method}`, amount: 15_000 });
    assert.deepEqual([l.category, l.total, l.supplyAmount, l.vat], ['other', 15_000, 13_636, 1_364], method);
    assert.equal(vatCsvRow(l)[4], name);
    assert.equal(vatCsvRow(l)[5], '기타 매출 (정규영수증 외)');
  }
  assert.equal(vatCsvRow(phone)[4], '휴대폰');
});
