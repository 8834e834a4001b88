import type { AppDeps } from '../../deps';
import { ApiError } from '../../platform/errors';
import { listPage, type PageParams } from '../../platform/http/pagination';
import type { Page } from '../../platform/http/schemas';
import { getModeSettings } from '../../stores/service';
import { providerNameOrDefault } from '../../payments/registry';
import { executeCharge, recordCharge } from './service';
import * as renewalRepo from './repo';
import type { SubscriptionChargeView } from './schemas';

type Deps = Pick<AppDeps, 'db' | 'clock' | 'config' | 'log'>;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function chargeView(c: renewalRepo.ChargeWithMode): SubscriptionChargeView {
  return {
    id: c.id,
    mode: c.mode,
    subscriptionId: c.subscription_id,
    kind: c.kind,
    status: c.status,
    amount: Number(c.amount),
    currency: 'KRW',
    orderId: c.order_id,
    periodStart: c.period_start.toISOString(),
    periodEnd: c.period_end.toISOString(),
    attempt: c.attempt,
    unknownAttempts: Number(c.unknown_attempts),
    firstUnknownAt: iso(c.first_unknown_at),
    nextAttemptAt: c.status === 'charging' ? iso(c.locked_until) : null,
    error: c.error_code || c.error_message ? { code: c.error_code, message: c.error_message } : null,
    createdAt: c.created_at.toISOString(),
    updatedAt: c.updated_at.toISOString(),
  };
}

export async function listCharges(deps: Pick<AppDeps, 'db'>, f: renewalRepo.ChargeListFilter, page: PageParams): Promise<Page<SubscriptionChargeView>> {
  return listPage(
    page,
    () => renewalRepo.countCharges(deps.db, f),
    (offset, limit) => renewalRepo.pageCharges(deps.db, f, offset, limit),
    chargeView,
  );
}

async function attentionCharge(deps: Deps, storeId: string, id: string): Promise<renewalRepo.ChargeWithMode> {
  const c = await renewalRepo.findChargeInStore(deps.db, storeId, id);
  if (!c) throw new ApiError('SUBSCRIPTION_CHARGE_NOT_FOUND');
  if (c.status !== 'needs_attention') throw new ApiError('SUBSCRIPTION_CHARGE_NOT_UNKNOWN', { details: { status: c.status } });
  return c;
}

/**
 * The seller settles a `needs_attention` charge by hand after checking the gateway's dashboard (search it by
 * `orderId`, which is the gateway's orderId): `succeeded` records it exactly as a gateway success would (the order,
 * `order.paid`, the period moved, `subscription.updated`, licenses extended); `failed` records a failed charge (a
 * renewal then goes into dunning as any declined renewal does). Recording goes through the same locked, idempotent
 * step as a gateway answer, so a late answer and the seller's decision can never both be recorded.
 */
export async function resolveCharge(deps: Deps, storeId: string, id: string, input: { status: 'succeeded' | 'failed'; note: string; paymentKey?: string }): Promise<SubscriptionChargeView> {
  const c = await attentionCharge(deps, storeId, id);
  const settings = (await getModeSettings(deps.db, c.store_id, c.mode)).raw;
  const providerName = providerNameOrDefault(settings.payment_provider, c.mode);
  deps.log.info({ chargeId: id, status: input.status }, 'subscription charge settled by hand');
  await recordCharge(
    deps,
    id,
    input.status === 'succeeded'
      ? { status: 'succeeded', value: { paymentKey: input.paymentKey ?? '', approvedAt: deps.clock.now(), method: 'card' } }
      : { status: 'failed', code: 'RESOLVED_BY_SELLER', message: input.note },
    providerName,
  );
  return chargeView((await renewalRepo.findChargeInStore(deps.db, storeId, id))!);
}

/**
 * Asks the gateway once more about a `needs_attention` charge, with its own idempotency key and orderId (the gateway
 * answers the first attempt's outcome; it cannot charge twice). A definite answer is recorded; another unknown one
 * leaves it as it is.
 */
export async function retryCharge(deps: Deps, storeId: string, id: string): Promise<SubscriptionChargeView> {
  await attentionCharge(deps, storeId, id);
  await executeCharge(deps, id);
  return chargeView((await renewalRepo.findChargeInStore(deps.db, storeId, id))!);
}
