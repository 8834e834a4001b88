import type { BusinessDetailsView } from '../stores/schemas';
import type { OrderView } from '../orders/schemas';
import { FOOTER_LABELS, storeFooter } from '../pages/footer';
import { enTime } from '../pages/receipt-copy';
import { html, kst, raw, won, type SafeHtml } from '../pages/html';
import type { MailKind } from './kinds';
import type { SaleTerms } from '../orders/terms';
import { methodLabel } from '../pages/form';

const DAY_MS = 86_400_000;

/**
 * What 전자상거래법 제13조② asks the contract confirmation to carry, for the order-confirmation and
 * subscription-started mails, from the order's terms as sold (never the live product): the payment method, the
 * withdrawal right (period, how, effect, no penalty; the use restriction when it was validly marked), the recurring
 * terms of a subscription (amount and cycle as sold, next charge = the order's period end, as in the consent, how to
 * cancel), and complaint and dispute handling. The seller's identity is the footer (사업자 정보).
 */
function contractNotes(c: Ctx, lang: MailLang): { rows: Array<[string, string]>; notes: string[] } {
  const o = c.i.order;
  const terms = c.i.sold?.terms ?? null;
  if (!o) return { rows: [], notes: [] };
  const ko = lang === 'ko';
  const EN_METHODS: Record<string, string> = { card: 'Credit/debit card', kakao_pay: 'KakaoPay', naver_pay: 'Naver Pay', toss: 'Toss Pay' };
  const rows: Array<[string, string]> = [[ko ? '결제 수단' : 'Payment method', ko ? methodLabel(o.method) : (EN_METHODS[o.method] ?? o.method)]];
  const notes: string[] = [];
  if (terms) {
    const days = Math.max(7, terms.refundDays);
    const paid = at(o.paidAt) ?? new Date();
    const end = c.f.date(new Date(paid.getTime() + days * DAY_MS).toISOString());
    notes.push(
      ko
        ? `청약철회: 결제일로부터 ${days}일 이내(${end}까지) 청약철회(환불)를 요청하면 결제 금액 전액을 환불받을 수 있으며 위약금은 없습니다. 영수증의 ‘환불 요청하기’나 판매자 고객센터로 요청하면, 판매자는 요청을 받은 날부터 3영업일 이내에 환불합니다.`
        : `Withdrawal: within ${days} days of payment (until ${end}) you may withdraw and get the full amount back, with no penalty. Ask through “Request a refund” on the receipt or the seller's customer service; the seller refunds within 3 business days of the request.`,
    );
    if (terms.trialOffered && terms.usageRestrictionMarked && terms.licensed) {
      notes.push(
        ko
          ? '이 상품은 구매 전에 체험판을 제공했고, 라이선스 키를 활성화해 사용하면 청약철회가 제한됩니다(제17조 제2항). 다만 상품이 표시·광고와 다르면 사용한 뒤에도 청약철회할 수 있습니다.'
          : 'This product offered a trial before purchase; activating a license key (use) limits withdrawal (Article 17(2)). If the product differs from its description, you may still withdraw after use.',
      );
    }
  }
  if (o.billingInterval && c.i.kind === 'subscription_started') {
    const iv = o.billingInterval;
    const listed = terms?.plan ? (iv === 'monthly' ? terms.plan.monthlyPrice : terms.plan.yearlyPrice) : null;
    const recurring = listed ?? num(c.sub.amount);
    rows.push([ko ? '정기결제 금액' : 'Recurring amount', `${c.f.cycle[iv]} ${c.f.money(recurring)}`]);
    notes.push(
      ko
        ? `정기결제: 해지하기 전까지 ${c.f.cycle[iv]} 다음 결제일(첫 번째는 ${c.f.date(o.periodEnd)})에 ${c.f.money(recurring)}이 등록한 카드로 자동 결제됩니다. 구독 관리 페이지에서 언제든 해지할 수 있고, 해지하면 다음 결제일부터 결제되지 않습니다.`
        : `Recurring payment: until you cancel, ${c.f.money(recurring)} is charged to your registered card ${iv === 'monthly' ? 'every month' : 'every year'} on the payment date (the first on ${c.f.date(o.periodEnd)}). Cancel at any time on the subscription management page; payments stop from the next payment date.`,
    );
  }
  const b = c.i.business;
  const contact = b ? [b.supportPhone, b.supportEmail].filter(Boolean).join(' · ') : '';
  notes.push(
    ko
      ? `문의·불만과 분쟁: 판매자 고객센터${contact ? `(${contact})` : ''}로 접수하면 판매자가 확인해 처리합니다. 해결되지 않으면 한국소비자원(국번 없이 1372)에 상담·피해구제를, 전자문서·전자거래분쟁조정위원회(www.ecmc.or.kr)에 분쟁조정을 신청할 수 있습니다.`
      : `Questions, complaints and disputes: contact the seller's customer service${contact ? ` (${contact})` : ''}. If it is not resolved, you can ask the Korea Consumer Agency (1372) for redress or the Electronic Document and Transaction Dispute Mediation Committee (www.ecmc.or.kr) for mediation.`,
  );
  return { rows, notes };
}

/**
 * The buyer mails, in the buyer's language: Korean by default, English when the checkout session said `locale: 'en'`
 * (recorded on the order and the subscription; dispatch.ts reads it). Each mail is HTML
 * with a plain-text alternative, the store's name and its 사업자 정보 footer. No tracking: no images, no pixels, and
 * every link is a plain URL of this service (receipt, portal) with nothing added to it.
 */
export interface RenderInput {
  kind: MailKind;
  /** The event's data (Order, Subscription, Refund request…). */
  data: Record<string, unknown>;
  storeName: string;
  business: BusinessDetailsView | null;
  /** The order the mail is about, read at send time (its licences as they are now). */
  order: OrderView | null;
  /**
   * The subscription: for subscription events, the event's record over the current view (the mail tells what the
   * event said; fields other helpers add, e.g. recurringConsent, read when present); otherwise the current view.
   */
  subscription: Record<string, unknown> | null;
  /** A buyer-portal link minted for this mail (payment failed, trial and price notices). */
  portalUrl: string | null;
  /** The buyer's language (the order's or subscription's `locale`); Korean when absent. */
  lang?: MailLang;
  /** Order mails: what the order was sold under (its terms as kept with it) and the plan's name, for the 제13조② notes. */
  sold?: { terms: SaleTerms | null; planName: string | null } | null;
}

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

interface Content {
  title: string;
  intro: string[];
  rows: Array<[string, string]>;
  keys?: string[];
  links: Array<[string, string]>;
  notes: string[];
}

export type MailLang = 'ko' | 'en';

/** How each language writes dates (KST), money and the recurring cycle; shared by every kind. */
interface Fmt {
  date: (v: unknown) => string;
  money: (n: number) => string;
  cycle: Record<string, string>;
}

const at = (v: unknown): Date | null => (typeof v === 'string' && v ? new Date(v) : null);
const num = (v: unknown): number => (typeof v === 'number' ? v : Number(v ?? 0));
const s = (v: unknown): string => (typeof v === 'string' ? v : '');

const FMT: Record<MailLang, Fmt> = {
  // Every time says its zone (a buyer abroad reads it too): `2026년 11월 1일 15:05 KST`.
  ko: { date: (v) => (at(v) ? `${kst(at(v)!)} KST` : '-'), money: won, cycle: { monthly: '매월', yearly: '매년' } },
  // The receipt's English copy (src/pages/receipt-copy.ts): `Nov 1, 2026, 3:05 PM KST` and `₩9,900`.
  en: { date: (v) => (at(v) ? enTime(at(v)!) : '-'), money: (n) => `₩${n.toLocaleString('en-US')}`, cycle: { monthly: 'Monthly', yearly: 'Yearly' } },
};

/** The words every kind shares, per language. */
const COMMON: Record<MailLang, { keys: string; receipt: string; portal: string }> = {
  ko: { keys: '라이선스 키', receipt: '영수증 보기', portal: '구독 관리 (카드 변경·해지)' },
  en: { keys: 'License keys', receipt: 'View the receipt', portal: 'Manage the subscription (change card, cancel)' },
};

const END_REASONS: Record<MailLang, Record<string, string>> = {
  ko: {
    canceled: '구독이 해지되었습니다.',
    payment_failed: '정기결제가 여러 번 실패하여 구독이 종료되었습니다.',
    price_change_declined: '새 가격에 동의하지 않으셔서 구독이 현재 기간 끝에 종료되었습니다. 새 가격으로 결제되지 않았습니다.',
    trial_not_confirmed: '유료 전환에 다시 동의하지 않으셔서 무료 체험 종료와 함께 구독이 종료되었습니다. 결제되지 않았습니다.',
  },
  en: {
    canceled: 'The subscription was canceled.',
    payment_failed: 'The recurring payment failed several times, so the subscription has ended.',
    price_change_declined: 'You did not agree to the new price, so the subscription ended at the end of its current period. You were not charged the new price.',
    trial_not_confirmed: 'You did not confirm the paid subscription, so it ended with the free trial. Nothing was charged.',
  },
};

/** What a kind's copy reads: the render input, pre-digested, and the language's formats and links. */
interface Ctx {
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

type Copy = (c: Ctx) => Content;

function orderRows(c: Ctx, labels: [string, string, string, string]): Array<[string, string]> {
  const src = (c.i.order ?? c.d) as Record<string, unknown>;
  return [
    [labels[0], s(src.productName)],
    [labels[1], c.f.money(num(src.amount))],
    [labels[2], c.f.date(src.paidAt)],
    [labels[3], s(src.id)],
  ];
}
const ORDER_ROWS_KO: [string, string, string, string] = ['상품', '결제 금액', '결제 일시', '주문 번호'];
const ORDER_ROWS_EN: [string, string, string, string] = ['Product', 'Amount paid', 'Paid at', 'Order number'];

function keysOf(o: OrderView | null): string[] {
  return (o?.licenses ?? []).filter((l) => l.key && l.status !== 'revoked').map((l) => l.key!);
}

/** The receipt link in a language: the English receipt is the same page with `lang=en`. */
export function receiptLink(url: string, lang: MailLang): string {
  return lang === 'en' ? `${url}${url.includes('?') ? '&' : '?'}lang=en` : url;
}

/**
 * The started mail tells the order as sold (issue 29: it read the subscription as it is now, so a buyer whose plan had
 * changed read another plan's id and a next charge date that contradicted the consent): the plan's name, the
 * order's cycle, and its period end, the first charge the consent names.
 */
function startedRows(c: Ctx, l: [string, string, string, string, string, string]): Array<[string, string]> {
  const o = c.i.order;
  return [
    [l[0], c.name],
    [l[1], c.i.sold?.planName ?? s(o?.planId ?? c.sub.planId)],
    [l[2], c.f.money(num(o?.amount ?? c.d.amount))],
    [l[3], c.f.cycle[s(o?.billingInterval ?? c.sub.billingInterval)] ?? '-'],
    [l[4], c.f.date(o?.periodEnd ?? c.sub.currentPeriodEnd)],
    [l[5], c.f.date(o?.paidAt ?? c.d.paidAt)],
  ];
}

/** The card the subscription charges, as the portal shows it. */
const cardOf = (c: Ctx, fallback: string): string => {
  const card = c.sub.card as Record<string, unknown> | null | undefined;
  return card ? `${s(card.brand) || '카드'} ${s(card.last4)}`.trim() : fallback;
};
const consentOf = (c: Ctx) => c.sub.recurringConsent as { text?: string; consentedAt?: string } | null | undefined;
const refundOrder = (c: Ctx) => (c.i.order ?? c.d.order) as OrderView | null;
const decidedOk = (c: Ctx) => c.d.status === 'approved';
/**
 * A rejected refund request that came with the buyer's cancel in the portal (`source: subscription_cancel`): the
 * subscription was not ended for it; it runs to its period end as a period-end cancellation
 * (src/subscriptions/cancel/withdrawal.ts afterCancelRequestRejected, `cancel_refund_rejected`). The date, when the
 * subscription read at send time is still set to end then (or has ended then); else null (the generic rejection).
 */
const cancelRejectedUntil = (c: Ctx): string | null => {
  if (c.d.status !== 'rejected' || c.d.source !== 'subscription_cancel') return null;
  const end = c.sub.status === 'ended' ? (c.sub.endedAt ?? c.sub.currentPeriodEnd) : c.sub.cancelAtPeriodEnd === true ? c.sub.currentPeriodEnd : null;
  return typeof end === 'string' ? end : null;
};

/**
 * Every kind's copy, Korean beside English: one entry per kind with both languages (the compiler refuses a kind or a
 * language missing; test/mail/english.test.ts renders every kind in both). The Korean is the service's original text.
 */
const COPY: Record<MailKind, Record<MailLang, Copy>> = {
  order_confirmation: {
    ko: (c) => {
      const k = contractNotes(c, 'ko');
      return { title: '주문이 완료되었습니다', intro: [`${s(c.i.order?.buyerName ?? c.d.buyerName)}님, 구매해 주셔서 감사합니다.`], rows: [...orderRows(c, ORDER_ROWS_KO), ...k.rows], keys: c.keys, links: c.receipt, notes: k.notes };
    },
    en: (c) => {
      const k = contractNotes(c, 'en');
      return { title: 'Your order is complete', intro: [`Thank you for your purchase, ${s(c.i.order?.buyerName ?? c.d.buyerName)}.`], rows: [...orderRows(c, ORDER_ROWS_EN), ...k.rows], keys: c.keys, links: c.receipt, notes: k.notes };
    },
  },
  subscription_started: {
    ko: (c) => {
      const notes: string[] = [];
      if (typeof c.sub.trialEndsAt === 'string') notes.push(`무료 체험이 ${c.f.date(c.sub.trialEndsAt)}에 끝나며, 그때 첫 정기결제 ${c.f.money(num(c.sub.amount))}이(가) 이루어집니다. 체험 기간 중 해지하면 결제되지 않습니다.`);
      const consent = consentOf(c);
      if (consent?.text) notes.push(`정기결제 동의 (${c.f.date(consent.consentedAt)}): ${consent.text}`);
      notes.push('구독은 언제든 구독 관리 페이지에서 해지할 수 있습니다.');
      const k = contractNotes(c, 'ko');
      return { title: '구독이 시작되었습니다', intro: [`${c.name} 구독을 시작해 주셔서 감사합니다.`], rows: [...startedRows(c, ['상품', '플랜', '결제 금액', '결제 주기', '다음 결제일', '결제 일시']), ...k.rows], keys: c.keys, links: c.receipt, notes: [...notes, ...k.notes] };
    },
    en: (c) => {
      const notes: string[] = [];
      if (typeof c.sub.trialEndsAt === 'string') notes.push(`Your free trial ends on ${c.f.date(c.sub.trialEndsAt)}, when the first recurring payment of ${c.f.money(num(c.sub.amount))} is charged. Cancel during the trial and nothing is charged.`);
      const consent = consentOf(c);
      // The consent is quoted as the buyer gave it: the payment page is Korean.
      if (consent?.text) notes.push(`Your consent to the recurring charge (${c.f.date(consent.consentedAt)}), as worded on the payment page: "${consent.text}"`);
      notes.push('You can cancel the subscription at any time on the subscription management page.');
      const k = contractNotes(c, 'en');
      return { title: 'Your subscription has started', intro: [`Thank you for subscribing to ${c.name}.`], rows: [...startedRows(c, ['Product', 'Plan', 'Amount paid', 'Billing cycle', 'Next payment', 'Paid at']), ...k.rows], keys: c.keys, links: c.receipt, notes: [...notes, ...k.notes] };
    },
  },
  renewal_receipt: {
    ko: (c) => ({
      title: '정기결제 영수증',
      intro: [`${s(c.i.order?.productName ?? c.d.productName)} 구독이 갱신되었습니다.`],
      rows: [...orderRows(c, ORDER_ROWS_KO), ['이용 기간', `${c.f.date(c.i.order?.periodStart ?? c.d.periodStart)} ~ ${c.f.date(c.i.order?.periodEnd ?? c.d.periodEnd)}`]],
      keys: c.keys,
      links: c.receipt,
      notes: [],
    }),
    en: (c) => ({
      title: 'Receipt for your recurring payment',
      intro: [`Your ${s(c.i.order?.productName ?? c.d.productName)} subscription has been renewed.`],
      rows: [...orderRows(c, ORDER_ROWS_EN), ['Period', `${c.f.date(c.i.order?.periodStart ?? c.d.periodStart)} - ${c.f.date(c.i.order?.periodEnd ?? c.d.periodEnd)}`]],
      keys: c.keys,
      links: c.receipt,
      notes: [],
    }),
  },
  refund_completed: {
    ko: (c) => {
      const refund = (c.d.refund ?? {}) as Record<string, unknown>;
      const o = refundOrder(c);
      return {
        title: '환불이 완료되었습니다',
        intro: [`${s(o?.productName)} 주문의 환불이 처리되었습니다. 카드사 사정에 따라 실제 취소까지 며칠이 걸릴 수 있습니다.`],
        rows: [['환불 금액', c.f.money(num(refund.amount))], ['누적 환불 금액', c.f.money(num(o?.refundedAmount))], ['결제 금액', c.f.money(num(o?.amount))], ['주문 번호', s(o?.id)]],
        links: c.receipt,
        notes: [],
      };
    },
    en: (c) => {
      const refund = (c.d.refund ?? {}) as Record<string, unknown>;
      const o = refundOrder(c);
      return {
        title: 'Your refund is complete',
        intro: [`The refund for your ${s(o?.productName)} order has been processed. Depending on your card issuer, it may take a few days to appear.`],
        rows: [['Refunded', c.f.money(num(refund.amount))], ['Refunded in total', c.f.money(num(o?.refundedAmount))], ['Amount paid', c.f.money(num(o?.amount))], ['Order number', s(o?.id)]],
        links: c.receipt,
        notes: [],
      };
    },
  },
  refund_request_received: {
    ko: (c) => ({
      title: '환불 요청이 접수되었습니다',
      intro: [`${s(c.i.order?.productName)} 주문의 환불 요청을 받았습니다. 판매자가 검토한 뒤 결과를 메일로 알려 드립니다.`],
      rows: [['요청 금액', c.f.money(num(c.d.amount))], ['요청 일시', c.f.date(c.d.requestedAt)], ['사유', s(c.d.reason) || '-'], ['주문 번호', s(c.d.orderId)]],
      links: c.receipt,
      notes: [],
    }),
    en: (c) => ({
      title: 'We received your refund request',
      intro: [`We received your refund request for your ${s(c.i.order?.productName)} order. The seller will review it and let you know the outcome by e-mail.`],
      rows: [['Amount requested', c.f.money(num(c.d.amount))], ['Requested at', c.f.date(c.d.requestedAt)], ['Reason', s(c.d.reason) || '-'], ['Order number', s(c.d.orderId)]],
      links: c.receipt,
      notes: [],
    }),
  },
  refund_request_decided: {
    ko: (c) => {
      const until = cancelRejectedUntil(c);
      if (until) {
        return {
          title: '환불 요청이 거절되었습니다 · 구독은 기간 끝까지 이용할 수 있습니다',
          intro: [
            `판매자가 ${c.name} 구독 해지와 함께 하신 환불 요청을 거절했습니다. 이 요청으로는 환불되지 않습니다.`,
            `구독은 바로 끝나지 않고 ${c.f.date(until)}까지 그대로 이용하실 수 있습니다. 그때 구독이 종료되며, 더는 결제되지 않습니다.`,
          ],
          rows: [
            ['상품', c.name],
            ['요청 금액', c.f.money(num(c.d.amount))],
            ['거절 사유', s(c.d.decisionReason) || '-'],
            ['이용 종료', c.f.date(until)],
            ['주문 번호', s(c.d.orderId)],
          ],
          links: c.receipt,
          notes: ['이용 종료일까지 해지 예약은 그대로 유지되며, 추가 결제는 없습니다. 거절 사유에 대해 궁금한 점은 아래 판매자 고객센터로 문의해 주세요.'],
        };
      }
      const ok = decidedOk(c);
      return {
        title: ok ? '환불 요청이 승인되었습니다' : '환불 요청이 거절되었습니다',
        intro: [ok ? '환불 요청이 승인되어 환불이 진행됩니다.' : '판매자가 환불 요청을 거절했습니다.'],
        rows: [['요청 금액', c.f.money(num(c.d.amount))], ...(ok ? [['승인 금액', c.f.money(num(c.d.approvedAmount ?? c.d.amount))] as [string, string]] : []), ['사유', s(c.d.decisionReason) || '-'], ['주문 번호', s(c.d.orderId)]],
        links: c.receipt,
        notes: ok ? [] : ['궁금한 점은 아래 고객센터로 문의해 주세요.'],
      };
    },
    en: (c) => {
      const until = cancelRejectedUntil(c);
      if (until) {
        return {
          title: 'Your refund request was rejected: the subscription runs to the end of its period',
          intro: [
            `The seller rejected the refund request you made when cancelling your ${c.name} subscription. This request is not refunded.`,
            `The subscription does not end now: you can keep using it until ${c.f.date(until)}. It ends then, and you are not charged again.`,
          ],
          rows: [
            ['Product', c.name],
            ['Amount requested', c.f.money(num(c.d.amount))],
            ['Reason', s(c.d.decisionReason) || '-'],
            ['Access ends', c.f.date(until)],
            ['Order number', s(c.d.orderId)],
          ],
          links: c.receipt,
          notes: ['The cancellation stays scheduled for that date, and there are no further charges. If you have questions about the reason, please contact the seller\'s customer service below.'],
        };
      }
      const ok = decidedOk(c);
      return {
        title: ok ? 'Your refund request was approved' : 'Your refund request was rejected',
        intro: [ok ? 'Your refund request was approved and the refund is under way.' : 'The seller rejected your refund request.'],
        rows: [['Amount requested', c.f.money(num(c.d.amount))], ...(ok ? [['Amount approved', c.f.money(num(c.d.approvedAmount ?? c.d.amount))] as [string, string]] : []), ['Reason', s(c.d.decisionReason) || '-'], ['Order number', s(c.d.orderId)]],
        links: c.receipt,
        notes: ok ? [] : ['If you have any questions, please contact the customer service below.'],
      };
    },
  },
  payment_failed: {
    ko: (c) => ({
      title: '정기결제에 실패했습니다',
      intro: [`${c.name} 구독의 정기결제 ${c.f.money(num(c.sub.amount))}이(가) 승인되지 않았습니다. 아래 구독 관리 페이지에서 카드를 바꿔 주세요.`],
      rows: [['상품', c.name], ['금액', c.f.money(num(c.sub.amount))], ['다음 재시도', c.f.date(c.change.nextRetryAt ?? c.sub.nextRetryAt)]],
      links: c.portal('카드 변경하기'),
      notes: ['링크는 7일 동안 열립니다. 재시도가 모두 실패하면 구독이 종료됩니다.'],
    }),
    en: (c) => ({
      title: 'Your recurring payment failed',
      intro: [`The recurring payment of ${c.f.money(num(c.sub.amount))} for your ${c.name} subscription was declined. Please change your card on the subscription management page below.`],
      rows: [['Product', c.name], ['Amount', c.f.money(num(c.sub.amount))], ['Next retry', c.f.date(c.change.nextRetryAt ?? c.sub.nextRetryAt)]],
      links: c.portal('Change the card'),
      notes: ['The link stays open for 7 days. If every retry fails, the subscription ends.'],
    }),
  },
  cancellation_confirmed: {
    ko: (c) => ({
      title: '구독 해지가 예약되었습니다',
      intro: [`${c.name} 구독이 현재 기간 끝에 해지됩니다. 그때까지 계속 이용하실 수 있고, 더 결제되지 않습니다.`],
      rows: [['상품', c.name], ['이용 종료', c.f.date(c.sub.currentPeriodEnd)]],
      links: c.receipt,
      notes: [],
    }),
    en: (c) => ({
      title: 'Your subscription will be canceled',
      intro: [`Your ${c.name} subscription will be canceled at the end of the current period. You can keep using it until then, and you will not be charged again.`],
      rows: [['Product', c.name], ['Access ends', c.f.date(c.sub.currentPeriodEnd)]],
      links: c.receipt,
      notes: [],
    }),
  },
  subscription_ended: {
    ko: (c) => ({
      title: '구독이 종료되었습니다',
      intro: [`${c.name} 구독이 ${c.f.date(c.sub.endedAt)}에 종료되었습니다.`, END_REASONS.ko[s(c.sub.endReason)] ?? ''].filter(Boolean),
      rows: [['상품', c.name], ['종료 일시', c.f.date(c.sub.endedAt)]],
      links: [],
      notes: [],
    }),
    en: (c) => ({
      title: 'Your subscription has ended',
      intro: [`Your ${c.name} subscription ended on ${c.f.date(c.sub.endedAt)}.`, END_REASONS.en[s(c.sub.endReason)] ?? ''].filter(Boolean),
      rows: [['Product', c.name], ['Ended at', c.f.date(c.sub.endedAt)]],
      links: [],
      notes: [],
    }),
  },
  renewal_upcoming: {
    ko: (c) => {
      const pc = c.change.priceChange as Record<string, unknown> | undefined;
      if (pc && pc.consentRequired === true && pc.accepted !== true) {
        return {
          title: '연간 구독 갱신 안내 · 새 가격 동의가 필요합니다',
          intro: [`${c.name} 연간 구독의 다음 결제일 ${c.f.date(c.change.renewsAt)}부터 가격이 매년 ${c.f.money(num(pc.currentAmount))}에서 매년 ${c.f.money(num(pc.newAmount))}(으)로 바뀝니다.`],
          rows: [['상품', c.name], ['갱신 일자', c.f.date(c.change.renewsAt)], ['새 가격', `매년 ${c.f.money(num(pc.newAmount))}`], ['결제 수단', cardOf(c, '등록한 카드')]],
          links: c.portal('새 가격에 동의하기'),
          notes: [`갱신일 전에 구독 관리 페이지에서 새 가격에 동의해 주세요. 동의하지 않으시면 ${c.f.date(c.change.renewsAt)}에 구독이 종료되며 새 가격으로 결제되지 않습니다.`],
        };
      }
      return ({
      title: '연간 구독 갱신 안내',
      intro: [`${c.name} 연간 구독이 ${c.f.date(c.change.renewsAt)}에 자동 갱신되며 ${c.f.money(num(c.change.amount))}이(가) 결제됩니다.`],
      rows: [['상품', c.name], ['갱신 일자', c.f.date(c.change.renewsAt)], ['결제 예정 금액', c.f.money(num(c.change.amount))]],
      links: c.portal(),
      notes: ['갱신을 원하지 않으면 갱신일 전에 구독 관리 페이지에서 해지하세요.'],
    });
    },
    en: (c) => {
      const pc = c.change.priceChange as Record<string, unknown> | undefined;
      if (pc && pc.consentRequired === true && pc.accepted !== true) {
        return {
          title: 'Your yearly subscription renews soon: your consent to the new price is needed',
          intro: [`From the next payment on ${c.f.date(c.change.renewsAt)}, the price of your yearly ${c.name} subscription changes from ${c.f.money(num(pc.currentAmount))} to ${c.f.money(num(pc.newAmount))} a year.`],
          rows: [['Product', c.name], ['Renewal date', c.f.date(c.change.renewsAt)], ['New price', `Yearly ${c.f.money(num(pc.newAmount))}`], ['Payment method', cardOf(c, 'Your registered card')]],
          links: c.portal('Agree to the new price'),
          notes: [`Please agree to the new price on the subscription management page before the renewal date. If you do not, the subscription ends on ${c.f.date(c.change.renewsAt)} and you are not charged the new price.`],
        };
      }
      return ({
      title: 'Your yearly subscription renews soon',
      intro: [`Your yearly ${c.name} subscription renews automatically on ${c.f.date(c.change.renewsAt)}, and ${c.f.money(num(c.change.amount))} will be charged.`],
      rows: [['Product', c.name], ['Renewal date', c.f.date(c.change.renewsAt)], ['Amount to be charged', c.f.money(num(c.change.amount))]],
      links: c.portal(),
      notes: ['If you do not want it to renew, cancel on the subscription management page before the renewal date.'],
    });
    },
  },
  trial_will_end: {
    ko: (c) =>
      c.change.consentRequired === true
        ? {
            title: '무료 체험 종료 안내 · 유료 전환 동의가 필요합니다',
            intro: [`${c.name} 무료 체험이 ${c.f.date(c.change.trialEndsAt)}에 끝납니다. 체험 기간이 30일보다 길어 유료 전환에 다시 동의해 주셔야 결제가 시작됩니다.`],
            rows: [['상품', c.name], ['첫 결제일', c.f.date(c.change.trialEndsAt)], ['결제 금액', c.f.money(num(c.change.amount))], ['결제 주기', c.f.cycle[s(c.change.interval)] ?? '-']],
            links: c.portal('유료 전환에 동의하기'),
            notes: ['체험이 끝나기 전까지 구독 관리 페이지에서 동의하지 않으시면 결제되지 않고 체험 종료와 함께 구독이 종료됩니다.'],
          }
        : ({
      title: '무료 체험 종료 및 첫 결제 안내',
      intro: [`${c.name} 무료 체험이 ${c.f.date(c.change.trialEndsAt)}에 끝나고, 그때 첫 정기결제 ${c.f.money(num(c.change.amount))}이(가) 이루어집니다.`],
      rows: [['상품', c.name], ['첫 결제일', c.f.date(c.change.trialEndsAt)], ['결제 금액', c.f.money(num(c.change.amount))], ['결제 주기', c.f.cycle[s(c.change.interval)] ?? '-']],
      links: c.portal(),
      notes: ['결제를 원하지 않으면 체험이 끝나기 전에 구독 관리 페이지에서 해지하세요. 체험 중 해지하면 결제되지 않습니다.'],
    }),
    en: (c) =>
      c.change.consentRequired === true
        ? {
            title: 'Your free trial ends: please confirm the first payment',
            intro: [`Your ${c.name} free trial ends on ${c.f.date(c.change.trialEndsAt)}. As the trial is longer than 30 days, the first payment is only charged if you confirm it again.`],
            rows: [['Product', c.name], ['First payment', c.f.date(c.change.trialEndsAt)], ['Amount', c.f.money(num(c.change.amount))], ['Billing cycle', c.f.cycle[s(c.change.interval)] ?? '-']],
            links: c.portal('Confirm the paid subscription'),
            notes: ['If you do not confirm on the subscription management page before the trial ends, nothing is charged and the subscription ends with the trial.'],
          }
        : ({
      title: 'Your free trial ends: first payment notice',
      intro: [`Your ${c.name} free trial ends on ${c.f.date(c.change.trialEndsAt)}, when the first recurring payment of ${c.f.money(num(c.change.amount))} is charged.`],
      rows: [['Product', c.name], ['First payment', c.f.date(c.change.trialEndsAt)], ['Amount', c.f.money(num(c.change.amount))], ['Billing cycle', c.f.cycle[s(c.change.interval)] ?? '-']],
      links: c.portal(),
      notes: ['If you do not want to be charged, cancel on the subscription management page before the trial ends. Cancel during the trial and nothing is charged.'],
    }),
  },
  price_change_scheduled: {
    // This buyer's own dates: `decideBy` is the renewal that first charges the new price (for a yearly buyer, up to a
    // year after the plan's date) and, without consent, the day the subscription ends; `effectiveAt` only says from
    // when the new price applies to them.
    ko: (c) => {
      const cyc = c.f.cycle[s(c.change.billingInterval) || s(c.sub.billingInterval)] ?? '';
      const up = c.change.consentRequired !== false;
      return {
        title: up ? '구독 가격 변경 안내 (동의 필요)' : '구독 가격 인하 안내',
        intro: [`${c.name} 구독 가격이 ${cyc} ${c.f.money(num(c.change.currentAmount))}에서 ${cyc} ${c.f.money(num(c.change.newAmount))}(으)로 바뀝니다. 이 구독에는 ${c.f.date(c.change.decideBy)} 결제부터 적용됩니다.`],
        rows: [
          ['현재 가격', `${cyc} ${c.f.money(num(c.change.currentAmount))}`],
          ['새 가격', `${cyc} ${c.f.money(num(c.change.newAmount))}`],
          ['새 가격 첫 결제일', c.f.date(c.change.decideBy)],
          ['결제 수단', cardOf(c, '등록한 카드')],
          ...(up ? ([['동의 기한', `${c.f.date(c.change.decideBy)} 전까지`]] as Array<[string, string]>) : []),
        ],
        links: c.portal(up ? '새 가격에 동의하기' : undefined),
        notes: up
          ? [`구독 관리 페이지에서 새 가격에 동의해 주세요. 동의하지 않으시면 ${c.f.date(c.change.decideBy)}까지 지금 가격으로 이용하신 뒤 그날 구독이 종료되며, 새 가격으로 결제되지 않습니다. 링크는 동의 기한까지 열립니다.`]
          : ['따로 하실 일은 없습니다.'],
      };
    },
    en: (c) => {
      const cyc = c.f.cycle[s(c.change.billingInterval) || s(c.sub.billingInterval)] ?? '';
      const up = c.change.consentRequired !== false;
      return {
        title: up ? 'Subscription price change (your consent is needed)' : 'Your subscription price goes down',
        intro: [`The price of your ${c.name} subscription changes from ${cyc} ${c.f.money(num(c.change.currentAmount))} to ${cyc} ${c.f.money(num(c.change.newAmount))}. For your subscription it applies from the payment on ${c.f.date(c.change.decideBy)}.`],
        rows: [
          ['Current price', `${cyc} ${c.f.money(num(c.change.currentAmount))}`],
          ['New price', `${cyc} ${c.f.money(num(c.change.newAmount))}`],
          ['First payment at the new price', c.f.date(c.change.decideBy)],
          ['Payment method', cardOf(c, 'Your registered card')],
          ...(up ? ([['Agree by', `before ${c.f.date(c.change.decideBy)}`]] as Array<[string, string]>) : []),
        ],
        links: c.portal(up ? 'Agree to the new price' : undefined),
        notes: up
          ? [`Please agree to the new price on the subscription management page. If you do not, you keep the current price until ${c.f.date(c.change.decideBy)}, when the subscription ends; you are not charged the new price. The link stays open until then.`]
          : ['There is nothing you need to do.'],
      };
    },
  },
  plan_change_offered: {
    ko: (c) => {
      const from = (c.change.from ?? {}) as Record<string, unknown>;
      const to = (c.change.to ?? {}) as Record<string, unknown>;
      const side = (x: Record<string, unknown>) => `${s(x.planName) || s(x.planId)} · ${c.f.cycle[s(x.billingInterval)] ?? ''} ${c.f.money(num(x.amount))}`;
      return {
        title: '요금제 변경 동의 요청',
        intro: [`판매자가 ${c.name} 구독의 요금제 변경을 제안했습니다. 동의하시기 전에는 아무것도 바뀌지 않고 결제되지 않습니다.`],
        rows: [
          ['지금 요금제', side(from)],
          ['제안된 요금제', side(to)],
          ['적용 시점', c.change.timing === 'now' ? '동의하는 즉시 (남은 기간의 차액이 그때 결제됩니다)' : `다음 결제일 ${c.f.date(c.sub.currentPeriodEnd)}부터`],
          ['결제 수단', c.sub.card ? `${s((c.sub.card as Record<string, unknown>).brand) || '카드'} ${s((c.sub.card as Record<string, unknown>).last4)}` : '등록한 카드'],
          ['동의 기한', c.f.date(c.change.deadline)],
        ],
        links: c.portal('변경 내용 확인하고 동의·거절하기'),
        notes: [`동의 기한까지 동의하지 않으시면 제안은 취소되고 지금 요금제와 가격이 그대로 유지됩니다. 링크는 동의 기한까지 열립니다.`],
      };
    },
    en: (c) => {
      const from = (c.change.from ?? {}) as Record<string, unknown>;
      const to = (c.change.to ?? {}) as Record<string, unknown>;
      const side = (x: Record<string, unknown>) => `${s(x.planName) || s(x.planId)} · ${c.f.cycle[s(x.billingInterval)] ?? ''} ${c.f.money(num(x.amount))}`;
      return {
        title: 'A plan change needs your consent',
        intro: [`The seller proposes a plan change for your ${c.name} subscription. Nothing changes and nothing is charged unless you agree.`],
        rows: [
          ['Current plan', side(from)],
          ['Proposed plan', side(to)],
          ['Takes effect', c.change.timing === 'now' ? 'When you agree (the difference for the rest of the period is charged then)' : `From the next payment on ${c.f.date(c.sub.currentPeriodEnd)}`],
          ['Payment method', c.sub.card ? `${s((c.sub.card as Record<string, unknown>).brand) || 'Card'} ${s((c.sub.card as Record<string, unknown>).last4)}` : 'Your registered card'],
          ['Agree by', c.f.date(c.change.deadline)],
        ],
        links: c.portal('Review and agree or decline'),
        notes: ['If you do not agree by the deadline, the proposal lapses and your current plan and price stay as they are. The link stays open until the deadline.'],
      };
    },
  },
  price_change_accepted: {
    ko: (c) => ({
      title: '새 가격 동의가 확인되었습니다',
      intro: [`${c.name} 구독의 새 가격 ${c.f.money(num(c.change.newAmount))}에 동의하셨습니다. 적용일 이후 갱신부터 새 가격으로 결제됩니다.`],
      rows: [['새 가격', c.f.money(num(c.change.newAmount))], ['적용일', c.f.date(c.change.effectiveAt)]],
      links: [],
      notes: [],
    }),
    en: (c) => ({
      title: 'Your consent to the new price is confirmed',
      intro: [`You agreed to the new price of ${c.f.money(num(c.change.newAmount))} for your ${c.name} subscription. Renewals from the effective date on are charged at the new price.`],
      rows: [['New price', c.f.money(num(c.change.newAmount))], ['Effective from', c.f.date(c.change.effectiveAt)]],
      links: [],
      notes: [],
    }),
  },
};

/** The content of each kind in the mail's language, from what the event said and what the mail read at send time. */
function content(i: RenderInput, lang: MailLang): Content {
  const sub = i.subscription ?? {};
  const words = COMMON[lang];
  const ctx: Ctx = {
    i,
    d: i.data,
    sub,
    change: (i.data.change ?? {}) as Record<string, unknown>,
    name: s(sub.productName) || s(i.order?.productName),
    f: FMT[lang],
    receipt: i.order ? [[words.receipt, receiptLink(i.order.receiptUrl, lang)]] : [],
    keys: keysOf(i.order),
    portal: (label = words.portal) => (i.portalUrl ? [[label, i.portalUrl]] : []),
  };
  return COPY[i.kind][lang](ctx);
}

const STYLE =
  'body{margin:0;padding:0;background:#f5f5f7;font-family:-apple-system,BlinkMacSystemFont,"Apple SD Gothic Neo","Malgun Gothic",sans-serif;color:#1d1d1f}' +
  '.wrap{max-width:560px;margin:0 auto;padding:24px 16px}.card{background:#fff;border-radius:12px;padding:24px}' +
  'h1{font-size:20px;margin:0 0 16px}table{width:100%;border-collapse:collapse;margin:16px 0}th{text-align:left;color:#6e6e73;font-weight:normal;padding:6px 8px 6px 0;width:35%;vertical-align:top}' +
  'td{padding:6px 0;overflow-wrap:anywhere}.keys code{display:block;background:#f5f5f7;padding:8px;border-radius:6px;margin:4px 0;font-size:14px}' +
  'a.btn{display:inline-block;margin:4px 0;color:#0066cc}.notes{color:#424245;font-size:14px}.biz{color:#6e6e73;font-size:12px;margin-top:16px}';

/** Renders one mail: subject, HTML and its plain-text alternative. */
export function renderMail(i: RenderInput): RenderedMail {
  const lang: MailLang = i.lang === 'en' ? 'en' : 'ko';
  const c = content(i, lang);
  const subject = `[${i.storeName}] ${c.title}`;
  const keys = c.keys ?? [];
  const text = [
    c.title,
    '',
    ...c.intro,
    '',
    ...c.rows.map(([k, v]) => `${k}: ${v}`),
    ...(keys.length ? ['', `${COMMON[lang].keys}:`, ...keys.map((k) => `  ${k}`)] : []),
    ...(c.links.length ? ['', ...c.links.map(([k, v]) => `${k}: ${v}`)] : []),
    ...(c.notes.length ? ['', ...c.notes] : []),
    '',
    '--',
    ...footerText(i.storeName, i.business, lang),
    '',
  ].join('\n');
  const body: SafeHtml = html`<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${subject}</title><style>${raw(STYLE)}</style></head>
<body><div class="wrap"><div class="card">
<p>${i.storeName}</p>
<h1>${c.title}</h1>
${c.intro.map((p) => html`<p>${p}</p>`)}
<table>${c.rows.map(([k, v]) => html`<tr><th>${k}</th><td>${v}</td></tr>`)}</table>
${keys.length ? html`<div class="keys"><p><strong>${COMMON[lang].keys}</strong></p>${keys.map((k) => html`<code>${k}</code>`)}</div>` : ''}
${c.links.map(([k, v]) => html`<p><a class="btn" href="${v}">${k}</a></p>`)}
${c.notes.length ? html`<div class="notes">${c.notes.map((n) => html`<p>${n}</p>`)}</div>` : ''}
</div>
${storeFooter(i.storeName, i.business, lang)}
</div></body></html>`;
  return { subject, text, html: body.value };
}

function footerText(storeName: string, b: BusinessDetailsView | null, lang: MailLang): string[] {
  const l = FOOTER_LABELS[lang];
  if (!b) return [`${l.seller}: ${storeName}`, l.missing];
  return [
    `${b.companyName} · ${l.representative} ${b.representative}`,
    `${l.businessNumber} ${b.businessNumber} · ${l.mailOrderNumber} ${b.mailOrderNumber}`,
    b.address,
    `${l.support} ${[b.supportPhone, b.supportEmail].filter(Boolean).join(' · ')}`,
  ];
}
