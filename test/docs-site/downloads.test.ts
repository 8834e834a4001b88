import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { createTestApp, type TestApp } from '../helpers/app';

/**
 * The client packages are installed from the service (they are not on a public registry): /downloads lists the
 * tarballs `npm run build` packed, each served at a versioned address that never changes. The guides' install
 * steps run these addresses for real (test/docs-site/guides.test.ts); this checks the route's own rules.
 */
let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(async () => t?.close());

const version = (pkg: string) => JSON.parse(readFileSync(`packages/${pkg}/package.json`, 'utf8')).version as string;

test('GET /downloads lists the license client and the SDK at their current versions', async () => {
  const res = await t.app.inject({ url: '/downloads' });
  assert.equal(res.statusCode, 200);
  const files = res.json().packages.map((p: { file: string; url: string }) => p.url);
  assert.deepEqual(files, [`/downloads/commerce-license-client-${version('license-client')}.tgz`, `/downloads/commerce-sdk-${version('sdk')}.tgz`]);
});

test('a package is the npm tarball with its compiled code, cached for good since its name carries the version', async () => {
  for (const [pkg, name] of [['license-client', '@commerce/license-client'], ['sdk', '@commerce/sdk']] as const) {
    const res = await t.app.inject({ url: `/downloads/commerce-${pkg}-${version(pkg)}.tgz` });
    assert.equal(res.statusCode, 200, pkg);
    assert.equal(res.headers['content-type'], 'application/gzip');
    assert.match(String(res.headers['cache-control']), /immutable/);
    const tar = gunzipSync(res.rawPayload).toString('latin1');
    assert.ok(tar.includes('package/dist/index.js'), `${pkg}: compiled code inside`);
    assert.ok(tar.includes(`"name": "${name}"`), `${pkg}: its package.json inside`);
  }
});

test('anything but a listed file is 404: other versions, other names, paths out of the folder', async () => {
  for (const url of ['/downloads/commerce-license-client-9.9.9.tgz', '/downloads/package.json', '/downloads/..%2Fcli.js', '/downloads/%2E%2E%2Fcli.js.map', '/downloads/.hidden.tgz']) {
    assert.equal((await t.app.inject({ url })).statusCode, 404, url);
  }
});
