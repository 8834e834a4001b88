import { ownValue } from '../../platform/lookup';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DashboardPage } from './page';
import { html } from '../../pages/html';
import { ApiError } from '../../platform/errors';
import { countMails, findMail, listMails } from '../../mail/repo';
import { auditAction, csrfField, ctxOf, notice, requireRole, sendPage, type DashboardContext } from '../frame';
import { BIZ_CSS } from './kit';
import type { MailRow } from '../../mail/repo';
import { getTestCopyRecipients, sendKeptMailTo, updateTestCopyRecipients } from '../../mail/test-copies';
import { activeMemberEmails } from '../members-repo';
import { catalog, frameText } from '../i18n';
import { field } from '../form';
import { developersTabs } from './developers-nav';
import { settingsTabs } from './settings-nav';
import { MAIL_KINDS, type MailKind } from '../../mail/kinds';
import { getBuyerMails, updateBuyerMails } from '../../mail/settings';
import { SELLER_NOTICE_KIND, SELLER_NOTICE_LABEL } from '../../mail/seller-notice';
import { BUYER_SIGN_IN_KIND, BUYER_SIGN_IN_LABEL } from '../../mail/buyer-sign-in';
import { REFUND_REMINDER_KIND, REFUND_REMINDER_LABEL } from '../../mail/refund-reminder';

const m = catalog(
  {
    title: '메일함',
    intro: '테스트 모드에서는 구매자에게 메일을 보내지 않고 여기에 보관합니다. 구매자가 받을 메일 그대로입니다.',
    introLive: '라이브 모드에서 구매자에게 보낸 메일입니다 (본문은 보관하지 않습니다).',
    none: '이 모드의 메일이 없습니다.',
    to: '받는 사람',
    kind: '종류',
    subject: '제목',
    created: '시각',
    status: '상태',
    html: 'HTML',
    text: '텍스트',
    back: '메일함으로',
    st_pending: '대기 중',
    st_sent: '보냄',
    st_captured: '보관됨 (테스트)',
    st_unconfigured: 'SMTP 미설정',
    st_failed: '실패',
    settings: '구매자 메일',
    settingsHint: '서비스가 구매자에게 보낼 메일을 고릅니다. 직접 메일을 보내는 판매자는 해당 종류를 끄세요. 상점 전체(테스트·라이브)에 적용됩니다.',
    save: '저장',
    saved: '저장했습니다.',
    copies: '테스트 메일을 받은편지함으로',
    copiesHint: '테스트 모드 메일의 사본을 아래에서 고른 주소로 SMTP를 통해 보냅니다. 제목은 [테스트]로 시작합니다. 구매자에게는 보내지 않으며, 상점 대시보드 멤버의 주소만 고를 수 있습니다 (다른 주소는 멤버로 추가하세요).',
    copiesNoSmtp: 'SMTP_URL과 MAIL_FROM이 설정되지 않아 지금은 보낼 수 없습니다. 서버 설정 후 보내집니다.',
    copiesSaved: '테스트 메일 받을 주소를 저장했습니다.',
    copyTo: '사본',
    copySent: '보냄',
    copyFailed: '사본 보내기 실패',
    sendToMe: '나에게 보내기',
    sendToMeHint: '이 메일을 [테스트] 표시와 함께 내 주소로 보냅니다',
    sentToMe: '이 메일을 보냈습니다',
    sendFailed: '메일을 보내지 못했습니다',
    noSmtp: 'SMTP_URL이 설정되어야 보낼 수 있습니다.',
  },
  {
    title: 'Mailbox',
    intro: 'In test mode no mail goes to buyers: each is kept here, exactly as the buyer would get it.',
    introLive: 'Mails sent to buyers in live mode (bodies are not kept).',
    none: 'No mails in this mode.',
    to: 'To',
    kind: 'Kind',
    subject: 'Subject',
    created: 'Time',
    status: 'Status',
    html: 'HTML',
    text: 'Text',
    back: 'Back to the mailbox',
    st_pending: 'Pending',
    st_sent: 'Sent',
    st_captured: 'Kept (test)',
    st_unconfigured: 'SMTP not set',
    st_failed: 'Failed',
    settings: 'Buyer mails',
    settingsHint: 'Choose which mails the service sends to your buyers. Sellers who mail buyers themselves turn those kinds off. Applies to the whole store (test and live).',
    save: 'Save',
    saved: 'Saved.',
    copies: 'Test mails to a real inbox',
    copiesHint: 'A copy of every test-mode mail goes through SMTP to the addresses you tick, its subject starting with [테스트]. Buyers are never mailed; only the e-mails of the store\'s dashboard members can be chosen (add a member for another address).',
    copiesNoSmtp: 'SMTP_URL and MAIL_FROM are not set on the server, so nothing can be sent yet.',
    copiesSaved: 'Saved the addresses that get test mails.',
    copyTo: 'Copy',
    copySent: 'sent',
    copyFailed: 'Copy not sent',
    sendToMe: 'Send to me',
    sendToMeHint: 'Sends this mail, marked as a test, to your own address',
    sentToMe: 'Sent this mail to',
    sendFailed: 'The mail could not be sent',
    noSmtp: 'Sending needs SMTP_URL on the server.',
  },
);

/** Each kind's name, Korean and English. */
export const KIND_LABELS: Record<MailKind, { ko: string; en: string }> = {
  order_confirmation: { ko: '주문 확인', en: 'Order confirmation' },
  subscription_started: { ko: '구독 시작', en: 'Subscription started' },
  renewal_receipt: { ko: '정기결제 영수증', en: 'Renewal receipt' },
  refund_completed: { ko: '환불 완료', en: 'Refund completed' },
  refund_request_received: { ko: '환불 요청 접수', en: 'Refund request received' },
  refund_request_decided: { ko: '환불 요청 결과', en: 'Refund request decided' },
  payment_failed: { ko: '정기결제 실패', en: 'Payment failed' },
  cancellation_confirmed: { ko: '해지 예약 확인', en: 'Cancellation confirmed' },
  subscription_ended: { ko: '구독 종료', en: 'Subscription ended' },
  renewal_upcoming: { ko: '연간 갱신 예정', en: 'Upcoming yearly renewal' },
  trial_will_end: { ko: '무료 체험 종료 예정', en: 'Trial ending' },
  price_change_scheduled: { ko: '가격 변경 안내', en: 'Price change notice' },
  price_change_accepted: { ko: '가격 변경 동의 확인', en: 'Price change accepted' },
  plan_change_offered: { ko: '요금제 변경 동의 요청', en: 'Plan change offered' },
  virtual_account_issued: { ko: '가상계좌 입금 안내', en: 'Virtual account issued' },
};
/** Where a kept test mail's copy went (or why it did not), as a tag in the list and a line on the mail. */
const copyTag = (r: MailRow, L: 'ko' | 'en') =>
  r.test_copy_error ? html` <span class="tag bad">${m(L, 'copyFailed')}</span>` : r.test_copy_sent_at ? html` <span class="tag good">${m(L, 'copyTo')} ${m(L, 'copySent')}</span>` : '';
const copyLine = (r: MailRow, L: 'ko' | 'en') =>
  r.test_copy_recipients?.length
    ? html`<p class="small" data-testid="copy-status">${m(L, 'copyTo')}: ${r.test_copy_recipients.join(', ')} · ${r.test_copy_sent_at ? html`${m(L, 'copySent')} ${kstTime(r.test_copy_sent_at)}` : html`<span class="tag bad">${m(L, 'copyFailed')}</span> ${r.test_copy_error ?? ''}`}</p>`
    : '';
const kindLabel = (k: string, L: 'ko' | 'en') =>
  k === SELLER_NOTICE_KIND ? SELLER_NOTICE_LABEL[L] : k === BUYER_SIGN_IN_KIND ? BUYER_SIGN_IN_LABEL[L] : k === REFUND_REMINDER_KIND ? REFUND_REMINDER_LABEL[L] : ownValue<{ ko: string; en: string }>(KIND_LABELS, k)?.[L] ?? k;

const KST_FORMAT = new Intl.DateTimeFormat('sv-SE', { timeZone: 'Asia/Seoul', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
/** Times in Korean time, saying so (a seller abroad, or a server log in UTC, reads them side by side). */
const kstTime = (d: Date) => `${KST_FORMAT.format(d)} KST`;

/**
 * /dashboard/developers/mailbox: the mail catcher of test mode (every kept mail, newest first; one mail's HTML in a
 * sandboxed iframe without scripts, and its text), and the live mode's send log. /dashboard/settings/mails: the
 * store's per-kind switches.
 */
const mailboxPage: DashboardPage = async (app, deps) => {
  const guard = { schema: { hide: true }, preHandler: requireRole('developers') };

  app.get('/dashboard/developers/mailbox', guard, async (req, reply) => {
    const ctx = ctxOf(req);
    const L = ctx.lang;
    const t = (k: Parameters<typeof m>[1]) => m(L, k);
    const page = Math.min(Math.max(1, Number.parseInt(field(req.query, 'page', 6) || '1', 10) || 1), 1000);
    const limit = 50;
    const [rows, total] = await Promise.all([listMails(deps.db, ctx.member.storeId, ctx.mode, limit, (page - 1) * limit), countMails(deps.db, ctx.member.storeId, ctx.mode)]);
    const pages = Math.max(1, Math.ceil(total / limit));
    const body = html`${developersTabs(L, '/dashboard/developers/mailbox')}
<p class="muted">${ctx.mode === 'test' ? t('intro') : t('introLive')}</p>
${
  rows.length === 0
    ? html`<p class="card">${t('none')}</p>`
    : html`${BIZ_CSS}<div class="table-wrap"><table class="stack" data-testid="mails"><thead><tr><th scope="col">${t('subject')}</th><th scope="col">${t('to')}</th><th scope="col">${t('kind')}</th><th scope="col">${t('status')}</th><th scope="col">${t('created')}</th></tr></thead><tbody>
${rows.map(
  (r) => html`<tr><td class="subject"><a href="/dashboard/developers/mailbox/${r.id}">${r.subject ?? `(${kindLabel(r.kind, L)})`}</a></td><td data-label="${t('to')}" class="addr">${r.recipient}</td><td data-label="${t('kind')}">${kindLabel(r.kind, L)}</td><td data-label="${t('status')}"><span class="tag ${r.status === 'failed' || r.status === 'unconfigured' ? 'bad' : r.status === 'sent' ? 'good' : ''}">${t(`st_${r.status}`)}</span>${copyTag(r, L)}</td><td data-label="${t('created')}" class="mono">${kstTime(r.created_at)}</td></tr>`,
)}</tbody></table></div>`
}
<div class="pager">${page > 1 ? html`<a href="/dashboard/developers/mailbox?page=${page - 1}">${frameText(L, 'page.prev')}</a>` : html`<span></span>`}<span>${frameText(L, 'page.of', { page, pages, total })}</span>${page < pages ? html`<a href="/dashboard/developers/mailbox?page=${page + 1}">${frameText(L, 'page.next')}</a>` : html`<span></span>`}</div>`;
    return sendPage(reply, ctx, { title: t('title'), nav: '/dashboard/developers' }, body);
  });

  const showMail = async (reply: FastifyReply, ctx: DashboardContext, id: string, sent?: { ok: boolean; error?: string }) => {
    const L = ctx.lang;
    const t = (k: Parameters<typeof m>[1]) => m(L, k);
    const r = await findMail(deps.db, ctx.member.storeId, ctx.mode, id);
    if (!r) throw new ApiError('NOT_FOUND');
    // sandbox="" : no scripts, no forms, no same-origin access; the mail is shown, never run.
    const body = html`${developersTabs(L, '/dashboard/developers/mailbox')}
<p><a href="/dashboard/developers/mailbox">← ${t('back')}</a></p>
<section class="card" aria-labelledby="mail-h" data-testid="mail">
<h2 id="mail-h">${r.subject ?? kindLabel(r.kind, L)}</h2>
<p class="muted">${t('to')}: ${r.recipient} · ${kindLabel(r.kind, L)} · <span class="tag">${t(`st_${r.status}`)}</span> · ${kstTime(r.created_at)}</p>
${r.last_error ? html`<p class="muted">${r.last_error}</p>` : ''}
${copyLine(r, L)}
${sent ? notice(sent.ok ? 'ok' : 'error', sent.ok ? `${t('sentToMe')}: ${ctx.member.email}` : `${t('sendFailed')}: ${sent.error}`) : ''}
${
  r.mode === 'test' && r.html_body
    ? html`<form method="post" action="/dashboard/developers/mailbox/${r.id}/send-to-me" class="actions" data-testid="send-to-me">${csrfField(ctx)}<button type="submit" class="plain"${deps.config.smtpUrl && deps.config.mailFrom ? '' : html` disabled`}>${t('sendToMe')}</button><span class="muted small">${deps.config.smtpUrl && deps.config.mailFrom ? html`${t('sendToMeHint')} (${ctx.member.email})` : t('noSmtp')}</span></form>`
    : ''
}
${r.html_body ? html`<h3>${t('html')}</h3><iframe title="${r.subject ?? ''}" sandbox="" referrerpolicy="no-referrer" srcdoc="${r.html_body}" style="width:100%;height:760px;border:1px solid #e5e8eb;border-radius:8px;background:#fff" data-testid="mail-html"></iframe>` : ''}
${r.text_body ? html`<h3>${t('text')}</h3><pre class="mono" style="white-space:pre-wrap;overflow-wrap:anywhere" data-testid="mail-text">${r.text_body}</pre>` : ''}
</section>`;
    return sendPage(reply, ctx, { title: r.subject ?? t('title'), nav: '/dashboard/developers' }, body);
  };
  app.get('/dashboard/developers/mailbox/:id', guard, async (req: FastifyRequest<{ Params: { id: string } }>, reply) => showMail(reply, ctxOf(req), req.params.id));

  // "Send to me": one kept test mail, marked [테스트], to the signed-in member's own address (never anyone else's).
  app.post('/dashboard/developers/mailbox/:id/send-to-me', guard, async (req: FastifyRequest<{ Params: { id: string } }>, reply) => {
    const ctx = ctxOf(req);
    const r = await findMail(deps.db, ctx.member.storeId, ctx.mode, req.params.id);
    if (!r) throw new ApiError('NOT_FOUND');
    const res = await sendKeptMailTo(deps, r, ctx.member.email, () => deps.clock.now());
    await auditAction(deps.db, deps, req, { action: 'mail.test_copy_sent', target: { type: 'mail', id: r.id }, details: { to: ctx.member.email, sent: res.sent } });
    return showMail(reply, ctx, r.id, res.sent ? { ok: true } : { ok: false, error: res.error });
  });

  const settingsGuard = { schema: { hide: true }, preHandler: requireRole('settings') };
  const renderSettings = async (reply: Parameters<typeof sendPage>[0], ctx: ReturnType<typeof ctxOf>, ok?: string) => {
    const L = ctx.lang;
    const on = await getBuyerMails(deps.db, ctx.member.storeId);
    const [members, copies] = await Promise.all([activeMemberEmails(deps.db, ctx.member.storeId), getTestCopyRecipients(deps, ctx.member.storeId)]);
    const body = html`${settingsTabs(L, ctx.member.role, '/dashboard/settings/mails')}
${ok ? notice('ok', ok) : ''}
<form class="card" method="post" action="/dashboard/settings/mails" aria-labelledby="mails-h" data-testid="buyer-mails">
${csrfField(ctx)}
<h2 id="mails-h">${m(L, 'settings')}</h2>
<p class="muted">${m(L, 'settingsHint')}</p>
${MAIL_KINDS.map((k) => html`<label class="method"><input type="checkbox" name="kinds" value="${k}"${on[k] ? html` checked` : ''}> ${kindLabel(k, L)}</label>`)}
<p><button type="submit" class="primary">${m(L, 'save')}</button></p>
</form>
<form class="card" method="post" action="/dashboard/settings/mails/test-copies" aria-labelledby="copies-h" data-testid="test-copies">
${csrfField(ctx)}
<h2 id="copies-h">${m(L, 'copies')}</h2>
<p class="muted">${m(L, 'copiesHint')}</p>
${deps.config.smtpUrl && deps.config.mailFrom ? '' : html`<p class="tag bad">${m(L, 'copiesNoSmtp')}</p>`}
${members.map((e) => html`<label class="method"><input type="checkbox" name="to" value="${e}"${copies.includes(e) ? html` checked` : ''}> ${e}</label>`)}
<p><button type="submit" class="primary">${m(L, 'save')}</button></p>
</form>`;
    return sendPage(reply, ctx, { title: m(L, 'settings'), nav: '/dashboard/settings' }, body);
  };
  app.get('/dashboard/settings/mails', settingsGuard, async (req, reply) => renderSettings(reply, ctxOf(req)));
  app.post('/dashboard/settings/mails', settingsGuard, async (req, reply) => {
    const ctx = ctxOf(req);
    const raw = (req.body as Record<string, unknown> | undefined)?.kinds;
    const checked = new Set((Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).map(String));
    const patch = Object.fromEntries(MAIL_KINDS.map((k) => [k, checked.has(k)]));
    await updateBuyerMails(deps.db, ctx.member.storeId, patch, deps.clock.now());
    await auditAction(deps.db, deps, req, { action: 'settings.buyer_mails_updated', mode: null, target: { type: 'store', id: ctx.member.storeId }, details: { off: MAIL_KINDS.filter((k) => !checked.has(k)) } });
    return renderSettings(reply, ctx, m(ctx.lang, 'saved'));
  });
  app.post('/dashboard/settings/mails/test-copies', settingsGuard, async (req, reply) => {
    const ctx = ctxOf(req);
    const raw = (req.body as Record<string, unknown> | undefined)?.to;
    // Only boxes shown on the page can be ticked; an address that is no longer a member's is refused by the service.
    const to = await updateTestCopyRecipients(deps, ctx.member.storeId, (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).map(String), deps.clock.now());
    await auditAction(deps.db, deps, req, { action: 'settings.test_mail_recipients_updated', mode: null, target: { type: 'store', id: ctx.member.storeId }, details: { to } });
    return renderSettings(reply, ctx, m(ctx.lang, 'copiesSaved'));
  });
};

export default mailboxPage;
