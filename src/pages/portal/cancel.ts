/**
 * The buyer portal's cancel routes: cancel at the period end or now (with the refund, or the parts of it that wait
 * for the seller or for the statutory automatic approval, each named), and undo a scheduled cancel.
 */
import type { App, AppDeps } from '../../deps';
import { cancelSubscription, pendingCancelParts, undoScheduledCancel, type PendingCancelPart } from '../../subscriptions/cancel/service';
import { getBusinessDetails } from '../../stores/service';
import { kstDate } from '../../platform/calendar';
import { sendPage as page } from '../token-pages';
import { kst, won } from '../html';
import { portalDone } from './views';
import { findPendingRefundRequest } from '../repo';
import { storeNameOf, type PortalAccess, type SubParams } from './access';

export function portalCancelRoutes(app: App, deps: AppDeps, { guard, refuse, back, failed }: PortalAccess, opts: { schema: { hide: boolean } }): void {
  app.post<SubParams>('/portal/:token/subscriptions/:subscriptionId/cancel', opts, async (req, reply) => {
    const g = await guard(req.params.token, req.params.subscriptionId, req.body, req.headers.origin);
    if ('error' in g) return refuse(reply, g.error!);
    const timing = (req.body as Record<string, unknown>).timing;
    if (timing !== 'period_end' && timing !== 'immediate') return refuse(reply, 403);
    const s = g.session!;
    try {
      const r = await cancelSubscription(deps, { storeId: s.store_id, mode: s.mode, productIds: s.product_ids }, g.sub!.id, { timing, reason: '구매자 포털에서 해지' }, 'buyer');
      const storeName = await storeNameOf(deps, s.store_id);
      if (timing === 'immediate' && r.subscription.status !== 'ended') {
        // The refund waits (in part) for the seller: the service runs until the decision. Name every part.
        const parts = await pendingCancelParts(deps.db, g.sub!.id);
        return page(reply, 200, portalDone({ storeName, mode: s.mode, title: '해지 요청이 접수되었습니다', message: cancelPendingMessage(r.subscription.currentPeriodEnd), parts: cancelParts(r.refundAmount, parts, r.subscription.currentPeriodEnd), portalPath: `/portal/${req.params.token}`, returnUrl: s.return_url, business: await getBusinessDetails(deps.db, s.store_id) }));
      }
      const requested = timing === 'immediate' && r.refundAmount === 0 ? await pendingRequestAmount(deps, g.sub!.id) : null;
      const message =
        timing === 'period_end'
          ? `${new Date(r.subscription.currentPeriodEnd).toLocaleDateString('ko-KR', { timeZone: 'Asia/Seoul' })}까지 이용할 수 있고, 그 뒤로는 결제되지 않습니다.`
          : r.refundAmount > 0
            ? `구독이 해지되었고 ${won(r.refundAmount)}이 환불되었습니다. 카드사 사정에 따라 환불 반영까지 영업일 기준 3~5일이 걸릴 수 있습니다.`
            : requested !== null
              ? `구독이 해지되었습니다. 환불 요청(${won(requested)})이 접수되어 판매자 확인 후 환불됩니다.`
              : '구독이 해지되었습니다.';
      return page(reply, 200, portalDone({ storeName, mode: s.mode, title: timing === 'period_end' ? '해지가 예약되었습니다' : '구독이 해지되었습니다', message, portalPath: `/portal/${req.params.token}`, returnUrl: s.return_url, business: await getBusinessDetails(deps.db, s.store_id) }));
    } catch (err) {
      return failed(reply, req.params.token, err);
    }
  });

  app.post<SubParams>('/portal/:token/subscriptions/:subscriptionId/resume', opts, async (req, reply) => {
    const g = await guard(req.params.token, req.params.subscriptionId, req.body, req.headers.origin);
    if ('error' in g) return refuse(reply, g.error!);
    try {
      await undoScheduledCancel(deps, g.sub!.id);
      return reply.redirect(back(req.params.token, { notice: '해지 예약을 취소했습니다. 구독이 계속 유지됩니다.' }), 303);
    } catch (err) {
      return failed(reply, req.params.token, err);
    }
  });
}

/** `2027년 4월 27일` (KST). */
function koDate(t: Date | string): string {
  const [y, m, d] = kstDate(new Date(t)).split('-').map(Number);
  return `${y}년 ${m}월 ${d}일`;
}

function cancelPendingMessage(periodEnd: string): string {
  return `판매자가 환불 요청을 결정할 때까지 구독은 그대로 이용할 수 있고, 더는 결제되지 않습니다. 승인되면(기한까지 결정하지 않아 자동 승인되어도) 그때 구독이 종료되고, 거절되면 ${koDate(periodEnd)}까지 이용한 뒤 종료됩니다. 접수 확인과 결정은 메일로 알려 드립니다.`;
}

/** Each part of the cancel: refunded at once, approved automatically by a date (statutory), or waiting for the seller. */
function cancelParts(refundedNow: number, parts: PendingCancelPart[], periodEnd: string): Array<{ label: string; amount: number; note: string }> {
  const out: Array<{ label: string; amount: number; note: string }> = [];
  out.push(
    refundedNow > 0
      ? { label: '즉시 환불', amount: refundedNow, note: '지금 환불되었습니다.' }
      : { label: '즉시 환불', amount: 0, note: '지금 바로 환불되는 금액은 없습니다. 아래 요청이 승인되는 대로 결제한 카드로 환불됩니다.' },
  );
  for (const p of parts) {
    if (p.statutory) {
      const by = p.autoApproveAt ? `${koDate(p.autoApproveAt)} 정오(12시)까지` : '영업일 3일 안에';
      out.push({ label: '청약철회 환불 (자동 승인)', amount: p.amount, note: `법정 청약철회 기간 안의 결제라 판매자가 거절할 수 없고, ${by} 자동으로 승인되어 환불됩니다.` });
    } else {
      // The seller's deadline and what follows it (src/refunds/requests/model.ts cancelDecisionDeadline).
      const by = p.autoApproveAt ? `${kst(new Date(p.autoApproveAt))}까지` : `${koDate(periodEnd)}까지`;
      out.push({ label: '판매자 확인 후 환불', amount: p.amount, note: `판매자가 ${by} 결정합니다. 승인되거나 그때까지 결정하지 않으면 자동으로 승인되어 결제한 카드로 환불되고 구독이 종료됩니다. 거절되면 환불 없이 ${koDate(periodEnd)}까지 이용할 수 있습니다.` });
    }
  }
  return out;
}

async function pendingRequestAmount(deps: Pick<AppDeps, 'db'>, subscriptionId: string): Promise<number | null> {
  const r = await findPendingRefundRequest(deps.db, subscriptionId);
  return r ? Number(r.amount) : null;
}

