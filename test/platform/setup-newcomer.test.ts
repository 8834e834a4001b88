import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bearer, createTestApp, type TestApp } from '../helpers/app';
import { submitPayForm } from '../checkout/factory';
import { noStoreBanner, setupBanner, setupStore } from '../../src/setup';
import { blocksOf } from '../docs-site/blocks';

/**
 * A newcomer's first hour, as a test: `commerce setup` on a fresh database, then every link it prints opened on the
 * running server, every API step it names done with the credentials it printed, and the subscription guide's commands
 * run as written in an empty folder with those credentials, its sessions paid with the test card the banner names.
 */
let t: TestApp;
let baseUrl: string;
let work: string;
before(async () => {
  t = await createTestApp();
  baseUrl = (await t.app.listen({ port: 0, host: '127.0.0.1' })).replace('localhost', '127.0.0.1');
  // What the CLI reads as PUBLIC_BASE_URL (or the address the server recorded): here the running server itself.
  t.deps.config.publicBaseUrl = baseUrl;
  work = mkdtempSync(join(tmpdir(), 'commerce-newcomer-'));
});
after(async () => {
  await t.close();
  rmSync(work, { recursive: true, force: true });
});

/** The printed URLs, each with the HTTP method written before it (GET when none: a page to open). */
function links(banner: string): Array<{ method: string; url: string }> {
  const out: Array<{ method: string; url: string }> = [];
  for (const m of banner.matchAll(/(?:\b(GET|POST|PUT|PATCH|DELETE) )?(https?:\/\/[^\s)]+)/g)) out.push({ method: m[1] ?? 'GET', url: m[2]!.replace(/[.,;:]+$/, '') });
  return out;
}
const field = (banner: string, label: string) => new RegExp(`${label}\\s*: (\\S+)`).exec(banner)?.[1];

function sh(code: string, env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-eo', 'pipefail', '-c', code], { cwd: work, env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? tmpdir(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', (c) => resolve({ code: c, out }));
  });
}

test('setup without --return-domains asks for the shop domain; every page it links opens', async () => {
  const r = await setupStore(t.deps, { name: '첫 상점', email: 'first@example.com' });
  const banner = setupBanner(r, baseUrl);
  assert.match(banner, /1\. Add your shop's domain/);
  const pages = links(banner).filter((l) => l.method === 'GET');
  // The dashboard, and the Korean and English pages of the three guides named.
  assert.equal(pages.length, 7, banner);
  for (const { url } of pages) {
    assert.ok(url.startsWith(`${baseUrl}/`), url);
    const res = await fetch(url);
    assert.equal(res.status, 200, `${url} → ${res.status}`);
  }
  assert.ok(pages.some((p) => p.url === `${baseUrl}/docs/ko/go-live-toss`) && pages.some((p) => p.url === `${baseUrl}/docs/en/go-live-toss`), banner);
});

test('the banner printed when no store exists links pages that open', async () => {
  for (const kind of ['postgres', 'pglite'] as const) {
    const pages = links(noStoreBanner(kind, baseUrl));
    assert.equal(pages.length, 2);
    for (const { url } of pages) assert.equal((await fetch(url)).status, 200, url);
  }
});

test('setup with --return-domains: only the steps left, each done with what it printed; then the subscription guide as written', async () => {
  const r = await setupStore(t.deps, { name: '구독 상점', email: 'owner@example.com', returnDomains: ['localhost:4000'] });
  const banner = setupBanner(r, baseUrl);
  assert.doesNotMatch(banner, /shop's domain/, 'the domain given is not asked for again');
  assert.match(banner, /1\. A product/);
  const ownerToken = field(banner, 'owner token')!;
  const apiKey = field(banner, 'test API key')!;
  const card = /with the card ([\d ]+\d)/.exec(banner)![1]!.replace(/ /g, '');

  // The dashboard sign-in with the printed password.
  const login = await fetch(`${baseUrl}/dashboard/login`);
  const cookie = login.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await login.text())![1]!;
  const signIn = await fetch(`${baseUrl}/dashboard/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: new URLSearchParams({ _csrf: csrf, email: 'owner@example.com', password: /  password (\S+)/.exec(banner)![1]! }).toString(),
  });
  assert.equal(signIn.status, 303);

  // Steps 1 and 2 as named: a product with the owner token, a session with the test key, paid with the printed card.
  const api = links(banner).filter((l) => l.method !== 'GET');
  assert.deepEqual(api.map((l) => `${l.method} ${new URL(l.url).pathname}`), ['POST /admin/v1/products', 'POST /v1/checkout/sessions']);
  const product = await fetch(api[0]!.url, {
    method: 'POST',
    headers: { ...bearer(ownerToken), 'content-type': 'application/json' },
    body: JSON.stringify({ mode: 'test', type: 'one_time', name: '전자책', pricing: { price: 15_000 } }),
  });
  assert.equal(product.status, 201);
  const session = await fetch(api[1]!.url, {
    method: 'POST',
    headers: { ...bearer(apiKey), 'content-type': 'application/json', 'idempotency-key': 'newcomer-1' },
    body: JSON.stringify({ productId: (await product.json()).id, successUrl: 'http://localhost:4000/thanks' }),
  });
  assert.equal(session.status, 200);
  const paid = await submitPayForm(t, await session.json(), { cardNumber: card });
  assert.equal(paid.statusCode, 303, paid.body);
  assert.match(paid.headers.location as string, /^http:\/\/localhost:4000\/thanks\?.*order_id=ord_/);

  // The subscription guide the banner links, its commands run as written in an empty folder.
  const env = { COMMERCE_URL: baseUrl, COMMERCE_API_KEY: apiKey, COMMERCE_OWNER_TOKEN: ownerToken };
  const sessions: string[] = [];
  const blocks = blocksOf('en/09-subscription-checkout.md');
  assert.equal(blocks.length, 5);
  for (const b of blocks) {
    const ran = await sh(b.code, env);
    assert.equal(ran.code, 0, `block ${b.index}:\n${ran.out}`);
    assert.match(ran.out, new RegExp(b.attrs.expect!, 'm'), `block ${b.index}`);
    const url = /"url":"([^"]+\/pay\/cs_[^"]+)"/.exec(ran.out)?.[1];
    if (url) sessions.push(url);
  }
  assert.equal(sessions.length, 3, 'monthly, yearly and trial sessions');
  for (const [i, url] of sessions.entries()) {
    const res = await submitPayForm(t, { url }, { cardNumber: card, buyerEmail: `sub${i}@example.com` });
    assert.equal(res.statusCode, 303, res.body);
  }
  const subs = (await t.app.inject({ url: '/v1/subscriptions', headers: bearer(apiKey) })).json().data as any[];
  const got = subs.map((s) => `${s.planId} ${s.billingInterval} ${s.amount} ${s.trialing}`).sort();
  assert.deepEqual(got, ['basic monthly 9900 false', 'basic yearly 99000 false', 'pro yearly 199000 true']);
  const orders = (await t.app.inject({ url: '/v1/orders', headers: bearer(apiKey) })).json().data as any[];
  // The one-time e-book, the monthly and yearly first payments, and the trial's 0 won today.
  assert.deepEqual(orders.filter((o) => o.status === 'paid').map((o) => o.amount).sort((a, b) => a - b), [0, 9_900, 15_000, 99_000]);
});
