import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { promisify } from 'node:util';
import { chromiumOrSkip, launchChromium, type Browser } from '../../helpers/browser';

const run = promisify(execFile);
const ROOT = process.cwd();
const SHOTS = '/tmp/docs-shots';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const port = (srv.address() as any).port;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * The README's walk-through, split into its numbered steps. Each step is the shell text under its `# N.` comment;
 * `NAME=value...` lines are the placeholders a reader fills in (from the banner, an earlier answer, the address).
 */
function walkthrough(): { steps: Map<number, string>; placeholders: Map<string, string> } {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Walk-through'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(block, 'the walk-through has a sh block');
  const steps = new Map<number, string>();
  const placeholders = new Map<string, string>();
  let current = 0;
  for (const line of block.split('\n')) {
    const step = /^# (\d+)\./.exec(line);
    if (step) current = Number(step[1]);
    const ph = /^([A-Z]+)=(\S+\.\.\.)\s/.exec(line);
    if (ph) placeholders.set(ph[1]!, ph[2]!);
    steps.set(current, `${steps.get(current) ?? ''}${line}\n`);
  }
  return { steps, placeholders };
}

/** A step as the reader runs it: their values for the placeholders, the port the service really listens on. */
function fill(step: string, values: Record<string, string>, port: number): string {
  return step
    .split('\n')
    .map((line) => {
      const ph = /^([A-Z]+)=\S+\.\.\.(\s.*)?$/.exec(line);
      if (!ph) return line;
      assert.ok(values[ph[1]!], `a value for ${ph[1]}`);
      return `${ph[1]}=${values[ph[1]!]}${ph[2] ?? ''}`;
    })
    .join('\n')
    .replaceAll('localhost:3000', `localhost:${port}`);
}

test("the README's walk-through runs as written: start, products, a session, pay in Chromium, read the order; docs screenshots", async (tc) => {
  const chromium = await chromiumOrSkip(tc);
  if (!chromium) return;
  const { steps, placeholders } = walkthrough();
  assert.deepEqual([...placeholders.keys()], ['KEY', 'PRODUCT', 'ORDER'], 'the placeholders the test knows how to fill');
  assert.ok(!/uuidgen/.test([...steps.values()].join('')), 'no uuidgen: not installed everywhere');

  mkdirSync(SHOTS, { recursive: true });
  const dir = mkdtempSync(join(tmpdir(), 'commerce-readme-'));
  const port = await freePort();
  const env: Record<string, string> = { ...(process.env as Record<string, string>), DATA_DIR: dir, PORT: String(port), LOG_LEVEL: 'warn' };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  // The README says `npm start`, which is this command.
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  assert.equal(pkg.scripts.start, 'node bin/commerce.js start');
  const server = spawn(process.execPath, ['bin/commerce.js', 'start'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let banner = '';
  server.stdout.on('data', (d) => (banner += d));
  server.stderr.on('data', (d) => (banner += d));
  let browser: Browser | null = null;
  try {
    for (let i = 0; i < 600 && !(await fetch(`http://127.0.0.1:${port}/ready`).then((r) => r.ok, () => false)); i++) await new Promise((r) => setTimeout(r, 100));
    // As a newcomer: the key is the one the banner prints.
    const key = /test API key : (svc_test_\S+)/.exec(banner)?.[1];
    assert.ok(key, `the banner prints the key: ${banner}`);
    const values: Record<string, string> = { KEY: key };
    const sh = async (n: number) => {
      // One shell session, as the reader's: the variables set in earlier steps (and the KEY line above step 1) hold.
      const earlier = Object.entries(values).map(([k, v]) => `${k}=${v}`).join('\n');
      const script = `${earlier}\n${fill(steps.get(n)!, values, port)}`;
      const { stdout } = await run('bash', ['-eo', 'pipefail', '-c', script], { env, timeout: 30_000 });
      return stdout;
    };

    // 1. Products: pick the one-time product the README points at (the e-book).
    const products = JSON.parse(await sh(1));
    const ebook = products.data.find((p: any) => p.type === 'one_time' && /전자책/.test(p.name));
    assert.ok(ebook, JSON.stringify(products));
    assert.match(ebook.id, new RegExp(`^${placeholders.get('PRODUCT')!.replace('...', '')}`), 'ids look as the README writes them');
    values.PRODUCT = ebook.id;

    // 2. The session.
    const session = JSON.parse(await sh(2));
    assert.equal(session.status, 'open', JSON.stringify(session));
    assert.match(session.url, /\/pay\/cs_/);
    assert.deepEqual(session.metadata, { userId: '42' });

    // 3. Pay in Chromium as the README says: 카드, the test card it names.
    const card = /test card ([\d ]{19})/.exec(steps.get(3)!)?.[1];
    assert.ok(card, 'step 3 names the test card');
    browser = await launchChromium(chromium);
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, locale: 'ko-KR' });
    const page = await phone.newPage();
    assert.equal((await page.goto(session.url))?.status(), 200);
    await page.check('input[name="method"][value="card"]');
    await page.fill('#cardNumber', card);
    // Whatever agreement boxes the page asks for, a buyer ticks them.
    for (const box of await page.locator('input[type="checkbox"]:not(:checked)').all()) if (await box.isVisible()) await box.check();
    await Promise.all([page.waitForURL(/\/health\?/), page.click('button.pay')]);
    const landed = new URL(page.url());
    assert.equal(landed.pathname, '/health');
    assert.equal(landed.searchParams.get('session_id'), session.id);
    const orderId = landed.searchParams.get('order_id')!;
    assert.match(orderId, new RegExp(`^${placeholders.get('ORDER')!.replace('...', '')}`));
    values.ORDER = orderId;

    // 4. Read the order.
    const order = JSON.parse(await sh(4));
    assert.equal(order.id, orderId);
    assert.equal(order.status, 'paid');
    assert.ok(order.amount > 0);
    assert.deepEqual(order.metadata, { userId: '42' });
    assert.equal(order.buyerName, '홍길동');

    // The docs a newcomer opens next (the banner points at /docs): screenshots on a phone and a desktop.
    const desktop = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'ko-KR' });
    for (const [name, ctx] of [['390', phone], ['1280', desktop]] as const) {
      const p = await ctx.newPage();
      for (const [shot, path] of [['index-ko', '/docs'], ['guide-ko-accept', '/docs/ko/accept-payments'], ['guide-en-webhooks', '/docs/en/verify-webhooks'], ['reference', '/docs/reference/']] as const) {
        const res = await p.goto(`http://localhost:${port}${path}`);
        assert.equal(res?.status(), 200, path);
        if (shot === 'reference') {
          // Swagger UI draws the document with scripts: wait for it, and for the product's logo in its top bar.
          await p.waitForSelector('.swagger-ui .info .title');
          await p.waitForSelector('.topbar img[src^="data:image/svg+xml"]');
          assert.match(await p.title(), /^Commerce API/);
        } else {
          // Nothing is wider than the screen: tables and code scroll inside their own boxes.
          const overflow = await p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
          assert.ok(overflow <= 0, `${path} at ${name}px is ${overflow}px too wide`);
          assert.ok(await p.locator('a.lang').isVisible(), 'the language switch is visible');
        }
        await p.screenshot({ path: `${SHOTS}/${shot}-${name}.png` });
      }
      await p.close();
    }
  } finally {
    await browser?.close();
    if (server.exitCode === null) {
      const exit = new Promise((r) => server.once('exit', r));
      server.kill('SIGTERM');
      await exit;
    }
    rmSync(dir, { recursive: true, force: true });
  }
});
