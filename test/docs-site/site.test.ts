import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../helpers/app';
import { guideFiles } from './blocks';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(async () => t.close());

const slugOf = (file: string) => file.slice(3).replace(/^\d+-/, '').replace(/\.md$/, '');

test('/docs lists every guide in Korean (and /docs/en in English) beside the API references', async () => {
  for (const [url, lang] of [['/docs', 'ko'], ['/docs/', 'ko'], ['/docs/ko', 'ko'], ['/docs/en', 'en']] as const) {
    const res = await t.app.inject({ url });
    assert.equal(res.statusCode, 200, url);
    assert.match(res.headers['content-type'] as string, /text\/html; charset=utf-8/);
    assert.match(res.body, new RegExp(`<html lang="${lang}">`));
    assert.match(res.body, /<meta name="viewport" content="width=device-width, initial-scale=1">/);
    assert.match(res.body, /<title>Commerce API — /);
    for (const f of guideFiles().filter((f) => f.startsWith(`${lang}/`))) assert.ok(res.body.includes(`href="/docs/${lang}/${slugOf(f)}"`), `${url} lists ${f}`);
    assert.ok(res.body.includes('href="/docs/reference"') && res.body.includes('href="/admin/docs"'), url);
  }
});

test('each guide page renders, switches language to the same guide, and every link on it leads somewhere', async () => {
  for (const f of guideFiles()) {
    const lang = f.slice(0, 2);
    const other = lang === 'ko' ? 'en' : 'ko';
    const url = `/docs/${lang}/${slugOf(f)}`;
    const res = await t.app.inject({ url });
    assert.equal(res.statusCode, 200, url);
    assert.match(res.headers['content-security-policy'] as string, /default-src 'none'/);
    assert.ok(res.body.includes(`href="/docs/${other}/${slugOf(f)}"`), `${url}: language switch`);
    assert.ok(!/run=|check=|expect=/.test(res.body), `${url}: test annotations stay out of the page`);
    assert.match(res.body, /<pre tabindex="0"><code class="language-/);
    for (const [, href] of res.body.matchAll(/href="([^"]+)"/g)) {
      if (/^https?:/.test(href!) || href!.startsWith('#')) continue;
      const target = new URL(href!, `http://localhost${url}`).pathname;
      const linked = await t.app.inject({ url: target });
      assert.equal(linked.statusCode, 200, `${url} links to ${href} (${target}): ${linked.statusCode}`);
    }
  }
  const missing = await t.app.inject({ url: '/docs/ko/no-such-guide' });
  assert.equal(missing.statusCode, 404);
  assert.equal((await t.app.inject({ url: '/docs/fr' })).statusCode, 404);
});

test('raw HTML in a guide is shown as text, never run, and fence annotations are not shown', async () => {
  const { mkdtempSync, mkdirSync, writeFileSync, rmSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const { loadGuides } = await import('../../src/docs-site/guides');
  const dir = mkdtempSync(join(tmpdir(), 'guides-'));
  try {
    for (const lang of ['ko', 'en']) {
      mkdirSync(join(dir, lang));
      writeFileSync(join(dir, lang, '01-x.md'), '# 제목 <b>x</b>\n\n<script>alert(1)</script>\n\n<img src=x onerror=alert(1)>\n\n```js run=node expect="<x>"\nconst a = "</code><script>";\n```\n');
    }
    const [g] = loadGuides(dir);
    assert.equal(g!.slug, 'x');
    assert.ok(!g!.html.includes('<script>') && !g!.html.includes('<img'), g!.html);
    assert.ok(g!.html.includes('&lt;script&gt;alert(1)&lt;/script&gt;'), g!.html);
    assert.ok(g!.html.includes('<code class="language-js">const a = &quot;&lt;/code&gt;&lt;script&gt;&quot;;</code>'), g!.html);
    assert.ok(!g!.html.includes('run=node'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the README stays a newcomer\'s page (≤ 250 lines) and links every manual page, each served at /docs/manual/<slug> with working links', async () => {
  const { readFileSync, readdirSync } = await import('node:fs');
  const readme = readFileSync('README.md', 'utf8');
  assert.ok(readme.split('\n').length <= 250, `README.md has ${readme.split('\n').length} lines`);
  const files = readdirSync('docs/manual').filter((f) => f.endsWith('.md')).sort();
  assert.ok(files.length >= 10, 'the reference parts live in docs/manual');
  const home = (await t.app.inject({ url: '/docs/en' })).body;
  for (const f of files) {
    const slug = f.replace(/^\d+-/, '').replace(/\.md$/, '');
    assert.ok(readme.includes(`](docs/manual/${f})`), `README links docs/manual/${f}`);
    assert.ok(home.includes(`href="/docs/manual/${slug}"`), `/docs/en lists ${slug}`);
    const url = `/docs/manual/${slug}`;
    const res = await t.app.inject({ url });
    assert.equal(res.statusCode, 200, url);
    assert.match(res.body, /<html lang="en">/);
    for (const [, href] of res.body.matchAll(/href="([^"]+)"/g)) {
      if (/^https?:/.test(href!) || href!.startsWith('#')) continue;
      const target = new URL(href!, `http://localhost${url}`).pathname;
      assert.equal((await t.app.inject({ url: target })).statusCode, 200, `${url} links to ${href}`);
    }
    // A figure beside the pages (docs/manual/img) is inlined: the site has no route for it, and its policy allows data:.
    for (const [, src] of res.body.matchAll(/<img[^>]* src="([^"]+)"/g)) assert.match(src!, /^data:image\/svg\+xml;base64,/, `${url}: picture ${src!.slice(0, 60)}`);
    if (slug === 'performance') assert.match(res.body, /<img[^>]* src="data:image\/svg\+xml;base64,/, 'the soak\'s plot is on the performance page');
  }
  assert.equal((await t.app.inject({ url: '/docs/manual/no-such-page' })).statusCode, 404);
});
