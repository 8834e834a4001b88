import { html, raw, type SafeHtml } from '../../pages/html';
import { csrfField, notice, type DashboardContext } from '../frame';
import { catalog, type Lang } from '../i18n';
import type { TotpEnrolment } from '../sign-in/second-factor';
import type { PasskeyView } from '../sign-in/passkeys';
import { passkeyButton } from '../sign-in/passkey-button';
import { RECOVERY_CODE_COUNT } from '../sign-in/second-factor';
import { PASSWORD_MIN } from '../sign-in/password';

export const accountText = catalog(
  {
    title: '내 계정',
    tabSecurity: '로그인 보안',
    tabSessions: '로그인된 기기',
    mustEnrol: '상점 정책에 따라 2단계 인증을 설정해야 대시보드를 쓸 수 있습니다. 인증 앱이나 패스키 중 하나를 등록하세요.',
    totp: '인증 앱 (OTP)',
    totpOn: '사용 중 · {since}부터',
    totpOff: '설정되지 않았습니다. Google Authenticator, Microsoft Authenticator, 1Password 같은 앱의 6자리 코드를 로그인할 때 함께 입력합니다.',
    totpStart: '인증 앱 설정하기',
    totpScan: '인증 앱으로 QR 코드를 찍거나, 아래 키를 직접 입력하세요. 키는 이 화면에서만 보여 드립니다.',
    totpKey: '설정 키',
    totpKeyChars: '키는 영문 대문자 A–Z와 숫자 2–7로만 되어 있습니다: 0과 1은 없고, O와 I는 영문자입니다.',
    totpConfirm: '앱에 표시된 6자리 코드',
    totpConfirmSubmit: '확인하고 켜기',
    totpRemove: '인증 앱 해제',
    totpRemoveConfirm: '인증 앱을 해제할까요? 다른 기기의 로그인은 모두 끝납니다.',
    qrAlt: '인증 앱 등록용 QR 코드',
    passkeys: '패스키',
    passkeysHint: '지문·얼굴 인식이나 화면 잠금, 보안 키로 확인합니다. 비밀번호 다음 단계로 쓰거나, 로그인 화면의 “패스키로 로그인”으로 비밀번호 없이 로그인할 수 있습니다.',
    passkeyName: '이름',
    passkeyCreated: '등록',
    passkeyUsed: '마지막 사용',
    passkeyNever: '사용 전',
    passkeyNone: '등록한 패스키가 없습니다.',
    passkeyAdd: '패스키 추가',
    passkeyNewName: '새 패스키 이름 (예: 업무용 노트북)',
    passkeyRename: '이름 바꾸기',
    passkeyRemove: '삭제',
    passkeyRemoveConfirm: '이 패스키를 삭제할까요? 다른 기기의 로그인은 모두 끝납니다.',
    unlock: '본인 확인 후 변경',
    totpPendingHidden: '설정을 마치지 않은 인증 앱이 있습니다. 키는 본인 확인 뒤에만 보여 드리며, 새 키로 다시 시작합니다.',
    totpRestart: '본인 확인 후 다시 설정하기',
    unlockHint: '2단계 인증 수단을 바꾸려면 먼저 본인 확인이 필요합니다.',
    recovery: '복구 코드',
    recoveryLeft: '사용하지 않은 코드 {n}개 / {total}개',
    recoveryNone: '2단계 인증을 설정하면 복구 코드 {total}개가 만들어집니다.',
    recoveryHint: '휴대폰이나 보안 키를 잃어버렸을 때 코드 하나로 한 번 로그인할 수 있습니다. 각 코드는 한 번만 쓸 수 있습니다.',
    recoveryNew: '새 복구 코드 만들기',
    recoveryNewConfirm: '새 코드를 만들면 지금까지의 코드는 모두 쓸 수 없게 됩니다. 계속할까요?',
    codesOnce: '복구 코드입니다. 지금만 보여 드리니 인쇄하거나 안전한 곳에 적어 두세요. 각 코드는 한 번만 쓸 수 있습니다.',
    codesDone: '저장했습니다',
    password: '비밀번호 변경',
    currentPassword: '현재 비밀번호',
    newPassword: '새 비밀번호 ({min}자 이상)',
    confirmPassword: '새 비밀번호 확인',
    passwordSubmit: '비밀번호 바꾸기',
    passwordHint: '바꾸면 이 기기를 뺀 모든 로그인이 끝납니다.',
  },
  {
    title: 'My account',
    tabSecurity: 'Sign-in security',
    tabSessions: 'Signed-in devices',
    mustEnrol: 'The store requires two-step sign-in before you can use the dashboard. Set up an authenticator app or a passkey.',
    totp: 'Authenticator app (OTP)',
    totpOn: 'On · since {since}',
    totpOff: 'Not set up. A 6-digit code from an app such as Google Authenticator, Microsoft Authenticator or 1Password is asked for at sign-in.',
    totpStart: 'Set up an authenticator app',
    totpScan: 'Scan the QR code with your authenticator app, or type the key below. The key is shown on this screen only.',
    totpKey: 'Setup key',
    totpKeyChars: 'The key holds only the capital letters A–Z and the digits 2–7: there is no 0 or 1, so O and I are letters.',
    totpConfirm: '6-digit code shown in the app',
    totpConfirmSubmit: 'Verify and turn on',
    totpRemove: 'Remove the authenticator app',
    totpRemoveConfirm: 'Remove the authenticator app? Every other signed-in device is signed out.',
    qrAlt: 'QR code for your authenticator app',
    passkeys: 'Passkeys',
    passkeysHint: 'Confirmed with a fingerprint, face, screen lock or security key. Use one after your password, or sign in without a password with “Sign in with a passkey”.',
    passkeyName: 'Name',
    passkeyCreated: 'Added',
    passkeyUsed: 'Last used',
    passkeyNever: 'Not used yet',
    passkeyNone: 'No passkeys yet.',
    passkeyAdd: 'Add a passkey',
    passkeyNewName: 'Name for the new passkey (e.g. work laptop)',
    passkeyRename: 'Rename',
    passkeyRemove: 'Remove',
    passkeyRemoveConfirm: 'Remove this passkey? Every other signed-in device is signed out.',
    unlock: 'Confirm it is you to make changes',
    totpPendingHidden: 'An authenticator app was being set up and not confirmed. Its key is shown only after you confirm it is you, and setup starts again with a new key.',
    totpRestart: 'Confirm it is you and set up again',
    unlockHint: 'Changing your two-step sign-in methods needs your second factor first.',
    recovery: 'Recovery codes',
    recoveryLeft: '{n} of {total} codes unused',
    recoveryNone: 'Setting up two-step sign-in makes {total} recovery codes.',
    recoveryHint: 'If you lose your phone or security key, one code signs you in once. Each code works only once.',
    recoveryNew: 'Make new recovery codes',
    recoveryNewConfirm: 'New codes replace every code you have now. Continue?',
    codesOnce: 'Your recovery codes. They are shown only now: print them or write them down somewhere safe. Each works once.',
    codesDone: 'I saved them',
    password: 'Change password',
    currentPassword: 'Current password',
    newPassword: 'New password (at least {min} characters)',
    confirmPassword: 'Confirm the new password',
    passwordSubmit: 'Change password',
    passwordHint: 'Every other signed-in device is signed out.',
  },
);

type K = Parameters<typeof accountText>[1];

const KST = new Intl.DateTimeFormat('sv-SE', { timeZone: 'Asia/Seoul', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit' });
export const kst = (d: Date) => KST.format(d);

export const ACCOUNT_CSS = raw(`<style>
.qr{display:block;width:200px;height:200px;max-width:100%;background:#fff;border:1px solid #e5e8eb;border-radius:8px}
.codes{columns:2;column-gap:24px;padding-left:22px;font-size:16px}
.codes code{font-size:16px;letter-spacing:.5px}
.totp-key{font-family:"DejaVu Sans Mono","Noto Sans Mono",Menlo,Consolas,"Liberation Mono",monospace;font-variant-numeric:slashed-zero;font-size:18px;letter-spacing:1px;word-spacing:.3em;background:#f2f4f6;padding:2px 6px;border-radius:4px}
.rowform{display:flex;gap:8px;flex-wrap:wrap;align-items:center;margin:0}
.rowform input{flex:1 1 160px;width:auto;margin:0}
</style>`);

export function accountTabs(lang: Lang, current: string): SafeHtml {
  const tabs = [
    { href: '/dashboard/account/security', label: accountText(lang, 'tabSecurity') },
    { href: '/dashboard/account/sessions', label: accountText(lang, 'tabSessions') },
  ];
  return html`<nav class="sections" aria-label="${accountText(lang, 'title')}" style="margin:0 0 12px;border-radius:12px">${tabs.map((t) => html`<a href="${t.href}"${t.href === current ? raw(' aria-current="page"') : ''}>${t.label}</a>`)}</nav>`;
}

export function recoveryCodesBox(lang: Lang, codes: string[] | null, id = 'recovery-codes'): SafeHtml {
  return html`<div class="secret" id="${id}" data-testid="recovery-codes"${codes ? '' : raw(' hidden')}><p>${accountText(lang, 'codesOnce')}</p><ol class="codes">${(codes ?? []).map((c) => html`<li><code>${c}</code></li>`)}</ol><p><a class="button plain" href="/dashboard/account/security">${accountText(lang, 'codesDone')}</a></p></div>`;
}

export interface SecurityState {
  totpConfirmedAt: Date | null;
  pending: TotpEnrolment | null;
  passkeys: PasskeyView[];
  recoveryLeft: number;
  /** The step-up window is open (or the member has no factor yet): factor changes need no confirmation now. */
  fresh: boolean;
  /** An app awaits confirmation but the session is stale: its key is not shown (`pending` is null). */
  pendingHidden?: boolean;
}

export interface SecurityFlash {
  ok?: string;
  error?: string;
  codes?: string[] | null;
}

/** The body of /dashboard/account/security. */
export function securityBody(ctx: DashboardContext, s: SecurityState, flash: SecurityFlash): SafeHtml {
  const L = ctx.lang;
  const t = (k: K, v?: Record<string, string | number>) => accountText(L, k, v);
  const hasFactor = s.totpConfirmedAt !== null || s.passkeys.length > 0;
  const unlock = html`<form method="post" action="/dashboard/account/unlock">${csrfField(ctx)}<p class="hint">${t('unlockHint')}</p><button type="submit" class="plain">${t('unlock')}</button></form>`;
  const totp = s.totpConfirmedAt
    ? html`<p><span class="tag good">${t('totpOn', { since: kst(s.totpConfirmedAt) })}</span></p>
<form method="post" action="/dashboard/account/totp/remove" hx-confirm="${t('totpRemoveConfirm')}">${csrfField(ctx)}<button type="submit" class="warn">${t('totpRemove')}</button></form>`
    : s.pendingHidden
      ? html`<p data-testid="totp-pending-hidden">${t('totpPendingHidden')}</p><form method="post" action="/dashboard/account/totp/start">${csrfField(ctx)}<button type="submit" class="primary">${t('totpRestart')}</button></form>`
      : s.pending
      ? html`<p>${t('totpScan')}</p><img class="qr" src="${s.pending.qr}" alt="${t('qrAlt')}" width="200" height="200" data-testid="totp-qr">
<p>${t('totpKey')}: <code class="totp-key" data-testid="totp-secret">${s.pending.secret.replace(/(.{4})/g, '$1 ').trim()}</code></p><p class="hint">${t('totpKeyChars')}</p>
<form method="post" action="/dashboard/account/totp/confirm">${csrfField(ctx)}<label for="totp-code">${t('totpConfirm')}</label><input type="text" id="totp-code" name="code" inputmode="numeric" autocomplete="one-time-code" maxlength="7" required><p><button type="submit" class="primary">${t('totpConfirmSubmit')}</button></p></form>`
      : html`<p class="muted">${t('totpOff')}</p>${
          hasFactor && !s.fresh ? unlock : html`<form method="post" action="/dashboard/account/totp/start">${csrfField(ctx)}<button type="submit" class="primary">${t('totpStart')}</button></form>`
        }`;
  const passkeys = html`${
    s.passkeys.length
      ? html`<div class="table-wrap" tabindex="0"><table data-testid="passkeys" style="min-width:0"><thead><tr><th scope="col">${t('passkeyName')}</th><th scope="col">${t('passkeyCreated')}</th><th scope="col">${t('passkeyUsed')}</th><th scope="col"><span class="skip">${t('passkeyRemove')}</span></th></tr></thead><tbody>
${s.passkeys.map(
  (p) => html`<tr data-passkey-id="${p.id}"><td><form class="rowform" method="post" action="/dashboard/account/passkeys/${p.id}/rename">${csrfField(ctx)}<label class="skip" for="pkn-${p.id}">${t('passkeyName')}</label><input type="text" id="pkn-${p.id}" name="name" value="${p.name}" maxlength="60" required><button type="submit" class="plain">${t('passkeyRename')}</button></form></td>
<td>${kst(p.createdAt)}</td><td>${p.lastUsedAt ? kst(p.lastUsedAt) : t('passkeyNever')}</td>
<td><form method="post" action="/dashboard/account/passkeys/${p.id}/remove" hx-confirm="${t('passkeyRemoveConfirm')}">${csrfField(ctx)}<button type="submit" class="warn">${t('passkeyRemove')}</button></form></td></tr>`,
)}</tbody></table></div>`
      : html`<p class="muted" data-testid="no-passkeys">${t('passkeyNone')}</p>`
  }
${
  hasFactor && !s.fresh
    ? unlock
    : html`<label for="pk-name">${t('passkeyNewName')}</label><input type="text" id="pk-name" maxlength="60" autocomplete="off">
${passkeyButton(L, { kind: 'register', label: t('passkeyAdd'), csrf: ctx.csrfToken, options: '/dashboard/account/passkeys/options', verify: '/dashboard/account/passkeys', nameInput: 'pk-name', codesBox: 'pk-codes', className: 'primary' })}
${recoveryCodesBox(L, null, 'pk-codes')}`
}`;
  return html`${ACCOUNT_CSS}${accountTabs(L, '/dashboard/account/security')}
${ctx.member.mustEnrol ? html`<div class="banner error" role="alert" data-testid="must-enrol">${t('mustEnrol')}</div>` : ''}
${flash.ok ? notice('ok', flash.ok) : ''}${flash.error ? notice('error', flash.error) : ''}
${flash.codes ? recoveryCodesBox(L, flash.codes) : ''}
<section class="card" aria-labelledby="totp-h" data-testid="totp"><h2 id="totp-h">${t('totp')}</h2>${totp}</section>
<section class="card" aria-labelledby="pk-h"><h2 id="pk-h">${t('passkeys')}</h2><p class="muted">${t('passkeysHint')}</p>${passkeys}</section>
<section class="card" aria-labelledby="rc-h"><h2 id="rc-h">${t('recovery')}</h2><p class="muted">${t('recoveryHint')}</p>
${hasFactor ? html`<p data-testid="recovery-left">${t('recoveryLeft', { n: s.recoveryLeft, total: RECOVERY_CODE_COUNT })}</p><form method="post" action="/dashboard/account/recovery-codes" hx-confirm="${t('recoveryNewConfirm')}">${csrfField(ctx)}<button type="submit" class="plain">${t('recoveryNew')}</button></form>` : html`<p>${t('recoveryNone', { total: RECOVERY_CODE_COUNT })}</p>`}
</section>
<form class="card" method="post" action="/dashboard/account/password" aria-labelledby="pw-h" autocomplete="off">${csrfField(ctx)}<h2 id="pw-h">${t('password')}</h2>
<input type="text" name="username" value="${ctx.member.email}" autocomplete="username" hidden>
<label for="pw-current">${t('currentPassword')}</label><input type="password" id="pw-current" name="current" autocomplete="current-password" required>
<label for="pw-new">${t('newPassword', { min: PASSWORD_MIN })}</label><input type="password" id="pw-new" name="password" autocomplete="new-password" minlength="${String(PASSWORD_MIN)}" required>
<label for="pw-confirm">${t('confirmPassword')}</label><input type="password" id="pw-confirm" name="confirm" autocomplete="new-password" required>
<p class="hint">${t('passwordHint')}</p><p><button type="submit" class="primary">${t('passwordSubmit')}</button></p></form>`;
}
