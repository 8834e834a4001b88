import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Marked, type Tokens } from 'marked';

/**
 * The fenced code blocks of the guides with their test annotations. A fence's info string is the language, then
 * `key=value` pairs (a value may be quoted with ' or "): `run` says how the test runs the block (sh, sh-postgres,
 * node, server, next-route, env, json, skip), `file` joins several blocks into one file, `check` names what the test
 * does with a running server, `expect` is a regular expression the block's output must match, `reason` explains a
 * `run=skip`. The rendered pages show only the language.
 */
export interface Block {
  file: string; // guide file, e.g. ko/01-accept-payments.md
  index: number; // position among the guide's blocks
  lang: string;
  attrs: Record<string, string>;
  code: string;
}

export const GUIDES_DIR = join(process.cwd(), 'docs', 'guides');

export function parseInfo(info: string): { lang: string; attrs: Record<string, string> } {
  // Words separated by spaces; a value quoted with ' or " may hold spaces and the other quote.
  const words = info.trim().match(/[^\s'"=]+=(?:'[^']*'|"[^"]*"|\S*)|\S+/g) ?? [];
  const [lang = '', ...rest] = words;
  const attrs: Record<string, string> = {};
  for (const part of rest) {
    const m = /^([a-z-]+)=(?:'(.*)'|"(.*)"|(.*))$/.exec(part);
    if (!m) throw new Error(`bad fence annotation "${part}" in "${info}"`);
    attrs[m[1]!] = m[2] ?? m[3] ?? m[4] ?? '';
  }
  return { lang, attrs };
}

export function guideFiles(): string[] {
  return ['ko', 'en'].flatMap((lang) => readdirSync(join(GUIDES_DIR, lang)).filter((f) => f.endsWith('.md')).sort().map((f) => `${lang}/${f}`));
}

export function blocksOf(file: string): Block[] {
  return blocksOfFile(join(GUIDES_DIR, file), file);
}

/** The annotated code blocks of any Markdown file (the manual's pages use the same annotations as the guides). */
export function blocksOfFile(path: string, file = path): Block[] {
  const tokens = new Marked().lexer(readFileSync(path, 'utf8'));
  const out: Block[] = [];
  const walk = (list: any[]) => {
    for (const t of list) {
      if (t.type === 'code') {
        const { lang, attrs } = parseInfo((t as Tokens.Code).lang ?? '');
        out.push({ file, index: out.length, lang, attrs, code: (t as Tokens.Code).text });
      }
      if (t.tokens) walk(t.tokens);
      if (t.items) walk(t.items);
    }
  };
  walk(tokens);
  return out;
}
