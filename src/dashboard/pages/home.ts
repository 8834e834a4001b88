import type { DashboardPage } from '.';
import { html } from '../../pages/html';
import { ctxOf, requireRole, sendPage } from '../frame';
import { frameText } from '../i18n';

/** /dashboard: the store at a glance (figures come in the Home step). */
const homePage: DashboardPage = async (app) => {
  app.get('/dashboard', { schema: { hide: true }, preHandler: requireRole('home') }, async (req, reply) => {
    const ctx = ctxOf(req);
    return sendPage(reply, ctx, { title: frameText(ctx.lang, 'nav.home'), nav: '/dashboard' }, html`<p class="card" data-testid="welcome">${ctx.member.storeName}</p>`);
  });
};

export default homePage;
