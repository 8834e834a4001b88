/**
 * The copy of the refund mails: a refund made, a refund request received, and a request decided (approved, rejected,
 * or rejected with a portal cancel, when the subscription runs to its period end).
 */
import type { OrderView } from '../../orders/schemas';
import { num, s, type Ctx, type CopyTable } from './kit';

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
 * What happens to a request and by when, as the refund engine will do it: a statutory one is approved automatically
 * (제18조); a portal cancel's request is decided by the seller's deadline or approved then (cancelDecisionDeadline in
 * src/refunds/requests/model.ts), and the subscription follows: approved, it ends; rejected, it runs to its period end.
 */
function requestOutcome(c: Ctx, lang: 'ko' | 'en'): string[] {
  const at = s(c.d.autoApproveAt);
  const cancel = s(c.d.source) === 'subscription_cancel';
  const end = s(c.sub.currentPeriodEnd);
  const out: string[] = [];
  if (at && c.d.statutory) {
    out.push(lang === 'ko' ? `법정 청약철회 기간 안의 요청이라 판매자가 거절할 수 없으며, 그 전에 처리되지 않으면 ${c.f.date(at)}에 자동으로 승인되어 환불됩니다.` : `It was made within the statutory withdrawal period, so the seller cannot reject it; unless handled sooner, it is approved and refunded automatically at ${c.f.date(at)}.`);
  } else if (at && cancel) {
    out.push(lang === 'ko' ? `판매자는 ${c.f.date(at)}까지 결정해야 하며, 그때까지 결정하지 않으면 요청이 자동으로 승인되어 환불됩니다.` : `The seller must decide by ${c.f.date(at)}; if they have not, the request is approved and refunded automatically then.`);
  }
  if (cancel) {
    out.push(
      lang === 'ko'
        ? `구독 해지와 함께 한 요청입니다. 결정될 때까지 구독을 그대로 이용할 수 있고 더는 결제되지 않습니다. 승인되면 그때 구독이 종료되고${end ? `, 거절되면 환불 없이 ${c.f.date(end)}까지 이용한 뒤 종료됩니다` : ''}.`
        : `It came with your subscription cancellation. Until it is decided you keep the subscription and are not charged again. Approved, the subscription ends then${end ? `; rejected, you keep it without a refund until ${c.f.date(end)}, when it ends` : ''}.`,
    );
  }
  return out;
}

export const REFUND_COPY: CopyTable<'refund_completed' | 'refund_request_received' | 'refund_request_decided'> = {
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
      rows: [
        ['요청 금액', c.f.money(num(c.d.amount))],
        ['요청 일시', c.f.date(c.d.requestedAt)],
        ...(s(c.d.autoApproveAt) ? ([[c.d.statutory ? '자동 승인' : '판매자 결정 기한', c.f.date(c.d.autoApproveAt)]] as Array<[string, string]>) : []),
        ['사유', s(c.d.reason) || '-'],
        ['주문 번호', s(c.d.orderId)],
      ],
      links: c.receipt,
      notes: requestOutcome(c, 'ko'),
    }),
    en: (c) => ({
      title: 'We received your refund request',
      intro: [`We received your refund request for your ${s(c.i.order?.productName)} order. The seller will review it and let you know the outcome by e-mail.`],
      rows: [
        ['Amount requested', c.f.money(num(c.d.amount))],
        ['Requested at', c.f.date(c.d.requestedAt)],
        ...(s(c.d.autoApproveAt) ? ([[c.d.statutory ? 'Approved automatically at' : "Seller's deadline", c.f.date(c.d.autoApproveAt)]] as Array<[string, string]>) : []),
        ['Reason', s(c.d.reason) || '-'],
        ['Order number', s(c.d.orderId)],
      ],
      links: c.receipt,
      notes: requestOutcome(c, 'en'),
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
};
