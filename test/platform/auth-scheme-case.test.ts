import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, TEST_ADMIN_TOKEN, type TestApp, type TestStore } from '../helpers/app';

// RFC 9110 §11.1: the authentication scheme is case-insensitive, and one or more spaces separate it from the token.
let t: TestApp;
let s: TestStore;
before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
});
after(() => t.close());

const SCHEMES = ['Bearer', 'bearer', 'BEARER', 'bEaReR'];

test('an API key is accepted whatever the case of "Bearer"', async () => {
  for (const scheme of SCHEMES) {
    const res = await t.app.inject({ url: '/v1/products', headers: { authorization: `${scheme} ${s.key}` } });
    assert.equal(res.statusCode, 200, `${scheme}: ${res.body}`);
  }
  const spaced = await t.app.inject({ url: '/v1/products', headers: { authorization: `bearer   ${s.key}` } });
  assert.equal(spaced.statusCode, 200, spaced.body);
});

test('the owner token and the operator token are accepted whatever the case of "Bearer"', async () => {
  for (const scheme of SCHEMES) {
    const owner = await t.app.inject({ url: '/admin/v1/store', headers: { authorization: `${scheme} ${s.ownerToken}` } });
    assert.equal(owner.statusCode, 200, `${scheme}: ${owner.body}`);
    const op = await t.app.inject({ method: 'POST', url: '/admin/v1/stores', headers: { authorization: `${scheme} ${TEST_ADMIN_TOKEN}` }, payload: { name: '새 상점' } });
    assert.equal(op.statusCode, 201, `${scheme}: ${op.body}`);
  }
});

test('other schemes and a missing token are still refused', async () => {
  for (const authorization of [`Basic ${s.key}`, `Bearerx ${s.key}`, 'bearer', `bearer ${s.key} extra`, `${s.key}`]) {
    const res = await t.app.inject({ url: '/v1/products', headers: { authorization } });
    assert.equal(res.statusCode, 401, authorization);
    assert.equal(res.json().code, 'API_KEY_INVALID', authorization);
  }
  const op = await t.app.inject({ method: 'POST', url: '/admin/v1/stores', headers: { authorization: `basic ${TEST_ADMIN_TOKEN}` }, payload: { name: '새 상점' } });
  assert.equal(op.json().code, 'ADMIN_UNAUTHORIZED');
});
