// @slow: packs the package with npm and installs it in a fresh project (npm run test:slow)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createTestStore } from '../../../test/helpers/app';
import { createLicenseTestApp, licensed } from '../../../test/licenses/factory';
import { ManualClock } from '../../../src/platform/clock';

const run = promisify(execFile);
const PKG = join(process.cwd(), 'packages', 'license-client');
const TSC = join(process.cwd(), 'node_modules', '.bin', 'tsc');

/** A buyer's app, as the README shows it: plain ESM JavaScript importing the installed package by name. */
const APP = `import { LicenseClient, LicenseVerificationError, keyFingerprint } from '@commerce/license-client';
const { URL: baseUrl, PRODUCT_ID: productId, KEY: key } = process.env;
const client = new LicenseClient({ baseUrl, productId });
const first = await client.activate(key, { label: 'pack test' });
const check = await client.verify(key, { activationId: first.activation.id });
// The same service behind a proxy that changes one byte of each answer: refused, never a result.
const tampering = new LicenseClient({
  baseUrl, productId,
  fetch: async (url, init) => {
    const res = await fetch(url, init);
    if (!url.endsWith('/verify')) return res;
    const body = (await res.text()).replace('"active"', '"activf"');
    return new Response(body, { status: res.status, headers: res.headers });
  },
});
let refused = null;
try { await tampering.verify(key); } catch (err) { refused = err instanceof LicenseVerificationError ? err.reason : String(err); }
console.log(JSON.stringify({ activated: first.status, verified: check.status, kid: check.kid, fingerprintMatches: check.keyFingerprint === await keyFingerprint(key), refused }));
`;

/** A TypeScript consumer: the declarations resolve through the package's exports under NodeNext resolution. */
const TS_APP = `import { LicenseClient, type LicenseResult } from '@commerce/license-client';
const client = new LicenseClient({ baseUrl: 'https://api.example.com', productId: 'prod_x' });
export const check: Promise<LicenseResult> = client.verify('KEY');
// @ts-expect-error: activate takes the key first
client.activate({ label: 'x' });
`;

test('npm pack gives a package that installs offline into a fresh project and verifies real signed answers there', async () => {
  const out = mkdtempSync(join(tmpdir(), 'license-client-pack-'));
  const app = mkdtempSync(join(tmpdir(), 'license-client-app-'));
  const t = await createLicenseTestApp({ clock: new ManualClock(Date.now()) });
  try {
    // `npm pack` builds dist/ first (prepack) and packs what `files` lists.
    await run('npm', ['pack', '--pack-destination', out], { cwd: PKG, timeout: 120_000 });
    const [tgz] = readdirSync(out).filter((f) => f.endsWith('.tgz'));
    assert.ok(tgz, 'a tarball');
    const { stdout: listing } = await run('tar', ['-tzf', join(out, tgz!)]);
    for (const f of ['package/dist/index.js', 'package/dist/index.d.ts', 'package/README.md', 'package/package.json']) assert.ok(listing.includes(f), `${f} is packed`);
    assert.ok(!listing.includes('package/test/'), 'tests are not packed');

    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'buyer-app', private: true, type: 'module' }));
    // Offline: the package has no dependencies, so nothing is fetched.
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund', join(out, tgz!)], { cwd: app, timeout: 120_000 });
    assert.ok(existsSync(join(app, 'node_modules', '@commerce', 'license-client', 'dist', 'index.js')));
    assert.deepEqual(readdirSync(join(app, 'node_modules')).filter((d) => !d.startsWith('.')), ['@commerce'], 'no dependencies came along');

    const address = (await t.app.listen({ port: 0, host: '127.0.0.1' })).replace('localhost', '127.0.0.1');
    const store = await createTestStore(t);
    const lic = await licensed(t, store.storeId, { maxActivations: 2 });
    writeFileSync(join(app, 'app.mjs'), APP);
    t.clock.set(Date.now());
    const { stdout } = await run(process.execPath, ['app.mjs'], { cwd: app, env: { PATH: process.env.PATH, URL: address, PRODUCT_ID: lic.productId, KEY: lic.key }, timeout: 60_000 });
    const result = JSON.parse(stdout);
    assert.equal(result.activated, 'active');
    assert.equal(result.verified, 'active');
    assert.match(result.kid, /^lsk_/);
    assert.equal(result.fingerprintMatches, true);
    assert.equal(result.refused, 'bad_signature');
    // The service recorded the activation the installed client made.
    const row = await t.db.selectFrom('license_activations').select(['label']).where('license_id', '=', lic.licenseId).executeTakeFirst();
    assert.equal(row?.label, 'pack test');

    writeFileSync(join(app, 'check.ts'), TS_APP);
    await run(TSC, ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--lib', 'es2022,dom', 'check.ts'], { cwd: app, timeout: 120_000 });
  } finally {
    await t.close();
    rmSync(out, { recursive: true, force: true });
    rmSync(app, { recursive: true, force: true });
  }
});
