/**
 * Who took a free trial, normalised so that one person is one identity however they write it. A trial is offered once
 * per e-mail box, per phone number and per card (see ./once.ts); the comparison keys are stored on the subscription
 * (trial_email_key, trial_phone_key, trial_card_fingerprint; migration 092) so the check is one indexed query.
 *
 * E-mail: trimmed and lower-cased (the domain is case-insensitive, and no provider buyers use treats the local part's
 * case as meaningful). Then, for providers that deliver `local+anything@` to `local@` (documented plus addressing):
 * the `+tag` is dropped. For Gmail only, dots in the local part are dropped too (Gmail ignores them:
 * `t.rial@gmail.com` is `trial@gmail.com`), and googlemail.com is gmail.com. Other providers keep `+` and dots as
 * they are: on a provider that does not ignore them, `a+b@` and `ab@` may be two people.
 *
 * Phone: digits only (spaces, dashes, brackets, dots dropped); a Korean number written internationally (`+82 10…`,
 * `0082 10…`, also `+82 010…`) becomes its domestic form `010…`. Fewer than 8 digits: no phone identity.
 */

/** Providers that ignore a `+tag` in the local part (each documents plus addressing for its consumer mailboxes). */
export const PLUS_TAG_DOMAINS: readonly string[] = [
  'gmail.com', // Google (googlemail.com is the same mailbox)
  'outlook.com', 'hotmail.com', 'live.com', 'msn.com', // Microsoft Outlook.com
  'icloud.com', 'me.com', 'mac.com', // Apple iCloud Mail
  'fastmail.com', // Fastmail
  'proton.me', 'protonmail.com', 'pm.me', // Proton Mail
];
const DOMAIN_ALIASES: Readonly<Record<string, string>> = { 'googlemail.com': 'gmail.com' };
const DOTS_IGNORED = 'gmail.com';

/** The e-mail box a trial is counted against, or null for an empty or malformed address. */
export function trialEmailKey(email: string | null | undefined): string | null {
  const e = (email ?? '').trim().toLowerCase();
  const at = e.lastIndexOf('@');
  if (at <= 0 || at === e.length - 1) return null;
  let local = e.slice(0, at);
  let domain = e.slice(at + 1);
  if (Object.hasOwn(DOMAIN_ALIASES, domain)) domain = DOMAIN_ALIASES[domain]!;
  if (PLUS_TAG_DOMAINS.includes(domain)) local = local.split('+')[0]!;
  if (domain === DOTS_IGNORED) local = local.replace(/\./g, '');
  return local ? `${local}@${domain}` : null;
}

/** The phone number a trial is counted against (digits, Korean domestic form), or null. */
export function trialPhoneKey(phone: string | null | undefined): string | null {
  let d = (phone ?? '').replace(/\D/g, '');
  if (d.startsWith('0082')) d = d.slice(2);
  if (d.startsWith('82')) {
    d = `0${d.slice(2)}`;
    // `+82 010-…`: the domestic leading 0 written after the country code.
    if (d.startsWith('00')) d = d.slice(1);
  }
  return d.length >= 8 ? d : null;
}
