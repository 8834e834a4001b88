import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../helpers/app';
import { signIn, cookieHeader, csrfFrom, formRequest } from './helpers';

const nextOf = (body: string) => /name="next" value="([^"]*)"/.exec(body)?.[1];

// `next` is resolved against the dashboard before it is checked: `..` (also as %2e%2e) cannot leave /dashboard.
const CASES: Array<[string, string]> = [
  ['/dashboard/orders?status=paid', '/dashboard/orders?status=paid'],
  ['/dashboard/orders/../audit', '/dashboard/audit'],
  ['/dashboard/../v1/products', '/dashboard'],
  ['/dashboard/../../admin/v1/store', '/dashboard'],
  ['/dashboard/%2e%2e/docs', '/dashboard'],
  ['/dashboard/%2E%2E/%2e%2e/x', '/dashboard'],
  ['/dashboard/./login', '/dashboard'],
  ['/dashboard/orders/../login?next=/x', '/dashboard'],
  ['/dashboardx', '/dashboard'],
  ['https://evil.example/dashboard', '/dashboard'],
  ['//evil.example/dashboard', '/dashboard'],
];

test('the sign-in next parameter is normalised and kept under /dashboard, on the form and in the redirect', async (tc) => {
  const t = await createTestApp();
  tc.after(() => t.close());
  const member = await signIn(t);

  for (const [given, expected] of CASES) {
    const page = await t.app.inject({ url: `/dashboard/login?next=${encodeURIComponent(given)}` });
    assert.equal(page.statusCode, 200);
    assert.equal(nextOf(page.body), expected, `GET next=${given}`);

    const cookies: Record<string, string> = {};
    for (const c of page.cookies) cookies[c.name] = c.value;
    const res = await t.app.inject(
      formRequest('/dashboard/login', { cookie: cookieHeader(cookies) }, { _csrf: csrfFrom(page.body), email: member.email, password: member.password, next: given }),
    );
    assert.equal(res.statusCode, 303, `POST next=${given}: ${res.statusCode}`);
    assert.equal(res.headers.location, expected, `POST next=${given}`);
  }
});
