import type { AppDeps } from '../../deps';
import { getStoreSecurity } from './store-security';

/**
 * Whether a refund asks for the second factor again: the store's owner set a threshold and the refund is above it.
 * `amount` is what the form asks for; blank (null) means the whole remainder (or the request's amount), which
 * `whole` reads only when a threshold is set. A refund the engine will refuse anyway (not a number) asks nothing.
 */
export async function refundAboveThreshold(deps: Pick<AppDeps, 'db'>, storeId: string, amount: number | null | 'invalid', whole: () => Promise<number>): Promise<boolean> {
  if (amount === 'invalid') return false;
  const { refundStepUpAmount } = await getStoreSecurity(deps, storeId);
  if (refundStepUpAmount === null) return false;
  const asked = amount ?? (await whole().catch(() => 0));
  return asked > refundStepUpAmount;
}
