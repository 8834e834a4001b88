// The library in a real browser (Debian's Chromium through playwright-core): WebCrypto Ed25519, fetch across
// origins with the exposed Service-Signature header, and localStorage as the offline store. Skipped, and reported
// as skipped, where Chromium is not installed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import ts from 'typescript';
import { FakeLicenseServer } from './fake-server';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'];
const SRC = new URL('../src/', import.meta.url);

test('in Chromium: a signed answer verifies, a changed byte is refused, and a 503 falls back to the localStorage copy', async (tc) => {
  if (!existsSync(CHROMIUM)) {
    tc.skip('chromium not installed');
    return;
  }
  const { chromium } = await import('playwright-core');

  const api = await FakeLicenseServer.start();
  // The app's own origin: serves a page and the library, transpiled file by file (imports already end in .js).
  const site = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const lib = /^\/lib\/([a-z-]+)\.js$/.exec(path);
    if (lib && existsSync(new URL(`${lib[1]}.ts`, SRC))) {
      const out = ts.transpileModule(readFileSync(new URL(`${lib[1]}.ts`, SRC), 'utf8'), { compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext } });
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(out.outputText);
    } else if (path === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><meta charset="utf-8"><title>app</title>');
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  const siteUrl = `http://localhost:${(site.address() as AddressInfo).port}`; // another origin than the API's 127.0.0.1
  let browser: Awaited<ReturnType<typeof chromium.launch>> | null = null;
  try {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
    const page = await browser.newPage();
    await page.goto(siteUrl);
    const run = (step: string) =>
      page.evaluate(
        async ({ apiUrl, step }) => {
          const m = await import('/lib/index.js' as string);
          const client = new m.LicenseClient({ baseUrl: apiUrl, productId: 'prod_1', storage: localStorage, offlineGraceMs: 3_600_000 });
          try {
            const r = step === 'activate' ? await client.activate('KEY-1', { label: '브라우저' }) : await client.verify('KEY-1');
            return { ok: true, status: r.status, fromCache: r.fromCache, label: r.activation?.label ?? null, kid: r.kid, stored: Object.keys(localStorage).length };
          } catch (e: any) {
            return { ok: false, name: e.name, reason: e.reason ?? null, message: String(e.message) };
          }
        },
        { apiUrl: api.url, step },
      );

    const activated = await run('activate');
    assert.deepEqual(activated, { ok: true, status: 'active', fromCache: false, label: '브라우저', kid: 'k1', stored: 2 });

    api.respond = (req, s) => {
      const reply = s.signed(s.answerFor(req, { status: 'revoked' }));
      return { ...reply, body: reply.body.replace('"revoked"', '"active"') };
    };
    assert.deepEqual(await run('verify'), { ok: false, name: 'LicenseVerificationError', reason: 'bad_signature', message: 'license answer refused: bad_signature' });

    api.respond = (_req, s) => s.error(503, 'SERVICE_UNAVAILABLE', '잠시 후 다시 시도해 주세요.');
    const cached = await run('verify');
    assert.deepEqual([cached.ok, cached.status, cached.fromCache], [true, 'active', true]);
  } finally {
    await browser?.close();
    await new Promise<void>((r) => site.close(() => r()));
    await api.close();
  }
});
