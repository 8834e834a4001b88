import type { AppDeps } from '../../deps';
import { validationError } from '../../platform/errors';
import * as repo from './second-factor-repo';
import type { TwoFactorPolicy } from '../tables';

type Deps = Pick<AppDeps, 'db' | 'clock'>;

export const POLICIES: readonly TwoFactorPolicy[] = ['none', 'admins', 'everyone'];

export interface StoreSecurity {
  /** Who must have a second factor: nobody, owners and admins, or every member. */
  twoFactorPolicy: TwoFactorPolicy;
  /** Refunds above this many won ask for the second factor again; null: none do. */
  refundStepUpAmount: number | null;
}

export async function getStoreSecurity(deps: Pick<AppDeps, 'db'>, storeId: string): Promise<StoreSecurity> {
  const row = await repo.getStoreSecurity(deps.db, storeId);
  return { twoFactorPolicy: row?.two_factor_policy ?? 'none', refundStepUpAmount: row?.refund_step_up_amount === null || row?.refund_step_up_amount === undefined ? null : Number(row.refund_step_up_amount) };
}

/** Sets the store's security settings (an owner's form); returns what changed. */
export async function setStoreSecurity(deps: Deps, storeId: string, input: { policy: string; refundStepUpAmount: string }): Promise<{ before: StoreSecurity; after: StoreSecurity }> {
  if (!(POLICIES as readonly string[]).includes(input.policy)) throw validationError([{ field: 'policy', message: 'none, admins, everyone 중 하나여야 합니다.' }]);
  const raw = input.refundStepUpAmount.replace(/[,\s원]/g, '');
  if (raw !== '' && !/^\d{1,12}$/.test(raw)) throw validationError([{ field: 'refundStepUpAmount', message: '금액은 원 단위 정수로 입력해 주세요 (비우면 묻지 않습니다).' }]);
  const after: StoreSecurity = { twoFactorPolicy: input.policy as TwoFactorPolicy, refundStepUpAmount: raw === '' ? null : Number(raw) };
  const before = await getStoreSecurity(deps, storeId);
  await repo.putStoreSecurity(deps.db, storeId, { two_factor_policy: after.twoFactorPolicy, refund_step_up_amount: after.refundStepUpAmount }, deps.clock.now());
  return { before, after };
}
