import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../db';
import type { AppDeps } from '../deps';
import type { Mode } from '../platform/tables';
import { html, type SafeHtml } from '../pages/html';
import { recordAudit } from '../audit/service';
import { frameText, type Lang } from './i18n';
import { bareLayout, csrfInput, dashboardLayout, type DashboardPageOptions } from './layout';
import { can, type Permission } from './roles';
import type { SignedInMember } from './sign-in/sessions';

/** What every signed-in dashboard handler gets on `req.dashboard` once `requireRole` has run. */
export interface DashboardContext {
  member: SignedInMember;
  lang: Lang;
  /** The session's mode: every page shows and changes this mode's data only. */
  mode: Mode;
  /** The token for this page's forms (`csrfField(ctx)`) and htmx requests (sent as a header by the layout). */
  csrfToken: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the dashboard's onRequest hook when the session cookie names a live session. */
    dashboardMember?: SignedInMember | null;
    dashboard?: DashboardContext;
  }
}

export const SESSION_COOKIE = 'dash_session';
export const LANG_COOKIE = 'lang';

export function langOf(req: FastifyRequest): Lang {
  return req.cookies?.[LANG_COOKIE] === 'en' ? 'en' : 'ko';
}

/** The hidden CSRF field every dashboard form carries. */
export function csrfField(ctx: Pick<DashboardContext, 'csrfToken'>): SafeHtml {
  return csrfInput(ctx.csrfToken);
}

function isHtmx(req: FastifyRequest): boolean {
  return req.headers['hx-request'] === 'true';
}

/** Sends a full page inside the signed-in frame. */
export function sendPage(reply: FastifyReply, ctx: DashboardContext, opts: DashboardPageOptions, body: SafeHtml, status = 200): FastifyReply {
  // A page answered to a boosted form post belongs to the page the form was on: the address bar keeps that page
  // (otherwise htmx would push the POST URL, and a reload would GET an address that only takes POSTs).
  if (reply.request.method !== 'GET' && isHtmx(reply.request)) reply.header('HX-Push-Url', 'false');
  const page = dashboardLayout({ lang: ctx.lang, csrfToken: ctx.csrfToken, mode: ctx.mode, member: { name: ctx.member.name, role: ctx.member.role, storeName: ctx.member.storeName } }, opts, body);
  return reply.code(status).type('text/html; charset=utf-8').send(page);
}

/** Sends a fragment (an htmx swap target), without the frame. */
export function sendFragment(reply: FastifyReply, body: SafeHtml, status = 200): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(body.value);
}

/**
 * Post/redirect/get: after a form, go to a page. A boosted (htmx) form follows the 303 inside its request and swaps
 * in the page it lands on, so the same answer serves both.
 */
export function redirectTo(_req: FastifyRequest, reply: FastifyReply, url: string): FastifyReply {
  return reply.redirect(url, 303);
}

/** Sends the Korean (or English) 403 page. */
export function sendForbidden(reply: FastifyReply, ctx: DashboardContext): FastifyReply {
  const t = (k: Parameters<typeof frameText>[1], v?: Record<string, string>) => frameText(ctx.lang, k, v);
  return sendPage(
    reply,
    ctx,
    { title: t('forbidden.title') },
    html`<div class="card" data-testid="forbidden"><p>${t('forbidden.message', { role: t(`role.${ctx.member.role}`) })}</p><p><a href="/dashboard">${t('back.home')}</a></p></div>`,
    403,
  );
}

/**
 * The guard every dashboard route starts with: signed in (else to the sign-in page), and the role holds
 * `permission` in the table of src/dashboard/roles.ts (else the 403 page). Sets `req.dashboard`.
 */
export function requireRole(permission: Permission, o: { enrolling?: boolean } = {}) {
  return async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const member = req.dashboardMember;
    // A session waiting for its second factor opens only the verify page; a member the store's policy asks for a
    // factor they lack opens only the security page (routes marked `enrolling`) until they set one up.
    const to = !member ? 'login' : member.secondFactorPending ? 'verify' : member.mustEnrol && !o.enrolling ? 'enrol' : null;
    if (to) {
      const next = req.method === 'GET' ? req.url : '/dashboard';
      const url = to === 'login' ? `/dashboard/login?next=${encodeURIComponent(next)}` : to === 'verify' ? `/dashboard/login/verify?next=${encodeURIComponent(next)}` : '/dashboard/account/security';
      if (isHtmx(req)) reply.code(401).header('HX-Redirect', url).send();
      else reply.redirect(url, 303);
      return reply;
    }
    if (!member) return reply;
    const ctx: DashboardContext = { member, lang: langOf(req), mode: member.mode, csrfToken: reply.generateCsrf() };
    req.dashboard = ctx;
    if (!can(member.role, permission)) {
      sendForbidden(reply, ctx);
      return reply;
    }
  };
}

/** `req.dashboard` after requireRole; throws if a route forgot the guard. */
export function ctxOf(req: FastifyRequest): DashboardContext {
  if (!req.dashboard) throw new Error('dashboard route without requireRole()');
  return req.dashboard;
}

export interface DashboardAuditEntry {
  action: string;
  target?: { type: string; id: string } | null;
  details?: Record<string, unknown>;
  /** Defaults to the session's mode; null for store-wide actions (members, settings of both modes). */
  mode?: Mode | null;
}

/**
 * Records a dashboard action with the signed-in member as actor and the request's address and user agent. Pass the
 * transaction of the change when the service exposes one; otherwise call it right after the change succeeded.
 */
export async function auditAction(executor: Db, deps: Pick<AppDeps, 'clock'>, req: FastifyRequest, entry: DashboardAuditEntry): Promise<void> {
  const ctx = ctxOf(req);
  await recordAudit(executor, deps.clock, {
    storeId: ctx.member.storeId,
    mode: entry.mode === undefined ? ctx.mode : entry.mode,
    actor: memberActor(ctx),
    action: entry.action,
    target: entry.target ?? null,
    details: entry.details,
    origin: originOf(req),
  });
}

export function memberActor(ctx: DashboardContext) {
  return { kind: 'member' as const, id: ctx.member.memberId, name: ctx.member.name };
}

export function originOf(req: FastifyRequest) {
  const ua = req.headers['user-agent'];
  return { ip: req.ip ?? null, userAgent: typeof ua === 'string' ? ua : null };
}

/** A message box for the top of a page (after a form). */
export function notice(kind: 'ok' | 'error', text: string): SafeHtml {
  return html`<div class="banner ${kind === 'ok' ? 'info' : 'error'}" role="${kind === 'ok' ? 'status' : 'alert'}">${text}</div>`;
}

export function bareError(lang: Lang, title: string, message: string): string {
  return bareLayout(lang, title, html`<div class="card"><h1>${title}</h1><p>${message}</p><p><a href="/dashboard">${frameText(lang, 'back.home')}</a></p></div>`);
}
