/**
 * The copy of the mails along a subscription's life after it started: a failed recurring payment, a cancellation
 * scheduled, the end (and why), the yearly renewal notice (with a price increase awaiting consent) and the trial's end.
 */
import { answerLinks, cardOf, num, s, type CopyTable } from './kit';
import type { MailLang } from '../render-input';

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

export const LIFECYCLE_COPY: CopyTable<'payment_failed' | 'cancellation_confirmed' | 'subscription_ended' | 'renewal_upcoming' | 'trial_will_end'> = {
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
          links: answerLinks(c, s(pc.priceChangeId), ['새 가격에 동의하기', `거절하기 (${c.f.date(c.change.renewsAt)}에 구독 종료, 결제 없음)`]),
          notes: [`갱신일 전에 구독 관리 페이지에서 새 가격에 동의하거나 거절할 수 있습니다. 거절하거나 동의하지 않으시면 ${c.f.date(c.change.renewsAt)}에 구독이 종료되며 새 가격으로 결제되지 않습니다.`],
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
          links: answerLinks(c, s(pc.priceChangeId), ['Agree to the new price', `Decline (the subscription ends on ${c.f.date(c.change.renewsAt)}, nothing charged)`]),
          notes: [`You can agree to or decline the new price on the subscription management page before the renewal date. If you decline or do not agree, the subscription ends on ${c.f.date(c.change.renewsAt)} and you are not charged the new price.`],
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
};
