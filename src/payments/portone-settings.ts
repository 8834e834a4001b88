/**
 * Building the PortOne provider from a mode's settings (migration 118: portone_store_id, portone_api_secret_sealed,
 * portone_webhook_secret_sealed, portone_channel_keys) and checking what a seller saves before it is sealed.
 *
 * This is the factory `providerFor` (payments/index.ts) calls for `payment_provider = 'portone'` once 'portone' joins
 * the provider names (issue 42, part one, is making that list provider-neutral beside this work). Credentials live
 * only in the sealed columns and this provider's private fields; nothing here logs them.
 */
import type { AppDeps } from '../deps';
import type { Mode } from '../platform/tables';
import { decryptSecret } from '../platform/crypto';
import type { PaymentMethod } from './method';
import type { Outcome } from './provider';
import { PortOneProvider } from './portone';
import { PORTONE_SLOW_CALL_MIN_MS } from './portone-http';

/** A mode's PortOne settings as stored (a store_mode_settings row has all of it). */
export interface PortOneSettings {
  mode: Mode;
  portone_store_id: string | null;
  portone_api_secret_sealed: string | null;
  portone_webhook_secret_sealed?: string | null;
  /** Channel key per payment method (what `PortOne.requestPayment({ channelKey })` opens); public, stored plain. */
  portone_channel_keys?: Partial<Record<PaymentMethod, string>> | null;
}

/** The provider for a mode's sealed PortOne credentials, or null while they are incomplete (CHECKOUT_NOT_CONFIGURED). */
export function portoneProviderFromSettings(deps: Pick<AppDeps, 'config' | 'clock'>, settings: PortOneSettings): PortOneProvider | null {
  if (!settings.portone_store_id || !settings.portone_api_secret_sealed) return null;
  const apiSecret = decryptSecret(deps.config.masterKey, settings.portone_api_secret_sealed).toString('utf8');
  return portoneProviderFor(deps, { apiSecret, storeId: settings.portone_store_id, mode: settings.mode });
}

/** PortOne with the given credentials: the store's sealed ones, or ones being saved, to verify them first. */
export function portoneProviderFor(
  deps: Pick<AppDeps, 'config' | 'clock'>,
  creds: { apiSecret: string; storeId: string; mode: Mode },
): PortOneProvider {
  return new PortOneProvider({
    apiSecret: creds.apiSecret,
    storeId: creds.storeId,
    mode: creds.mode,
    baseUrl: deps.config.portoneApiBaseUrl,
    timeoutMs: deps.config.tossTimeoutMs,
    slowTimeoutMs: Math.max(PORTONE_SLOW_CALL_MIN_MS, deps.config.tossBillingTimeoutMs),
    clock: deps.clock,
  });
}

/** The webhook secret a mode's PortOne webhooks are verified with, or null when none is saved (then none is believed). */
export function portoneWebhookSecretOf(deps: Pick<AppDeps, 'config'>, settings: PortOneSettings): string | null {
  return settings.portone_webhook_secret_sealed ? decryptSecret(deps.config.masterKey, settings.portone_webhook_secret_sealed).toString('utf8') : null;
}

/**
 * What a seller types into the PortOne settings, checked before anything is sealed: the store id's shape (`store-` and a
 * UUID, as PortOne's console shows it), a webhook secret in Standard Webhooks form (`whsec_` + base64), channel keys
 * (`channel-key-` + UUID) only for methods we offer. Then `verifyCredentials` asks PortOne whether the secret opens
 * that store. Field errors are Korean, for the settings form.
 */
export function checkPortOneInput(input: { storeId: string; apiSecret: string; webhookSecret?: string | null; channelKeys?: Record<string, string> }): { ok: true } | { ok: false; field: string; message: string } {
  if (!/^store-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(input.storeId.trim())) {
    return { ok: false, field: 'portoneStoreId', message: '포트원 콘솔의 상점 아이디(store-로 시작)를 입력해 주세요.' };
  }
  if (input.apiSecret.trim().length < 20 || /\s/.test(input.apiSecret.trim())) {
    return { ok: false, field: 'portoneApiSecret', message: '포트원 콘솔에서 발급한 V2 API Secret을 입력해 주세요.' };
  }
  if (input.webhookSecret != null && input.webhookSecret !== '' && !/^whsec_[A-Za-z0-9+/=]{16,}$/.test(input.webhookSecret.trim())) {
    return { ok: false, field: 'portoneWebhookSecret', message: '웹훅 시크릿은 whsec_로 시작합니다. 포트원 콘솔의 웹훅 설정에서 복사해 주세요.' };
  }
  const methods: readonly string[] = ['card', 'kakao_pay', 'naver_pay', 'toss', 'transfer', 'virtual_account'] satisfies readonly PaymentMethod[];
  for (const [method, key] of Object.entries(input.channelKeys ?? {})) {
    if (!methods.includes(method)) return { ok: false, field: 'portoneChannelKeys', message: `지원하지 않는 결제수단입니다: ${method}` };
    if (!/^channel-key-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(key.trim())) {
      return { ok: false, field: 'portoneChannelKeys', message: '채널 키는 channel-key-로 시작합니다. 포트원 콘솔의 채널 관리에서 복사해 주세요.' };
    }
  }
  return { ok: true };
}

/** Asks PortOne whether credentials being saved open the store (see PortOneProvider.verifyCredentials). */
export async function verifyPortOneCredentials(deps: Pick<AppDeps, 'config' | 'clock'>, creds: { apiSecret: string; storeId: string; mode: Mode }): Promise<Outcome<{ checkedAt: Date }>> {
  return portoneProviderFor(deps, creds).verifyCredentials();
}
