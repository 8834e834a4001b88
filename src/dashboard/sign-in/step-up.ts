import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../../deps';
import { html, type SafeHtml } from '../../pages/html';
import { auditAction, csrfField, ctxOf, notice, sendPage, type DashboardContext } from '../frame';
import { catalog, type Lang } from '../i18n';
import { normalizeEmail } from '../members';
import { verifyCode } from './second-factor';
import { markSecondFactor, type SignedInMember } from './sessions';
import { signInThrottle } from './throttle';
import { passkeyButton } from './passkey-button';

/**
 * Step-up: actions that move money or widen access (the list in ../step-up-actions.ts) ask for the member's second
 * factor again unless it was given within the store deployment's window, DASHBOARD_STEP_UP_MINUTES (default 10; 0 asks
 * every time), at sign-in or at an earlier step-up. A member without a second factor has nothing to be asked for (a
 * store that wants these actions guarded requires factors with its policy).
 */
export const DEFAULT_STEP_UP_MINUTES = 10;
/** The default window in milliseconds (tests move the clock past it). */
export const STEP_UP_WINDOW_MS = DEFAULT_STEP_UP_MINUTES * 60 * 1000;
/**
 * A ceremony of several requests (adding a passkey: the unlock, the page, the options, the signed answer; showing a
 * new authenticator's key after it was made) stays open this long after a step-up even when the window is 0, or the
 * ceremony could never finish. Only the ceremony's own steps use it; every listed action still asks per the window.
 */
export const CEREMONY_MIN_MS = 60 * 1000;

type WindowDeps = { config: Pick<AppDeps['config'], 'dashboardStepUpMinutes'>; clock: AppDeps['clock'] };

export function stepUpWindowMs(deps: Pick<WindowDeps, 'config'>): number {
  return deps.config.dashboardStepUpMinutes * 60 * 1000;
}

export type StepUpAction =
  | 'toss_keys'
  | 'business_details'
  | 'return_urls'
  | 'live_api_key'
  | 'live_webhook_secret'
  | 'live_webhook_endpoint'
  | 'members'
  | 'refund'
  | 'settlement'
  | 'store_security'
  | 'factors';

const m = catalog(
  {
    title: '본인 확인',
    intro: '이 작업은 돈의 흐름이나 접근 권한에 영향을 주므로 2단계 인증을 다시 확인합니다. 확인 후 {minutes}분 동안은 다시 묻지 않습니다.',
    introEvery: '이 작업은 돈의 흐름이나 접근 권한에 영향을 주므로 2단계 인증을 다시 확인합니다. 이 서비스는 이런 작업마다 매번 확인합니다.',
    needStepUp: '먼저 본인 확인을 해 주세요.',
    action: '요청한 작업: {action}',
    code: '인증 앱의 6자리 코드 또는 복구 코드',
    submit: '확인하고 계속',
    passkey: '패스키로 확인',
    or: '또는',
    wrong: '코드가 올바르지 않거나 이미 사용되었습니다.',
    throttled: '시도가 너무 많습니다. {minutes}분 뒤에 다시 시도해 주세요.',
    cancel: '취소',
    toss_keys: '토스페이먼츠 키·결제대행사 변경',
    business_details: '사업자 정보 변경',
    return_urls: '돌아갈 주소(return URL) 허용 도메인 변경',
    live_api_key: '라이브 API 키 만들기·교체·폐기',
    live_webhook_secret: '라이브 웹훅 서명 비밀 보기·교체',
    live_webhook_endpoint: '라이브 웹훅 엔드포인트 추가·켜기·끄기',
    members: '멤버 추가·역할 변경·비활성화·로그인 종료·2단계 인증 초기화',
    refund: '기준 금액을 넘는 환불 (즉시 해지의 환불 포함)',
    settlement: '라이브 정산 실행',
    store_security: '상점 보안 정책 변경',
    factors: '2단계 인증 수단 변경',
  },
  {
    title: 'Confirm it is you',
    intro: 'This action moves money or widens access, so your second factor is asked again. Once confirmed, you are not asked again for {minutes} minutes.',
    introEvery: 'This action moves money or widens access, so your second factor is asked again. This service asks for every such action.',
    needStepUp: 'Confirm it is you first.',
    action: 'Requested action: {action}',
    code: '6-digit code from your authenticator app, or a recovery code',
    submit: 'Confirm and continue',
    passkey: 'Confirm with a passkey',
    or: 'or',
    wrong: 'The code is wrong or was already used.',
    throttled: 'Too many attempts. Try again in {minutes} minutes.',
    cancel: 'Cancel',
    toss_keys: 'Change Toss Payments keys or the payment provider',
    business_details: 'Change business details',
    return_urls: 'Change return-URL domains',
    live_api_key: 'Create, rotate or revoke a live API key',
    live_webhook_secret: 'Reveal or rotate a live webhook signing secret',
    live_webhook_endpoint: 'Add, enable or disable a live webhook endpoint',
    members: 'Add, disable or sign out members, change roles, reset two-step sign-in',
    refund: 'A refund above the threshold (an immediate cancellation\'s refund included)',
    settlement: 'Run a live settlement',
    store_security: 'Change the store security policy',
    factors: 'Change your two-step sign-in methods',
  },
);

export const stepUpText = m;

export function hasFactor(member: Pick<SignedInMember, 'factors'>): boolean {
  return member.factors.totp || member.factors.passkeys > 0;
}

/**
 * Whether the second factor was given within the window (or the member has none to give). `ceremony`: for the later
 * steps of a several-request ceremony, at least CEREMONY_MIN_MS.
 */
export function stepUpSatisfied(deps: WindowDeps, member: SignedInMember, o: { ceremony?: boolean } = {}): boolean {
  if (!hasFactor(member)) return true;
  if (member.secondFactorAt === null) return false;
  const windowMs = o.ceremony ? Math.max(stepUpWindowMs(deps), CEREMONY_MIN_MS) : stepUpWindowMs(deps);
  return deps.clock.now().getTime() - member.secondFactorAt.getTime() < windowMs;
}

/** The original form's fields, carried through the step-up page (the token and the code itself excepted). */
function carried(body: unknown): SafeHtml[] {
  const out: SafeHtml[] = [];
  for (const [k, v] of Object.entries((body ?? {}) as Record<string, unknown>)) {
    if (k === '_csrf' || k === '_stepup_code') continue;
    for (const x of Array.isArray(v) ? v : [v]) if (typeof x === 'string') out.push(html`<input type="hidden" name="${k}" value="${x}">`);
  }
  return out;
}

function page(deps: WindowDeps, reply: FastifyReply, ctx: DashboardContext, req: FastifyRequest, action: StepUpAction, error: string | null, status: number): FastifyReply {
  const L: Lang = ctx.lang;
  const t = (k: Parameters<typeof m>[1], v?: Record<string, string | number>) => m(L, k, v);
  const url = req.url.split('#')[0];
  const body = html`<div class="narrow" data-testid="step-up">
${error ? notice('error', error) : ''}
<div class="card">
<p>${deps.config.dashboardStepUpMinutes > 0 ? t('intro', { minutes: deps.config.dashboardStepUpMinutes }) : t('introEvery')}</p>
<p><strong>${t('action', { action: t(action) })}</strong></p>
<form method="post" action="${url}" id="stepup-form">
${csrfField(ctx)}
${carried(req.body)}
<label for="stepup-code">${t('code')}</label><input type="text" id="stepup-code" name="_stepup_code" inputmode="text" autocomplete="one-time-code" maxlength="20" autofocus>
<p><button type="submit" class="primary">${t('submit')}</button></p>
</form>
${ctx.member.factors.passkeys > 0 ? html`<p class="muted">${t('or')}</p>${passkeyButton(L, { kind: 'verify', label: t('passkey'), csrf: ctx.csrfToken, options: '/dashboard/step-up/passkey/options', verify: '/dashboard/step-up/passkey', submitForm: 'stepup-form' })}` : ''}
<p><a href="/dashboard">${t('cancel')}</a></p>
</div></div>`;
  return sendPage(reply, ctx, { title: t('title') }, body, status);
}

/**
 * The one step-up check (../step-up-actions.ts runs it before every listed action): true when the action may go on
 * (the factor is fresh, or was just given in the `_stepup_code` field); otherwise the answer has been sent (the
 * step-up page with the form's fields kept, or for `json` a 401 body the page's script shows) and the caller returns
 * the reply. A script's request (`json`) cannot carry a code: its page confirms first (/dashboard/account/unlock).
 */
export async function stepUp(deps: AppDeps, req: FastifyRequest, reply: FastifyReply, action: StepUpAction, o: { json?: boolean; ceremony?: boolean } = {}): Promise<boolean> {
  const ctx = ctxOf(req);
  if (stepUpSatisfied(deps, ctx.member, o)) return true;
  if (o.json) {
    reply.code(401).send({ error: m(ctx.lang, 'needStepUp') });
    return false;
  }
  const raw = (req.body as Record<string, unknown> | undefined)?._stepup_code;
  const code = typeof raw === 'string' ? raw.trim() : '';
  if (!code) {
    page(deps, reply, ctx, req, action, null, 401);
    return false;
  }
  const throttle = signInThrottle(deps);
  const emailKey = normalizeEmail(ctx.member.email);
  const lock = await throttle.check(emailKey, req.ip);
  if (lock.locked) {
    reply.header('Retry-After', String(lock.retrySec));
    page(deps, reply, ctx, req, action, m(ctx.lang, 'throttled', { minutes: Math.ceil(lock.retrySec / 60) }), 429);
    return false;
  }
  const method = await verifyCode(deps, ctx.member.memberId, code);
  if (!method) {
    await throttle.fail(emailKey, req.ip);
    await auditAction(deps.db, deps, req, { action: 'session.step_up_failed', mode: null, target: { type: 'member', id: ctx.member.memberId }, details: { for: action } });
    page(deps, reply, ctx, req, action, m(ctx.lang, 'wrong'), 401);
    return false;
  }
  await markSecondFactor(deps, ctx.member.sessionId);
  ctx.member.secondFactorAt = deps.clock.now();
  await auditAction(deps.db, deps, req, { action: 'session.step_up_verified', mode: null, target: { type: 'member', id: ctx.member.memberId }, details: { for: action, method } });
  return true;
}
