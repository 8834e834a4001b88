import type { FastifyReply } from 'fastify';
import type { DashboardPage } from './page';
import type { AppDeps } from '../../deps';
import { html } from '../../pages/html';
import { ApiError } from '../../platform/errors';
import { auditAction, csrfField, ctxOf, notice, requireRole, sendPage, type DashboardContext } from '../frame';
import { catalog } from '../i18n';
import { field } from '../form';
import { getStoreSecurity, POLICIES, setStoreSecurity } from '../sign-in/store-security';
import { settingsTabs } from './settings-nav';
import { errorText } from './errors';

const m = catalog(
  {
    title: '보안',
    policy: '2단계 인증 요구',
    policyHint: '요구 대상인 멤버가 인증 앱이나 패스키를 등록하지 않았다면, 로그인하자마자 설정 화면으로 안내되고 설정하기 전에는 다른 화면을 열 수 없습니다.',
    none: '요구하지 않음 (각자 선택)',
    admins: '소유자와 관리자에게 요구',
    everyone: '모든 멤버에게 요구',
    stepUp: '민감한 작업의 재인증',
    stepUpHint: '2단계 인증을 쓰는 멤버는 다음 작업을 할 때, 최근 {minutes}분 안에 인증하지 않았다면 다시 인증합니다: {actions}.',
    stepUpHintEvery: '2단계 인증을 쓰는 멤버는 다음 작업을 할 때마다 다시 인증합니다: {actions}.',
    actions: '아래 금액을 넘는 환불(구독 즉시 해지의 환불 포함), 라이브 정산 실행, 사업자 정보·돌아갈 주소 도메인 변경, 토스페이먼츠 키(라이브) 변경, 라이브 API 키 만들기·교체·폐기, 라이브 웹훅 엔드포인트 추가·켜기·끄기와 서명 비밀 보기·교체, 멤버 추가·역할 변경·비활성화·로그인 종료·2단계 인증 초기화, 이 보안 설정, 자신의 인증 수단과 복구 코드 변경',
    threshold: '재인증을 요구할 환불 금액 (원, 이 금액 초과)',
    thresholdHint: '비우면 환불에는 재인증을 요구하지 않습니다.',
    notice: '토스페이먼츠 키·결제대행사나 사업자 정보가 바뀌면 모든 소유자에게 메일로 알립니다.',
    save: '저장',
    saved: '저장했습니다.',
  },
  {
    title: 'Security',
    policy: 'Require two-step sign-in',
    policyHint: 'A member it applies to who has no authenticator app or passkey is sent to set one up right after signing in, and can open nothing else until they do.',
    none: 'Not required (each member chooses)',
    admins: 'Required for owners and admins',
    everyone: 'Required for every member',
    stepUp: 'Confirming sensitive actions',
    stepUpHint: 'Members who use two-step sign-in confirm it again, unless they did in the last {minutes} minutes, before: {actions}.',
    stepUpHintEvery: 'Members who use two-step sign-in confirm it again every time before: {actions}.',
    actions: 'refunds above the amount below (an immediate subscription cancellation\'s refund included), running a live settlement, changing business details or return-URL domains, changing Toss Payments keys (live), creating, rotating or revoking live API keys, adding, enabling or disabling live webhook endpoints and revealing or rotating their signing secrets, adding, disabling or signing out members, changing roles, resetting two-step sign-in, these security settings, and their own sign-in methods and recovery codes',
    threshold: 'Refunds above this amount (won) ask again',
    thresholdHint: 'Empty: refunds never ask.',
    notice: 'Every owner is mailed when the Toss Payments keys or provider, or the business details, change.',
    save: 'Save',
    saved: 'Saved.',
  },
);

async function render(deps: AppDeps, reply: FastifyReply, ctx: DashboardContext, flash: { ok?: string; error?: string } = {}, status = 200): Promise<FastifyReply> {
  const L = ctx.lang;
  const t = (k: Parameters<typeof m>[1], v?: Record<string, string | number>) => m(L, k, v);
  const sec = await getStoreSecurity(deps, ctx.member.storeId);
  const body = html`${settingsTabs(L, ctx.member.role, '/dashboard/settings/security')}
${flash.ok ? notice('ok', flash.ok) : ''}${flash.error ? notice('error', flash.error) : ''}
<form class="card" method="post" action="/dashboard/settings/security" data-testid="store-security">
${csrfField(ctx)}
<fieldset><legend><h2 style="margin:0">${t('policy')}</h2></legend>
${POLICIES.map((p) => html`<label class="method"><input type="radio" name="policy" value="${p}"${sec.twoFactorPolicy === p ? html` checked` : ''}> ${t(p)}</label>`)}
<p class="hint">${t('policyHint')}</p></fieldset>
<h2 style="margin-top:24px">${t('stepUp')}</h2>
<p class="muted">${deps.config.dashboardStepUpMinutes > 0 ? t('stepUpHint', { minutes: deps.config.dashboardStepUpMinutes, actions: t('actions') }) : t('stepUpHintEvery', { actions: t('actions') })}</p>
<label for="threshold">${t('threshold')}</label><input type="number" id="threshold" name="refundStepUpAmount" min="0" step="1" inputmode="numeric" value="${sec.refundStepUpAmount === null ? '' : String(sec.refundStepUpAmount)}" aria-describedby="threshold-hint">
<p class="hint" id="threshold-hint">${t('thresholdHint')}</p>
<p class="muted">${t('notice')}</p>
<p><button type="submit" class="primary">${t('save')}</button></p>
</form>`;
  return sendPage(reply, ctx, { title: t('title'), nav: '/dashboard/settings' }, body, status);
}

/** /dashboard/settings/security (owners): who must use two-step sign-in, and the refund amount that asks again. */
const settingsSecurityPage: DashboardPage = async (app, deps) => {
  const guard = { schema: { hide: true }, preHandler: requireRole('members') };

  app.get('/dashboard/settings/security', guard, async (req, reply) => render(deps, reply, ctxOf(req)));

  app.post('/dashboard/settings/security', guard, async (req, reply) => {
    const ctx = ctxOf(req);
    try {
      const { before, after } = await setStoreSecurity(deps, ctx.member.storeId, { policy: field(req.body, 'policy', 20), refundStepUpAmount: field(req.body, 'refundStepUpAmount', 20) });
      await auditAction(deps.db, deps, req, { action: 'store.security_updated', mode: null, target: { type: 'store', id: ctx.member.storeId }, details: { before, after } });
      return render(deps, reply, ctx, { ok: m(ctx.lang, 'saved') });
    } catch (e) {
      if (e instanceof ApiError && e.statusCode < 500) return render(deps, reply, ctx, { error: errorText(e) }, e.statusCode);
      throw e;
    }
  });
};

export default settingsSecurityPage;
