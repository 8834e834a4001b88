/**
 * PortOne's settings check (issue 42): what a seller saves for a mode on PortOne — store id, V2 API secret, webhook
 * secret, channel key per method — is checked for shape (payments/portone-settings.ts, through payments/index.ts) and
 * the secret is tried against PortOne's API (a read of a payment that does not exist: PAYMENT_NOT_FOUND means the
 * secret opens the store) before anything is sealed. A refused or unverifiable secret is never stored.
 */
import type { AppDeps } from '../deps';
import { ApiError } from '../platform/errors';
import type { Mode } from '../platform/tables';
import { decryptSecret } from '../platform/crypto';
import { checkPortOneInput, verifyPortOneCredentials } from '../payments';
import * as repo from './repo';

type Deps = Pick<AppDeps, 'db' | 'clock' | 'config'>;

export interface PortOneSettingsInput {
  portoneStoreId?: string | null;
  portoneApiSecret?: string | null;
  portoneWebhookSecret?: string | null;
  portoneChannelKeys?: Record<string, string>;
}

function refused(field: string, message: string): ApiError {
  return new ApiError('VALIDATION_FAILED', { message, details: { fields: [{ field, message }] } });
}

/**
 * Checks a save's PortOne fields against the stored ones (a field left out keeps its value). Returns when the API secret
 * was verified with PortOne (null: nothing to verify). Throws VALIDATION_FAILED with a Korean message on the field.
 */
export async function checkPortOneSettings(deps: Deps, storeId: string, mode: Mode, input: PortOneSettingsInput): Promise<Date | null> {
  const touched = input.portoneStoreId !== undefined || input.portoneApiSecret !== undefined || input.portoneWebhookSecret !== undefined || input.portoneChannelKeys !== undefined;
  if (!touched) return null;
  const stored = await repo.findModeSettings(deps.db, storeId, mode);
  const storeIdValue = input.portoneStoreId !== undefined ? input.portoneStoreId : stored.portone_store_id;
  const secret = input.portoneApiSecret !== undefined ? input.portoneApiSecret : stored.portone_api_secret_sealed ? decryptSecret(deps.config.masterKey, stored.portone_api_secret_sealed).toString('utf8') : null;
  // Removing both (or saving only channel keys / the webhook secret before the rest) is allowed; what is given is checked.
  if (storeIdValue === null || storeIdValue === undefined || secret === null) {
    if (input.portoneApiSecret && storeIdValue == null) return Promise.reject(refused('portoneStoreId', '포트원 API Secret과 함께 상점 아이디(store-로 시작)를 입력해 주세요.'));
    const shape = checkPortOneInput({ storeId: storeIdValue ?? 'store-00000000-0000-0000-0000-000000000000', apiSecret: 'x'.repeat(20), webhookSecret: input.portoneWebhookSecret, channelKeys: input.portoneChannelKeys });
    if (!shape.ok && (storeIdValue != null || shape.field !== 'portoneStoreId')) throw refused(shape.field, shape.message);
    return null;
  }
  const shape = checkPortOneInput({ storeId: storeIdValue, apiSecret: secret, webhookSecret: input.portoneWebhookSecret, channelKeys: input.portoneChannelKeys });
  if (!shape.ok) throw refused(shape.field, shape.message);
  if (input.portoneApiSecret === undefined && input.portoneStoreId === undefined) return null;
  // Outside any transaction: a network call never holds a database connection.
  const outcome = await verifyPortOneCredentials(deps, { apiSecret: secret, storeId: storeIdValue.trim(), mode });
  if (outcome.status === 'succeeded') return outcome.value.checkedAt;
  if (outcome.status === 'failed') throw refused('portoneApiSecret', `포트원이 API Secret을 거절했습니다(${outcome.code}). 포트원 콘솔의 V2 API Secret과 상점 아이디를 확인해 주세요. 저장되지 않았습니다.`);
  throw refused('portoneApiSecret', '포트원에 연결하지 못해 API Secret을 확인하지 못했습니다. 저장되지 않았습니다. 잠시 후 다시 저장해 주세요.');
}
