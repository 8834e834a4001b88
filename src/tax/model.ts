import type { PaymentMethod } from '../payments/method';
import { kstMonth } from './periods';

/**
 * The 부가세 신고 figures: sales split by the evidence the buyer was given, as the 일반과세자 부가가치세 신고서 asks
 * under 과세표준 및 매출세액 (세금계산서 발급분; 신용카드·현금영수증 발행분; 기타(정규영수증 외 매출분)) and as its
 * 신용카드매출전표등 발행금액 집계표 splits the middle line (cards apart from 현금영수증).
 *
 *   category       신고서 line                     which sales
 *   tax_invoice    세금계산서 발급분 (부가세법 제32조)  a 세금계산서 was issued for the sale (its original in
 *                                                  tax_invoices is `issued`, src/tax/invoices/); its refunds land here
 *                                                  too, as their 수정세금계산서 do.
 *   card           신용카드·현금영수증 발행분: 신용카드  card payments, and easy pays (카카오페이, 네이버페이, 토스페이):
 *                  (제46조 ①)                        the pay company issues card-equivalent evidence (a 신용카드매출전표
 *                                                  or 전자지급수단 영수증) for every easy-pay sale, so it is never
 *                                                  기타 매출; the order does not record whether the buyer funded it
 *                                                  from a card or a balance, so all easy pays stand here together.
 *   cash_receipt   신용카드·현금영수증 발행분: 현금영수증  계좌이체 / 가상계좌 sales for which a 현금영수증 was issued
 *                  (제46조 ①, 조특법 제126조의3)       (the order's 현금영수증 row left `requested`: issued, reduced or
 *                                                  canceled later by a refund; the refund itself is counted apart).
 *   other          기타(정규영수증 외 매출분)          계좌이체 / 가상계좌 sales without evidence (no 현금영수증 asked,
 *                                                  or asked and never issued); 휴대폰 결제 and 상품권 sales (issue 41):
 *                                                  neither is among the 신용카드매출전표등 of 부가세법 제46조 ① (card,
 *                                                  현금영수증, debit/prepaid means of payment in the buyer's name), the
 *                                                  phone bill is the carrier's and a gift certificate is bearer money,
 *                                                  and Toss issues no 현금영수증 for them (Payment.cashReceipt is for
 *                                                  계좌이체 / 가상계좌), so they are 기타 매출. The accountant may
 *                                                  class them otherwise; the CSV names the method on every line.
 *   foreign        kept apart                     a sale in a foreign currency: a PayPal order, charged in USD
 *                                                  (orders.presentment_currency, issue 41); its figures are the
 *                                                  order's won amounts at the store's fixed rate; whether such a sale is
 *                                                  영세율 (제21조~제24조) is the accountant's call, so it is split at
 *                                                  10/110 like the others and shown on its own line.
 */
export const VAT_CATEGORIES = ['tax_invoice', 'card', 'cash_receipt', 'other', 'foreign'] as const;
export type VatCategory = (typeof VAT_CATEGORIES)[number];

export const VAT_CATEGORY_LABEL: Record<VatCategory, string> = {
  tax_invoice: '세금계산서 발급분',
  card: '신용카드 (간편결제 포함)',
  cash_receipt: '현금영수증',
  other: '기타 매출 (정규영수증 외)',
  foreign: '해외 매출',
};

/** What the report knows of a sale: the order's stored facts that decide its evidence. */
export interface SaleFacts {
  method: PaymentMethod;
  currency: string;
  /** A 현금영수증 was issued for the order (its row is past `requested`). */
  cashReceiptIssued: boolean;
  /** A 세금계산서 was issued for the order (its original is `issued`). */
  taxInvoiceIssued: boolean;
}

const EASY_PAYS: ReadonlySet<PaymentMethod> = new Set<PaymentMethod>(['kakao_pay', 'naver_pay', 'toss']);

/**
 * The one place a sale's evidence type is decided (the table above). A refund is classed by its order's facts, so
 * it lands in the category of the original sale. Order matters: a foreign sale is apart whatever its evidence; a
 * 세금계산서 outranks a 현금영수증 (a sale with card or 현금영수증 evidence gets no 세금계산서, 부가세법 제33조 ②).
 */
export function evidenceOf(f: SaleFacts): VatCategory {
  if (f.currency !== 'KRW') return 'foreign';
  if (f.taxInvoiceIssued) return 'tax_invoice';
  // An overseas-issued card is approved and settled in won through Toss with its card slip (신용카드매출전표): card.
  if (f.method === 'card' || f.method === 'foreign_card' || EASY_PAYS.has(f.method)) return 'card';
  if (f.cashReceiptIssued) return 'cash_receipt';
  return 'other';
}

export interface VatSplit {
  /** 합계 (공급대가): what the buyer paid, VAT included; negative for a refund. */
  total: number;
  /** 공급가액 = 합계 − 세액. */
  supplyAmount: number;
  /** 세액. */
  vat: number;
}

/**
 * Splits one VAT-inclusive amount (integer won) into 공급가액 and 세액, per transaction:
 *   세액 = round(|합계| × 10 / 110), halves up (an exact half cannot occur: |합계|/11 has a fraction k/11),
 *   공급가액 = 합계 − 세액, signs following 합계 (a refund of 5,000원 is −5,000 = −4,545 − 455).
 * Rounded per transaction, not per period, because each sale and each refund is a document of its own (the card slip,
 * the 현금영수증, later the 세금계산서) that states its own 세액, and Toss computes a payment's `vat` the same way
 * ((amount − taxFreeAmount) / 11, rounded); per-line figures also make every period total the exact sum of its
 * drill-down. 공급가액 + 세액 = 합계 holds exactly for every line and so for every sum.
 */
export function splitVat(total: number): VatSplit {
  if (!Number.isSafeInteger(total)) throw new RangeError(`amount must be an integer number of won: ${total}`);
  const abs = Math.abs(total);
  const vatAbs = Math.floor((abs + 5) / 11);
  // `|| 0`: a refund line of under 6원 has no 세액, and -0 would print as "-0" in a spreadsheet.
  const vat = (total < 0 ? -vatAbs : vatAbs) || 0;
  return { total: total || 0, supplyAmount: total - vat || 0, vat };
}

/** One sale or refund behind a figure (the drill-down's row, the CSV's row). */
export interface VatLine extends VatSplit {
  kind: 'sale' | 'refund';
  /** When it counts: the order's payment time (a 가상계좌: the deposit), or the refund's completion time. */
  at: Date;
  orderId: string;
  refundId: string | null;
  method: PaymentMethod;
  category: VatCategory;
}

/** Facts of one stored sale or refund, as the repo reads them. */
export interface LineFacts extends SaleFacts {
  kind: 'sale' | 'refund';
  at: Date;
  orderId: string;
  refundId: string | null;
  /** The order's amount (a sale) or the refund's amount (a refund), positive. */
  amount: number;
}

export function lineOf(f: LineFacts): VatLine {
  const split = splitVat(f.kind === 'refund' ? -f.amount : f.amount);
  return { kind: f.kind, at: f.at, orderId: f.orderId, refundId: f.refundId, method: f.method, category: evidenceOf(f), ...split };
}

export interface Figure {
  count: number;
  total: number;
  supplyAmount: number;
  vat: number;
}
export interface CategoryFigures {
  category: VatCategory;
  sales: Figure;
  refunds: Figure;
  /** sales + refunds (refunds are negative). */
  net: Figure;
}
export interface MonthFigures {
  month: string;
  net: Figure;
}
export interface VatTotals {
  categories: CategoryFigures[];
  /** 신용카드·현금영수증 발행분: card + cash_receipt, the 신고서's one line. */
  cardAndCashReceipt: Omit<CategoryFigures, 'category'>;
  overall: Omit<CategoryFigures, 'category'>;
  months: MonthFigures[];
}

const zero = (): Figure => ({ count: 0, total: 0, supplyAmount: 0, vat: 0 });
const addFigure = (f: Figure, g: Figure) => {
  f.count += g.count;
  f.total += g.total;
  f.supplyAmount += g.supplyAmount;
  f.vat += g.vat;
};
const sum = (a: Figure, b: Figure): Figure => ({ count: a.count + b.count, total: a.total + b.total, supplyAmount: a.supplyAmount + b.supplyAmount, vat: a.vat + b.vat });

/** Adds lines up into the report's figures; `months` are the period's KST months (every one gets a bar). */
export class VatAccumulator {
  #cats = new Map<VatCategory, { sales: Figure; refunds: Figure }>(VAT_CATEGORIES.map((c) => [c, { sales: zero(), refunds: zero() }]));
  #months: Map<string, Figure>;
  constructor(months: string[]) {
    this.#months = new Map(months.map((m) => [m, zero()]));
  }
  add(l: VatLine): void {
    this.addGroup(l.kind, l.category, kstMonth(l.at), { count: 1, total: l.total, supplyAmount: l.supplyAmount, vat: l.vat });
  }
  /** Adds `f`, the sum of lines of one kind, category and KST month (signed as the lines are: a refund negative). */
  addGroup(kind: 'sale' | 'refund', category: VatCategory, month: string, f: Figure): void {
    const c = this.#cats.get(category)!;
    addFigure(kind === 'sale' ? c.sales : c.refunds, f);
    if (!this.#months.has(month)) this.#months.set(month, zero());
    addFigure(this.#months.get(month)!, f);
  }
  totals(): VatTotals {
    const categories = VAT_CATEGORIES.map((category) => {
      const { sales, refunds } = this.#cats.get(category)!;
      return { category, sales: { ...sales }, refunds: { ...refunds }, net: sum(sales, refunds) };
    });
    const pick = (c: VatCategory) => categories.find((x) => x.category === c)!;
    type Group = Omit<CategoryFigures, 'category'>;
    const both = (a: Group, b: Group): Group => ({ sales: sum(a.sales, b.sales), refunds: sum(a.refunds, b.refunds), net: sum(a.net, b.net) });
    const overall = categories.reduce<Group>((acc, c) => both(acc, c), { sales: zero(), refunds: zero(), net: zero() });
    return {
      categories,
      cardAndCashReceipt: both(pick('card'), pick('cash_receipt')),
      overall,
      months: [...this.#months.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([month, net]) => ({ month, net: { ...net } })),
    };
  }
}
