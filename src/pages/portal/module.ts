/**
 * The hosted buyer portal (`/portal/{token}`): the module that serves it, its page (the buyer's subscriptions and
 * orders, gathered here), and the action routes by topic (cancel.ts, plans.ts, card.ts), all
 * let in by access.ts.
 */
import { getBusinessDetails } from '../../stores/service';
import type { AppDeps, Module } from '../../deps';
import { orderView } from '../../orders/model';
import { refundsOf } from '../../orders/repo';
import { previewOf } from '../../subscriptions/cancel/preview';
import { subscriptionNow, subscriptionView, type SubscriptionRow } from '../../subscriptions/model';
import { portalPriceChanges } from '../../subscriptions/price-change/acceptance';
import { portalPlanOffers } from '../../subscriptions/plan-change/offers';
import { trialConsentState } from '../../subscriptions/trials/consent';
import type { PortalSessionRow } from '../../subscriptions/portal/service';
import { cardEntryFor } from '../../subscriptions/portal/card';
import { sendPage, tokenPages } from '../token-pages';
import { portalPage } from './views';
import type { PortalSubscription } from './view-model';
import { findProductPlans, subscriptionOrders } from '../repo';
import { buyerSubscriptions, portalAccess, storeNameOf, type TokenParams } from './access';
import { portalCancelRoutes } from './cancel';
import { portalPlanRoutes } from './plans';
import { portalCardRoutes } from './card';
import { chooseLang, type Lang } from '../lang';
import { portalCopy } from './copy';

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
    // In the buyer's language (?lang, the cookie, Accept-Language, Korean).
    clientError: (req) => {
      const lang = chooseLang({ query: req.query, headers: req.headers }).lang;
      return { ...portalCopy(lang).badRequest, lang };
    },
    failure: 'portal page failed',
  });

  const access = portalAccess(deps);
  const { guard, refuse } = access;
  const opts = { schema: { hide: true } };
  const page = sendPage;

  app.get<TokenParams>('/portal/:token', opts, async (req, reply) => {
    const g = await guard(req.params.token, null, undefined, undefined);
    if ('error' in g) return refuse(reply, g.error!);
    const q = req.query as Record<string, string | undefined>;
    const banner = q.error ? { kind: 'error' as const, text: String(q.error).slice(0, 300) } : q.notice ? { kind: 'info' as const, text: String(q.notice).slice(0, 300) } : null;
    // ?lang (the switch, remembered in a cookie), the cookie, Accept-Language, Korean (src/pages/lang.ts).
    const chosen = chooseLang({ query: q, headers: req.headers });
    if (chosen.setCookie) reply.header('Set-Cookie', chosen.setCookie);
    return page(reply, 200, await renderPortal(deps, g.session!, req.params.token, banner, { lang: chosen.lang, here: req.url }));
  });

  portalCancelRoutes(app, deps, access, opts);
  portalPlanRoutes(app, deps, access, opts);
  portalCardRoutes(app, deps, access, opts);
};

async function renderPortal(deps: AppDeps, s: PortalSessionRow, token: string, banner: { kind: 'error' | 'info'; text: string } | null, view: { lang: Lang; here: string }): Promise<string> {
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
    lang: view.lang,
    here: view.here,
  });
}

export default portalModule;
