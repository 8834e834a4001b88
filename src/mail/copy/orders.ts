/**
 * The copy of the mails that confirm a payment: a one-time order, a subscription's first order (with the recurring
 * consent) and a renewal's receipt.
 */
import { contractNotes } from './contract-notes';
import { firstRecurring, isLongTrial } from './recurring-price';
import { num, orderRows, ORDER_ROWS_EN, ORDER_ROWS_KO, s, type Ctx, type CopyTable } from './kit';

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

/**
 * The trial's end. A trial of 30 days or less converts on the checkout's consent; a longer one needs a fresh consent
 * asked from 30 days before its end (시행령 제20조의2; src/subscriptions/trials/consent.ts) and ends unpaid without
 * it, so its mail says so instead of promising the first charge.
 */
function trialNote(c: Ctx, lang: 'ko' | 'en'): string {
  const end = c.f.date(c.sub.trialEndsAt);
  const amount = c.f.money(firstRecurring(num(c.sub.amount), c.sub.trialEndsAt as string, c.i.priceSchedule ?? null).firstAmount);
  if (isLongTrial(c.sub)) {
    return lang === 'ko'
      ? `무료 체험이 ${end}에 끝납니다. 체험 기간이 30일보다 길어, 체험 종료 30일 전부터 유료 전환 동의를 다시 요청합니다(메일과 구독 관리 페이지). 체험 종료 전까지 다시 동의하면 그때 첫 정기결제 ${amount}이(가) 이루어지고, 동의하지 않으면 결제 없이 체험 종료와 함께 구독이 종료됩니다.`
      : `Your free trial ends on ${end}. As it is longer than 30 days, we will ask you again to confirm the paid subscription from 30 days before it ends (by mail and on the subscription management page). If you confirm before the trial ends, the first recurring payment of ${amount} is charged then; if not, the subscription ends with the trial and nothing is charged.`;
  }
  return lang === 'ko'
    ? `무료 체험이 ${end}에 끝나며, 그때 첫 정기결제 ${amount}이(가) 이루어집니다. 체험 기간 중 해지하면 결제되지 않습니다.`
    : `Your free trial ends on ${end}, when the first recurring payment of ${amount} is charged. Cancel during the trial and nothing is charged.`;
}

const consentOf = (c: Ctx) => c.sub.recurringConsent as { text?: string; consentedAt?: string } | null | undefined;

export const ORDER_COPY: CopyTable<'order_confirmation' | 'subscription_started' | 'renewal_receipt'> = {
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
      if (typeof c.sub.trialEndsAt === 'string') notes.push(trialNote(c, 'ko'));
      const consent = consentOf(c);
      if (consent?.text) notes.push(`정기결제 동의 (${c.f.date(consent.consentedAt)}): ${consent.text}`);
      notes.push('구독은 언제든 구독 관리 페이지에서 해지할 수 있습니다.');
      const k = contractNotes(c, 'ko');
      return { title: '구독이 시작되었습니다', intro: [`${c.name} 구독을 시작해 주셔서 감사합니다.`], rows: [...startedRows(c, ['상품', '플랜', '결제 금액', '결제 주기', '다음 결제일', '결제 일시']), ...k.rows], keys: c.keys, links: c.receipt, notes: [...notes, ...k.notes] };
    },
    en: (c) => {
      const notes: string[] = [];
      if (typeof c.sub.trialEndsAt === 'string') notes.push(trialNote(c, 'en'));
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
};
