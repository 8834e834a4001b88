/**
 * The buyer portal's routes for what the buyer pays: changing the plan, answering a seller's plan-change offer,
 * consenting to a long trial's first charge, and agreeing to a plan price increase.
 */
import type { App, AppDeps } from '../../deps';
import { changePlan } from '../../subscriptions/plan-change/service';
import { answerPriceChange } from '../../subscriptions/price-change/acceptance';
import { kstDate } from '../../subscriptions/consent';
import { acceptOffer, declineOffer } from '../../subscriptions/plan-change/offers';
import { acceptTrialConversion } from '../../subscriptions/trials/consent';
import { won } from '../html';
import type { PortalAccess, SubParams } from './access';

export function portalPlanRoutes(app: App, deps: AppDeps, { guard, refuse, back, failed }: PortalAccess, opts: { schema: { hide: boolean } }): void {
  app.post<SubParams>('/portal/:token/subscriptions/:subscriptionId/plan', opts, async (req, reply) => {
    const g = await guard(req.params.token, req.params.subscriptionId, req.body, req.headers.origin);
    if ('error' in g) return refuse(reply, g.error!);
    const [planId, interval] = String((req.body as Record<string, unknown>).plan ?? '').split(':');
    if (!planId || (interval !== 'monthly' && interval !== 'yearly')) return reply.redirect(back(req.params.token, { error: '요금제를 선택해 주세요.' }), 303);
    try {
      const r = await changePlan(deps, g.sub!.id, { planId, interval }, { actor: 'buyer' });
      const notice =
        r.timing === 'now'
          ? `요금제를 바로 변경했습니다.${r.amount > 0 ? ` 남은 기간의 차액 ${won(r.amount)}을 결제했습니다.` : ''}`
          : r.timing === 'next_renewal'
            ? '다음 결제일부터 새 요금제가 적용됩니다.'
            : '예약된 요금제 변경을 취소했습니다.';
      return reply.redirect(back(req.params.token, { notice }), 303);
    } catch (err) {
      return failed(reply, req.params.token, err);
    }
  });

  type OfferParams = { Params: { token: string; subscriptionId: string; offerId: string } };
  /** The buyer accepts a seller's plan-change offer (src/subscriptions/plan-change/consent.ts): the change runs now as theirs. */
  app.post<OfferParams>('/portal/:token/subscriptions/:subscriptionId/plan-offers/:offerId/accept', opts, async (req, reply) => {
    const g = await guard(req.params.token, req.params.subscriptionId, req.body, req.headers.origin);
    if ('error' in g) return refuse(reply, g.error!);
    try {
      const r = await acceptOffer(deps, g.sub!.id, req.params.offerId);
      const notice =
        r.timing === 'now'
          ? `요금제 변경에 동의했습니다. 요금제가 바로 바뀌었습니다.${r.amount > 0 ? ` 남은 기간의 차액 ${won(r.amount)}을 결제했습니다.` : ''}`
          : '요금제 변경에 동의했습니다. 다음 결제일부터 새 요금제가 적용됩니다.';
      return reply.redirect(back(req.params.token, { notice }), 303);
    } catch (err) {
      return failed(reply, req.params.token, err);
    }
  });
  app.post<OfferParams>('/portal/:token/subscriptions/:subscriptionId/plan-offers/:offerId/decline', opts, async (req, reply) => {
    const g = await guard(req.params.token, req.params.subscriptionId, req.body, req.headers.origin);
    if ('error' in g) return refuse(reply, g.error!);
    try {
      await declineOffer(deps, g.sub!.id, req.params.offerId);
      return reply.redirect(back(req.params.token, { notice: '요금제 변경을 거절했습니다. 지금 요금제와 가격 그대로 유지됩니다.' }), 303);
    } catch (err) {
      return failed(reply, req.params.token, err);
    }
  });

  /** The buyer confirms the first charge of a trial longer than 30 days (src/subscriptions/trials/consent.ts). */
  app.post<SubParams>('/portal/:token/subscriptions/:subscriptionId/trial-consent', opts, async (req, reply) => {
    const g = await guard(req.params.token, req.params.subscriptionId, req.body, req.headers.origin);
    if ('error' in g) return refuse(reply, g.error!);
    try {
      await acceptTrialConversion(deps, g.sub!.id);
      return reply.redirect(back(req.params.token, { notice: '체험 종료 후 유료 전환에 동의했습니다. 체험이 끝나면 정기결제가 시작됩니다.' }), 303);
    } catch (err) {
      return failed(reply, req.params.token, err);
    }
  });

  /**
   * The buyer agrees to, or declines, a plan price increase they were told about (src/subscriptions/price-change/
   * acceptance.ts): both answers are a button of the same kind in the same box, and each says what then happens.
   */
  for (const answer of ['accept', 'decline'] as const) {
    app.post<{ Params: { token: string; subscriptionId: string; priceChangeId: string } }>(`/portal/:token/subscriptions/:subscriptionId/price-changes/:priceChangeId/${answer}`, opts, async (req, reply) => {
      const g = await guard(req.params.token, req.params.subscriptionId, req.body, req.headers.origin);
      if ('error' in g) return refuse(reply, g.error!);
      try {
        const { decideBy } = await answerPriceChange(deps, g.sub!.id, req.params.priceChangeId, answer);
        const notice =
          answer === 'accept'
            ? `새 가격에 동의했습니다. ${kstDate(decideBy)} 결제부터 새 가격으로 갱신됩니다.`
            : `새 가격을 거절했습니다. ${kstDate(decideBy)}까지 지금 가격으로 이용하실 수 있고, 그날 구독이 종료되며 새 가격은 결제되지 않습니다. 그 전에는 마음을 바꿔 동의할 수 있습니다.`;
        return reply.redirect(back(req.params.token, { notice }), 303);
      } catch (err) {
        return failed(reply, req.params.token, err);
      }
    });
  }
}
