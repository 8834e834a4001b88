import assert from 'node:assert/strict';
import type { BrowserContext } from 'playwright-core';
import type { TestApp, TestStore } from '../helpers/app';
import { createTestStore } from '../helpers/app';
import { createMember } from '../../src/dashboard/members';
import type { MemberRole } from '../../src/dashboard/tables';

/** A signed-in dashboard member for app.inject: send `headers` (cookies) and put `csrf` in forms or `x-csrf-token`. */
export interface DashboardSession {
  store: TestStore;
  storeId: string;
  memberId: string;
  email: string;
  name: string;
  password: string;
  role: MemberRole;
  /** name → value of the dashboard cookies (session, CSRF secret). */
  cookies: Record<string, string>;
  /** `{ cookie }` header for app.inject. */
  headers: { cookie: string };
  /** A CSRF token valid with these cookies. */
  csrf: string;
}

const OPERATOR = { kind: 'operator' as const, id: null, name: null };
let counter = 0;

export function cookieHeader(cookies: Record<string, string>): string {
  return Object.entries(cookies)
    .map(([k, v]) => `${k}=${v}`)
    .join('; ');
}

/** An inject request posting an HTML form (application/x-www-form-urlencoded). */
export function formRequest(url: string, headers: Record<string, string>, form: Record<string, string>) {
  return { method: 'POST' as const, url, headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(form).toString() };
}

/** Reads the CSRF token out of a dashboard page (the `_csrf` field of its forms). */
export function csrfFrom(body: string): string {
  const m = /name="_csrf" value="([^"]+)"/.exec(body);
  assert.ok(m, 'page carries a CSRF field');
  return m[1];
}

function absorb(cookies: Record<string, string>, res: { cookies: Array<{ name: string; value: string }> }): void {
  for (const c of res.cookies) cookies[c.name] = c.value;
}

/**
 * Creates a member (in a new store unless `store` is given) and signs in through /dashboard/login like a browser:
 * the CSRF cookie and token from the sign-in page, then the form post. Returns the cookies and a CSRF token.
 */
export async function signIn(
  t: Pick<TestApp, 'app' | 'deps'>,
  o: { role?: MemberRole; store?: TestStore; name?: string; email?: string; password?: string } = {},
): Promise<DashboardSession> {
  const store = o.store ?? (await createTestStore(t));
  const role = o.role ?? 'owner';
  const email = o.email ?? `member${++counter}-${process.pid}@example.com`;
  const name = o.name ?? `${role} 담당자`;
  const password = o.password ?? 'correct-horse-battery';
  const { member } = await createMember(t.deps, { storeId: store.storeId, email, name, role, password }, OPERATOR);
  const session = await signInAs(t, email, password);
  return { ...session, store, storeId: store.storeId, memberId: member.id, email, name, password, role };
}

/** Signs an existing member in; throws when the sign-in is refused. */
export async function signInAs(t: Pick<TestApp, 'app'>, email: string, password: string): Promise<{ cookies: Record<string, string>; headers: { cookie: string }; csrf: string }> {
  const cookies: Record<string, string> = {};
  const page = await t.app.inject({ url: '/dashboard/login' });
  assert.equal(page.statusCode, 200);
  absorb(cookies, page);
  const csrf = csrfFrom(page.body);
  const res = await t.app.inject(formRequest('/dashboard/login', { cookie: cookieHeader(cookies) }, { _csrf: csrf, email, password }));
  assert.equal(res.statusCode, 303, `sign-in answered ${res.statusCode}`);
  absorb(cookies, res);
  assert.ok(cookies.dash_session, 'a session cookie was set');
  return { cookies, headers: { cookie: cookieHeader(cookies) }, csrf };
}

/** A form post as the signed-in member (the CSRF token included unless `csrf: false`). */
export function postForm(t: Pick<TestApp, 'app'>, s: Pick<DashboardSession, 'headers' | 'csrf'>, url: string, form: Record<string, string> = {}, o: { csrf?: boolean; htmx?: boolean } = {}) {
  const body = o.csrf === false ? form : { _csrf: s.csrf, ...form };
  const headers = { ...s.headers, 'content-type': 'application/x-www-form-urlencoded', ...(o.htmx ? { 'hx-request': 'true' } : {}) };
  return t.app.inject({ method: 'POST', url, headers, payload: new URLSearchParams(body).toString() });
}

/** Puts a signed-in session's cookies into a Playwright context, so a page opens the dashboard signed in. */
export async function addSessionToBrowser(context: BrowserContext, baseUrl: string, s: Pick<DashboardSession, 'cookies'>): Promise<void> {
  await context.addCookies(Object.entries(s.cookies).map(([name, value]) => ({ name, value, url: `${baseUrl}/dashboard`, httpOnly: true, sameSite: 'Lax' as const })));
}

/** Signs in through the real form in a Playwright page and waits for Home. */
export async function signInInBrowser(page: import('playwright-core').Page, baseUrl: string, email: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/dashboard/login`);
  await page.fill('#email', email);
  await page.fill('#password', password);
  await Promise.all([page.waitForURL(`${baseUrl}/dashboard`), page.click('button[type=submit].pay')]);
}
