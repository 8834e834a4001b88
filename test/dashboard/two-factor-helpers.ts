import assert from 'node:assert/strict';
import type { TestApp } from '../helpers/app';
import { totpCode, TOTP_PERIOD_SEC } from '../../src/dashboard/sign-in/second-factor';
import { cookieHeader, csrfFrom, formRequest, postForm, type DashboardSession } from './helpers';

type T = Pick<TestApp, 'app' | 'clock'>;

export interface Browserish {
  cookies: Record<string, string>;
  headers: { cookie: string };
  csrf: string;
}

function absorb(b: { cookies: Record<string, string> }, res: { cookies: Array<{ name: string; value: string; maxAge?: number; expires?: Date }> }): void {
  for (const c of res.cookies) {
    if (c.value === '' || c.maxAge === 0) delete b.cookies[c.name];
    else b.cookies[c.name] = c.value;
  }
}

/** A browser-like cookie jar: GETs and form posts that keep the cookies the answers set, and a fresh CSRF token. */
export async function jar(t: Pick<TestApp, 'app'>): Promise<Browserish & { get(url: string): Promise<any>; post(url: string, form?: Record<string, string>): Promise<any>; json(url: string, body?: unknown): Promise<any> }> {
  const b = { cookies: {} as Record<string, string>, csrf: '' };
  const page = await t.app.inject({ url: '/dashboard/login' });
  absorb(b, page);
  b.csrf = csrfFrom(page.body);
  const self = {
    get cookies() {
      return b.cookies;
    },
    get headers() {
      return { cookie: cookieHeader(b.cookies) };
    },
    get csrf() {
      return b.csrf;
    },
    async get(url: string) {
      const res = await t.app.inject({ url, headers: { cookie: cookieHeader(b.cookies) } });
      absorb(b, res);
      const m = /name="_csrf" value="([^"]+)"/.exec(res.body);
      if (m) b.csrf = m[1];
      return res;
    },
    async post(url: string, form: Record<string, string> = {}) {
      const res = await t.app.inject(formRequest(url, { cookie: cookieHeader(b.cookies) }, { _csrf: b.csrf, ...form }));
      absorb(b, res);
      const m = /name="_csrf" value="([^"]+)"/.exec(res.body);
      if (m) b.csrf = m[1];
      return res;
    },
    async json(url: string, body: unknown = {}) {
      const res = await t.app.inject({ method: 'POST', url, headers: { cookie: cookieHeader(b.cookies), 'content-type': 'application/json', 'x-csrf-token': b.csrf }, payload: JSON.stringify(body) });
      absorb(b, res);
      return res;
    },
  };
  return self;
}

/** Turns on an authenticator app for a signed-in member through the security page; returns its secret and recovery codes. */
export async function enrolTotp(t: T, s: Pick<DashboardSession, 'headers' | 'csrf'>): Promise<{ secret: string; recoveryCodes: string[] }> {
  const start = await postForm(t, s, '/dashboard/account/totp/start');
  assert.equal(start.statusCode, 303, `totp start answered ${start.statusCode}`);
  const page = await t.app.inject({ url: '/dashboard/account/security', headers: s.headers });
  const secret = /data-testid="totp-secret">([^<]+)</.exec(page.body)?.[1].replace(/\s/g, '');
  assert.ok(secret, 'the setup key is shown');
  assert.match(page.body, /data-testid="totp-qr"[^>]*>|src="data:image\/svg\+xml;base64,/);
  const done = await postForm(t, s, '/dashboard/account/totp/confirm', { code: totpCode(secret, t.clock.now().getTime()) });
  assert.equal(done.statusCode, 200, done.body.slice(0, 300));
  const recoveryCodes = [...done.body.matchAll(/<li><code>([a-z0-9-]+)<\/code><\/li>/g)].map((x) => x[1]);
  return { secret, recoveryCodes };
}

/** The next 30-second step (so a new code is not the one just used). */
export function nextStep(t: T): void {
  t.clock.advance(TOTP_PERIOD_SEC * 1000);
}

/** Password step of signing in, in a fresh jar; returns the jar and the answer. */
export async function passwordStep(t: Pick<TestApp, 'app'>, email: string, password: string) {
  const b = await jar(t);
  const res = await b.post('/dashboard/login', { email, password });
  return { b, res };
}

export { totpCode };

/** The store's audit entries, newest first. */
export async function auditOf(t: Pick<TestApp, 'db'>, storeId: string) {
  const { listAuditLog } = await import('../../src/audit/service');
  return (await listAuditLog(t.db, storeId, {}, { page: 1, limit: 100 })).data;
}
