/**
 * What every mail kind's copy reads and shares: the context a kind's copy is given (the render input pre-digested,
 * the language's formats and links), the content it returns, and the small helpers several kinds use (order rows,
 * licence keys, the receipt link in a language, the card charged).
 */
import type { OrderView } from '../../orders/schemas';
import { enTime } from '../../pages/receipt/copy';
import { kst, won } from '../../pages/html';
import type { MailKind } from '../kinds';
import type { MailLang, RenderInput } from '../render-input';

export interface Content {
  title: string;
  intro: string[];
  rows: Array<[string, string]>;
  keys?: string[];
  links: Array<[string, string]>;
  notes: string[];
}

/** How each language writes dates (KST), money and the recurring cycle; shared by every kind. */
export interface Fmt {
  date: (v: unknown) => string;
  money: (n: number) => string;
  cycle: Record<string, string>;
}

export const at = (v: unknown): Date | null => (typeof v === 'string' && v ? new Date(v) : null);
export const num = (v: unknown): number => (typeof v === 'number' ? v : Number(v ?? 0));
export const s = (v: unknown): string => (typeof v === 'string' ? v : '');

export const FMT: Record<MailLang, Fmt> = {
  // Every time says its zone (a buyer abroad reads it too): `2026년 11월 1일 15:05 KST`.
  ko: { date: (v) => (at(v) ? `${kst(at(v)!)} KST` : '-'), money: won, cycle: { monthly: '매월', yearly: '매년' } },
  // The receipt's English copy (src/pages/receipt/copy.ts): `Nov 1, 2026, 3:05 PM KST` and `₩9,900`.
  en: { date: (v) => (at(v) ? enTime(at(v)!) : '-'), money: (n) => `₩${n.toLocaleString('en-US')}`, cycle: { monthly: 'Monthly', yearly: 'Yearly' } },
};

/** The words every kind shares, per language. */
export const COMMON: Record<MailLang, { keys: string; receipt: string; portal: string }> = {
  ko: { keys: '라이선스 키', receipt: '영수증 보기', portal: '구독 관리 (카드 변경·해지)' },
  en: { keys: 'License keys', receipt: 'View the receipt', portal: 'Manage the subscription (change card, cancel)' },
};

/** What a kind's copy reads: the render input, pre-digested, and the language's formats and links. */
export interface Ctx {
  i: RenderInput;
  d: Record<string, unknown>;
  sub: Record<string, unknown>;
  change: Record<string, unknown>;
  /** The product's name (subscription's, else the order's). */
  name: string;
  f: Fmt;
  /** The receipt link of the mail's order ([label, url]), in the mail's language; empty without an order. */
  receipt: Array<[string, string]>;
  keys: string[];
  portal: (label?: string) => Array<[string, string]>;
}

export type Copy = (c: Ctx) => Content;

/** A family's share of the copy table: every kind it names, in both languages. */
export type CopyTable<K extends MailKind> = Record<K, Record<MailLang, Copy>>;

export function orderRows(c: Ctx, labels: [string, string, string, string]): Array<[string, string]> {
  const src = (c.i.order ?? c.d) as Record<string, unknown>;
  return [
    [labels[0], s(src.productName)],
    [labels[1], c.f.money(num(src.amount))],
    [labels[2], c.f.date(src.paidAt)],
    [labels[3], s(src.id)],
  ];
}
export const ORDER_ROWS_KO: [string, string, string, string] = ['상품', '결제 금액', '결제 일시', '주문 번호'];
export const ORDER_ROWS_EN: [string, string, string, string] = ['Product', 'Amount paid', 'Paid at', 'Order number'];

export function keysOf(o: OrderView | null): string[] {
  return (o?.licenses ?? []).filter((l) => l.key && l.status !== 'revoked').map((l) => l.key!);
}

/** The receipt link in a language: the English receipt is the same page with `lang=en`. */
export function receiptLink(url: string, lang: MailLang): string {
  return lang === 'en' ? `${url}${url.includes('?') ? '&' : '?'}lang=en` : url;
}

/** The card the subscription charges, as the portal shows it. */
export const cardOf = (c: Ctx, fallback: string): string => {
  const card = c.sub.card as Record<string, unknown> | null | undefined;
  return card ? `${s(card.brand) || '카드'} ${s(card.last4)}`.trim() : fallback;
};

/**
 * A price increase's two answers side by side, each a link of its own to the box in the portal where the buyer
 * answers with a button (a link in a mail only opens the page: mail scanners follow links). Declining is offered as
 * plainly as agreeing (issue 38 item 9: the notice had only "agree").
 */
export function answerLinks(c: Ctx, priceChangeId: string, labels: [string, string]): Array<[string, string]> {
  const [portal] = c.portal();
  if (!portal) return [];
  const url = `${portal[1]}#price-change-${priceChangeId}`;
  return [[labels[0], url], [labels[1], url]];
}
