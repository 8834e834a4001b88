/**
 * `/manage/{link}`: the 구독 관리 link of a subscription mail. A valid link makes a fresh portal session and goes
 * there (303); an altered or expired one answers 410 with a page saying how to get in again (the store's buyer page,
 * where a new sign-in link is mailed). No seller code is involved either way.
 */
import type { App, AppDeps } from '../../deps';
import { portalFromManageLink, verifyManageLink } from '../../subscriptions/portal/manage-link';
import { getSubscription } from '../../subscriptions/repo';
import { buyerPagePath } from '../../buyers/model';
import { statusPage } from '../status-page';
import { sendPage } from '../token-pages';

export function manageLinkRoute(app: App, deps: AppDeps, opts: { schema: { hide: boolean } }): void {
  app.get<{ Params: { link: string } }>('/manage/:link', opts, async (req, reply) => {
    const out = await portalFromManageLink(deps, req.params.link);
    if ('url' in out) return reply.code(303).header('Location', out.url).send();
    // The way back in: the store's buyer page, when the link still names one of our subscriptions (only its expiry passed).
    const sub = out.refused === 'expired' ? await subscriptionOf(deps, req.params.link) : undefined;
    return sendPage(
      reply,
      410,
      statusPage({
        icon: out.refused === 'expired' ? '⏰' : '⚠️',
        title: out.refused === 'expired' ? '구독 관리 링크의 유효 기간이 지났습니다' : '구독 관리 링크를 열 수 없습니다',
        message:
          out.refused === 'expired'
            ? '메일의 구독 관리 링크는 정해진 기간에만 열립니다. 구매내역 페이지에서 결제한 이메일 주소로 로그인하면 구독을 관리할 수 있습니다.'
            : '링크가 잘못되었거나 일부가 빠졌습니다. 메일의 링크를 그대로 열거나, 판매자 사이트의 구매내역 페이지에서 로그인해 주세요.',
        ...(sub ? { action: { href: buyerPagePath(sub.store_id, sub.mode), label: '내 구매내역에서 로그인' } } : {}),
      }),
    );
  });
}

/** The subscription an expired (but genuine) link names. */
async function subscriptionOf(deps: AppDeps, link: string) {
  const v = verifyManageLink(deps.config.masterKey, link, new Date(0));
  return 'subscriptionId' in v ? getSubscription(deps.db, v.subscriptionId) : undefined;
}
