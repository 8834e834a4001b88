import type { AppDeps } from '../deps';
import { ApiError } from '../platform/errors';
import { listPage, type PageParams } from '../platform/http/pagination';
import type { Page } from '../platform/http/schemas';
import { subscriptionView } from './model';
import * as repo from './repo';
import type { SubscriptionView } from './schemas';

type Deps = Pick<AppDeps, 'db'>;

/** One subscription inside the key's range (store, mode, products); otherwise SUBSCRIPTION_NOT_FOUND. */
export async function getSubscription(deps: Deps, f: repo.SubscriptionFilter, id: string): Promise<SubscriptionView> {
  const row = await repo.findSubscription(deps.db, f, id);
  if (!row) throw new ApiError('SUBSCRIPTION_NOT_FOUND');
  return subscriptionView(row);
}

export async function listSubscriptions(deps: Deps, f: repo.SubscriptionFilter, l: repo.SubscriptionListFilter, page: PageParams): Promise<Page<SubscriptionView>> {
  return listPage(
    page,
    () => repo.countSubscriptions(deps.db, f, l),
    (offset, limit) => repo.pageSubscriptions(deps.db, f, l, offset, limit),
    subscriptionView,
  );
}
