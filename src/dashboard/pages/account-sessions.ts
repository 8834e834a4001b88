import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DashboardPage } from './page';
import type { AppDeps } from '../../deps';
import { html } from '../../pages/html';
import { auditAction, csrfField, ctxOf, notice, requireRole, sendPage, type DashboardContext } from '../frame';
import { catalog } from '../i18n';
import { endOtherSessions, endSessionOf, listSessions } from '../sign-in/sessions';
import { deviceOf } from '../sign-in/device';
import { accountTabs, accountText, kst, ACCOUNT_CSS } from './account-view';

const m = catalog(
  {
    intro: '이 계정으로 로그인된 기기입니다. 모르는 기기가 있다면 로그아웃시키고 비밀번호를 바꾸세요.',
    device: '기기',
    address: '접속 주소',
    signedIn: '로그인',
    lastSeen: '마지막 활동',
    end: '로그아웃시키기',
    endOthers: '이 기기만 남기고 모두 로그아웃',
    current: '지금 이 기기',
    pending: '2단계 인증 대기',
    unknown: '알 수 없는 기기',
    ended: '세션을 끝냈습니다. 그 기기는 바로 로그아웃됩니다.',
    endedOthers: '다른 기기 {n}곳을 로그아웃시켰습니다.',
    gone: '이미 끝난 세션입니다.',
  },
  {
    intro: 'Devices signed in to this account. If you do not recognise one, sign it out and change your password.',
    device: 'Device',
    address: 'Address',
    signedIn: 'Signed in',
    lastSeen: 'Last active',
    end: 'Sign out',
    endOthers: 'Sign out every other device',
    current: 'This device',
    pending: 'Waiting for second factor',
    unknown: 'Unknown device',
    ended: 'Session ended. That device is signed out at once.',
    endedOthers: 'Signed out {n} other device(s).',
    gone: 'That session has already ended.',
  },
);

async function render(deps: AppDeps, reply: FastifyReply, ctx: DashboardContext, flash: { ok?: string; error?: string } = {}, status = 200): Promise<FastifyReply> {
  const L = ctx.lang;
  const t = (k: Parameters<typeof m>[1], v?: Record<string, string | number>) => m(L, k, v);
  const sessions = await listSessions(deps, ctx.member.memberId);
  const others = sessions.filter((s) => s.id !== ctx.member.sessionId).length;
  const body = html`${ACCOUNT_CSS}${accountTabs(L, '/dashboard/account/sessions')}
${flash.ok ? notice('ok', flash.ok) : ''}${flash.error ? notice('error', flash.error) : ''}
<p class="muted">${t('intro')}</p>
<div class="table-wrap" tabindex="0"><table data-testid="sessions"><thead><tr><th scope="col">${t('device')}</th><th scope="col">${t('address')}</th><th scope="col">${t('signedIn')}</th><th scope="col">${t('lastSeen')}</th><th scope="col"><span class="skip">${t('end')}</span></th></tr></thead><tbody>
${sessions.map(
  (s) => html`<tr data-session="${s.id}"><td>${deviceOf(s.userAgent) ?? t('unknown')}${s.id === ctx.member.sessionId ? html` <span class="tag good">${t('current')}</span>` : ''}${s.pending ? html` <span class="tag">${t('pending')}</span>` : ''}</td>
<td><code>${s.ip ?? '-'}</code></td><td>${kst(s.createdAt)}</td><td>${kst(s.lastSeenAt)}</td>
<td>${s.id === ctx.member.sessionId ? '' : html`<form method="post" action="/dashboard/account/sessions/${s.id}/end">${csrfField(ctx)}<button type="submit" class="warn">${t('end')}</button></form>`}</td></tr>`,
)}
</tbody></table></div>
${others > 0 ? html`<form method="post" action="/dashboard/account/sessions/end-others">${csrfField(ctx)}<button type="submit" class="warn">${t('endOthers')}</button></form>` : ''}`;
  return sendPage(reply, ctx, { title: accountText(L, 'title') }, body, status);
}

/** /dashboard/account/sessions: the member's signed-in sessions (device, address, last seen); end one or all others. */
const accountSessionsPage: DashboardPage = async (app, deps) => {
  const guard = { schema: { hide: true }, preHandler: requireRole('home', { enrolling: true }) };

  app.get('/dashboard/account/sessions', guard, async (req, reply) => render(deps, reply, ctxOf(req)));

  // Sessions are looked up in the database on every request (no process caches them), so an ended session's cookie
  // is refused at once by every server process.
  app.post('/dashboard/account/sessions/:id/end', guard, async (req: FastifyRequest<{ Params: { id: string } }>, reply) => {
    const ctx = ctxOf(req);
    if (!(await endSessionOf(deps.db, ctx.member.memberId, req.params.id))) return render(deps, reply, ctx, { error: m(ctx.lang, 'gone') }, 404);
    await auditAction(deps.db, deps, req, { action: 'session.ended', mode: null, target: { type: 'member', id: ctx.member.memberId }, details: { sessionId: req.params.id } });
    return render(deps, reply, ctx, { ok: m(ctx.lang, 'ended') });
  });

  app.post('/dashboard/account/sessions/end-others', guard, async (req, reply) => {
    const ctx = ctxOf(req);
    const n = await endOtherSessions(deps.db, ctx.member.memberId, ctx.member.sessionId);
    await auditAction(deps.db, deps, req, { action: 'member.sessions_ended', mode: null, target: { type: 'member', id: ctx.member.memberId }, details: { count: n, kept: ctx.member.sessionId } });
    return render(deps, reply, ctx, { ok: m(ctx.lang, 'endedOthers', { n }) });
  });
};

export default accountSessionsPage;
