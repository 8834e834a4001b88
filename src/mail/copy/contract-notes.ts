/**
 * The contract confirmation's notes (전자상거래법 제13조②) for the order-confirmation and subscription-started mails,
 * from the order's terms as sold.
 */
import { ownValue } from '../../platform/lookup';
import { methodLabel } from '../../pages/form';
import { WINDOW_END_TEXT } from '../../pages/receipt/copy';
import { withdrawalWindowEnd } from '../../platform/calendar';
import type { MailLang } from '../render-input';
import { at, num, type Ctx } from './kit';
import { firstRecurring, isLongTrial } from './recurring-price';

/**
 * What 전자상거래법 제13조② asks the contract confirmation to carry, for the order-confirmation and
 * subscription-started mails, from the order's terms as sold (never the live product): the payment method, the
 * withdrawal right (period, how, effect, no penalty; the use restriction when it was validly marked), the recurring
 * terms of a subscription (amount and cycle as sold, next charge = the order's period end, as in the consent, how to
 * cancel), and complaint and dispute handling. The seller's identity is the footer (사업자 정보).
 */
export function contractNotes(c: Ctx, lang: MailLang): { rows: Array<[string, string]>; notes: string[] } {
  const o = c.i.order;
  const terms = c.i.sold?.terms ?? null;
  if (!o) return { rows: [], notes: [] };
  const ko = lang === 'ko';
  const EN_METHODS: Record<string, string> = {
    card: 'Credit/debit card', kakao_pay: 'KakaoPay', naver_pay: 'Naver Pay', toss: 'Toss Pay', transfer: 'Bank transfer', virtual_account: 'Virtual account (bank deposit)',
    mobile_phone: 'Mobile phone billing', culture_gift: 'Culture gift certificate', book_gift: 'Book gift certificate', game_gift: 'Game gift certificate',
    foreign_card: 'Card issued abroad', paypal: 'PayPal',
  };
  const rows: Array<[string, string]> = [[ko ? '결제 수단' : 'Payment method', ko ? methodLabel(o.method) : (ownValue(EN_METHODS, o.method) ?? o.method)]];
  const notes: string[] = [];
  if (terms) {
    const days = Math.max(7, terms.refundDays);
    const paid = at(o.paidAt) ?? new Date();
    // The receipt's deadline, from the same instant and written the same way (24:00 KST of the last day, rolled to a
    // business day): a mail that ends the right earlier than the receipt misstates a statutory right (제17조).
    const endText = WINDOW_END_TEXT[lang](withdrawalWindowEnd(paid, terms.refundDays));
    const end = ko ? `${endText} KST` : endText;
    notes.push(
      ko
        ? `청약철회: 결제일로부터 ${days}일 이내(${end}까지) 청약철회(환불)를 요청하면 결제 금액 전액을 환불받을 수 있으며 위약금은 없습니다. 영수증의 ‘환불 요청하기’나 판매자 고객센터로 요청하면, 판매자는 요청을 받은 날부터 3영업일 이내에 환불합니다.`
        : `Withdrawal: within ${days} days of payment (until ${end}) you may withdraw and get the full amount back, with no penalty. Ask through “Request a refund” on the receipt or the seller's customer service; the seller refunds within 3 business days of the request.`,
    );
    if (o.billingInterval) {
      // A withdrawal voids the contract (src/subscriptions/cancel/withdrawal.ts): the buyer must know that exercising
      // the right also ends the subscription and that nothing is charged on it afterwards.
      notes.push(
        ko
          ? '구독 상품을 청약철회하면 환불과 함께 구독이 바로 종료되며, 이후에는 정기결제가 이루어지지 않습니다.'
          : 'Withdrawing from a subscription ends the subscription at once with the refund; nothing is charged on it afterwards.',
      );
    }
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
    const r = firstRecurring(listed ?? num(c.sub.amount), o.periodEnd, c.i.priceSchedule ?? null);
    const first = c.f.date(o.periodEnd);
    const cyc = (n: number) => `${c.f.cycle[iv]} ${c.f.money(n)}`;
    // A price change scheduled before the buyer paid: both prices and the date side by side, and the first charge as
    // it will be made (제13조의2: no price revealed step by step).
    if (r.changed) {
      rows.push([ko ? '지금 가격' : 'Price now', cyc(r.amount)]);
      rows.push([ko ? `${first} 결제부터` : `From the payment on ${first}`, cyc(r.firstAmount)]);
    } else if (r.later) {
      const from = c.f.date(r.later.from);
      rows.push([ko ? '정기결제 금액' : 'Recurring amount', cyc(r.amount)]);
      rows.push([ko ? `${from} 결제부터` : `From the payment on ${from}`, cyc(r.later.amount)]);
    } else {
      rows.push([ko ? '정기결제 금액' : 'Recurring amount', cyc(r.amount)]);
    }
    const firstLine = isLongTrial(c.sub)
      ? ko
        ? `첫 정기결제(${first}, ${c.f.money(r.firstAmount)})는 체험 종료 30일 전부터 요청하는 유료 전환 동의를 다시 받은 경우에만 이루어지며, 다시 동의하지 않으면 결제 없이 체험 종료와 함께 구독이 종료됩니다.`
        : `The first recurring payment (${c.f.money(r.firstAmount)} on ${first}) is made only if you confirm the paid subscription again when asked, from 30 days before the trial ends; without that, the subscription ends with the trial and nothing is charged.`
      : r.endsAt
      ? ko
        ? `예정된 가격 인상에 ${first} 전까지 구독 관리 페이지에서 동의하지 않으면 그날 결제 없이 구독이 종료됩니다.`
        : `Unless you agree to the scheduled price increase on the subscription management page before ${first}, the subscription ends then without a charge.`
      : ko
        ? `첫 정기결제는 ${first}에 ${c.f.money(r.firstAmount)}입니다.${r.changed ? ` 예정된 가격 변경에 따라 지금 가격 ${c.f.money(r.amount)}이 아닌 ${c.f.money(r.firstAmount)}이 결제됩니다.` : ''}${r.later ? ` ${c.f.date(r.later.from)} 결제부터는 예정된 가격 변경에 따라 ${c.f.money(r.later.amount)}이 결제됩니다.` : ''}`
        : `The first recurring payment is ${c.f.money(r.firstAmount)} on ${first}.${r.changed ? ` Under the price change already scheduled, ${c.f.money(r.firstAmount)} is charged, not the current ${c.f.money(r.amount)}.` : ''}${r.later ? ` From the payment on ${c.f.date(r.later.from)}, the scheduled price change makes it ${c.f.money(r.later.amount)}.` : ''}`;
    notes.push(
      ko
        ? `정기결제: 해지하기 전까지 ${c.f.cycle[iv]} 다음 결제일에 등록한 카드로 자동 결제됩니다. ${firstLine} 구독 관리 페이지에서 언제든 해지할 수 있고, 해지하면 다음 결제일부터 결제되지 않습니다.`
        : `Recurring payment: until you cancel, your registered card is charged ${iv === 'monthly' ? 'every month' : 'every year'} on the payment date. ${firstLine} Cancel at any time on the subscription management page; payments stop from the next payment date.`,
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
