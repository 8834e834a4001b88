// Issue 8 item 15: the nonce rule is the contract's "hex (even count, ≥ 16 bytes) OR base64/base64url (22 or more
// characters, optional `=` padding up to 2)": a run of hex digits that is not valid hex but is valid base64 is
// accepted. The server, the OpenAPI pattern it serves and the client library's generator agree on every case.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createTestStore, type TestApp } from '../helpers/app';
import { isBase64Nonce, isHexNonce, isValidNonce } from '../../src/licenses/model';
import { makeNonce } from '../../packages/license-client/src/index';
import { createLicenseTestApp, licensed } from './factory';

const hex = (n: number) => '0123456789abcdef'.repeat(40).slice(0, n);

/** [name, nonce, valid]. */
const CASES: Array<[string, string, boolean]> = [
  ['21 hex digits (too short either way)', hex(21), false],
  ['22 hex digits (not hex: 11 bytes; base64: 22 characters)', hex(22), true],
  ['23 hex digits (odd)', hex(23), true],
  ['25 hex digits (odd, 4n+1)', hex(25), true],
  ['30 hex digits (15 bytes as hex; base64)', 'a'.repeat(30), true],
  ['31 hex digits', hex(31), true],
  ['32 hex digits (16 bytes: valid hex)', hex(32), true],
  ['33 hex digits (odd)', 'a'.repeat(33), true],
  ['64 hex digits, upper case', randomBytes(32).toString('hex').toUpperCase(), true],
  ['22 hex digits + =', `${hex(22)}=`, true],
  ['22 hex digits + ==', `${hex(22)}==`, true],
  ['22 hex digits + === (three =)', `${hex(22)}===`, false],
  ['20 hex digits + == (22 characters, 15 bytes)', `${hex(20)}==`, false],
  ['21 characters + = (22 characters, 15 bytes)', `${'A'.repeat(21)}=`, false],
  ['base64 of 16 bytes, padded (22 + ==)', randomBytes(16).toString('base64'), true],
  ['base64url of 16 bytes, unpadded', randomBytes(16).toString('base64url'), true],
  ['base64url with - and _', 'ab-cd_efgh-ijkl_mnop-q', true],
  ['base64url padded', 'ab-cd_efgh-ijkl_mnop-qr==', true],
  ['base64 with + and /', 'ab+cd/efgh+ijkl/mnop+q', true],
  ['base64 and base64url alphabets mixed', 'ab+cd_efgh-ijkl/mnop+q', false],
  ['25 base64 characters (4n+1, unpadded)', 'AbCdEfGhIjKlMnOpQrStUvWxY', true],
  ['padding in the middle', 'AbCdEfGhIjKl=MnOpQrStUv', false],
  ['padding only', '='.repeat(24), false],
  ['space inside', 'AbCdEfGhIjK lMnOpQrStUvW', false],
  ['other characters', 'AbCdEfGhIjKl.MnOpQrStUvW', false],
  ['non-ASCII', 'AbCdEfGhIjKlMnOpQrStUvé', false],
  ['a newline at the end', `${hex(32)}\n`, false],
  ['512 characters', 'a'.repeat(512), true],
  ['513 characters', 'a'.repeat(513), false],
];

let t: TestApp;
before(async () => {
  t = await createLicenseTestApp();
});
after(async () => {
  await t.close();
});

test('nonce rule table: valid hex OR valid base64/base64url (edge cases around 21/22/31/32/33 hex digits, odd lengths, padding, alphabets)', () => {
  for (const [name, v, ok] of CASES) assert.equal(isValidNonce(v), ok, `${name}: ${JSON.stringify(v)}`);
  // the two branches as the contract words them
  assert.equal(isHexNonce(hex(22)), false);
  assert.equal(isBase64Nonce(hex(22)), true);
  assert.equal(isHexNonce(hex(32)), true);
  assert.equal(isHexNonce(hex(33)), false);
  assert.equal(isBase64Nonce(hex(33)), true);
});

test('the OpenAPI document served at /v1/openapi.json describes the nonce with a pattern and lengths that agree with the server on every case', async () => {
  const doc = (await t.app.inject({ url: '/v1/openapi.json' })).json();
  const s = await createTestStore(t);
  const { key, productId } = await licensed(t, s.storeId, { maxActivations: 0 });
  const resolve = (schema: { $ref?: string }): any => (schema.$ref ? doc.components.schemas[schema.$ref.split('/').pop()!] : schema);
  for (const op of ['activate', 'deactivate', 'verify']) {
    const body = resolve(doc.paths[`/v1/licenses/${op}`].post.requestBody.content['application/json'].schema);
    const nonce = resolve(body.properties.nonce);
    assert.equal(typeof nonce.pattern, 'string', `${op}: the nonce has a pattern`);
    const re = new RegExp(nonce.pattern, 'u');
    const byDoc = (v: string) => v.length >= nonce.minLength && v.length <= nonce.maxLength && re.test(v);
    for (const [name, v, ok] of CASES) {
      assert.equal(byDoc(v), ok, `${op} OpenAPI: ${name}`);
      if (op !== 'verify') continue;
      // and the running server answers the same way: 200 (signed) or 400 on the nonce
      const res = await t.app.inject({ method: 'POST', url: '/v1/licenses/verify', payload: { key, productId, nonce: v } });
      assert.equal(res.statusCode, ok ? 200 : 400, `server: ${name}: ${res.body.slice(0, 200)}`);
      if (ok) assert.equal(res.json().nonce, v, `${name}: echoed unchanged`);
      else assert.ok(res.json().details.fields.some((f: { field: string }) => f.field === 'nonce'), `${name}: refused on the nonce`);
    }
  }
});

test('the client library\'s nonces (32 random bytes as 64 hex digits) are valid by the server\'s rule and the served pattern', async () => {
  const doc = (await t.app.inject({ url: '/v1/openapi.json' })).json();
  const body = doc.paths['/v1/licenses/verify'].post.requestBody.content['application/json'].schema;
  const nonceSchema = (body.$ref ? doc.components.schemas[body.$ref.split('/').pop()] : body).properties.nonce;
  const re = new RegExp(nonceSchema.pattern, 'u');
  for (let i = 0; i < 50; i++) {
    const n = makeNonce();
    assert.match(n, /^[0-9a-f]{64}$/);
    assert.equal(isHexNonce(n), true);
    assert.equal(isValidNonce(n), true);
    assert.ok(re.test(n) && n.length >= nonceSchema.minLength && n.length <= nonceSchema.maxLength);
  }
});
