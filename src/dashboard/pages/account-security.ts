import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RegistrationResponseJSON } from '@simplewebauthn/server';
import type { DashboardPage } from './page';
import type { AppDeps } from '../../deps';
import { ApiError } from '../../platform/errors';
import { auditAction, ctxOf, memberActor, originOf, redirectTo, requireRole, sendPage, type DashboardContext } from '../frame';
import { catalog } from '../i18n';
import { field } from '../form';
import { changeOwnPassword, normalizeEmail } from '../members';
import { confirmTotp, pendingTotp, regenerateRecoveryCodes, removeTotp, startTotp, unusedRecoveryCodes } from '../sign-in/second-factor';
import { findTotp } from '../sign-in/second-factor-repo';
import { finishRegistration, listPasskeys, registrationOptions, removePasskey, renamePasskey } from '../sign-in/passkeys';
import { hasFactor, stepUpSatisfied } from '../sign-in/step-up';
import { signInThrottle } from '../sign-in/throttle';
import { markSecondFactor } from '../sign-in/sessions';
import { accountText, securityBody, type SecurityFlash } from './account-view';
import { errorText } from './errors';

const m = catalog(
  {
    totpOn: '인증 앱을 켰습니다. 다음 로그인부터 코드를 묻습니다.',
    totpWrong: '코드가 맞지 않습니다. 앱에 표시된 최신 코드를 입력해 주세요.',
    totpOff: '인증 앱을 해제했습니다. 다른 기기의 로그인은 끝났습니다.',
    passkeyAdded: '패스키를 추가했습니다.',
    passkeyRenamed: '패스키 이름을 바꿨습니다.',
    passkeyRemoved: '패스키를 삭제했습니다. 다른 기기의 로그인은 끝났습니다.',
    passkeyFailed: '패스키를 등록하지 못했습니다. 다시 시도해 주세요.',
    passkeyNameInvalid: '패스키 이름에는 줄바꿈·탭 같은 제어 문자나 글자 방향을 바꾸는 문자(U+202A~U+202E, U+2066~U+2069, U+200E, U+200F, U+061C)를 쓸 수 없습니다.',
    passkeyDuplicate: '이 패스키는 이미 등록되어 있습니다.',
    codesNew: '새 복구 코드를 만들었습니다. 이전 코드는 더 이상 쓸 수 없습니다.',
    passwordChanged: '비밀번호를 바꿨습니다. 다른 기기의 로그인은 끝났습니다.',
    passwordWrong: '현재 비밀번호가 올바르지 않습니다.',
    passwordMismatch: '새 비밀번호 두 칸이 서로 다릅니다.',
    throttled: '시도가 너무 많습니다. {minutes}분 뒤에 다시 시도해 주세요.',
    notFound: '패스키를 찾을 수 없습니다.',
  },
  {
    totpOn: 'Authenticator app on. Its code is asked for from your next sign-in.',
    totpWrong: 'The code does not match. Enter the latest code shown in the app.',
    totpOff: 'Authenticator app removed. Every other device was signed out.',
    passkeyAdded: 'Passkey added.',
    passkeyRenamed: 'Passkey renamed.',
    passkeyRemoved: 'Passkey removed. Every other device was signed out.',
    passkeyFailed: 'The passkey could not be added. Please try again.',
    passkeyNameInvalid: 'A passkey name cannot contain control characters (line breaks, tabs) or characters that change the text direction (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C).',
    passkeyDuplicate: 'This passkey is already registered.',
    codesNew: 'New recovery codes made. The earlier codes no longer work.',
    passwordChanged: 'Password changed. Every other device was signed out.',
    passwordWrong: 'The current password is not correct.',
    passwordMismatch: 'The two new passwords differ.',
    throttled: 'Too many attempts. Try again in {minutes} minutes.',
    notFound: 'Passkey not found.',
  },
);

async function render(deps: AppDeps, reply: FastifyReply, ctx: DashboardContext, flash: SecurityFlash = {}, status = 200): Promise<FastifyReply> {
  const member = { id: ctx.member.memberId, email: ctx.member.email, storeName: ctx.member.storeName };
  const totp = await findTotp(deps.db, member.id);
  // The page is one step of the ceremonies it starts (a new app's key shown after it was made; a passkey added by
  // script after the unlock), so it is judged with the ceremony's minimum even when the window is 0.
  const fresh = stepUpSatisfied(deps, ctx.member, { ceremony: true });
  const unconfirmed = totp !== undefined && totp !== null && !totp.confirmed_at;
  const state = {
    totpConfirmedAt: totp?.confirmed_at ? new Date(totp.confirmed_at) : null,
    // An app's key not yet confirmed is shown only to a fresh session: a stale one (a stolen cookie) reading it could
    // confirm its own authenticator with it.
    pending: unconfirmed && fresh ? await pendingTotp(deps, member) : null,
    pendingHidden: unconfirmed && !fresh,
    passkeys: await listPasskeys(deps, member.id),
    recoveryLeft: await unusedRecoveryCodes(deps, member.id),
    fresh,
  };
  return sendPage(reply, ctx, { title: accountText(ctx.lang, 'title') }, securityBody(ctx, state, flash), status);
}

/**
 * /dashboard/account/security: the member's own authenticator app, passkeys, recovery codes and password. Open to
 * every role, and to a member the store's policy sends here to set a factor up. Changing factors the member already
 * has asks for one of them again (step-up); the first one needs nothing more than the signed-in session.
 */
const accountSecurityPage: DashboardPage = async (app, deps) => {
  const guard = { schema: { hide: true }, preHandler: requireRole('home', { enrolling: true }) };
  type Req = FastifyRequest<{ Params: { id: string } }>;
  const throttle = signInThrottle(deps);

  app.get('/dashboard/account/security', guard, async (req, reply) => render(deps, reply, ctxOf(req)));

  // The step-up page's way in for changes made by script (adding a passkey): confirm (the step-up list, in
  // ../step-up-actions.ts, asks on every route of this page that changes a factor), then back to the page.
  app.post('/dashboard/account/unlock', guard, async (req, reply) => redirectTo(req, reply, '/dashboard/account/security'));

  app.post('/dashboard/account/totp/start', guard, async (req, reply) => {
    const ctx = ctxOf(req);
    await startTotp(deps, { id: ctx.member.memberId, email: ctx.member.email, storeName: ctx.member.storeName });
    return redirectTo(req, reply, '/dashboard/account/security');
  });

  app.post('/dashboard/account/totp/confirm', guard, async (req, reply) => {
    const ctx = ctxOf(req);
    const emailKey = normalizeEmail(ctx.member.email);
    const lock = await throttle.check(emailKey, req.ip);
    if (lock.locked) return render(deps, reply, ctx, { error: m(ctx.lang, 'throttled', { minutes: Math.ceil(lock.retrySec / 60) }) }, 429);
    const r = await confirmTotp(deps, ctx.member.memberId, field(req.body, 'code', 20));
    if (!r.ok) {
      await throttle.fail(emailKey, req.ip);
      return render(deps, reply, ctx, { error: m(ctx.lang, 'totpWrong') }, 422);
    }
    await auditAction(deps.db, deps, req, { action: 'member.totp_enabled', mode: null, target: { type: 'member', id: ctx.member.memberId } });
    if (r.recoveryCodes) await auditAction(deps.db, deps, req, { action: 'member.recovery_codes_generated', mode: null, target: { type: 'member', id: ctx.member.memberId } });
    // The code just typed is the factor given now: the session may go on to change things without another prompt.
    // (A member who had a factor already reached this line only with a fresh one: the step-up list asks first.)
    await markSecondFactor(deps, ctx.member.sessionId);
    ctx.member.secondFactorAt = deps.clock.now();
    ctx.member.factors.totp = true;
    ctx.member.mustEnrol = false;
    return render(deps, reply, ctx, { ok: m(ctx.lang, 'totpOn'), codes: r.recoveryCodes });
  });

  app.post('/dashboard/account/totp/remove', guard, async (req, reply) => {
    const ctx = ctxOf(req);
    if (await removeTotp(deps, ctx.member.memberId, ctx.member.sessionId)) {
      await auditAction(deps.db, deps, req, { action: 'member.totp_removed', mode: null, target: { type: 'member', id: ctx.member.memberId } });
    }
    return redirectTo(req, reply, '/dashboard/account/security');
  });

  app.post('/dashboard/account/recovery-codes', guard, async (req, reply) => {
    const ctx = ctxOf(req);
    if (!hasFactor(ctx.member)) return redirectTo(req, reply, '/dashboard/account/security');
    const codes = await regenerateRecoveryCodes(deps, ctx.member.memberId);
    await auditAction(deps.db, deps, req, { action: 'member.recovery_codes_generated', mode: null, target: { type: 'member', id: ctx.member.memberId } });
    return render(deps, reply, ctx, { ok: m(ctx.lang, 'codesNew'), codes });
  });

  // Passkeys are added by the page's script (JSON): the step-up, when one is due, happened before (the unlock form);
  // a stale session gets a 401 body from the step-up list's check.
  app.post('/dashboard/account/passkeys/options', guard, async (req) => {
    const ctx = ctxOf(req);
    return registrationOptions(deps, ctx.member, ctx.member.sessionId);
  });

  app.post('/dashboard/account/passkeys', guard, async (req, reply) => {
    const ctx = ctxOf(req);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const r = await finishRegistration(deps, ctx.member, ctx.member.sessionId, { challengeId: String(body.challengeId ?? ''), response: body.response as RegistrationResponseJSON, name: typeof body.name === 'string' ? body.name : '' });
    if (!r.ok) return reply.code(422).send({ error: m(ctx.lang, r.reason === 'duplicate' ? 'passkeyDuplicate' : r.reason === 'name' ? 'passkeyNameInvalid' : 'passkeyFailed') });
    await auditAction(deps.db, deps, req, { action: 'member.passkey_added', mode: null, target: { type: 'member', id: ctx.member.memberId }, details: { passkeyId: r.passkey.id, name: r.passkey.name } });
    if (r.recoveryCodes) await auditAction(deps.db, deps, req, { action: 'member.recovery_codes_generated', mode: null, target: { type: 'member', id: ctx.member.memberId } });
    return { redirect: '/dashboard/account/security', recoveryCodes: r.recoveryCodes, message: m(ctx.lang, 'passkeyAdded') };
  });

  app.post('/dashboard/account/passkeys/:id/rename', guard, async (req: Req, reply) => {
    const ctx = ctxOf(req);
    // Untrimmed: a line break or tab at either end is refused like one inside, not silently cut.
    const raw = (req.body as Record<string, unknown> | undefined)?.name;
    const name = typeof raw === 'string' ? raw.slice(0, 200) : '';
    const renamed = await renamePasskey(deps, ctx.member.memberId, req.params.id, name);
    if (renamed === 'invalid_name') return render(deps, reply, ctx, { error: m(ctx.lang, 'passkeyNameInvalid') }, 400);
    if (renamed === 'not_found') return render(deps, reply, ctx, { error: m(ctx.lang, 'notFound') }, 404);
    await auditAction(deps.db, deps, req, { action: 'member.passkey_renamed', mode: null, target: { type: 'member', id: ctx.member.memberId }, details: { passkeyId: req.params.id, name: name.trim().slice(0, 60) } });
    return render(deps, reply, ctx, { ok: m(ctx.lang, 'passkeyRenamed') });
  });

  app.post('/dashboard/account/passkeys/:id/remove', guard, async (req: Req, reply) => {
    const ctx = ctxOf(req);
    if (!(await removePasskey(deps, ctx.member.memberId, req.params.id, ctx.member.sessionId))) return render(deps, reply, ctx, { error: m(ctx.lang, 'notFound') }, 404);
    await auditAction(deps.db, deps, req, { action: 'member.passkey_removed', mode: null, target: { type: 'member', id: ctx.member.memberId }, details: { passkeyId: req.params.id } });
    ctx.member.factors.passkeys = Math.max(0, ctx.member.factors.passkeys - 1);
    return render(deps, reply, ctx, { ok: m(ctx.lang, 'passkeyRemoved') });
  });

  app.post('/dashboard/account/password', guard, async (req, reply) => {
    const ctx = ctxOf(req);
    const emailKey = normalizeEmail(ctx.member.email);
    const lock = await throttle.check(emailKey, req.ip);
    if (lock.locked) return render(deps, reply, ctx, { error: m(ctx.lang, 'throttled', { minutes: Math.ceil(lock.retrySec / 60) }) }, 429);
    const current = typeof (req.body as Record<string, unknown>)?.current === 'string' ? String((req.body as Record<string, unknown>).current) : '';
    const next = typeof (req.body as Record<string, unknown>)?.password === 'string' ? String((req.body as Record<string, unknown>).password) : '';
    if (next !== (req.body as Record<string, unknown>)?.confirm) return render(deps, reply, ctx, { error: m(ctx.lang, 'passwordMismatch') }, 422);
    try {
      if (!(await changeOwnPassword(deps, ctx.member.storeId, ctx.member.memberId, current, next, ctx.member.sessionId, memberActor(ctx), originOf(req)))) {
        await throttle.fail(emailKey, req.ip);
        return render(deps, reply, ctx, { error: m(ctx.lang, 'passwordWrong') }, 422);
      }
    } catch (e) {
      if (e instanceof ApiError && e.statusCode < 500) return render(deps, reply, ctx, { error: errorText(e) }, e.statusCode);
      throw e;
    }
    return render(deps, reply, ctx, { ok: m(ctx.lang, 'passwordChanged') });
  });
};

export default accountSecurityPage;
