import { createHash, createHmac } from 'node:crypto';
import { dirname, join } from 'node:path';
import { readFileSync } from 'node:fs';
import { UNMATCHED_ROUTE } from '../platform/redact';
import { createRequire } from 'node:module';
import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Module } from '../deps';
import { ApiError } from '../platform/errors';
import { findSession, pruneSessions } from './sign-in/sessions';
import { frameText } from './i18n';
import { SESSION_COOKIE, bareError, langOf, sendPage } from './frame';
import { html } from '../pages/html';
import { signInRoutes } from './sign-in/sign-in';
import { verifyRoutes } from './sign-in/verify';
import { PAGES } from './pages';
import { PASSKEY_JS } from './sign-in/passkey-script';
import { deleteExpiredChallenges } from './sign-in/second-factor-repo';
import { assertAllAttached, attachStepUp } from './step-up-actions';

const require = createRequire(import.meta.url);
const HTMX_VERSION: string = require('htmx.org/package.json').version;
const HTMX_JS = readFileSync(require.resolve('htmx.org/dist/htmx.min.js'));
// @simplewebauthn/browser's own browser bundle (its package exports name only the module builds, so the file is
// found beside the CommonJS entry).
const WEBAUTHN_DIR = join(dirname(require.resolve('@simplewebauthn/browser')), '..');
const WEBAUTHN_VERSION: string = JSON.parse(readFileSync(join(WEBAUTHN_DIR, 'package.json'), 'utf8')).version;
const WEBAUTHN_JS = readFileSync(join(WEBAUTHN_DIR, 'dist', 'bundle', 'index.umd.min.js'));
const PASSKEY_ETAG = `"pk-${createHash('sha256').update(PASSKEY_JS).digest('hex').slice(0, 16)}"`;

/**
 * Self scripts only (htmx from /dashboard/assets; no inline or eval'd script), inline styles as on the hosted pages,
 * forms and requests to this origin only, never framed.
 */
export const DASHBOARD_CSP =
  "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/**
 * The seller dashboard at /dashboard: server-rendered pages (src/dashboard/pages/*) enhanced with htmx, for store
 * members signed in with e-mail and password. See src/dashboard/README.md for how a page is added.
 */
const dashboardModule: Module = async (app, deps) => {
  // The step-up check goes onto every listed action as its route is registered (so before any route is).
  const stepUpAttached = new Set<string>();
  app.addHook('onRoute', (route) => {
    const url = attachStepUp(deps, route);
    if (url) stepUpAttached.add(url);
  });
  const secureCookies = deps.config.publicBaseUrl.startsWith('https:');
  // The cookie-signing secret is derived from the master key, so every process of a deployment agrees on it.
  const secret = createHmac('sha256', deps.config.masterKey).update('dashboard-cookie-v1').digest('base64url');
  await app.register(cookie, { secret });
  await app.register(csrf, {
    sessionPlugin: '@fastify/cookie',
    cookieKey: 'dash_csrf',
    cookieOpts: { path: '/dashboard', sameSite: 'lax', httpOnly: true, secure: secureCookies, signed: true },
  });
  await app.register(formbody, { bodyLimit: 64 * 1024 });

  app.addHook('onSend', async (_req, reply, payload) => {
    if (!reply.hasHeader('Cache-Control')) reply.header('Cache-Control', 'no-store');
    reply.header('X-Frame-Options', 'DENY');
    reply.header('X-Content-Type-Options', 'nosniff');
    reply.header('Referrer-Policy', 'same-origin');
    reply.header('Content-Security-Policy', DASHBOARD_CSP);
    return payload;
  });

  // Who is signed in: looked up once per request from the signed session cookie (the row decides, not the cookie).
  app.addHook('onRequest', async (req) => {
    req.dashboardMember = null;
    const raw = req.cookies[SESSION_COOKIE];
    if (!raw) return;
    const unsigned = req.unsignCookie(raw);
    if (!unsigned.valid || !unsigned.value) return;
    req.dashboardMember = await findSession(deps, unsigned.value);
  });

  // CSRF on every state-changing request of the dashboard, sign-in included (a form field or the x-csrf-token header).
  app.addHook('preHandler', (req, reply, done) => {
    if (req.method === 'GET' || req.method === 'HEAD') return done();
    app.csrfProtection(req, reply, done);
  });

  // Errors here are pages for people, in the member's language, never API error bodies.
  app.setErrorHandler((error: FastifyError | ApiError, req: FastifyRequest, reply: FastifyReply) => {
    const lang = langOf(req);
    const code = (error as FastifyError).code ?? '';
    let status: number;
    let title: string;
    let message: string;
    if (typeof code === 'string' && code.startsWith('FST_CSRF')) {
      status = 403;
      title = frameText(lang, 'csrf.title');
      message = frameText(lang, 'csrf.message');
    } else if (error instanceof ApiError && error.statusCode < 500) {
      status = error.statusCode;
      title = frameText(lang, 'error.title');
      message = error.message;
    } else if ((error as FastifyError).statusCode && (error as FastifyError).statusCode! < 500) {
      status = (error as FastifyError).statusCode!;
      title = frameText(lang, 'error.title');
      message = frameText(lang, 'csrf.message');
    } else {
      req.log.error({ err: error }, 'dashboard page failed');
      status = 500;
      title = frameText(lang, 'error.title');
      message = frameText(lang, 'error.server');
    }
    if (status !== 500) req.log.info({ code, status, route: req.routeOptions.url ?? UNMATCHED_ROUTE }, 'dashboard request refused');
    if (req.dashboard) return sendPage(reply, req.dashboard, { title }, html`<div class="card" role="alert" data-testid="error"><p>${message}</p><p><a href="/dashboard">${frameText(lang, 'back.home')}</a></p></div>`, status);
    return reply.code(status).type('text/html; charset=utf-8').send(bareError(lang, title, message));
  });

  app.get('/dashboard/assets/htmx.min.js', { schema: { hide: true } }, async (_req, reply) =>
    reply.header('Cache-Control', 'public, max-age=86400').header('ETag', `"htmx-${HTMX_VERSION}"`).type('text/javascript; charset=utf-8').send(HTMX_JS),
  );

  app.get('/dashboard/assets/webauthn.min.js', { schema: { hide: true } }, async (_req, reply) =>
    reply.header('Cache-Control', 'public, max-age=86400').header('ETag', `"webauthn-${WEBAUTHN_VERSION}"`).type('text/javascript; charset=utf-8').send(WEBAUTHN_JS),
  );
  app.get('/dashboard/assets/passkey.js', { schema: { hide: true } }, async (_req, reply) =>
    reply.header('Cache-Control', 'public, max-age=3600').header('ETag', PASSKEY_ETAG).type('text/javascript; charset=utf-8').send(PASSKEY_JS),
  );

  // Expired sessions (and WebAuthn challenges) are already refused at lookup; this hourly sweep keeps the tables small.
  deps.worker.addTask({ name: 'dashboard.prune-sessions', intervalMs: 60 * 60_000, run: async (now) => { await deleteExpiredChallenges(deps.db, now); return pruneSessions(deps.db, now); } });

  signInRoutes(app, deps, secureCookies);
  verifyRoutes(app, deps, secureCookies);
  for (const page of PAGES) await page(app, deps);
  assertAllAttached(stepUpAttached);
};

export default dashboardModule;
