import type { AppDeps } from '../deps';
import type { Config } from '../config';
import { storeName } from './members-repo';

/**
 * Mail for dashboard members, only when SMTP_URL is set (no mail server is assumed). Used by the operator CLI and the
 * dashboard's Members page to hand a generated password to the member instead of showing it on a screen.
 */
export interface MemberPasswordMail {
  to: string;
  name: string;
  storeName: string;
  password: string;
  reason: 'created' | 'reset';
  /** Where the member signs in (PUBLIC_BASE_URL + /dashboard/login). */
  dashboardUrl: string;
}

export function memberPasswordMail(m: MemberPasswordMail): { subject: string; text: string } {
  const what = m.reason === 'created' ? '계정이 만들어졌습니다' : '비밀번호가 재설정되었습니다';
  const whatEn = m.reason === 'created' ? 'An account was created for you' : 'Your password was reset';
  const text = [
    `${m.name}님, 안녕하세요.`,
    '',
    `${m.storeName} 판매자 대시보드의 ${what}.`,
    '',
    `이메일: ${m.to}`,
    `비밀번호: ${m.password}`,
    `로그인: ${m.dashboardUrl}`,
    '',
    '이 메일은 로그인한 뒤 지워 주세요. 요청한 적이 없다면 상점 운영자에게 알려 주세요.',
    '',
    `(English) ${whatEn} on the ${m.storeName} seller dashboard. Password: ${m.password} - sign in at ${m.dashboardUrl}`,
    '',
  ].join('\n');
  return { subject: `[${m.storeName}] 판매자 대시보드 비밀번호`, text };
}

/** Sends one member-password mail through SMTP_URL; throws when the server refuses or cannot be reached. */
export async function sendMemberPassword(config: Pick<Config, 'smtpUrl' | 'mailFrom'>, m: MemberPasswordMail): Promise<void> {
  if (!config.smtpUrl || !config.mailFrom) throw new Error('SMTP_URL and MAIL_FROM are not set');
  // Bounded waits: an unreachable server must not hold a dashboard request (or the CLI) for nodemailer's 2 minutes.
  // Loaded on first use: most deployments never mail, and the module costs resident memory in every process.
  const { default: nodemailer } = await import('nodemailer');
  const transport = nodemailer.createTransport({ url: config.smtpUrl, connectionTimeout: 15_000, greetingTimeout: 15_000, socketTimeout: 30_000 });
  try {
    const { subject, text } = memberPasswordMail(m);
    await transport.sendMail({ from: config.mailFrom, to: m.to, subject, text });
  } finally {
    transport.close();
  }
}

export type MailOutcome = { sent: true } | { sent: false; error: string };

/**
 * Mails a member's new password when SMTP is configured. Never throws: the password is already stored, so a failed
 * send must fall back to showing it (the caller's job), not lose the change. `null` when SMTP is not configured.
 */
export async function mailMemberPassword(
  deps: Pick<AppDeps, 'db' | 'config'>,
  storeId: string,
  member: { email: string; name: string },
  password: string,
  reason: 'created' | 'reset',
): Promise<MailOutcome | null> {
  const { config } = deps;
  if (!config.smtpUrl) return null;
  try {
    const store = await storeName(deps.db, storeId);
    await sendMemberPassword(config, { to: member.email, name: member.name, storeName: store.name, password, reason, dashboardUrl: `${config.publicBaseUrl}/dashboard/login` });
    return { sent: true };
  } catch (e) {
    // The message only: nodemailer errors name host and port, never the URL's credentials.
    return { sent: false, error: e instanceof Error ? e.message : String(e) };
  }
}
