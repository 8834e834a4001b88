import { chooseLang, type LangRequest } from '../lang';
import type { LoadedPage } from './service';

/** What a handler needs of the request to choose the page's language (src/pages/lang.ts) and draw its switch. */
export interface PageView {
  req: LangRequest;
  /** The page's address (path and query) for the language switch. */
  here: string;
}

/**
 * The page's language: the address's (or a form's hidden `lang`), else the session's when the seller fixed it or the
 * buyer already submitted in it, else the cookie, Accept-Language, Korean.
 */
export function withView<P extends LoadedPage | null>(page: P, view: PageView | undefined): P {
  if (!page || !view) return page;
  const s = page.session;
  const fixed = s.locale_fixed || s.attempt ? s.locale : null;
  return { ...page, lang: chooseLang(view.req, fixed).lang, here: view.here };
}
