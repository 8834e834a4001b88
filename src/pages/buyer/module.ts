/**
 * The buyer's own door, as pages: `/s/{storeId}/orders` (live) and `/s/{storeId}/test/orders` (test mode), the
 * store's public "내 구매내역" a seller links to from their site, and `/manage/{link}`, the 구독 관리 link of every
 * subscription mail. Server-rendered; the only script is the shared copy button. Every POST answers with a redirect
 * (POST → 303 → GET), so a reload repeats nothing.
 */
import cookie from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps, Module } from '../../deps';
import { ApiError } from '../../platform/errors';
import { createLimiter, consume } from '../../platform/http/rate-limit';
import { isValidEmail } from '../../platform/text';
import { getBusinessDetails } from '../../stores/service';
import { BUYER_SESSION_TTL_MS, buyerPagePath, normalizeEmail, SIGN_IN_LINK_TTL_MS, SIGN_IN_PER_CLIENT, SIGN_IN_PER_EMAIL } from '../../buyers/model';
import { buyerOverview, deactivateDevice, openPortalFor, openSession, purgeSignIns, requestSignInLink, signIn, signOut, type StoreMode } from '../../buyers/service';
import { storeExists } from '../../buyers/repo';
import { queueBuyerSignInMail } from '../../mail/buyer-sign-in';
import { findStoreName } from '../repo';
import { statusPage } from '../status-page';
import { sendPage, tokenPages } from '../token-pages';
import { COPY, langOf, type Lang } from './copy';
import { chooseLang } from '../lang';
import { CSRF_COOKIE, SESSION_COOKIE, cookieOpts, csrfToken, field, formOk } from './access';
import { confirmPage, messagePage, overviewPage, sentPage, signInPage, type Frame } from './views';
import { manageLinkRoute } from './manage';

// script-src 'self': the shared enhancement script (the licence key's copy button); the page works without it.
const CSP = "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

type P = { Params: { storeId: string; token?: string; subscriptionId?: string; licenseId?: string } };

const buyerModule: Module = async (app, deps) => {
  await app.register(cookie);
  // same-origin: a sign-in token in the path never leaves in a Referer, and form POSTs keep a real Origin.
  await tokenPages(app, {
    referrerPolicy: 'same-origin',
    bodyLimit: 8 * 1024,
    clientError: { title: '요청을 처리할 수 없습니다', message: '페이지를 새로 고친 뒤 다시 시도해 주세요.' },
    failure: 'buyer page failed',
  });
  // Sign-in links are mail sent on the store's behalf: limited per address (so nobody floods an inbox) and per client.
  const perEmail = createLimiter({ redis: deps.redis, keyPrefix: 'rl_buyer_email', ...SIGN_IN_PER_EMAIL });
  const perClient = createLimiter({ redis: deps.redis, keyPrefix: 'rl_buyer_client', ...SIGN_IN_PER_CLIENT });
  const opts = { schema: { hide: true } };

  for (const mode of ['live', 'test'] as const) {
    const prefix = mode === 'test' ? '/s/:storeId/test/orders' : '/s/:storeId/orders';
    const ctx = async (req: FastifyRequest<P>): Promise<{ at: StoreMode; f: Frame } | null> => {
      const storeId = req.params.storeId;
      if (!/^[A-Za-z0-9_]{1,64}$/.test(storeId) || !(await storeExists(deps.db, storeId))) return null;
      // A form's hidden `lang`, else ?lang, the cookie, Accept-Language, Korean (src/pages/lang.ts).
      const posted = field(req.body, 'lang');
      const lang = posted ? langOf(posted) : chooseLang({ query: req.query, headers: req.headers }).lang;
      const f: Frame = { storeName: (await findStoreName(deps.db, storeId)).name, mode, base: buyerPagePath(storeId, mode), lang, business: await getBusinessDetails(deps.db, storeId) };
      return { at: { storeId, mode }, f };
    };
    const send = (reply: FastifyReply, status: number, body: string) => sendPage(reply.header('Content-Security-Policy', CSP), status, body);
    const notFound = (reply: FastifyReply, lang: Lang) => sendPage(reply, 404, messagePageless(lang));
    const home = (f: Frame, extra = '') => `${f.base}${f.lang === 'en' ? `?lang=en${extra ? `&${extra}` : ''}` : extra ? `?${extra}` : ''}`;
    const refuse = (reply: FastifyReply, f: Frame, status: 403 | 410 | 429, minutes = 60) => {
      const c = COPY[f.lang];
      const page =
        status === 410 ? { title: c.goneTitle, message: c.gone, action: { href: home(f), label: c.newLink } }
        : status === 429 ? { title: c.limitedTitle, message: c.limited(minutes), action: { href: home(f), label: c.again } }
        : { title: c.refusedTitle, message: c.refused, action: { href: home(f), label: c.title } };
      return send(reply, status, messagePage(f, page));
    };
    const session = (req: FastifyRequest, at: StoreMode) => openSession(deps, at, req.cookies[SESSION_COOKIE]);

    // The page: the signed-in overview, else the sign-in form.
    app.get<P>(prefix, opts, async (req, reply) => {
      const x = await ctx(req);
      if (!x) return notFound(reply, langOf((req.query as Record<string, unknown>).lang));
      const s = await session(req, x.at);
      const q = req.query as Record<string, unknown>;
      const c = COPY[x.f.lang];
      if (!s) return send(reply, 200, signInPage(x.f, { csrf: csrfToken(deps, req, reply, x.f.base), banner: q.notice === 'signed-out' ? c.signedOut : undefined }));
      const banner = q.notice === 'deactivated' ? { kind: 'info' as const, text: c.deactivated } : q.error === 'portal' ? { kind: 'error' as const, text: c.portalFailed } : undefined;
      return send(reply, 200, overviewPage(x.f, { data: await buyerOverview(deps, s), csrf: s.csrf_secret, sessionEnds: s.expires_at, banner }));
    });

    // Asking for a link: the same page for every valid address, bought or not.
    app.post<P>(`${prefix}/sign-in`, opts, async (req, reply) => {
      const x = await ctx(req);
      if (!x) return notFound(reply, 'ko');
      if (!formOk(deps, req, req.cookies[CSRF_COOKIE])) return refuse(reply, x.f, 403);
      const email = field(req.body, 'email', 320).trim();
      if (!isValidEmail(email)) return send(reply, 422, signInPage(x.f, { csrf: csrfToken(deps, req, reply, x.f.base), email, error: COPY[x.f.lang].emailInvalid }));
      const byClient = await consume(perClient, `${x.at.storeId}:${req.ip}`);
      const byEmail = await consume(perEmail, `${x.at.storeId}:${x.at.mode}:${normalizeEmail(email)}`);
      if (!byClient.allowed || !byEmail.allowed) {
        const sec = Math.max(byClient.allowed ? 0 : byClient.resetSec, byEmail.allowed ? 0 : byEmail.resetSec);
        return refuse(reply.header('Retry-After', String(sec)), x.f, 429, Math.ceil(sec / 60));
      }
      await requestSignInLink(deps, x.at, email, (trx, notice) => queueBuyerSignInMail(trx, deps.clock, { storeId: x.at.storeId, mode: x.at.mode, notice, lang: x.f.lang }));
      return send(reply, 200, sentPage(x.f, { email, minutes: SIGN_IN_LINK_TTL_MS / 60_000 }));
    });

    // The mailed link: a page with a button; opening it uses nothing up (mail scanners open links).
    app.get<P>(`${prefix}/sign-in/:token`, opts, async (req, reply) => {
      const x = await ctx(req);
      if (!x) return notFound(reply, 'ko');
      return send(reply, 200, confirmPage(x.f, { token: encodeURIComponent(req.params.token ?? ''), csrf: csrfToken(deps, req, reply, x.f.base) }));
    });

    app.post<P>(`${prefix}/sign-in/:token`, opts, async (req, reply) => {
      const x = await ctx(req);
      if (!x) return notFound(reply, 'ko');
      if (!formOk(deps, req, req.cookies[CSRF_COOKIE])) return refuse(reply, x.f, 403);
      const signed = await signIn(deps, x.at, req.params.token ?? '');
      if (!signed) return refuse(reply, x.f, 410);
      // Max-Age, not Expires: the server's clock and the browser's need not agree (the session row's expiry decides).
      reply.setCookie(SESSION_COOKIE, signed.token, { ...cookieOpts(deps, x.f.base), maxAge: Math.floor(BUYER_SESSION_TTL_MS / 1000) });
      return reply.code(303).header('Location', home(x.f)).send();
    });

    app.post<P>(`${prefix}/sign-out`, opts, async (req, reply) => {
      const x = await ctx(req);
      if (!x) return notFound(reply, 'ko');
      const s = await session(req, x.at);
      if (s) {
        if (!formOk(deps, req, s.csrf_secret)) return refuse(reply, x.f, 403);
        await signOut(deps, s);
      }
      reply.clearCookie(SESSION_COOKIE, cookieOpts(deps, x.f.base));
      return reply.code(303).header('Location', home(x.f, 'notice=signed-out')).send();
    });

    // 구독 관리: a fresh portal session of the buyer's subscription, through the portal's own service.
    app.post<P>(`${prefix}/subscriptions/:subscriptionId/portal`, opts, async (req, reply) => {
      const x = await ctx(req);
      if (!x) return notFound(reply, 'ko');
      const s = await session(req, x.at);
      if (!s) return reply.code(303).header('Location', home(x.f)).send();
      if (!formOk(deps, req, s.csrf_secret)) return refuse(reply, x.f, 403);
      try {
        return reply.code(303).header('Location', await openPortalFor(deps, s, req.params.subscriptionId ?? '')).send();
      } catch (err) {
        if (err instanceof ApiError && err.statusCode < 500) return reply.code(303).header('Location', home(x.f, 'error=portal')).send();
        throw err;
      }
    });

    app.post<P>(`${prefix}/licenses/:licenseId/deactivate`, opts, async (req, reply) => {
      const x = await ctx(req);
      if (!x) return notFound(reply, 'ko');
      const s = await session(req, x.at);
      if (!s) return reply.code(303).header('Location', home(x.f)).send();
      if (!formOk(deps, req, s.csrf_secret)) return refuse(reply, x.f, 403);
      const done = await deactivateDevice(deps, s, req.params.licenseId ?? '', field(req.body, 'activationId', 64));
      return reply.code(303).header('Location', home(x.f, done ? 'notice=deactivated' : '')).send();
    });
  }

  manageLinkRoute(app, deps, opts);
  // Links and sessions hold buyers' addresses: gone a day after they stop opening anything.
  deps.worker.addTask({ name: 'buyers.purge-sign-ins', intervalMs: 3_600_000, run: (now) => purgeSignIns(deps, now) });
};

/** An unknown store: a plain page (no store to name). */
function messagePageless(lang: Lang): string {
  const c = COPY[lang];
  return statusPage({ lang, icon: '🔍', title: c.notFoundTitle, message: c.notFound });
}

export type { AppDeps };
export default buyerModule;
