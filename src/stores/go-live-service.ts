import type { AppDeps } from '../deps';
import { getBusinessDetails } from './business-details';
import { goLiveChecklist, type GoLiveChecklist } from './go-live';
import { hasLivePayment, hasLiveRefund } from './go-live-repo';
import { getStoreView } from './service';
import { findTossState } from './toss-state-repo';

/** The store's go-live checklist, from its settings, business details, Toss state and live orders. */
export async function getGoLiveChecklist(deps: Pick<AppDeps, 'db' | 'config'>, storeId: string): Promise<GoLiveChecklist> {
  const { db } = deps;
  const [store, biz, toss, livePaymentDone, liveRefundDone] = await Promise.all([
    getStoreView(deps, storeId),
    getBusinessDetails(db, storeId),
    findTossState(db, storeId, 'live'),
    hasLivePayment(db, storeId),
    hasLiveRefund(db, storeId),
  ]);
  return goLiveChecklist({
    businessDetails: biz ? { sample: biz.sample } : null,
    publicContactVerified: store.publicContactVerified,
    live: store.settings.live,
    keysVerifiedAt: toss.keysVerifiedAt,
    firstWebhookAt: toss.firstWebhookAt,
    livePaymentDone,
    liveRefundDone,
  });
}
