/**
 * How a buyer portal request is let in and turned away: the token's open session, and for an action also the
 * page's CSRF secret, a same-site Origin, a subscription in the session's range, and the per-session rate limit;
 * the refusal pages, the redirect back to the portal with a notice or error, and the buyer's subscriptions.
 */
import type { FastifyReply } from 'fastify';
import type { AppDeps } from '../../deps';
import { ApiError } from '../../platform/errors';
import { createLimiter, consume } from '../../platform/http/rate-limit';
import type { SubscriptionRow } from '../../subscriptions/model';
import { csrfOk, openPortalSession, type PortalSessionRow } from '../../subscriptions/portal/service';
import { statusPage } from '../status-page';
import { sendPage } from '../token-pages';
import { portalGone } from './views';
import { buyerSubscriptions as findBuyerSubscriptions, findStoreName } from '../repo';
import { chooseLang } from '../lang';
import { portalCopy } from './copy';

export type TokenParams = { Params: { token: string } };
export type SubParams = { Params: { token: string; subscriptionId: string } };

export type PortalAccess = ReturnType<typeof portalAccess>;

/** The portal's gatekeeping for one app (its per-session limiter lives as long as the app). */
export function portalAccess(deps: AppDeps) {
  // Portal actions are cheap to abuse (cancel/undo loops, card testing through the card form): limited per session.
  const perSession = createLimiter({ redis: deps.redis, keyPrefix: 'rl_portal', points: 30, durationSec: 3600 });
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

  const refuse = (reply: FastifyReply, code: 403 | 404 | 410 | 429) => {
    // In the buyer's language (src/pages/lang.ts): ?lang, the cookie, Accept-Language, Korean.
    const lang = chooseLang({ query: reply.request.query, headers: reply.request.headers }).lang;
    const c = portalCopy(lang);
    return code === 410
      ? page(reply, 410, portalGone(lang))
      : page(reply, code, statusPage({ lang, icon: '⚠️', ...(code === 429 ? c.limited : c.refused) }));
  };

  const back = (token: string, params: Record<string, string>) => `/portal/${token}?${new URLSearchParams(params).toString()}`;
  const failed = (reply: FastifyReply, token: string, err: unknown) => {
    if (err instanceof ApiError && err.statusCode < 500) return reply.redirect(back(token, { error: err.message }), 303);
    if (err instanceof ApiError && err.code.startsWith('PG_REFUND')) return reply.redirect(back(token, { error: err.message }), 303);
    throw err;
  };

  return { perSession, guard, refuse, back, failed };
}

export async function storeNameOf(deps: Pick<AppDeps, 'db'>, storeId: string): Promise<string> {
  return (await findStoreName(deps.db, storeId)).name;
}

/** The buyer's subscriptions in the session's store, mode and product range (newest first), the session's own first. */
export function buyerSubscriptions(deps: Pick<AppDeps, 'db'>, s: PortalSessionRow) {
  return findBuyerSubscriptions(deps.db, s);
}

export async function buyerSubscription(deps: Pick<AppDeps, 'db'>, s: PortalSessionRow, id: string): Promise<SubscriptionRow | undefined> {
  return (await buyerSubscriptions(deps, s)).find((r) => r.id === id);
}

