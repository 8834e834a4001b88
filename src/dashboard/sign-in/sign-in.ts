import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App, AppDeps } from '../../deps';
import { html } from '../../pages/html';
import { recordAudit } from '../../audit/service';
import { authenticateMember, normalizeEmail } from '../members';
import { endSession, setSessionMode, startSession, PENDING_TTL_MS, SESSION_TTL_MS } from './sessions';
import { signInThrottle } from './throttle';
import { factorsOf } from './second-factor-repo';
import { passkeyButton } from './passkey-button';
import { frameText, type Lang } from '../i18n';
import { bareLayout, csrfInput } from '../layout';
import { LANG_COOKIE, SESSION_COOKIE, langOf, originOf, redirectTo, requireRole, ctxOf, sendForbidden } from '../frame';
import { can } from '../roles';

export { SIGN_IN_LIMITS } from './throttle';

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
<div class="card center" data-testid="passkey-signin">${passkeyButton(lang, { kind: 'sign-in', label: t('signin.passkey'), csrf: csrfToken, options: '/dashboard/login/passkey/options', verify: '/dashboard/login/passkey', next: o.next ?? '/dashboard' })}</div>
<form method="post" action="/dashboard/lang" class="center">${csrfInput(csrfToken)}<input type="hidden" name="lang" value="${lang === 'ko' ? 'en' : 'ko'}"><button type="submit" class="plain" lang="${lang === 'ko' ? 'en' : 'ko'}">${t('lang.switch')}</button></form>`,
  );
}

/** The session cookie: signed, HTTP only, for the dashboard's paths, as long as the session row may live. */
export function setSessionCookie(reply: FastifyReply, token: string, secure: boolean, ttlMs: number): void {
  reply.setCookie(SESSION_COOKIE, token, { path: '/dashboard', httpOnly: true, sameSite: 'lax', secure, signed: true, maxAge: Math.floor(ttlMs / 1000) });
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
  const throttle = signInThrottle(deps);
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
    const lock = await throttle.check(emailKey, ip);
    if (lock.locked) {
      const retry = lock.retrySec;
      req.log.warn({ perEmail: lock.perEmail, perIp: lock.perIp }, 'dashboard sign-in throttled');
      return reply
        .code(429)
        .header('Retry-After', String(retry))
        .type('text/html; charset=utf-8')
        .send(signInPage(lang, reply.generateCsrf(), { email, next, error: frameText(lang, 'signin.throttled', { minutes: Math.ceil(retry / 60) }) }));
    }
    const member = await authenticateMember(deps, email, password, store);
    if (!member) {
      await throttle.fail(emailKey, ip);
      return reply.code(401).type('text/html; charset=utf-8').send(signInPage(lang, reply.generateCsrf(), { email, next, error: frameText(lang, 'signin.failed') }));
    }
    const origin = originOf(req);
    const factors = await factorsOf(deps.db, member.id);
    if (factors.totp || factors.passkeys > 0) {
      // The password was right; the session opens only the verify page until the second factor is given. The
      // e-mail's failures are not forgiven yet: a wrong code after a right password still counts.
      const { token } = await startSession(deps, member.id, member.storeId, origin, { pending: true });
      await recordAudit(deps.db, deps.clock, { storeId: member.storeId, mode: null, actor: { kind: 'member', id: member.id, name: member.name }, action: 'session.password_accepted', target: { type: 'member', id: member.id }, origin });
      setSessionCookie(reply, token, secureCookies, PENDING_TTL_MS);
      return reply.redirect(`/dashboard/login/verify?next=${encodeURIComponent(next)}`, 303);
    }
    await throttle.clear(emailKey);
    const { token } = await startSession(deps, member.id, member.storeId, origin);
    await recordAudit(deps.db, deps.clock, { storeId: member.storeId, mode: null, actor: { kind: 'member', id: member.id, name: member.name }, action: 'session.signed_in', target: { type: 'member', id: member.id }, details: { method: 'password' }, origin });
    setSessionCookie(reply, token, secureCookies, SESSION_TTL_MS);
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
