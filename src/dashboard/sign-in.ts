import type { FastifyRequest } from 'fastify';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { App, AppDeps } from '../deps';
import { html } from '../pages/html';
import { createLimiter } from '../platform/http/rate-limit';
import { recordAudit } from '../audit/service';
import { authenticateMember, normalizeEmail } from './members';
import { endSession, setSessionMode, startSession, SESSION_TTL_MS } from './sessions';
import { frameText, type Lang } from './i18n';
import { bareLayout, csrfInput } from './layout';
import { LANG_COOKIE, SESSION_COOKIE, langOf, originOf, redirectTo, requireRole, ctxOf, sendForbidden } from './frame';
import { can } from './roles';

/** Failed sign-ins allowed per e-mail, and per client address, in one window. */
export const SIGN_IN_LIMITS = { perEmail: 5, perIp: 30, windowSec: 15 * 60 };

/** Only our own dashboard paths are followed after sign-in (no open redirect). */
/**
 * Where to go after signing in: a path under /dashboard, resolved against the dashboard (so `..` and `.` segments,
 * `%2e%2e` included, are normalised before the check), never the sign-in page itself; anything else is /dashboard.
 */
export function safeNext(v: unknown): string {
  if (typeof v !== 'string' || !/^\/dashboard(\/[A-Za-z0-9._~\-/%]*)?(\?[A-Za-z0-9._~\-=&%]*)?$/.test(v)) return '/dashboard';
  const base = 'http://dashboard.invalid';
  let url: URL;
  try {
    url = new URL(v, `${base}/dashboard/`);
  } catch {
    return '/dashboard';
  }
  const path = url.pathname;
  if (url.origin !== base || !(path === '/dashboard' || path.startsWith('/dashboard/'))) return '/dashboard';
  if (path === '/dashboard/login' || path.startsWith('/dashboard/login/')) return '/dashboard';
  return path + url.search;
}

async function failures(limiter: RateLimiterAbstract, key: string): Promise<{ used: number; resetSec: number }> {
  const res = await limiter.get(key);
  return res ? { used: res.consumedPoints, resetSec: Math.max(1, Math.ceil(res.msBeforeNext / 1000)) } : { used: 0, resetSec: 0 };
}

function signInPage(lang: Lang, csrfToken: string, o: { email?: string; next?: string; error?: string } = {}): string {
  const t = (k: Parameters<typeof frameText>[1]) => frameText(lang, k);
  return bareLayout(
    lang,
    t('signin.title'),
    html`<form class="card" method="post" action="/dashboard/login">
  <h1>${t('signin.title')}</h1>
  ${o.error ? html`<div class="banner error" role="alert" data-testid="signin-error">${o.error}</div>` : ''}
  ${csrfInput(csrfToken)}
  <input type="hidden" name="next" value="${o.next ?? '/dashboard'}">
  <label for="email">${t('signin.email')}</label>
  <input type="email" id="email" name="email" autocomplete="username" required value="${o.email ?? ''}">
  <label for="password">${t('signin.password')}</label>
  <input type="password" id="password" name="password" autocomplete="current-password" required>
  <details><summary class="hint">${t('signin.store')}</summary><label for="store" class="hint">${t('signin.store')}</label><input type="text" id="store" name="store" autocomplete="off" placeholder="st_…"></details>
  <button type="submit" class="pay">${t('signin.submit')}</button>
  <p class="hint">${t('signin.hint')}</p>
</form>
<form method="post" action="/dashboard/lang" class="center">${csrfInput(csrfToken)}<input type="hidden" name="lang" value="${lang === 'ko' ? 'en' : 'ko'}"><button type="submit" class="plain" lang="${lang === 'ko' ? 'en' : 'ko'}">${t('lang.switch')}</button></form>`,
  );
}

function backTo(req: FastifyRequest): string {
  // Back to the page the form was on (same origin, a dashboard path), else Home.
  const ref = req.headers.referer;
  if (typeof ref !== 'string') return '/dashboard';
  try {
    const u = new URL(ref);
    return safeNext(u.pathname + u.search);
  } catch {
    return '/dashboard';
  }
}

/** Sign-in, sign-out, the mode switch and the language switch. */
export function signInRoutes(app: App, deps: AppDeps, secureCookies: boolean): void {
  const perEmail = createLimiter({ redis: deps.redis, keyPrefix: 'rl_dash_login_email', points: SIGN_IN_LIMITS.perEmail, durationSec: SIGN_IN_LIMITS.windowSec });
  const perIp = createLimiter({ redis: deps.redis, keyPrefix: 'rl_dash_login_ip', points: SIGN_IN_LIMITS.perIp, durationSec: SIGN_IN_LIMITS.windowSec });
  const hide = { schema: { hide: true } };

  app.get('/dashboard/login', hide, async (req, reply) => {
    if (req.dashboardMember) return reply.redirect('/dashboard', 303);
    const next = safeNext((req.query as Record<string, unknown>).next);
    return reply.type('text/html; charset=utf-8').send(signInPage(langOf(req), reply.generateCsrf(), { next }));
  });

  app.post('/dashboard/login', hide, async (req, reply) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const lang = langOf(req);
    const email = typeof body.email === 'string' ? body.email.slice(0, 254) : '';
    const password = typeof body.password === 'string' ? body.password : '';
    const store = typeof body.store === 'string' && body.store.trim() ? body.store.trim() : undefined;
    const next = safeNext(body.next);
    const emailKey = normalizeEmail(email) || '-';
    const ip = req.ip;
    const [e, a] = [await failures(perEmail, emailKey), await failures(perIp, ip)];
    if (e.used >= SIGN_IN_LIMITS.perEmail || a.used >= SIGN_IN_LIMITS.perIp) {
      const retry = Math.max(e.used >= SIGN_IN_LIMITS.perEmail ? e.resetSec : 0, a.used >= SIGN_IN_LIMITS.perIp ? a.resetSec : 0);
      req.log.warn({ perEmail: e.used >= SIGN_IN_LIMITS.perEmail, perIp: a.used >= SIGN_IN_LIMITS.perIp }, 'dashboard sign-in throttled');
      return reply
        .code(429)
        .header('Retry-After', String(retry))
        .type('text/html; charset=utf-8')
        .send(signInPage(lang, reply.generateCsrf(), { email, next, error: frameText(lang, 'signin.throttled', { minutes: Math.ceil(retry / 60) }) }));
    }
    const member = await authenticateMember(deps, email, password, store);
    if (!member) {
      await Promise.all([perEmail.penalty(emailKey, 1), perIp.penalty(ip, 1)]);
      return reply.code(401).type('text/html; charset=utf-8').send(signInPage(lang, reply.generateCsrf(), { email, next, error: frameText(lang, 'signin.failed') }));
    }
    await perEmail.delete(emailKey);
    const origin = originOf(req);
    const { token } = await startSession(deps, member.id, member.storeId, origin);
    await recordAudit(deps.db, deps.clock, { storeId: member.storeId, mode: null, actor: { kind: 'member', id: member.id, name: member.name }, action: 'session.signed_in', target: { type: 'member', id: member.id }, origin });
    reply.setCookie(SESSION_COOKIE, token, { path: '/dashboard', httpOnly: true, sameSite: 'lax', secure: secureCookies, signed: true, maxAge: SESSION_TTL_MS / 1000 });
    return reply.redirect(next, 303);
  });

  app.post('/dashboard/logout', hide, async (req, reply) => {
    const m = req.dashboardMember;
    if (m) {
      await endSession(deps.db, m.sessionId);
      await recordAudit(deps.db, deps.clock, { storeId: m.storeId, mode: null, actor: { kind: 'member', id: m.memberId, name: m.name }, action: 'session.signed_out', target: { type: 'member', id: m.memberId }, origin: originOf(req) });
    }
    reply.clearCookie(SESSION_COOKIE, { path: '/dashboard' });
    return redirectTo(req, reply, '/dashboard/login');
  });

  app.post('/dashboard/mode', { ...hide, preHandler: requireRole('home') }, async (req, reply) => {
    const ctx = ctxOf(req);
    const mode = (req.body as Record<string, unknown> | undefined)?.mode === 'live' ? 'live' : 'test';
    if (mode === 'live' && !can(ctx.member.role, 'mode.live')) return sendForbidden(reply, ctx);
    await setSessionMode(deps.db, ctx.member.sessionId, mode);
    // Back to the same page, but a record's page goes to its list: the record belongs to the mode just left.
    return redirectTo(req, reply, backTo(req).replace(/\/[a-z]+_[0-9a-z]{20,}(\/.*)?$/, ''));
  });

  app.post('/dashboard/lang', hide, async (req, reply) => {
    const lang = (req.body as Record<string, unknown> | undefined)?.lang === 'en' ? 'en' : 'ko';
    reply.setCookie(LANG_COOKIE, lang, { path: '/dashboard', httpOnly: true, sameSite: 'lax', secure: secureCookies, maxAge: 365 * 24 * 3600 });
    return redirectTo(req, reply, backTo(req));
  });
}
