import type { AppDeps } from '../deps';
import { activeMemberEmails } from '../dashboard/members-repo';
import { normalizeEmail } from '../dashboard/members';
import { validationError } from '../platform/errors';
import { MESSAGES } from '../platform/messages';
import { escapeHtml } from '../pages/html';
import { smtpTransport, type MailTransport } from './transport';
import type { MailRow } from './repo';
import type { RenderedMail } from './render-input';
import * as repo from './repo';

/**
 * Test-mode mails in the seller's own inbox. Test mode never mails a buyer: its mails are rendered and kept for the
 * dashboard's mailbox. A seller who wants to see them as Gmail or Naver Mail shows them lists their own addresses
 * (e-mails of the store's dashboard members, checked when saved and again at every send); each captured mail then also
 * goes, through SMTP_URL, to those addresses, its subject starting with [테스트] and a line on top saying whose mail it
 * stands in for. A member can also send one kept mail to their own address from the mailbox.
 */

export const TEST_SUBJECT_MARK = '[테스트]';

type Deps = Pick<AppDeps, 'db' | 'config'>;

/** The copy of a test mail for the seller: marked in the subject and on top of both bodies; links unchanged. */
export function testCopyOf(mail: Pick<RenderedMail, 'subject' | 'text' | 'html'>, buyer: string): RenderedMail {
  const note = `테스트 모드 메일의 사본입니다. 구매자(${buyer})에게는 보내지 않았습니다. / A copy of a test-mode mail; the buyer was not mailed.`;
  const banner =
    `<div style="margin:0 0 12px;padding:10px 14px;border-radius:8px;background:#fff4e5;color:#8a4b00;font:14px/1.5 -apple-system,'Apple SD Gothic Neo','Malgun Gothic',sans-serif;overflow-wrap:anywhere">` +
    `<strong>${TEST_SUBJECT_MARK}</strong> ${escapeHtml(note)}</div>`;
  // After <body …> when there is one, else on top: the copy stays one well-formed document.
  const html = /<body[^>]*>/i.test(mail.html) ? mail.html.replace(/<body[^>]*>/i, (m) => m + banner) : banner + mail.html;
  return { subject: `${TEST_SUBJECT_MARK} ${mail.subject}`, text: `${TEST_SUBJECT_MARK} ${note}\n\n${mail.text}`, html };
}

/** The listed addresses that are still the e-mails of active members of the store. */
async function liveRecipients(deps: Deps, storeId: string, listed: string[]): Promise<string[]> {
  if (listed.length === 0) return [];
  const members = new Set(await activeMemberEmails(deps.db, storeId));
  return listed.filter((e) => members.has(e));
}

export type TestCopyOutcome = { sentAt: Date | null; to: string[]; error: string | null };

/**
 * Sends a captured mail's copies to the store's listed addresses (none listed: null, nothing happens). Never throws: a
 * copy that cannot be sent is recorded with its reason, and the mail stays kept in the mailbox either way.
 */
export async function sendTestCopies(deps: Deps, o: { storeId: string; buyer: string; mail: RenderedMail; now: () => Date; transport: () => Promise<MailTransport> }): Promise<TestCopyOutcome | null> {
  const to = await liveRecipients(deps, o.storeId, await repo.testCopyRecipients(deps.db, o.storeId));
  if (to.length === 0) return null;
  if (!deps.config.smtpUrl || !deps.config.mailFrom) return { sentAt: null, to, error: 'SMTP_URL and MAIL_FROM are not set' };
  // Members' addresses only: a buyer's is never among them unless a member bought in test mode with their own.
  const recipients = to;
  const copy = testCopyOf(o.mail, o.buyer);
  try {
    const t = await o.transport();
    for (const rcpt of recipients) await t.send({ from: deps.config.mailFrom, to: rcpt, subject: copy.subject, text: copy.text, html: copy.html });
    return { sentAt: o.now(), to: recipients, error: null };
  } catch (err) {
    // The message only: nodemailer errors name host and port, never the URL's credentials.
    return { sentAt: null, to: recipients, error: (err instanceof Error ? err.message : String(err)).slice(0, 1000) };
  }
}

/** The store's list, as saved. */
export function getTestCopyRecipients(deps: Pick<Deps, 'db'>, storeId: string): Promise<string[]> {
  return repo.testCopyRecipients(deps.db, storeId);
}

/** The list as it would be saved; each address must be an active member's e-mail (VALIDATION_FAILED naming the entry otherwise). */
export async function checkTestCopyRecipients(deps: Pick<Deps, 'db'>, storeId: string, emails: string[]): Promise<string[]> {
  const typed = emails.map(normalizeEmail);
  if (new Set(typed).size > 20) throw validationError([{ field: 'testMailRecipients', message: MESSAGES.stores.testMailRecipientsTooMany }]);
  const members = new Set(await activeMemberEmails(deps.db, storeId));
  const bad = typed.map((e, i) => ({ e, i })).filter(({ e }) => !members.has(e));
  if (bad.length) throw validationError(bad.map(({ i }) => ({ field: `testMailRecipients.${i}`, message: MESSAGES.stores.testMailRecipientNotMember })));
  return [...new Set(typed)];
}

/** Saves the list (checked as `checkTestCopyRecipients` says). */
export async function updateTestCopyRecipients(deps: Pick<Deps, 'db'>, storeId: string, emails: string[], now: Date): Promise<string[]> {
  const list = await checkTestCopyRecipients(deps, storeId, emails);
  await repo.setTestCopyRecipients(deps.db, storeId, list, now);
  return list;
}

/**
 * "Send this to me" in the mailbox: one kept test mail, marked as a test, to the signed-in member's own address
 * through SMTP_URL. Only captured test mails have their bodies kept; the outcome is recorded on the mail.
 */
export async function sendKeptMailTo(deps: Deps, row: MailRow, to: string, now: () => Date, transport?: MailTransport): Promise<{ sent: true } | { sent: false; error: string }> {
  if (row.mode !== 'test' || !row.subject || !row.text_body || !row.html_body) return { sent: false, error: 'not a kept test mail' };
  if (!deps.config.smtpUrl || !deps.config.mailFrom) return { sent: false, error: 'SMTP_URL and MAIL_FROM are not set' };
  const copy = testCopyOf({ subject: row.subject, text: row.text_body, html: row.html_body }, row.recipient);
  let error: string | null = null;
  try {
    const t = transport ?? (await smtpTransport(deps));
    await t.send({ from: deps.config.mailFrom, to, subject: copy.subject, text: copy.text, html: copy.html });
  } catch (err) {
    error = (err instanceof Error ? err.message : String(err)).slice(0, 1000);
  }
  await repo.recordTestCopy(deps.db, row.id, { at: now(), to: [to], error });
  return error ? { sent: false, error } : { sent: true };
}
