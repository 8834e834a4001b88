/**
 * How the buyer page lets a request in: the two cookies (the session, HttpOnly, SameSite=Lax, Secure on an https
 * base URL, its path the page's own, so a store's or mode's page never receives another's), the forms' CSRF check
 * (before sign-in a double-submit token, the cookie's value repeated in the form; signed in, the session's secret)
 * and the same-site Origin check the portal makes.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../../deps';
import { randomBase62, safeEqualString } from '../../platform/crypto';

export const SESSION_COOKIE = 'buyer_session';
export const CSRF_COOKIE = 'buyer_csrf';

export function cookieOpts(deps: Pick<AppDeps, 'config'>, path: string) {
  return { path, httpOnly: true, sameSite: 'lax' as const, secure: deps.config.publicBaseUrl.startsWith('https:') };
}

/** The pre-sign-in CSRF token: the cookie's, or a new one set on this answer. */
export function csrfToken(deps: Pick<AppDeps, 'config'>, req: FastifyRequest, reply: FastifyReply, path: string): string {
  const have = req.cookies[CSRF_COOKIE];
  if (have && /^[A-Za-z0-9]{32}$/.test(have)) return have;
  const t = randomBase62(32);
  reply.setCookie(CSRF_COOKIE, t, { ...cookieOpts(deps, path), maxAge: 24 * 3600 });
  return t;
}

/** A form is ours: same-site Origin (when sent) and the expected secret in its `csrf` field. */
export function formOk(deps: Pick<AppDeps, 'config'>, req: FastifyRequest, expected: string | undefined): boolean {
  const origin = req.headers.origin;
  if (origin && origin !== new URL(deps.config.publicBaseUrl).origin) return false;
  const sent = field(req.body, 'csrf');
  return !!expected && !!sent && safeEqualString(sent, expected);
}

/** A form field's first value, capped in length ('' when absent). */
export function field(body: unknown, name: string, max = 300): string {
  const v = (body && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined) as unknown;
  const one = Array.isArray(v) ? v[0] : v;
  return typeof one === 'string' ? one.slice(0, max) : '';
}
