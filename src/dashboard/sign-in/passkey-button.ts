import { html, type SafeHtml } from '../../pages/html';
import { catalog, type Lang } from '../i18n';

const m = catalog(
  {
    unsupported: '이 브라우저는 패스키를 지원하지 않습니다.',
    failed: '패스키를 확인하지 못했습니다. 다시 시도해 주세요.',
    cancelled: '패스키 확인이 취소되었거나 시간이 지났습니다.',
  },
  {
    unsupported: 'This browser does not support passkeys.',
    failed: 'The passkey could not be verified. Please try again.',
    cancelled: 'The passkey prompt was cancelled or timed out.',
  },
);

export interface PasskeyButton {
  /** register: add a passkey; verify: a second factor (sign-in or step-up); sign-in: without a password. */
  kind: 'register' | 'verify' | 'sign-in';
  label: string;
  csrf: string;
  /** JSON endpoint answering `{ challengeId, options }`. */
  options: string;
  /** JSON endpoint taking `{ challengeId, response, … }` and answering `{ redirect }` or `{ error }`. */
  verify: string;
  /** The id of a text input whose value goes along as `name` (register). */
  nameInput?: string;
  /** After success, submit this form instead of following `redirect` (step-up: the original action goes on). */
  submitForm?: string;
  /** Sent along as `next` (sign-in). */
  next?: string;
  /** The id of a hidden element the recovery codes are written into when the answer carries them (register). */
  codesBox?: string;
  className?: string;
}

let seq = 0;

/**
 * A button the dashboard's passkey script (/dashboard/assets/passkey.js, loaded by every page) acts on: no inline
 * script, so it fits the CSP. Without JavaScript or WebAuthn the status line says why nothing happens.
 */
export function passkeyButton(lang: Lang, b: PasskeyButton): SafeHtml {
  const status = `pk-status-${++seq}`;
  return html`<p><button type="button" class="${b.className ?? 'plain'}" data-passkey="${b.kind}" data-csrf="${b.csrf}" data-options="${b.options}" data-verify="${b.verify}"${b.nameInput ? html` data-name-input="${b.nameInput}"` : ''}${b.submitForm ? html` data-form="${b.submitForm}"` : ''}${b.next ? html` data-next="${b.next}"` : ''}${b.codesBox ? html` data-codes="${b.codesBox}"` : ''} data-status="${status}" data-unsupported="${m(lang, 'unsupported')}" data-failed="${m(lang, 'failed')}" data-cancelled="${m(lang, 'cancelled')}">${b.label}</button></p>
<p class="hint" id="${status}" role="status" aria-live="polite" data-testid="passkey-status"></p>`;
}
