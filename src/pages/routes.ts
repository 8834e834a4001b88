import formbody from '@fastify/formbody';
import type { FastifyError, FastifyReply } from 'fastify';
import { FAVICON_SVG, PAY_JS } from './assets';
import type { Module } from '../deps';
import { payHandlers, reply as answer } from './pay/handlers';
import { statusPage } from './status-page';
import { createLimiter, consume } from '../platform/http/rate-limit';
import { chooseLang, isLang } from './lang';
import type { PageResponse, PageView } from './pay/handlers';
import { payCopy } from './pay/copy';
import type { FastifyRequest } from 'fastify';

/** The language inputs of a request: the address's `lang`, or on a POST the form's hidden `lang` (src/pages/lang.ts). */
function viewOf(req: FastifyRequest): PageView {
  const body = req.body && typeof req.body === 'object' ? (req.body as Record<string, unknown>) : {};
  const query = req.method === 'POST' ? { lang: body.lang } : req.query;
  return { req: { query, headers: req.headers }, here: req.url };
}

/** The switch chose a language: remembered for the buyer's next pages (cookie `lang`). */
function rememberLang(req: FastifyRequest, reply: FastifyReply) {
  const q = (req.query as Record<string, unknown> | undefined)?.lang;
  if (req.method === 'GET' && isLang(q)) {
    const cookie = chooseLang({ query: { lang: q }, headers: {} }).setCookie;
    if (cookie) reply.header('Set-Cookie', cookie);
  }
}

// Scripts only from this origin (src/pages/assets.ts); connect-src for the unknown-outcome page's status polling.
const DEFAULT_CSP = "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; frame-ancestors 'none'";

type IdParams = { Params: { sessionId: string } };

/**
 * The hosted payment page: server-rendered HTML (src/pages/pay/views.ts), no JavaScript needed in test mode. Form bodies
 * (application/x-www-form-urlencoded) are parsed in this plugin only; the JSON API stays JSON-only.
 */
const pagesModule: Module = async (app, deps) => {
  await app.register(formbody, { bodyLimit: 16 * 1024 });
  const h = payHandlers(deps);

  app.addHook('onSend', async (_req, reply, payload) => {
    // Payment pages are never cached, framed (clickjacking a pay button) or leaked through the Referer.
    if (!reply.hasHeader('Cache-Control')) reply.header('Cache-Control', 'no-store');
    reply.header('X-Frame-Options', 'DENY');
    reply.header('X-Content-Type-Options', 'nosniff');
    reply.header('Referrer-Policy', 'strict-origin');
    if (!reply.hasHeader('Content-Security-Policy')) reply.header('Content-Security-Policy', DEFAULT_CSP);
    return payload;
  });

  // Errors here are answered as pages for people, not as API error bodies.
  app.setErrorHandler((error: FastifyError, req, reply) => {
    const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status >= 500) req.log.error({ err: error }, 'payment page failed');
    const c = payCopy(chooseLang(viewOf(req).req).lang);
    const page = statusPage({ lang: c.lang, icon: '⚠️', ...(status >= 500 ? c.status.failed : c.status.badRequest) });
    reply.code(status).type('text/html; charset=utf-8').send(page);
  });

  // Card testing (trying stolen card numbers one after another) goes through payment forms, so form submissions are
  // limited per client address and per session. Showing the page is not limited.
  const perIp = createLimiter({ redis: deps.redis, keyPrefix: 'rl_pay_ip', points: deps.config.payAttemptsPerIpPerHour, durationSec: 3600 });
  const perSession = createLimiter({ redis: deps.redis, keyPrefix: 'rl_pay_session', points: deps.config.payAttemptsPerSession, durationSec: 3600 });
  // Applying a coupon charges nothing and is not a payment attempt: a buyer retyping a code must keep every try that
  // pays. Coupon applications have their own limits (guessing codes), and over them the form says so beside the
  // coupon field, the payment still possible without one.
  const couponPerIp = createLimiter({ redis: deps.redis, keyPrefix: 'rl_coupon_ip', points: deps.config.couponTriesPerIpPerHour, durationSec: 3600 });
  const couponPerSession = createLimiter({ redis: deps.redis, keyPrefix: 'rl_coupon_session', points: deps.config.couponTriesPerSession, durationSec: 3600 });
  const couponRefused = new WeakMap<object, number>();
  app.addHook('preHandler', async (req, reply) => {
    if (req.method !== 'POST') return;
    const sessionId = (req.params as { sessionId?: string }).sessionId ?? '';
    if (req.routeOptions.url === '/pay/:sessionId' && (req.body as Record<string, unknown> | undefined)?.action === 'apply_coupon') {
      const [ip, session] = [await consume(couponPerIp, req.ip), await consume(couponPerSession, sessionId)];
      const over = [ip, session].filter((o) => !o.allowed);
      if (over.length) {
        const retry = Math.max(...over.map((o) => o.resetSec));
        req.log.warn({ sessionId, perIp: !ip.allowed, perSession: !session.allowed }, 'coupon tries limited');
        couponRefused.set(req, retry);
      }
      return;
    }
    const [ip, session] = [await consume(perIp, req.ip), await consume(perSession, sessionId)];
    const refused = [ip, session].filter((o) => !o.allowed);
    if (refused.length === 0) return;
    const retry = Math.max(...refused.map((o) => o.resetSec));
    req.log.warn({ sessionId, perIp: !ip.allowed, perSession: !session.allowed }, 'payment attempts limited');
    reply
      .code(429)
      .header('Retry-After', String(retry))
      .type('text/html; charset=utf-8')
      .send(statusPage({ lang: payCopy(chooseLang(viewOf(req).req).lang).lang, icon: '⏳', ...payCopy(chooseLang(viewOf(req).req).lang).status.tooMany(Math.ceil(retry / 60)) }));
    return reply;
  });

  const opts = { schema: { hide: true } };
  const asset = (type: string, body: string) => async (_req: unknown, reply: FastifyReply) =>
    reply.header('Cache-Control', 'public, max-age=86400').type(type).send(body);
  app.get('/pay-assets/pay.js', opts, asset('text/javascript; charset=utf-8', PAY_JS));
  app.get('/favicon.svg', opts, asset('image/svg+xml', FAVICON_SVG));
  app.get('/favicon.ico', opts, asset('image/svg+xml', FAVICON_SVG));

  app.get<IdParams>('/pay/:sessionId', opts, async (req, reply) =>
    answer(rememberLang(req, reply) ?? reply, await h.show(req.params.sessionId, { checking: (req.query as Record<string, unknown>).checking === '1', view: viewOf(req) })),
  );
  // The unknown-outcome page's script polls this instead of reloading the whole page.
  app.get<IdParams>('/pay/:sessionId/status', opts, async (req, reply) => reply.type('application/json; charset=utf-8').send(await h.status(req.params.sessionId)));
  // Once a session is paid no attempt on it can charge anything, so its attempt count is dropped rather than held for
  // the rest of its hour: the counters in memory (or Redis) then hold only sessions still open (issue 43's soak).
  const released = async (sessionId: string, res: PageResponse) => {
    if (res.paid) await perSession.delete(sessionId).catch(() => undefined);
    return res;
  };
  app.post<IdParams>('/pay/:sessionId', opts, async (req, reply) =>
    answer(reply, await released(req.params.sessionId, await h.submit(req.params.sessionId, req.body, { couponRetrySec: couponRefused.get(req), view: viewOf(req) }))),
  );
  app.get<IdParams>('/pay/:sessionId/approve', opts, async (req, reply) => answer(rememberLang(req, reply) ?? reply, await h.approval(req.params.sessionId, 'show', viewOf(req))));
  app.post<IdParams>('/pay/:sessionId/approve', opts, async (req, reply) => {
    const decision = (req.body as Record<string, unknown> | undefined)?.decision;
    return answer(reply, await released(req.params.sessionId, await h.approval(req.params.sessionId, decision === 'approve' ? 'approve' : 'cancel', viewOf(req))));
  });
  app.get<IdParams>('/pay/:sessionId/toss/success', opts, async (req, reply) => answer(reply, await released(req.params.sessionId, await h.tossSuccess(req.params.sessionId, req.query as Record<string, unknown>, viewOf(req)))));
  app.get<IdParams>('/pay/:sessionId/toss/billing-success', opts, async (req, reply) => answer(reply, await released(req.params.sessionId, await h.tossBillingSuccess(req.params.sessionId, req.query as Record<string, unknown>, viewOf(req)))));
  app.get<IdParams>('/pay/:sessionId/toss/fail', opts, async (req, reply) => answer(reply, await h.tossFail(req.params.sessionId, req.query as Record<string, unknown>, viewOf(req))));
  app.get<IdParams>('/pay/:sessionId/portone/return', opts, async (req, reply) => answer(reply, await released(req.params.sessionId, await h.portoneReturn(req.params.sessionId, req.query as Record<string, unknown>, viewOf(req)))));
  app.get<IdParams>('/pay/:sessionId/portone/billing-return', opts, async (req, reply) => answer(reply, await released(req.params.sessionId, await h.portoneBillingReturn(req.params.sessionId, req.query as Record<string, unknown>, viewOf(req)))));
};

export default pagesModule;
