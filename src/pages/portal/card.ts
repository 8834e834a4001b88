/**
 * The buyer portal's card change: a test card number posted to the portal (the simulator), or Toss's
 * card-registration window opened from a launch page with its success and fail returns. Either way the billing key
 * is issued through the provider and, for a past-due subscription, the renewal retried (updateCard).
 */
import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { App, AppDeps } from '../../deps';
import { consume } from '../../platform/http/rate-limit';
import { updateCard } from '../../subscriptions/service';
import { openPortalSession } from '../../subscriptions/portal/service';
import { cardEntryFor, openCardUpdate, peekCardUpdate, takeCardUpdate } from '../../subscriptions/portal/card';
import { portalCardHeader, portalCardLaunchPage } from '../pay/toss-billing-view';
import { portoneBillingLaunchPage } from '../pay/portone-billing-view';
import { portalCopy } from './copy';
import { html } from '../html';
import { sendPage as page } from '../token-pages';
import { chooseLang } from '../lang';
import { buyerSubscription, storeNameOf, type PortalAccess, type SubParams } from './access';

const STALE_CARD_UPDATE = '카드 등록 요청이 만료되었거나 이미 처리되었습니다. 카드 변경을 다시 시작해 주세요.';

export function portalCardRoutes(app: App, deps: AppDeps, { guard, refuse, back, failed, perSession }: PortalAccess, opts: { schema: { hide: boolean } }): void {
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
    // ?lang (the launch page's switch, remembered in a cookie for the portal it returns to), the cookie, Accept-Language.
    const chosen = chooseLang({ query: req.query, headers: req.headers });
    if (chosen.setCookie) reply.header('Set-Cookie', chosen.setCookie);
    const lang = chosen.lang;
    const returnBase = `${deps.config.publicBaseUrl}${base}/card/${req.params.state}`;
    if (entry.window.sdk === 'portone') {
      // PortOne's card registration window for the subscription's own customer id; PortOne redirects to /success with
      // `billingKey` (or `code`/`message`), and the key is read back from PortOne before it is stored.
      const k = portalCopy(lang).cardLaunch;
      const c = portalCopy(lang);
      return page(
        reply,
        200,
        portoneBillingLaunchPage({
          billing: { storeId: entry.window.storeId, channelKey: entry.window.channelKey, orderId: null, issueName: k.title, customerId: sub.customer_key, buyer: { name: sub.buyer_name, email: sub.buyer_email, phone: sub.buyer_phone || null }, returnUrl: `${returnBase}/success` },
          nonce,
          lang,
          title: k.title,
          trialDays: null,
          words: { heading: k.heading, text: k.textAny(html`<span translate="no">${sub.product_name}</span>`), button: k.button, openFailed: k.openFailed, loadFailed: k.loadFailed },
          before: portalCardHeader(await storeNameOf(deps, session.store_id), lang, req.url),
          links: html`<a class="cancel" href="${base}">${c.toPortal}</a>`,
        }),
      );
    }
    return page(
      reply,
      200,
      portalCardLaunchPage({
        storeName: await storeNameOf(deps, session.store_id),
        productName: sub.product_name,
        clientKey: entry.window.clientKey,
        customerKey: sub.customer_key,
        buyerName: sub.buyer_name,
        buyerEmail: sub.buyer_email,
        returnBase,
        portalPath: base,
        nonce,
        lang,
        here: req.url,
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
    // PortOne comes back here whatever happened: `code` set means no card was registered (the fail route's answer).
    if (typeof q.code === 'string' && q.code) return failRoute(reply, session, req.params.token, req.params.state, q.code);
    const subId = await takeCardUpdate(deps, session, req.params.state, 'used');
    if (!subId) {
      req.log.warn({ portalSessionId: session.id }, 'portal card registration redirect with an unknown, used or expired state');
      return reply.redirect(back(req.params.token, { error: STALE_CARD_UPDATE }), 303);
    }
    const sub = await buyerSubscription(deps, session, subId);
    // Toss brings `authKey` and `customerKey`; PortOne brings `billingKey`, whose customer PortOne itself reports when
    // the key is read back (issueBillingKey refuses another customer's key).
    const entry = await cardEntryFor(deps, session);
    const portone = entry?.kind === 'gateway_window' && entry.window.sdk === 'portone';
    const authKey = portone ? (typeof q.billingKey === 'string' ? q.billingKey : '') : typeof q.authKey === 'string' ? q.authKey : '';
    if (!sub || !authKey || authKey.length > 300 || (!portone && q.customerKey !== sub.customer_key)) {
      req.log.warn({ portalSessionId: session.id, subscriptionId: subId }, 'portal card registration redirect does not match the subscription');
      return reply.redirect(back(req.params.token, { error: '카드 등록 정보가 구독과 일치하지 않아 카드를 바꾸지 않았습니다. 다시 시도해 주세요.' }), 303);
    }
    return applyCard(reply, req.params.token, sub.id, authKey);
  });

  /** Toss's failUrl: the window was closed or the card refused; nothing changed. The state is used up either way. */
  app.get<StateParams>('/portal/:token/card/:state/fail', opts, async (req, reply) => {
    const session = await openPortalSession(deps, req.params.token);
    if (!session) return refuse(reply, 410);
    return failRoute(reply, session, req.params.token, req.params.state, (req.query as Record<string, unknown>).code);
  });

  async function failRoute(reply: FastifyReply, session: NonNullable<Awaited<ReturnType<typeof openPortalSession>>>, token: string, state: string, code: unknown) {
    await takeCardUpdate(deps, session, state, 'failed');
    reply.log.info({ portalSessionId: session.id, code }, 'portal card registration not completed');
    const canceled = code === 'PAY_PROCESS_CANCELED' || code === 'USER_CANCEL';
    return reply.redirect(
      back(token, { error: canceled ? '카드 등록을 취소했습니다. 결제 카드는 바뀌지 않았습니다.' : '카드를 등록하지 못했습니다. 카드 정보를 확인하거나 다른 카드로 다시 시도해 주세요.' }),
      303,
    );
  }
}
