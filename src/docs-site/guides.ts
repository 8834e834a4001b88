import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Marked, type Tokens } from 'marked';
import { escapeHtml } from '../pages/html';

export const LANGS = ['ko', 'en'] as const;
export type Lang = (typeof LANGS)[number];

export interface Guide {
  lang: Lang;
  /** The URL segment: the file name without its order prefix and `.md` (`01-accept-payments.md` → `accept-payments`). */
  slug: string;
  title: string;
  /** The first paragraph, shown on the index. */
  summary: string;
  html: string;
}

/**
 * The guides directory: `docs/guides` at the package root. Found by walking up from this module, which is
 * `src/docs-site/guides.ts` under tsx and `dist/cli.js` in the build.
 */
export function guidesDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const candidate = join(dir, 'docs', 'guides');
    if (existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  throw new Error('docs/guides not found beside the service');
}

/**
 * Markdown → HTML with marked. The guides are ours, but nothing in them reaches the page unescaped: raw HTML in the
 * Markdown is shown as text, and a code fence's info string keeps only its language (the test annotations after it,
 * e.g. ```js run=node, are for test/docs-site, not for readers).
 */
function markdown(): Marked {
  return new Marked({
    gfm: true,
    renderer: {
      html({ text }: Tokens.HTML | Tokens.Tag) {
        return escapeHtml(text);
      },
      code({ text, lang }: Tokens.Code) {
        const language = (lang ?? '').match(/^[A-Za-z0-9_+-]*/)?.[0] ?? '';
        const label = language ? `<span class="code-lang">${escapeHtml(language)}</span>` : '';
        return `<div class="code">${label}<pre tabindex="0"><code${language ? ` class="language-${escapeHtml(language)}"` : ''}>${escapeHtml(text)}</code></pre></div>\n`;
      },
      table(token: Tokens.Table) {
        // A wide table scrolls inside its own box on a phone instead of widening the page; like a code block, the box
        // takes keyboard focus so it can be scrolled without a pointer.
        const head = token.header.map((c) => `<th>${this.parser.parseInline(c.tokens)}</th>`).join('');
        const rows = token.rows.map((r) => `<tr>${r.map((c) => `<td>${this.parser.parseInline(c.tokens)}</td>`).join('')}</tr>`).join('\n');
        return `<div class="table" tabindex="0"><table><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table></div>\n`;
      },
    },
  });
}

function plain(text: string): string {
  return text.replace(/`([^`]*)`/g, '$1').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[*_]/g, '');
}

export function loadGuides(dir = guidesDir()): Guide[] {
  const md = markdown();
  const out: Guide[] = [];
  for (const lang of LANGS) {
    const files = readdirSync(join(dir, lang)).filter((f) => f.endsWith('.md')).sort();
    for (const file of files) {
      const source = readFileSync(join(dir, lang, file), 'utf8');
      const tokens = md.lexer(source);
      const heading = tokens.find((t): t is Tokens.Heading => t.type === 'heading' && t.depth === 1);
      const para = tokens.find((t): t is Tokens.Paragraph => t.type === 'paragraph');
      if (!heading) throw new Error(`${lang}/${file}: a guide starts with a "# Title"`);
      out.push({
        lang,
        slug: file.replace(/^\d+-/, '').replace(/\.md$/, ''),
        title: plain(heading.text),
        summary: para ? plain(para.text) : '',
        html: md.parse(source) as string,
      });
    }
  }
  return out;
}

/** A page of the reference manual: `docs/manual/*.md`, in English, moved out of the README (`/docs/manual/<slug>`). */
export interface ManualPage {
  slug: string;
  title: string;
  summary: string;
  html: string;
}

/** The manual sits beside the guides: `docs/manual`. Pages are listed in file-name order (`01-…`). */
export function loadManual(dir = join(dirname(guidesDir()), 'manual')): ManualPage[] {
  if (!existsSync(dir)) return [];
  const md = markdown();
  return readdirSync(dir)
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((file) => {
      const source = readFileSync(join(dir, file), 'utf8');
      const tokens = md.lexer(source);
      const heading = tokens.find((t): t is Tokens.Heading => t.type === 'heading' && t.depth === 1);
      const para = tokens.find((t): t is Tokens.Paragraph => t.type === 'paragraph');
      if (!heading) throw new Error(`manual/${file}: a page starts with a "# Title"`);
      // Links between manual pages are written as files (`13-performance.md`, readable in the repository); served, they
      // lead to the page's address.
      // Figures (`![…](img/x.svg)` beside the pages, e.g. the soak's plot) are inlined as data: addresses, which the
      // site's content security policy allows, so a page needs no route of its own for its pictures.
      const html = (md.parse(source) as string)
        .replace(/href="(?:\d+-)?([a-z0-9-]+)\.md(#[^"]*)?"/g, 'href="/docs/manual/$1$2"')
        .replace(/src="(img\/[a-z0-9-]+\.svg)"/g, (whole, path: string) =>
          existsSync(join(dir, path)) ? `src="data:image/svg+xml;base64,${readFileSync(join(dir, path)).toString('base64')}"` : whole,
        );
      return { slug: file.replace(/^\d+-/, '').replace(/\.md$/, ''), title: plain(heading.text), summary: para ? plain(para.text) : '', html };
    });
}
