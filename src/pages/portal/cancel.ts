/**
 * The buyer portal's cancel routes: cancel at the period end or now (with the refund, or the parts of it that wait
 * for the seller or for the statutory automatic approval, each named), and undo a scheduled cancel.
 */
import type { App, AppDeps } from '../../deps';
import { cancelSubscription, pendingCancelParts, undoScheduledCancel, type PendingCancelPart } from '../../subscriptions/cancel/service';
import { getBusinessDetails } from '../../stores/service';
import { sendPage as page } from '../token-pages';
import { chooseLang } from '../lang';
import { portalCopy, type PortalCopy } from './copy';
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
      // The result page in the buyer's language (the portal's ?lang switch left a cookie; else Accept-Language).
      const lang = chooseLang({ query: req.query, headers: req.headers }).lang;
      const k = portalCopy(lang).cancelDone;
      const periodEnd = r.subscription.currentPeriodEnd;
      if (timing === 'immediate' && r.subscription.status !== 'ended') {
        // The refund waits (in part) for the seller: the service runs until the decision. Name every part.
        const parts = await pendingCancelParts(deps.db, g.sub!.id);
        return page(reply, 200, portalDone({ storeName, mode: s.mode, title: k.pendingTitle, message: k.pending(periodEnd), parts: cancelParts(k, r.refundAmount, parts, periodEnd), portalPath: `/portal/${req.params.token}`, returnUrl: s.return_url, business: await getBusinessDetails(deps.db, s.store_id), lang }));
      }
      const requested = timing === 'immediate' && r.refundAmount === 0 ? await pendingRequestAmount(deps, g.sub!.id) : null;
      const message =
        timing === 'period_end' ? k.scheduled(periodEnd) : r.refundAmount > 0 ? k.refunded(r.refundAmount) : requested !== null ? k.requested(requested) : k.canceled;
      return page(reply, 200, portalDone({ storeName, mode: s.mode, title: timing === 'period_end' ? k.scheduledTitle : k.canceledTitle, message, portalPath: `/portal/${req.params.token}`, returnUrl: s.return_url, business: await getBusinessDetails(deps.db, s.store_id), lang }));
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

/** Each part of the cancel: refunded at once, approved automatically by a date (statutory), or waiting for the seller. */
function cancelParts(k: PortalCopy['cancelDone'], refundedNow: number, parts: PendingCancelPart[], periodEnd: string): Array<{ label: string; amount: number; note: string }> {
  const out: Array<{ label: string; amount: number; note: string }> = [];
  out.push({ label: k.nowLabel, amount: refundedNow, note: refundedNow > 0 ? k.nowRefunded : k.nowNothing });
  for (const p of parts) {
    const at = p.autoApproveAt ? new Date(p.autoApproveAt).toISOString() : null;
    // The seller's deadline and what follows it (src/refunds/requests/model.ts cancelDecisionDeadline).
    out.push(p.statutory ? { label: k.statutoryLabel, amount: p.amount, note: k.statutory(at) } : { label: k.sellerLabel, amount: p.amount, note: k.seller(at, periodEnd) });
  }
  return out;
}

async function pendingRequestAmount(deps: Pick<AppDeps, 'db'>, subscriptionId: string): Promise<number | null> {
  const r = await findPendingRefundRequest(deps.db, subscriptionId);
  return r ? Number(r.amount) : null;
}

