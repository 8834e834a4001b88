import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DashboardPage } from './page';
import type { AppDeps } from '../../deps';
import { html } from '../../pages/html';
import { ApiError } from '../../platform/errors';
import { mailMemberPassword } from '../mail';
import { changeRole, createMember, disableMember, findMemberRef, listMembers, ROLES } from '../members';
import { factorsOfStore } from '../sign-in/second-factor-repo';
import { resetSecondFactors } from '../sign-in/second-factor';
import { endOtherSessions } from '../sign-in/sessions';
import { auditAction, csrfField, ctxOf, memberActor, notice, originOf, requireRole, sendPage, type DashboardContext } from '../frame';
import { catalog, frameText } from '../i18n';
import { field } from '../form';
import { settingsTabs } from './settings-nav';
import { errorText } from './errors';

const m = catalog(
  {
    title: '멤버와 역할',
    name: '이름',
    email: '이메일',
    role: '역할',
    status: '상태',
    active: '활성',
    disabled: '비활성화됨',
    change: '역할 변경',
    disable: '비활성화',
    disableConfirm: '이 멤버를 비활성화할까요? 바로 로그아웃되고 다시 로그인할 수 없습니다.',
    add: '멤버 추가',
    addSubmit: '추가하고 비밀번호 만들기',
    password: '{name}님의 첫 비밀번호입니다. 지금만 보여 드리니 안전하게 전달하세요:',
    roleHelp: '소유자: 모든 권한 · 관리자: 멤버와 라이브 API 키를 뺀 모든 권한 · 고객 지원: 주문·환불·환불 요청·구독·라이선스 · 개발자: API 키·웹훅·이벤트 (테스트 모드)',
    changed: '역할을 바꿨습니다.',
    disabledOk: '멤버를 비활성화했습니다.',
    you: '(나)',
    mailed: '{name}님의 첫 비밀번호를 {email}로 보냈습니다.',
    mailFailed: '비밀번호 메일을 보내지 못했습니다. 아래 비밀번호를 직접 안전하게 전달하세요.',
    twoFactor: '2단계 인증',
    tfApp: '인증 앱',
    tfPasskeys: '패스키 {n}개',
    tfNone: '없음',
    security: '로그인 관리',
    endSessions: '로그아웃시키기',
    endSessionsConfirm: '이 멤버의 모든 기기를 지금 로그아웃시킬까요?',
    sessionsEnded: '{name}님의 로그인 {n}곳을 끝냈습니다.',
    reset2fa: '2단계 인증 초기화',
    reset2faConfirm: '이 멤버의 인증 앱·패스키·복구 코드를 모두 지울까요? 모든 기기에서 로그아웃되고, 상점 정책이 요구하면 다음 로그인 때 다시 설정합니다.',
    reset2faDone: '{name}님의 2단계 인증을 초기화했습니다.',
  },
  {
    title: 'Members and roles',
    name: 'Name',
    email: 'E-mail',
    role: 'Role',
    status: 'Status',
    active: 'Active',
    disabled: 'Disabled',
    change: 'Change role',
    disable: 'Disable',
    disableConfirm: 'Disable this member? They are signed out at once and cannot sign in again.',
    add: 'Add a member',
    addSubmit: 'Add and generate a password',
    password: "{name}'s first password. It is shown only now; hand it over safely:",
    roleHelp: 'Owner: everything · Admin: everything but members and live API keys · Support: orders, refunds, refund requests, subscriptions, licenses · Developer: API keys, webhooks, events (test mode)',
    changed: 'Role changed.',
    disabledOk: 'Member disabled.',
    you: '(you)',
    mailed: "{name}'s first password was sent to {email}.",
    mailFailed: 'The password mail could not be sent. Hand the password below over yourself, safely.',
    twoFactor: 'Two-step sign-in',
    tfApp: 'App',
    tfPasskeys: '{n} passkey(s)',
    tfNone: 'None',
    security: 'Sign-in',
    endSessions: 'Sign out',
    endSessionsConfirm: 'Sign this member out on every device now?',
    sessionsEnded: 'Ended {n} session(s) of {name}.',
    reset2fa: 'Reset two-step sign-in',
    reset2faConfirm: "Remove this member's authenticator app, passkeys and recovery codes? They are signed out everywhere, and set a factor up again at their next sign-in if the store requires one.",
    reset2faDone: "{name}'s two-step sign-in was reset.",
  },
);

interface Flash {
  ok?: string;
  error?: string;
  password?: { name: string; password: string };
}

async function render(deps: AppDeps, reply: FastifyReply, ctx: DashboardContext, flash: Flash = {}, status = 200): Promise<FastifyReply> {
  const L = ctx.lang;
  const t = (k: Parameters<typeof m>[1], v?: Record<string, string>) => m(L, k, v);
  const roleName = (r: (typeof ROLES)[number]) => frameText(L, `role.${r}`);
  const members = await listMembers(deps, ctx.member.storeId);
  const factors = await factorsOfStore(deps.db, ctx.member.storeId);
  const tf = (id: string) => {
    const f = factors.get(id);
    const parts = [f?.totp ? t('tfApp') : null, f?.passkeys ? t('tfPasskeys', { n: String(f.passkeys) }) : null].filter((x): x is string => !!x);
    return parts.length ? html`<span class="tag good">${parts.join(' · ')}</span>` : html`<span class="tag">${t('tfNone')}</span>`;
  };
  const body = html`${settingsTabs(L, ctx.member.role, '/dashboard/settings/members')}
${flash.ok ? notice('ok', flash.ok) : ''}${flash.error ? notice('error', flash.error) : ''}
${flash.password ? html`<div class="secret" data-testid="secret"><p>${t('password', { name: flash.password.name })}</p><code>${flash.password.password}</code></div>` : ''}
<p class="muted">${t('roleHelp')}</p>
<div class="table-wrap" tabindex="0"><table data-testid="members"><thead><tr><th scope="col">${t('name')}</th><th scope="col">${t('email')}</th><th scope="col">${t('role')}</th><th scope="col">${t('status')}</th><th scope="col">${t('twoFactor')}</th><th scope="col">${t('security')}</th><th scope="col">${t('disable')}</th></tr></thead><tbody>
${members.map(
  (x) => html`<tr data-member="${x.id}"><td>${x.name} ${x.id === ctx.member.memberId ? t('you') : ''}</td><td>${x.email}</td>
<td>${
    x.disabledAt
      ? roleName(x.role)
      : html`<form method="post" action="/dashboard/settings/members/${x.id}/role" class="actions">${csrfField(ctx)}<label class="skip" for="r-${x.id}">${t('role')}</label><select id="r-${x.id}" name="role">${ROLES.map((r) => html`<option value="${r}"${r === x.role ? html` selected` : ''}>${roleName(r)}</option>`)}</select><button type="submit" class="plain">${t('change')}</button></form>`
  }</td>
<td><span class="tag ${x.disabledAt ? 'bad' : 'good'}">${x.disabledAt ? t('disabled') : t('active')}</span></td>
<td data-testid="two-factor">${tf(x.id)}</td>
<td>${
    x.disabledAt || x.id === ctx.member.memberId
      ? ''
      : html`<div class="actions"><form method="post" action="/dashboard/settings/members/${x.id}/end-sessions" hx-confirm="${t('endSessionsConfirm')}">${csrfField(ctx)}<button type="submit" class="plain">${t('endSessions')}</button></form>
${factors.get(x.id)?.totp || factors.get(x.id)?.passkeys ? html`<form method="post" action="/dashboard/settings/members/${x.id}/reset-2fa" hx-confirm="${t('reset2faConfirm')}">${csrfField(ctx)}<button type="submit" class="warn">${t('reset2fa')}</button></form>` : ''}</div>`
  }</td>
<td>${x.disabledAt ? '' : html`<form method="post" action="/dashboard/settings/members/${x.id}/disable" hx-confirm="${t('disableConfirm')}">${csrfField(ctx)}<button type="submit" class="warn">${t('disable')}</button></form>`}</td></tr>`,
)}
</tbody></table></div>
<form class="card" method="post" action="/dashboard/settings/members" aria-labelledby="add-h">
${csrfField(ctx)}
<h2 id="add-h">${t('add')}</h2>
<label for="mm-name">${t('name')}</label><input type="text" id="mm-name" name="name" required maxlength="100">
<label for="mm-email">${t('email')}</label><input type="email" id="mm-email" name="email" required maxlength="254">
<label for="mm-role">${t('role')}</label><select id="mm-role" name="role">${ROLES.map((r) => html`<option value="${r}"${r === 'support' ? html` selected` : ''}>${roleName(r)}</option>`)}</select>
<p><button type="submit" class="primary">${t('addSubmit')}</button></p>
</form>`;
  return sendPage(reply, ctx, { title: t('title'), nav: '/dashboard/settings' }, body, status);
}

async function attempt(deps: AppDeps, reply: FastifyReply, ctx: DashboardContext, fn: () => Promise<Flash>): Promise<FastifyReply> {
  try {
    return await render(deps, reply, ctx, await fn());
  } catch (e) {
    if (e instanceof ApiError && e.statusCode < 500) return render(deps, reply, ctx, { error: errorText(e) }, e.statusCode);
    throw e;
  }
}

/** /dashboard/settings/members (owner only): add a member with a generated password, change roles, disable. */
const settingsMembersPage: DashboardPage = async (app, deps) => {
  const guard = { schema: { hide: true }, preHandler: requireRole('members') };
  type Req = FastifyRequest<{ Params: { id: string } }>;

  app.get('/dashboard/settings/members', guard, async (req, reply) => render(deps, reply, ctxOf(req)));

  // The members service writes the audit entry in the same transaction as the change (actor: this member).
  app.post('/dashboard/settings/members', guard, async (req, reply) => {
    const ctx = ctxOf(req);
    return attempt(deps, reply, ctx, async () => {
      const res = await createMember(deps, { storeId: ctx.member.storeId, email: field(req.body, 'email', 254), name: field(req.body, 'name', 100), role: field(req.body, 'role', 20) }, memberActor(ctx), originOf(req));
      // With SMTP configured the password goes by mail; a failed send shows it as without SMTP (the member is stored).
      const mail = await mailMemberPassword(deps, ctx.member.storeId, res.member, res.password, 'created');
      if (mail?.sent) return { ok: m(ctx.lang, 'mailed', { name: res.member.name, email: res.member.email }) };
      if (mail) req.log.warn({ err: mail.error, memberId: res.member.id }, 'member password mail failed; shown on the page instead');
      return { password: { name: res.member.name, password: res.password }, error: mail ? m(ctx.lang, 'mailFailed') : undefined };
    });
  });

  app.post('/dashboard/settings/members/:id/role', guard, async (req: Req, reply) => {
    const ctx = ctxOf(req);
    return attempt(deps, reply, ctx, async () => {
      await changeRole(deps, ctx.member.storeId, req.params.id, field(req.body, 'role', 20), memberActor(ctx), originOf(req));
      return { ok: m(ctx.lang, 'changed') };
    });
  });

  // An owner ends a member's sessions (every device, at once on every server process: sessions are read from the
  // database on each request) or resets their factors (a lost phone; audited, after the owner's own step-up).
  app.post('/dashboard/settings/members/:id/end-sessions', guard, async (req: Req, reply) => {
    const ctx = ctxOf(req);
    return attempt(deps, reply, ctx, async () => {
      const target = await findMemberRef(deps, ctx.member.storeId, req.params.id);
      const n = await endOtherSessions(deps.db, target.id, target.id === ctx.member.memberId ? ctx.member.sessionId : null);
      await auditAction(deps.db, deps, req, { action: 'member.sessions_ended', mode: null, target: { type: 'member', id: target.id }, details: { email: target.email, count: n } });
      return { ok: m(ctx.lang, 'sessionsEnded', { name: target.name, n: String(n) }) };
    });
  });

  app.post('/dashboard/settings/members/:id/reset-2fa', guard, async (req: Req, reply) => {
    const ctx = ctxOf(req);
    return attempt(deps, reply, ctx, async () => {
      const target = await findMemberRef(deps, ctx.member.storeId, req.params.id);
      if (target.id === ctx.member.memberId) throw new ApiError('ADMIN_FORBIDDEN', { message: ctx.lang === 'en' ? 'Change your own methods on My account.' : '내 인증 수단은 내 계정 화면에서 바꿔 주세요.' });
      const removed = await resetSecondFactors(deps, target.id);
      await auditAction(deps.db, deps, req, { action: 'member.two_factor_reset', mode: null, target: { type: 'member', id: target.id }, details: { email: target.email, ...removed } });
      return { ok: m(ctx.lang, 'reset2faDone', { name: target.name }) };
    });
  });

  app.post('/dashboard/settings/members/:id/disable', guard, async (req: Req, reply) => {
    const ctx = ctxOf(req);
    return attempt(deps, reply, ctx, async () => {
      await disableMember(deps, ctx.member.storeId, req.params.id, memberActor(ctx), originOf(req));
      return { ok: m(ctx.lang, 'disabledOk') };
    });
  });
};

export default settingsMembersPage;
