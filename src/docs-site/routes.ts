import type { FastifyInstance, FastifyReply } from 'fastify';
import { FAVICON_SVG } from '../platform/brand';
import { LANGS, loadGuides, loadManual, type Guide, type Lang } from './guides';
import { guidePage, indexPage, manualPage } from './layout';
import downloads from './downloads';

/**
 * The documentation site: `/docs` (Korean) and `/docs/en` list the guides (docs/guides/{ko,en}/*.md, rendered once
 * at start, or on the first request for a page with `renderOnFirstUse`, as the tests' apps do) beside the API
 * references (`/docs/reference`, `/admin/docs`). Static pages without scripts.
 */
export default async function docsSite(app: FastifyInstance, opts: { renderOnFirstUse?: boolean }): Promise<void> {
  let rendered: Map<string, string> | undefined;
  const render = () => {
    const guides = loadGuides();
    const manual = loadManual();
    const out = new Map<string, string>();
    for (const lang of LANGS) out.set(`/docs/${lang}`, indexPage(lang, guides, manual));
    for (const m of manual) out.set(`/docs/manual/${m.slug}`, manualPage(m));
    const key = (g: Pick<Guide, 'lang' | 'slug'>) => `/docs/${g.lang}/${g.slug}`;
    for (const g of guides) out.set(key(g), guidePage(g, guides.some((o) => o.lang !== g.lang && o.slug === g.slug)));
    return out;
  };
  if (!opts.renderOnFirstUse) rendered = render();
  const pages = { get: (path: string) => (rendered ??= render()).get(path) };

  const send = (reply: FastifyReply, body: string) =>
    reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'public, max-age=300')
      .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'same-origin')
      .send(body);

  const hide = { schema: { hide: true } };
  app.get('/docs', hide, async (_req, reply) => send(reply, pages.get('/docs/ko')!));
  app.get('/docs/', hide, async (_req, reply) => send(reply, pages.get('/docs/ko')!));
  app.get<{ Params: { lang: string } }>('/docs/:lang', hide, async (req, reply) => {
    const body = pages.get(`/docs/${req.params.lang}`);
    return body ? send(reply, body) : reply.callNotFound();
  });
  app.get<{ Params: { lang: string; slug: string } }>('/docs/:lang/:slug', hide, async (req, reply) => {
    const known = LANGS.includes(req.params.lang as Lang) || req.params.lang === 'manual';
    const body = known ? pages.get(`/docs/${req.params.lang}/${req.params.slug}`) : undefined;
    return body ? send(reply, body) : reply.callNotFound();
  });
  await app.register(downloads);
  app.get('/docs/favicon.svg', hide, async (_req, reply) => reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400').send(FAVICON_SVG));
}
