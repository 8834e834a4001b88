import type { AppDeps } from '../deps';
import { tossProviderFor } from '../payments';
import { isTossWidgetKey } from '../payments/toss-keys';
import { decryptSecret } from '../platform/crypto';
import { ApiError, type FieldError } from '../platform/errors';
import { MESSAGES } from '../platform/messages';
import type { Mode } from '../platform/tables';
import * as repo from './repo';

/**
 * Toss keys are checked before they are stored (issue 20): their shape and kind here, then one authenticated call
 * to Toss through the payment provider interface. Toss's developer center issues a pair per kind: `test_ck_…` /
 * `test_sk_…` and `live_ck_…` / `live_sk_…` (https://docs.tosspayments.com/reference/using-api/authorization:
 * "test_sk로 시작하는 시크릿 키는 테스트 키입니다. live_sk로 시작하는 시크릿 키는 라이브 키입니다."); the payment
 * widget's keys carry `gck` / `gsk` in the same places.
 */

export type TossKeyKind = 'test' | 'live';

/** The kind of a Toss key in its place (client or secret), or null when it is not a key of that place. */
export function tossKeyKind(key: string, place: 'client' | 'secret'): TossKeyKind | null {
  const m = /^(test|live)_(g?ck|g?sk)_[A-Za-z0-9_-]+$/.exec(key);
  if (!m) return null;
  const isClient = m[2].endsWith('ck');
  return isClient === (place === 'client') ? (m[1] as TossKeyKind) : null;
}

export interface TossKeyPair {
  /** The pair as it would be stored (a key not being changed is the stored one). */
  clientKey: string | null;
  secretKey: string | null;
  /** Which of the two this save changes. */
  changed: { clientKey: boolean; secretKey: boolean };
}

/**
 * What is wrong with the pair a save would leave, named on the fields being changed: a key not of its place, a client
 * key and a secret key of different kinds, or keys of the other mode's kind (test keys never take real money in live
 * mode; live keys would take real money in test mode). A stored key that is not being changed is only compared.
 */
export function tossKeyProblems(mode: Mode, pair: TossKeyPair, names: TossKeyFieldNames = PAYMENTS_FIELDS): FieldError[] {
  const fields = (['clientKey', 'secretKey'] as const).filter((f) => pair.changed[f] && pair[f] !== null);
  const name = (f: 'clientKey' | 'secretKey') => names[f];
  const shape = fields.filter((f) => tossKeyKind(pair[f]!, f === 'clientKey' ? 'client' : 'secret') === null);
  if (shape.length) {
    return shape.map((f) => ({ field: name(f), message: f === 'clientKey' ? MESSAGES.stores.tossClientKeyShape : MESSAGES.stores.tossSecretKeyShape }));
  }
  const clientKind = pair.clientKey === null ? null : tossKeyKind(pair.clientKey, 'client');
  const secretKind = pair.secretKey === null ? null : tossKeyKind(pair.secretKey, 'secret');
  if (clientKind && secretKind && clientKind !== secretKind) {
    return fields.map((f) => ({ field: name(f), message: MESSAGES.stores.tossKeyKindsDiffer }));
  }
  const modeMessage = mode === 'live' ? MESSAGES.stores.tossLiveModeNeedsLiveKey : MESSAGES.stores.tossTestModeNeedsTestKey;
  return fields
    .filter((f) => (f === 'clientKey' ? clientKind : secretKind) !== mode)
    .map((f) => ({ field: name(f), message: modeMessage }));
}

/** The request fields of one pair, as problems name them. */
export interface TossKeyFieldNames {
  clientKey: string;
  secretKey: string;
}
export const PAYMENTS_FIELDS: TossKeyFieldNames = { clientKey: 'tossClientKey', secretKey: 'tossSecretKey' };
/** The 자동결제 MID's pair (migration 068): checked exactly like the first pair, under its own field names. */
export const BILLING_FIELDS: TossKeyFieldNames = { clientKey: 'tossBillingClientKey', secretKey: 'tossBillingSecretKey' };

type Deps = Pick<AppDeps, 'db' | 'clock' | 'config'>;

/**
 * Checks the Toss keys a settings save brings, before anything is written: their shape and kinds, then, for a new
 * secret key, one harmless authenticated call to Toss. Throws VALIDATION_FAILED naming the field when a key is wrong,
 * Toss refuses the secret key, or Toss cannot be reached (an unverified key is never stored). Answers when Toss
 * accepted the new secret key, or null when no secret key was given (nothing to ask Toss).
 */
export async function checkTossKeys(
  deps: Deps,
  storeId: string,
  mode: Mode,
  input: { tossClientKey?: string | null; tossSecretKey?: string | null },
  which: 'payments' | 'billing' = 'payments',
): Promise<Date | null> {
  if (input.tossClientKey === undefined && input.tossSecretKey === undefined) return null;
  const names = which === 'billing' ? BILLING_FIELDS : PAYMENTS_FIELDS;
  const stored = await repo.findModeSettings(deps.db, storeId, mode);
  const storedClient = which === 'billing' ? stored.toss_billing_client_key : stored.toss_client_key;
  const sealed = which === 'billing' ? stored.toss_billing_secret_key_sealed : stored.toss_secret_key_sealed;
  const storedSecret = sealed ? decryptSecret(deps.config.masterKey, sealed).toString('utf8') : null;
  const pair: TossKeyPair = {
    clientKey: input.tossClientKey !== undefined ? input.tossClientKey : storedClient,
    secretKey: input.tossSecretKey !== undefined ? input.tossSecretKey : storedSecret,
    changed: { clientKey: input.tossClientKey !== undefined, secretKey: input.tossSecretKey !== undefined },
  };
  const problems = tossKeyProblems(mode, pair, names);
  if (problems.length) throw refused(problems);
  if (!input.tossSecretKey) return null;
  // Outside any transaction: a network call never holds a database connection.
  const outcome = await tossProviderFor(deps, input.tossSecretKey).verifyCredentials();
  if (outcome.status === 'succeeded') return outcome.value.checkedAt;
  const message = outcome.status === 'failed' ? MESSAGES.stores.tossSecretKeyRefused(outcome.code) : MESSAGES.stores.tossUnreachable;
  throw refused([{ field: names.secretKey, message }]);
}

/** VALIDATION_FAILED whose message is the first problem itself, so a client reading only `message` learns what is wrong. */
function refused(fields: FieldError[]): ApiError {
  return new ApiError('VALIDATION_FAILED', { message: fields[0].message, details: { fields } });
}

/**
 * Our payment window needs Toss's API keys; payment-widget keys (gck/gsk) would fail every checkout at Toss: each one a
 * save brings is named on its field.
 */
export function tossWidgetKeyProblems(input: { tossClientKey?: string | null; tossSecretKey?: string | null; tossBillingClientKey?: string | null; tossBillingSecretKey?: string | null }): FieldError[] {
  return [
    ...(input.tossClientKey && isTossWidgetKey(input.tossClientKey.trim()) ? [{ field: 'tossClientKey', message: MESSAGES.stores.tossWidgetClientKey }] : []),
    ...(input.tossSecretKey && isTossWidgetKey(input.tossSecretKey.trim()) ? [{ field: 'tossSecretKey', message: MESSAGES.stores.tossWidgetSecretKey }] : []),
    ...(input.tossBillingClientKey && isTossWidgetKey(input.tossBillingClientKey.trim()) ? [{ field: 'tossBillingClientKey', message: MESSAGES.stores.tossWidgetClientKey }] : []),
    ...(input.tossBillingSecretKey && isTossWidgetKey(input.tossBillingSecretKey.trim()) ? [{ field: 'tossBillingSecretKey', message: MESSAGES.stores.tossWidgetSecretKey }] : []),
  ];
}
