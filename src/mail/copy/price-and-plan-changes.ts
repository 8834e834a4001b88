/**
 * The copy of the mails about a change the seller makes to what a subscription costs: a plan price change scheduled
 * (an increase asks for consent), a seller's plan change offered for consent, and the buyer's consent to a new price.
 */
import { answerLinks, cardOf, num, s, type CopyTable } from './kit';


export const CHANGE_COPY: CopyTable<'price_change_scheduled' | 'plan_change_offered' | 'price_change_accepted'> = {
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
        links: up ? answerLinks(c, s(c.change.priceChangeId), ['새 가격에 동의하기', `거절하기 (${c.f.date(c.change.decideBy)}에 구독 종료, 결제 없음)`]) : c.portal(),
        notes: up
          ? [`구독 관리 페이지에서 새 가격에 동의하거나 거절할 수 있습니다. 거절하거나 동의하지 않으시면 ${c.f.date(c.change.decideBy)}까지 지금 가격으로 이용하신 뒤 그날 구독이 종료되며, 새 가격으로 결제되지 않습니다. 링크는 동의 기한까지 열립니다.`]
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
        links: up ? answerLinks(c, s(c.change.priceChangeId), ['Agree to the new price', `Decline (the subscription ends on ${c.f.date(c.change.decideBy)}, nothing charged)`]) : c.portal(),
        notes: up
          ? [`You can agree to or decline the new price on the subscription management page. If you decline or do not agree, you keep the current price until ${c.f.date(c.change.decideBy)}, when the subscription ends; you are not charged the new price. The link stays open until then.`]
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
