/**
 * Finds untranslated Korean in a page or mail rendered in English: Hangul in the text (and in the attributes a
 * reader hears: aria-label, title, placeholder, alt) outside elements marked as Korean on purpose — `lang="ko"` (legal
 * statements kept in Korean, with their English beside them) or `translate="no"` (the store's, seller's and product's
 * own names). Script and style bodies are not text. `ownNames` are removed from the <title> and those attributes (which cannot hold markup).
 */
const HANGUL = /[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]+/g;
const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);
const SPOKEN_ATTRS = /\s(aria-label|title|placeholder|alt)="([^"]*)"/g;

export function untranslated(page: string, ownNames: string[] = []): string[] {
  let s = page.replace(/<script\b[\s\S]*?<\/script>/gi, '').replace(/<style\b[\s\S]*?<\/style>/gi, '').replace(/<!--[\s\S]*?-->/g, '');
  const strip = (t: string) => ownNames.reduce((acc, n) => acc.split(n).join(''), t);
  s = s.replace(/<title>([\s\S]*?)<\/title>/i, (_m, t: string) => `<title>${strip(t)}</title>`);
  const found: string[] = [];
  // Walk the tags: depth of the innermost marked element we are in (0 = unmarked).
  const stack: Array<{ tag: string; marked: boolean }> = [];
  const inMarked = () => stack.some((e) => e.marked);
  const re = /<(\/?)([a-zA-Z][a-zA-Z0-9-]*)([^>]*)>|([^<]+)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(s))) {
    if (m[4] !== undefined) {
      if (!inMarked()) for (const h of m[4].match(HANGUL) ?? []) found.push(context(m[4], h));
      continue;
    }
    const [, close, rawTag, attrs] = m;
    const tag = rawTag.toLowerCase();
    if (close) {
      const i = stack.map((e) => e.tag).lastIndexOf(tag);
      if (i >= 0) stack.length = i;
      continue;
    }
    const marked = /\slang="ko"/.test(attrs) || /\stranslate="no"/.test(attrs);
    if (!inMarked() && !marked) {
      for (const a of attrs.matchAll(SPOKEN_ATTRS)) for (const h of strip(a[2]).match(HANGUL) ?? []) found.push(`${a[1]}: ${context(a[2], h)}`);
    }
    if (!VOID.has(tag) && !attrs.trim().endsWith('/')) stack.push({ tag, marked });
  }
  return found;
}

const context = (text: string, h: string) => {
  const i = text.indexOf(h);
  return text.slice(Math.max(0, i - 30), i + h.length + 30).replace(/\s+/g, ' ').trim();
};
