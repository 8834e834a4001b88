/**
 * The contract confirmation's notes (전자상거래법 제13조②) for the order-confirmation and subscription-started mails,
 * from the order's terms as sold.
 */
import { ownValue } from '../../platform/lookup';
import { methodLabel } from '../../pages/form';
import type { MailLang } from '../render-input';
import { at, num, type Ctx } from './kit';

const DAY_MS = 86_400_000;

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
  const EN_METHODS: Record<string, string> = { card: 'Credit/debit card', kakao_pay: 'KakaoPay', naver_pay: 'Naver Pay', toss: 'Toss Pay' };
  const rows: Array<[string, string]> = [[ko ? '결제 수단' : 'Payment method', ko ? methodLabel(o.method) : (ownValue(EN_METHODS, o.method) ?? o.method)]];
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
