import assert from 'node:assert/strict';
import type { TestApp } from '../helpers/app';
import { runMailOnce } from '../../src/mail/dispatch';

export const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/** A tiny cookie jar for app.inject: keeps what Set-Cookie sets (and drops what it clears). */
export class Jar {
  cookies = new Map<string, string>();
  /** The raw Set-Cookie lines of the last answer (to check their attributes). */
  last: string[] = [];
  take(headers: Record<string, unknown>): void {
    const raw = headers['set-cookie'];
    this.last = raw === undefined ? [] : Array.isArray(raw) ? raw.map(String) : [String(raw)];
    for (const line of this.last) {
      const [pair] = line.split(';');
      const i = pair!.indexOf('=');
      const name = pair!.slice(0, i);
      const value = pair!.slice(i + 1);
      if (!value || /Max-Age=0|Expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): Record<string, string> {
    return this.cookies.size ? { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } : {};
  }
}

export async function get(t: TestApp, jar: Jar, url: string) {
  const res = await t.app.inject({ url, headers: jar.header() });
  jar.take(res.headers as Record<string, unknown>);
  return res;
}

export async function postForm(t: TestApp, jar: Jar, url: string, fields: Record<string, string>, extra: Record<string, string> = {}) {
  const res = await t.app.inject({ method: 'POST', url, headers: { ...FORM, ...jar.header(), ...extra }, payload: new URLSearchParams(fields).toString() });
  jar.take(res.headers as Record<string, unknown>);
  return res;
}

export const csrfOf = (body: string): string => {
  const m = /name="csrf" value="([A-Za-z0-9]+)"/.exec(body);
  assert.ok(m, 'the page carries a CSRF field');
  return m[1]!;
};

/** Asks for a sign-in link on the page (GET for the form's token, then POST). */
export async function askLink(t: TestApp, jar: Jar, base: string, email: string) {
  // The test clock stands still: a second on, so the newest link and mail are told apart by their time.
  t.clock.advance(1_000);
  const page = await get(t, jar, base);
  return postForm(t, jar, `${base}/sign-in`, { email, csrf: csrfOf(page.body) });
}

/** Renders the due mails (test mode keeps them in the mailbox) and returns the newest sign-in mail to that address. */
export async function signInMail(t: TestApp, to: string) {
  await runMailOnce(t.deps, t.clock.now());
  return t.db.selectFrom('mail_outbox').selectAll().where('kind', '=', 'buyer_sign_in').where('recipient', '=', to).orderBy('created_at', 'desc').orderBy('id', 'desc').executeTakeFirstOrThrow();
}

export const linkIn = (text: string | null): string | null => /https?:\/\/[^\s]+\/sign-in\/[A-Za-z0-9_-]+/.exec(text ?? '')?.[0] ?? null;

/** Follows a mailed sign-in link: its page, then its button. Returns the POST's answer. */
export async function useLink(t: TestApp, jar: Jar, link: string) {
  const path = new URL(link).pathname;
  const page = await get(t, jar, path);
  assert.equal(page.statusCode, 200, page.body);
  return postForm(t, jar, path, { csrf: csrfOf(page.body) });
}
