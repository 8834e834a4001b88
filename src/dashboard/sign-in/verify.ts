import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { App, AppDeps } from '../../deps';
import { html } from '../../pages/html';
import { recordAudit } from '../../audit/service';
import { consume, createLimiter } from '../../platform/http/rate-limit';
import { catalog, type Lang } from '../i18n';
import { bareLayout, csrfInput } from '../layout';
import { langOf, originOf, requireRole, ctxOf } from '../frame';
import { findMember } from '../members-repo';
import { normalizeEmail } from '../members';
import { verifyCode, unusedRecoveryCodes } from './second-factor';
import { authenticationOptions, passkeyThrottleKey, verifyAuthentication } from './passkeys';
import { completeSignIn, markSecondFactor, startSession, SESSION_TTL_MS, type SignedInMember } from './sessions';
import { signInThrottle } from './throttle';
import { passkeyButton } from './passkey-button';
import { safeNext, setSessionCookie } from './sign-in';

const m = catalog(
  {
    title: '2단계 인증',
    intro: '{name}님, 비밀번호를 확인했습니다. 등록한 2단계 인증 수단으로 로그인을 마치세요.',
    code: '인증 앱의 6자리 코드',
    submit: '확인',
    passkey: '패스키로 확인',
    recovery: '인증 앱과 패스키를 쓸 수 없나요? 복구 코드 입력',
    recoveryCode: '복구 코드 (xxxxx-xxxxx)',
    recoverySubmit: '복구 코드로 로그인',
    wrong: '코드가 올바르지 않거나 이미 사용되었습니다.',
    throttled: '시도가 너무 많습니다. {minutes}분 뒤에 다시 시도해 주세요.',
    other: '다른 계정으로 로그인',
    passkeyFailed: '패스키를 확인하지 못했습니다.',
    lost: '복구 코드도 없다면 상점 소유자에게 2단계 인증 초기화를 요청하세요. 소유자는 서버에서 commerce member reset-2fa 명령으로 초기화할 수 있습니다.',
  },
  {
    title: 'Two-step sign-in',
    intro: '{name}, your password is confirmed. Finish signing in with your second factor.',
    code: '6-digit code from your authenticator app',
    submit: 'Verify',
    passkey: 'Verify with a passkey',
    recovery: 'Cannot use your app or passkey? Enter a recovery code',
    recoveryCode: 'Recovery code (xxxxx-xxxxx)',
    recoverySubmit: 'Sign in with a recovery code',
    wrong: 'The code is wrong or was already used.',
    throttled: 'Too many attempts. Try again in {minutes} minutes.',
    other: 'Sign in as someone else',
    passkeyFailed: 'The passkey could not be verified.',
    lost: 'No recovery code either? Ask the store owner to reset your two-step sign-in. An owner resets their own with the commerce member reset-2fa command on the server.',
  },
);

function verifyPage(lang: Lang, csrf: string, member: SignedInMember, next: string, error?: string): string {
  const t = (k: Parameters<typeof m>[1], v?: Record<string, string | number>) => m(lang, k, v);
  const action = `/dashboard/login/verify?next=${encodeURIComponent(next)}`;
  return bareLayout(
    lang,
    t('title'),
    html`<div class="card" data-testid="verify">
  <h1>${t('title')}</h1>
  ${error ? html`<div class="banner error" role="alert" data-testid="verify-error">${error}</div>` : ''}
  <p>${t('intro', { name: member.name })}</p>
  ${
    member.factors.totp
      ? html`<form method="post" action="${action}">${csrfInput(csrf)}<label for="code">${t('code')}</label><input type="text" id="code" name="code" inputmode="numeric" pattern="[0-9 ]*" autocomplete="one-time-code" maxlength="7" required autofocus><button type="submit" class="pay">${t('submit')}</button></form>`
      : ''
  }
  ${member.factors.passkeys > 0 ? passkeyButton(lang, { kind: 'verify', label: t('passkey'), csrf, options: '/dashboard/login/verify/passkey/options', verify: '/dashboard/login/verify/passkey', next, className: member.factors.totp ? 'plain' : 'pay' }) : ''}
  <details><summary>${t('recovery')}</summary>
  <form method="post" action="${action}">${csrfInput(csrf)}<label for="recovery">${t('recoveryCode')}</label><input type="text" id="recovery" name="code" autocomplete="off" maxlength="20" required><button type="submit" class="plain">${t('recoverySubmit')}</button></form>
  <p class="hint">${t('lost')}</p></details>
</div>
<form method="post" action="/dashboard/logout" class="center">${csrfInput(csrf)}<button type="submit" class="plain">${t('other')}</button></form>`,
  );
}

type Json = Record<string, unknown>;

/** The second step of signing in (app code, recovery code or passkey), passwordless passkey sign-in, and step-up by passkey. */
export function verifyRoutes(app: App, deps: AppDeps, secureCookies: boolean): void {
  const throttle = signInThrottle(deps);
  const hide = { schema: { hide: true } };
  const nextOf = (req: FastifyRequest) => safeNext((req.query as Json)?.next ?? (req.body as Json | undefined)?.next);

  /** The waiting session of this request, or a redirect: none → sign-in page, complete → where it was going. */
  function pending(req: FastifyRequest, reply: FastifyReply): SignedInMember | null {
    const member = req.dashboardMember;
    if (!member) reply.redirect('/dashboard/login', 303);
    else if (!member.secondFactorPending) reply.redirect(nextOf(req), 303);
    else return member;
    return null;
  }

  async function finish(req: FastifyRequest, reply: FastifyReply, member: SignedInMember, method: string): Promise<string | null> {
    const done = await completeSignIn(deps, member.sessionId);
    if (!done) return null;
    await throttle.clear(normalizeEmail(member.email));
    await recordAudit(deps.db, deps.clock, { storeId: member.storeId, mode: null, actor: { kind: 'member', id: member.memberId, name: member.name }, action: 'session.signed_in', target: { type: 'member', id: member.memberId }, details: { method }, origin: originOf(req) });
    setSessionCookie(reply, done.token, secureCookies, SESSION_TTL_MS);
    return nextOf(req);
  }

  app.get('/dashboard/login/verify', hide, async (req, reply) => {
    const member = pending(req, reply);
    if (!member) return reply;
    return reply.type('text/html; charset=utf-8').send(verifyPage(langOf(req), reply.generateCsrf(), member, nextOf(req)));
  });

  app.post('/dashboard/login/verify', hide, async (req, reply) => {
    const member = pending(req, reply);
    if (!member) return reply;
    const lang = langOf(req);
    const emailKey = normalizeEmail(member.email);
    const send = (status: number, error: string) => reply.code(status).type('text/html; charset=utf-8').send(verifyPage(lang, reply.generateCsrf(), member, nextOf(req), error));
    const lock = await throttle.check(emailKey, req.ip);
    if (lock.locked) return send(429, m(lang, 'throttled', { minutes: Math.ceil(lock.retrySec / 60) })).header('Retry-After', String(lock.retrySec));
    const code = (req.body as Json | undefined)?.code;
    const method = typeof code === 'string' ? await verifyCode(deps, member.memberId, code) : null;
    const actor = { kind: 'member' as const, id: member.memberId, name: member.name };
    if (!method) {
      await throttle.fail(emailKey, req.ip);
      await recordAudit(deps.db, deps.clock, { storeId: member.storeId, mode: null, actor, action: 'session.second_factor_failed', target: { type: 'member', id: member.memberId }, origin: originOf(req) });
      return send(401, m(lang, 'wrong'));
    }
    if (method === 'recovery_code') {
      const left = await unusedRecoveryCodes(deps, member.memberId);
      await recordAudit(deps.db, deps.clock, { storeId: member.storeId, mode: null, actor, action: 'member.recovery_code_used', target: { type: 'member', id: member.memberId }, details: { remaining: left }, origin: originOf(req) });
    }
    const to = await finish(req, reply, member, `password+${method}`);
    return reply.redirect(to ?? '/dashboard/login', 303);
  });

  app.post('/dashboard/login/verify/passkey/options', hide, async (req, reply) => {
    const member = req.dashboardMember;
    if (!member?.secondFactorPending) return reply.code(401).send({ error: m(langOf(req), 'passkeyFailed') });
    return authenticationOptions(deps, { purpose: 'second_factor', memberId: member.memberId, sessionId: member.sessionId });
  });

  app.post('/dashboard/login/verify/passkey', hide, async (req, reply) => {
    const member = req.dashboardMember;
    const lang = langOf(req);
    if (!member?.secondFactorPending) return reply.code(401).send({ error: m(lang, 'passkeyFailed') });
    const emailKey = normalizeEmail(member.email);
    const lock = await throttle.check(emailKey, req.ip);
    if (lock.locked) return reply.code(429).header('Retry-After', String(lock.retrySec)).send({ error: m(lang, 'throttled', { minutes: Math.ceil(lock.retrySec / 60) }) });
    const body = (req.body ?? {}) as Json;
    const ok = await verifyAuthentication(deps, { purpose: 'second_factor', memberId: member.memberId, sessionId: member.sessionId, challengeId: String(body.challengeId ?? ''), response: body.response as AuthenticationResponseJSON });
    if (!ok) {
      await throttle.fail(emailKey, req.ip);
      await recordAudit(deps.db, deps.clock, { storeId: member.storeId, mode: null, actor: { kind: 'member', id: member.memberId, name: member.name }, action: 'session.second_factor_failed', target: { type: 'member', id: member.memberId }, details: { method: 'passkey' }, origin: originOf(req) });
      return reply.code(401).send({ error: m(lang, 'passkeyFailed') });
    }
    const to = await finish(req, reply, member, 'password+passkey');
    return { redirect: to ?? '/dashboard/login' };
  });

  // Passwordless: the authenticator offers the passkeys it holds for this site; the one chosen names the member.
  // Each ask stores a challenge, so asking is limited per address (a page load asks once).
  const optionsPerIp = createLimiter({ redis: deps.redis, keyPrefix: 'rl_dash_passkey_options', points: 60, durationSec: 15 * 60 });
  app.post('/dashboard/login/passkey/options', hide, async (req, reply) => {
    const rl = await consume(optionsPerIp, req.ip);
    if (!rl.allowed) return reply.code(429).header('Retry-After', String(rl.resetSec)).send({ error: m(langOf(req), 'throttled', { minutes: Math.ceil(rl.resetSec / 60) }) });
    return authenticationOptions(deps, { purpose: 'sign_in' });
  });

  app.post('/dashboard/login/passkey', hide, async (req, reply) => {
    const lang = langOf(req);
    const body = (req.body ?? {}) as Json;
    // Failures count against the member whose passkey the authenticator offered (with their wrong passwords and
    // codes, the per-member limit) and against the address (the higher per-address limit). Counted per address
    // alone, five failures of one member locked passkey sign-in for everyone behind the same NAT or office network;
    // a spray across members from one address still stops at the address limit.
    const key = await passkeyThrottleKey(deps.db, (body.response as { id?: unknown } | undefined)?.id);
    const lock = await throttle.check(key, req.ip);
    if (lock.locked) return reply.code(429).header('Retry-After', String(lock.retrySec)).send({ error: m(lang, 'throttled', { minutes: Math.ceil(lock.retrySec / 60) }) });
    const ok = await verifyAuthentication(deps, { purpose: 'sign_in', challengeId: String(body.challengeId ?? ''), response: body.response as AuthenticationResponseJSON });
    const member = ok ? await findMember(deps.db, ok.storeId, ok.memberId) : undefined;
    if (!ok || !member || member.disabled_at) {
      await throttle.fail(key, req.ip);
      return reply.code(401).send({ error: m(lang, 'passkeyFailed') });
    }
    const origin = originOf(req);
    const { token } = await startSession(deps, member.id, member.store_id, origin, { secondFactor: true });
    await throttle.clear(normalizeEmail(member.email));
    await recordAudit(deps.db, deps.clock, { storeId: member.store_id, mode: null, actor: { kind: 'member', id: member.id, name: member.name }, action: 'session.signed_in', target: { type: 'member', id: member.id }, details: { method: 'passkey', passkeyId: ok.passkeyId }, origin });
    setSessionCookie(reply, token, secureCookies, SESSION_TTL_MS);
    return { redirect: safeNext(body.next) };
  });

  // Step-up by passkey (the step-up page's button): the window opens, then the page submits the original form.
  const signedIn = { ...hide, preHandler: requireRole('home', { enrolling: true }) };
  app.post('/dashboard/step-up/passkey/options', signedIn, async (req) => {
    const ctx = ctxOf(req);
    return authenticationOptions(deps, { purpose: 'second_factor', memberId: ctx.member.memberId, sessionId: ctx.member.sessionId });
  });
  app.post('/dashboard/step-up/passkey', signedIn, async (req, reply) => {
    const ctx = ctxOf(req);
    const emailKey = normalizeEmail(ctx.member.email);
    const lock = await throttle.check(emailKey, req.ip);
    if (lock.locked) return reply.code(429).header('Retry-After', String(lock.retrySec)).send({ error: m(ctx.lang, 'throttled', { minutes: Math.ceil(lock.retrySec / 60) }) });
    const body = (req.body ?? {}) as Json;
    const ok = await verifyAuthentication(deps, { purpose: 'second_factor', memberId: ctx.member.memberId, sessionId: ctx.member.sessionId, challengeId: String(body.challengeId ?? ''), response: body.response as AuthenticationResponseJSON });
    const actor = { kind: 'member' as const, id: ctx.member.memberId, name: ctx.member.name };
    if (!ok) {
      await throttle.fail(emailKey, req.ip);
      await recordAudit(deps.db, deps.clock, { storeId: ctx.member.storeId, mode: null, actor, action: 'session.step_up_failed', target: { type: 'member', id: ctx.member.memberId }, details: { method: 'passkey' }, origin: originOf(req) });
      return reply.code(401).send({ error: m(ctx.lang, 'passkeyFailed') });
    }
    await markSecondFactor(deps, ctx.member.sessionId);
    await recordAudit(deps.db, deps.clock, { storeId: ctx.member.storeId, mode: null, actor, action: 'session.step_up_verified', target: { type: 'member', id: ctx.member.memberId }, details: { method: 'passkey' }, origin: originOf(req) });
    return { ok: true };
  });
}
