import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createTestApp, createTestDatabase } from '../helpers/app';
import { cookieHeader, csrfFrom, formRequest, signIn } from './helpers';
import { SIGN_IN_LIMITS } from '../../src/dashboard/sign-in/sign-in';

test('sign-in throttling counts across processes through Redis (REDIS_URL)', async (tc) => {
  if (!process.env.REDIS_URL) {
    tc.skip('REDIS_URL not set');
    return;
  }
  const database = await createTestDatabase();
  const a = await createTestApp({ database, redis: true });
  const b = await createTestApp({ database, redis: true });
  tc.after(async () => {
    await a.close();
    await b.close();
    await database.drop();
  });
  const email = `redis-${randomBytes(6).toString('hex')}@example.com`;
  const s = await signIn(a, { email });
  const attempt = async (app: typeof a, password: string) => {
    const login = await app.app.inject({ url: '/dashboard/login' });
    const cookie = cookieHeader(Object.fromEntries(login.cookies.map((c) => [c.name, c.value])));
    return app.app.inject(formRequest('/dashboard/login', { cookie }, { _csrf: csrfFrom(login.body), email, password }));
  };
  // Failures alternate between the two processes; the limit is reached all the same.
  for (let i = 0; i < SIGN_IN_LIMITS.perEmail; i++) assert.equal((await attempt(i % 2 ? a : b, `wrong-${i}-password`)).statusCode, 401);
  assert.equal((await attempt(a, s.password)).statusCode, 429);
  assert.equal((await attempt(b, s.password)).statusCode, 429);
});
