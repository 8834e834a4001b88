import { getBusinessDetails } from '../stores/service';
import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { AppDeps, Module } from '../deps';
import { ApiError } from '../platform/errors';
import { createLimiter, consume } from '../platform/http/rate-limit';
import { orderView } from '../orders/model';
import { refundsOf } from '../orders/repo';
import { cancelSubscription, pendingCancelParts, undoScheduledCancel, type PendingCancelPart } from '../subscriptions/cancel/service';
import { previewOf } from '../subscriptions/cancel/preview';
import { subscriptionNow, subscriptionView, type SubscriptionRow } from '../subscriptions/model';
import { updateCard } from '../subscriptions/service';
import { changePlan } from '../subscriptions/plan-change/service';
import { acceptPriceChange, portalPriceChanges } from '../subscriptions/price-change/acceptance';
import { acceptOffer, declineOffer, portalPlanOffers } from '../subscriptions/plan-change/offers';
import { acceptTrialConversion, trialConsentState } from '../subscriptions/trials/consent';
import { csrfOk, openPortalSession, type PortalSessionRow } from '../subscriptions/portal/service';
import { cardEntryFor, openCardUpdate, peekCardUpdate, takeCardUpdate } from '../subscriptions/portal/card';
import { portalCardLaunchPage } from './toss-billing-view';
import { statusPage } from './status-page';
import { sendPage, tokenPages } from './token-pages';
import { won } from './html';
import { kstDate } from '../platform/calendar';
import { portalDone, portalGone, portalPage, type PortalSubscription } from './portal-views';
import { buyerSubscriptions as findBuyerSubscriptions, findPendingRefundRequest, findProductPlans, findStoreName, subscriptionOrders } from './repo';

const STALE_CARD_UPDATE = '카드 등록 요청이 만료되었거나 이미 처리되었습니다. 카드 변경을 다시 시작해 주세요.';

type TokenParams = { Params: { token: string } };
type SubParams = { Params: { token: string; subscriptionId: string } };

/**
 * The hosted buyer portal (`/portal/{token}`), opened from POST /v1/portal-sessions. The token in the path is the
 * capability (single-purpose: this buyer, store and mode; short-lived); every POST must also carry the session's
 * CSRF secret, which only the rendered page holds, and a foreign Origin is refused. Actions answer with a redirect
 * (POST → 303 → GET), so a reload never repeats a cancellation.
 */
const portalModule: Module = async (app, deps) => {
  // same-origin: the token in the path never leaves in a Referer, and form POSTs keep a real Origin (no-referrer sends `null`).
  await tokenPages(app, {
    referrerPolicy: 'same-origin',
    bodyLimit: 8 * 1024,
    clientError: { title: '요청을 처리할 수 없습니다', message: '잠시 후 다시 시도해 주세요.' },
    failure: 'portal page failed',
  });

  // Portal actions are cheap to abuse (cancel/undo loops, card testing through the card form): limited per session.
  const perSession = createLimiter({ redis: deps.redis, keyPrefix: 'rl_portal', points: 30, durationSec: 3600 });

  const opts = { schema: { hide: true } };
  const page = sendPage;

  /** The open session of the token and the subscription it may act on (the buyer's, in its store, mode and range). */
  async function guard(token: string, subscriptionId: string | null, body: unknown, origin: string | undefined) {
    const session = await openPortalSession(deps, token);
    if (!session) return { error: 410 as const };
    if (subscriptionId === null) return { session };
    if ((origin && origin !== new URL(deps.config.publicBaseUrl).origin) || !csrfOk(session, (body as Record<string, unknown> | undefined)?.csrf)) return { error: 403 as const };
    const sub = await buyerSubscription(deps, session, subscriptionId);
    if (!sub) return { error: 404 as const };
    const limited = await consume(perSession, session.id);
    if (!limited.allowed) return { error: 429 as const };
    return { session, sub };
  }

  const refuse = (reply: FastifyReply, code: 403 | 404 | 410 | 429) =>
    code === 410
      ? page(reply, 410, portalGone())
      : page(reply, code, statusPage({ title: code === 429 ? '요청이 너무 많습니다' : '요청을 처리할 수 없습니다', icon: '⚠️', message: code === 429 ? '잠시 후 다시 시도해 주세요.' : '구독 관리 페이지를 새로 열어 다시 시도해 주세요.' }));

  app.get<TokenParams>('/portal/:token', opts, async (req, reply) => {
    const g = await guard(req.params.token, null, undefined, undefined);
    if ('error' in g) return refuse(reply, g.error!);
    const q = req.query as Record<string, string | undefined>;
    const banner = q.error ? { kind: 'error' as const, text: String(q.error).slice(0, 300) } : q.notice ? { kind: 'info' as const, text: String(q.notice).slice(0, 300) } : null;
    return page(reply, 200, await renderPortal(deps, g.session!, req.params.token, banner));
  });

  const back = (token: string, params: Record<string, string>) => `/portal/${token}?${new URLSearchParams(params).toString()}`;
  const failed = (reply: FastifyReply, token: string, err: unknown) => {
    if (err instanceof ApiError && err.statusCode < 500) return reply.redirect(back(token, { error: err.message }), 303);
    if (err instanceof ApiError && err.code.startsWith('PG_REFUND')) return reply.redirect(back(token, { error: err.message }), 303);
    throw err;
  };

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

  /** The buyer agrees to a plan price increase they were told about (src/subscriptions/price-change/service.ts). */
  app.post<{ Params: { token: string; subscriptionId: string; priceChangeId: string } }>('/portal/:token/subscriptions/:subscriptionId/price-changes/:priceChangeId/accept', opts, async (req, reply) => {
    const g = await guard(req.params.token, req.params.subscriptionId, req.body, req.headers.origin);
    if ('error' in g) return refuse(reply, g.error!);
    try {
      await acceptPriceChange(deps, g.sub!.id, req.params.priceChangeId);
      return reply.redirect(back(req.params.token, { notice: '새 가격에 동의했습니다. 적용일 이후 첫 결제일부터 새 가격으로 갱신됩니다.' }), 303);
    } catch (err) {
      return failed(reply, req.params.token, err);
    }
  });

  /**
   * Card change. The store's gateway decides how (see cardEntryFor): the simulator takes a test card number here;
   * Toss opens its card-registration window (`requestBillingAuth`) from a launch page and comes back to the return
   * routes below. Either way `updateCard` issues the billing key through the provider, stores it sealed and, for a
   * `past_due` subscription, retries the renewal at once.
   */
  app.post<SubParams>('/portal/:token/subscriptions/:subscriptionId/card', opts, async (req, reply) => {
    const g = await guard(req.params.token, req.params.subscriptionId, req.body, req.headers.origin);
    if ('error' in g) return refuse(reply, g.error!);
    if (g.sub!.status === 'ended') return reply.redirect(back(req.params.token, { error: '종료된 구독의 카드는 바꿀 수 없습니다.' }), 303);
    const entry = await cardEntryFor(deps, g.session!);
    if (!entry) return reply.redirect(back(req.params.token, { error: '지금은 카드를 변경할 수 없습니다. 판매자에게 문의해 주세요.' }), 303);
    if (entry.kind === 'gateway_window') {
      const state = await openCardUpdate(deps, g.session!, g.sub!.id);
      return reply.redirect(`/portal/${req.params.token}/card/${state}`, 303);
    }
    const cardNumber = String((req.body as Record<string, unknown>).cardNumber ?? '').replace(/[\s-]/g, '');
    if (!/^\d{12,19}$/.test(cardNumber)) return reply.redirect(back(req.params.token, { error: '카드 번호를 확인해 주세요.' }), 303);
    return applyCard(reply, req.params.token, g.sub!.id, `sim_auth_${cardNumber}`);
  });

  async function applyCard(reply: FastifyReply, token: string, subscriptionId: string, authKey: string) {
    try {
      const r = await updateCard(deps, subscriptionId, { authKey });
      const notice = r.retry && r.retry.status !== 'succeeded' ? '카드를 변경했지만 밀린 결제는 아직 완료되지 않았습니다.' : r.retry ? '결제 카드를 변경했고 밀린 결제를 완료했습니다.' : '결제 카드를 변경했습니다.';
      return reply.redirect(back(token, { notice }), 303);
    } catch (err) {
      return failed(reply, token, err);
    }
  }

  type StateParams = { Params: { token: string; state: string } };

  /** The launch page that opens Toss's card-registration window (only for an open registration of this session). */
  app.get<StateParams>('/portal/:token/card/:state', opts, async (req, reply) => {
    const session = await openPortalSession(deps, req.params.token);
    if (!session) return refuse(reply, 410);
    const subId = await peekCardUpdate(deps, session, req.params.state);
    const sub = subId ? await buyerSubscription(deps, session, subId) : undefined;
    const entry = await cardEntryFor(deps, session);
    if (!sub || entry?.kind !== 'gateway_window') return reply.redirect(back(req.params.token, { error: STALE_CARD_UPDATE }), 303);
    const nonce = randomBytes(16).toString('base64');
    const base = `/portal/${req.params.token}`;
    reply.header('Content-Security-Policy', `default-src 'self'; script-src 'nonce-${nonce}' 'strict-dynamic' https:; style-src 'self' 'unsafe-inline' https:; img-src 'self' data: https:; connect-src 'self' https:; frame-src https:; base-uri 'none'; frame-ancestors 'none'`);
    return page(
      reply,
      200,
      portalCardLaunchPage({
        storeName: await storeNameOf(deps, session.store_id),
        productName: sub.product_name,
        clientKey: entry.clientKey,
        customerKey: sub.customer_key,
        buyerName: sub.buyer_name,
        buyerEmail: sub.buyer_email,
        returnBase: `${deps.config.publicBaseUrl}${base}/card/${req.params.state}`,
        portalPath: base,
        nonce,
      }),
    );
  });

  /**
   * Toss's successUrl for the card registration: `authKey` and `customerKey` come back. The state is used up first
   * (a replay finds nothing), then the customerKey must be this subscription's and the subscription still this
   * buyer's; only then is the billing key issued (through the provider) and stored.
   */
  app.get<StateParams>('/portal/:token/card/:state/success', opts, async (req, reply) => {
    const session = await openPortalSession(deps, req.params.token);
    if (!session) return refuse(reply, 410);
    const limited = await consume(perSession, session.id);
    if (!limited.allowed) return refuse(reply, 429);
    const q = req.query as Record<string, unknown>;
    const subId = await takeCardUpdate(deps, session, req.params.state, 'used');
    if (!subId) {
      req.log.warn({ portalSessionId: session.id }, 'portal card registration redirect with an unknown, used or expired state');
      return reply.redirect(back(req.params.token, { error: STALE_CARD_UPDATE }), 303);
    }
    const sub = await buyerSubscription(deps, session, subId);
    const authKey = typeof q.authKey === 'string' ? q.authKey : '';
    if (!sub || !authKey || authKey.length > 300 || q.customerKey !== sub.customer_key) {
      req.log.warn({ portalSessionId: session.id, subscriptionId: subId }, 'portal card registration redirect does not match the subscription');
      return reply.redirect(back(req.params.token, { error: '카드 등록 정보가 구독과 일치하지 않아 카드를 바꾸지 않았습니다. 다시 시도해 주세요.' }), 303);
    }
    return applyCard(reply, req.params.token, sub.id, authKey);
  });

  /** Toss's failUrl: the window was closed or the card refused; nothing changed. The state is used up either way. */
  app.get<StateParams>('/portal/:token/card/:state/fail', opts, async (req, reply) => {
    const session = await openPortalSession(deps, req.params.token);
    if (!session) return refuse(reply, 410);
    await takeCardUpdate(deps, session, req.params.state, 'failed');
    const code = (req.query as Record<string, unknown>).code;
    req.log.info({ portalSessionId: session.id, code }, 'portal card registration not completed');
    const canceled = code === 'PAY_PROCESS_CANCELED' || code === 'USER_CANCEL';
    return reply.redirect(
      back(req.params.token, { error: canceled ? '카드 등록을 취소했습니다. 결제 카드는 바뀌지 않았습니다.' : '카드를 등록하지 못했습니다. 카드 정보를 확인하거나 다른 카드로 다시 시도해 주세요.' }),
      303,
    );
  });
};

async function storeNameOf(deps: Pick<AppDeps, 'db'>, storeId: string): Promise<string> {
  return (await findStoreName(deps.db, storeId)).name;
}

/** `2027년 4월 27일` (KST). */
function koDate(t: Date | string): string {
  const [y, m, d] = kstDate(new Date(t)).split('-').map(Number);
  return `${y}년 ${m}월 ${d}일`;
}

function cancelPendingMessage(periodEnd: string): string {
  return `판매자가 환불 요청을 결정할 때까지 구독은 그대로 이용할 수 있고, 더는 결제되지 않습니다. 승인되면 그때 구독이 종료되고, 거절되면 ${koDate(periodEnd)}까지 이용한 뒤 종료됩니다. 결정은 메일로 알려 드립니다.`;
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
      out.push({ label: '판매자 확인 후 환불', amount: p.amount, note: `판매자의 승인을 기다립니다. 거절되면 환불 없이 ${koDate(periodEnd)}까지 이용할 수 있습니다.` });
    }
  }
  return out;
}

async function pendingRequestAmount(deps: Pick<AppDeps, 'db'>, subscriptionId: string): Promise<number | null> {
  const r = await findPendingRefundRequest(deps.db, subscriptionId);
  return r ? Number(r.amount) : null;
}

/** The buyer's subscriptions in the session's store, mode and product range (newest first), the session's own first. */
function buyerSubscriptions(deps: Pick<AppDeps, 'db'>, s: PortalSessionRow) {
  return findBuyerSubscriptions(deps.db, s);
}

async function buyerSubscription(deps: Pick<AppDeps, 'db'>, s: PortalSessionRow, id: string): Promise<SubscriptionRow | undefined> {
  return (await buyerSubscriptions(deps, s)).find((r) => r.id === id);
}

async function renderPortal(deps: AppDeps, s: PortalSessionRow, token: string, banner: { kind: 'error' | 'info'; text: string } | null): Promise<string> {
  const rows = (await buyerSubscriptions(deps, s)).sort((a, b) => Number(b.id === s.subscription_id) - Number(a.id === s.subscription_id));
  const subs: PortalSubscription[] = [];
  const priceChanges = await portalPriceChanges(deps.db, rows.map((r) => r.id));
  const products = new Map<string, Awaited<ReturnType<typeof findProductPlans>>>();
  for (const row of rows) if (!products.has(row.product_id)) products.set(row.product_id, await findProductPlans(deps.db, row.product_id));
  const planName = (subId: string, planId: string) => {
    const r = rows.find((x) => x.id === subId)!;
    return products.get(r.product_id)?.plans.find((p) => p.id === planId)?.name ?? planId;
  };
  const offers = await portalPlanOffers(deps, rows, planName);
  const own = (row: SubscriptionRow) => subscriptionNow(row, deps.clock.now());
  for (const row of rows) {
    const product = products.get(row.product_id);
    subs.push({
      sub: subscriptionView(row),
      preview: await previewOf(deps.db, row, subscriptionNow(row, deps.clock.now())),
      planName: product?.plans.find((p) => p.id === row.plan_id)?.name ?? row.plan_id,
      plans: product?.plans ?? [],
      priceChanges: priceChanges.get(row.id) ?? [],
      planOffer: offers.get(row.id) ?? null,
      trialConsent: trialConsentState(row, own(row)),
    });
  }
  const orderRows = rows.length ? await subscriptionOrders(deps.db, rows.map((r) => r.id)) : [];
  const refunds = await refundsOf(deps.db, orderRows.map((o) => o.id));
  return portalPage({
    storeName: await storeNameOf(deps, s.store_id),
    mode: s.mode,
    basePath: `/portal/${encodeURIComponent(token)}`,
    csrf: s.csrf_secret,
    returnUrl: s.return_url,
    subscriptions: subs,
    orders: orderRows.map((o) => orderView(o, refunds.get(o.id) ?? [], deps.config.publicBaseUrl)),
    cardEntry: (await cardEntryFor(deps, s))?.kind ?? null,
    banner,
    business: await getBusinessDetails(deps.db, s.store_id),
  });
}

export default portalModule;
