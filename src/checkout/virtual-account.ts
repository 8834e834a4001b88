import { cashReceiptOnDeposit } from './cash-receipt';
import { timingSafeEqual } from 'node:crypto';
import type { AppDeps } from '../deps';
import type { Db } from '../db';
import { decryptSecret, encryptSecret } from '../platform/crypto';
import { writeEvent } from '../platform/events';
import { enqueueJob } from '../jobs/queue';
import { ApiError, validationError } from '../platform/errors';
import type { Mode } from '../platform/tables';
import { releaseCoupon, releaseStock } from '../catalog/repo';
import { issueLicensesForOrder } from '../licenses/issue-on-payment';
import { orderViewOf } from '../orders/service';
import type { OrderRow } from '../orders/model';
import { providerFor } from '../payments';
import type { RefundReceiveAccount, VirtualAccountIssued } from '../payments/provider';
import { getModeSettings } from '../stores/service';
import { hasBidiControl } from '../platform/text';
import * as repo from './virtual-account-repo';
import { bankName, isTossBankCode, TOSS_BANKS } from '../payments/banks';
import { virtualAccountView } from '../orders/model';
import { MESSAGES } from '../platform/messages';

export { bankName, TOSS_BANKS, virtualAccountView };


type Deps = Pick<AppDeps, 'db' | 'clock' | 'config' | 'log'>;

/**
 * 가상계좌 (virtual account), issue 32. Confirm answers an issued account instead of a payment (Toss: status
 * WAITING_FOR_DEPOSIT, https://docs.tosspayments.com/guides/learn/virtual-account-webhook); the order is recorded in
 * `awaiting_deposit` with the stock and coupon the session reserved, and `order.awaiting_deposit` is written. It becomes
 * `paid` (licenses, `order.paid`) only when a deposit notification carries the payment's own `secret` AND Toss's API,
 * read with the store's keys, says the payment is DONE; it becomes `expired` at its due date (stock and coupon given
 * back, `order.expired`). A refund after the deposit goes to the buyer's own account (`refundReceiveAccount`), which
 * the buyer gives on the receipt page.
 */

export const DEPOSIT_JOB = 'checkout.virtual-account.deposit';


/** Records the order of an issued 가상계좌 (called from checkout's settle, inside its transaction). */
export async function recordVirtualAccount(trx: Db, deps: Pick<AppDeps, 'config'>, order: OrderRow, va: VirtualAccountIssued, now: Date): Promise<void> {
  await repo.insertVirtualAccount(trx, {
    order_id: order.id,
    store_id: order.store_id,
    mode: order.mode,
    bank_code: va.bankCode,
    account_number: va.accountNumber,
    holder_name: va.holderName ?? order.buyer_name,
    due_at: va.dueAt,
    secret_sealed: va.secret ? encryptSecret(deps.config.masterKey, va.secret) : null,
    deposited_at: null,
    expired_at: null,
    refund_bank_code: null,
    refund_account_sealed: null,
    refund_holder_name: null,
    refund_account_at: null,
    created_at: now,
  });
}


function sameSecret(stored: string, given: string): boolean {
  const a = Buffer.from(stored);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

export type DepositReceipt = 'accepted' | 'forged' | 'unknown_order';

/**
 * A deposit notification (Toss's DEPOSIT_CALLBACK body `{ createdAt, secret, orderId, status, transactionKey }`,
 * https://docs.tosspayments.com/reference/using-api/webhook-events#deposit_callback). Believed only so far as to look:
 * the secret must equal the one Toss gave us with the account (compared in constant time, never logged); then a job
 * reads the payment from Toss's API and records the deposit only when Toss says DONE. A forged body changes nothing.
 */
export async function receiveDepositCallback(deps: Deps, storeId: string, mode: Mode, input: { orderId: string; secret: string }): Promise<DepositReceipt> {
  const va = await repo.findVirtualAccountInStore(deps.db, storeId, mode, input.orderId);
  if (!va) return 'unknown_order';
  const stored = va.secret_sealed ? decryptSecret(deps.config.masterKey, va.secret_sealed).toString('utf8') : null;
  if (!stored || !sameSecret(stored, input.secret)) {
    deps.log.warn({ storeId, mode, orderId: input.orderId }, 'deposit callback with a wrong secret; ignored');
    return 'forged';
  }
  // Coalesced: repeats of the notice while one lookup is pending wait for that one (it reads Toss afresh).
  await enqueueJob(deps.db, deps.clock, { name: DEPOSIT_JOB, payload: { orderId: va.order_id }, dedupeKey: `${DEPOSIT_JOB}:${va.order_id}` });
  return 'accepted';
}

/**
 * A gateway that signs its notices (PortOne, issue 42) says an issued account's payment changed: the same deposit job
 * reads the payment back and records the deposit only when the gateway's API says it is paid. Only for an order of
 * this store and mode still waiting for its deposit; false otherwise.
 */
export async function queueDepositCheck(deps: Deps, storeId: string, mode: Mode, orderId: string): Promise<boolean> {
  const va = await repo.findVirtualAccountInStore(deps.db, storeId, mode, orderId);
  if (!va) return false;
  const order = await repo.findOrderRow(deps.db, va.order_id);
  if (!order || order.status !== 'awaiting_deposit') return false;
  await enqueueJob(deps.db, deps.clock, { name: DEPOSIT_JOB, payload: { orderId: va.order_id }, dedupeKey: `${DEPOSIT_JOB}:${va.order_id}` });
  return true;
}

export type DepositResult = 'paid' | 'not_waiting' | 'not_deposited';

/** Thrown when the gateway cannot be asked now: the job retries. */
export class DepositRetryLater extends Error {}

/**
 * The job: asks the order's gateway whether the deposit is there, and records it once. Repeats (Toss retries, a second
 * callback, the test button) find the order no longer waiting and change nothing.
 */
export async function confirmDeposit(deps: Deps, orderId: string): Promise<DepositResult> {
  const order = await repo.findOrderRow(deps.db, orderId);
  if (!order || order.status !== 'awaiting_deposit' || !order.provider_payment_key) return 'not_waiting';
  const settings = await getModeSettings(deps.db, order.store_id, order.mode);
  const provider = providerFor(deps, { ...settings.raw, payment_provider: order.provider });
  if (!provider) throw new DepositRetryLater('no provider for the order');
  const look = await provider.lookupPayment(order.provider_payment_key);
  if (look.status === 'unknown') throw new DepositRetryLater(look.message);
  if (look.status === 'failed') throw new DepositRetryLater(`lookup failed: ${look.code}`);
  if (look.value.status !== 'paid' || look.value.totalAmount !== order.amount) {
    deps.log.info({ orderId, gatewayStatus: look.value.status }, 'deposit not confirmed by the gateway');
    return 'not_deposited';
  }
  return deps.db.transaction().execute(async (trx) => {
    const locked = await repo.lockAwaitingOrder(trx, orderId);
    if (!locked) return 'not_waiting' as const;
    const now = deps.clock.now();
    const paid = await repo.markOrderDeposited(trx, orderId, now);
    // 현금영수증 asked for: Toss issues it at the deposit ("가상계좌는 고객이 입금을 완료하면 현금영수증 정보를 확인할 수
    // 있습니다", Payment.cashReceipts); the simulator's lookup carries its test receipt the same way.
    // Since issue 40 the window is told 미발행 and the receipt asked is issued on its own now (the job).
    await cashReceiptOnDeposit(trx, deps, paid, look.value.cashReceipt ?? null, now);
    await issueLicensesForOrder(trx, deps, paid.id);
    const view = await orderViewOf(trx, deps, paid);
    await writeEvent(trx, deps.clock, { storeId: paid.store_id, mode: paid.mode, type: 'order.paid', data: { ...view, subscriptionEvent: null } });
    return 'paid' as const;
  });
}

/**
 * The expiry task: every 가상계좌 past its due date without a deposit ends `expired`, giving back the unit of stock and
 * the coupon redemption its session reserved, with `order.expired`. Safe to run twice (a locked, still-waiting order
 * only). A deposit that Toss accepted just before the due date but whose callback is late still wins when it comes
 * first; after expiry Toss no longer accepts deposits to the account.
 */
export async function expireVirtualAccounts(deps: Deps, now: Date): Promise<number> {
  const due = await repo.findOverdue(deps.db, now);
  let n = 0;
  for (const { order_id } of due) {
    const done = await deps.db.transaction().execute(async (trx) => {
      const order = await repo.lockAwaitingOrder(trx, order_id);
      if (!order) return false;
      const expired = await repo.markOrderExpired(trx, order.id, deps.clock.now());
      await releaseStock(trx, order.product_id);
      if (order.coupon_id) await releaseCoupon(trx, order.coupon_id);
      const view = await orderViewOf(trx, deps, expired);
      await writeEvent(trx, deps.clock, { storeId: order.store_id, mode: order.mode, type: 'order.expired', data: view });
      return true;
    });
    if (done) n++;
  }
  return n;
}

/**
 * Test mode: the buyer's deposit arrives. The provider must offer `testDeposit` (the simulator does; a real gateway has
 * none), and the deposit then goes the same way as a real one: the secret is checked and the gateway asked.
 */
export async function simulateDeposit(deps: Deps, storeId: string, orderId: string): Promise<DepositResult> {
  const order = await repo.findOrderRow(deps.db, orderId);
  if (!order || order.store_id !== storeId || order.mode !== 'test') throw new ApiError('ORDER_NOT_FOUND');
  if (order.status !== 'awaiting_deposit' || !order.provider_payment_key) return 'not_waiting';
  const settings = await getModeSettings(deps.db, order.store_id, order.mode);
  const provider = providerFor(deps, { ...settings.raw, payment_provider: order.provider });
  if (!provider?.testDeposit) throw new ApiError('VALIDATION_FAILED', { details: { reason: 'test_deposit_unsupported' } });
  // The buyer's 현금영수증 choice as the gateway kept it from the payment window (the type is all a test receipt needs).
  const asked = await repo.requestedCashReceiptType(deps.db, order.id);
  const deposit = await provider.testDeposit(order.provider_payment_key, { cashReceipt: asked ? { type: asked, identity: '' } : null });
  if (deposit.status !== 'succeeded') throw new ApiError('VALIDATION_FAILED', { details: { reason: 'test_deposit_failed' } });
  const r = await receiveDepositCallback(deps, order.store_id, order.mode, { orderId: order.id, secret: deposit.value.secret ?? '' });
  if (r !== 'accepted') return 'not_deposited';
  return confirmDeposit(deps, order.id);
}

/** The buyer's refund account as typed; validated and normalized by `validateRefundAccount`. */
export interface RefundAccountInput {
  bankCode: string;
  accountNumber: string;
  holderName: string;
}

/** Checks a refund account (Toss's cancel: bank code, digits only up to 20, holder up to 60). Field errors in Korean. */
export function validateRefundAccount(input: RefundAccountInput): { ok: true; value: RefundReceiveAccount } | { ok: false; errors: Array<{ field: keyof RefundAccountInput; message: string }> } {
  const errors: Array<{ field: keyof RefundAccountInput; message: string }> = [];
  const bankCode = input.bankCode.trim();
  const digits = input.accountNumber.replace(/[\s-]/g, '');
  const holder = input.holderName.trim();
  if (!isTossBankCode(bankCode)) errors.push({ field: 'bankCode', message: MESSAGES.checkout.refundBankRequired });
  if (!/^\d{8,20}$/.test(digits)) errors.push({ field: 'accountNumber', message: MESSAGES.checkout.refundAccountNumberInvalid });
  if (!holder || holder.length > 60 || hasBidiControl(holder)) errors.push({ field: 'holderName', message: MESSAGES.checkout.refundHolderInvalid });
  return errors.length ? { ok: false, errors } : { ok: true, value: { bankCode, accountNumber: digits, holderName: holder } };
}

/**
 * The buyer gives (or replaces) the account a 가상계좌 payment is refunded to: from the receipt page (token checked by
 * the caller). Only for a virtual-account order; the number is stored sealed and never shown back in full.
 */
export async function saveRefundAccount(deps: Deps, orderId: string, input: RefundAccountInput): Promise<void> {
  const va = await repo.findVirtualAccount(deps.db, orderId);
  // A 휴대폰 결제 too (issue 41): refunded after its KST month, it goes back to the buyer's account.
  if (!va && (await repo.findOrderRow(deps.db, orderId))?.method !== 'mobile_phone') throw new ApiError('ORDER_NOT_FOUND');
  const v = validateRefundAccount(input);
  if (!v.ok) throw validationError(v.errors);
  await storeRefundAccount(deps.db, deps, orderId, v.value);
}

/** Stores a validated refund account (the number sealed) on the caller's executor: a refund request files it in its own transaction. */
export async function storeRefundAccount(db: Db, deps: Pick<AppDeps, 'config' | 'clock'>, orderId: string, account: RefundReceiveAccount): Promise<void> {
  const sealed = encryptSecret(deps.config.masterKey, account.accountNumber);
  if (await repo.findVirtualAccount(db, orderId)) {
    await repo.setRefundAccount(db, orderId, { bankCode: account.bankCode, accountSealed: sealed, holderName: account.holderName, at: deps.clock.now() });
    return;
  }
  // Any other order (a 휴대폰 결제 refunded after its month): its own row (migration 107).
  const order = await repo.findOrderRow(db, orderId);
  if (!order) throw new ApiError('ORDER_NOT_FOUND');
  await repo.upsertOtherRefundAccount(db, { orderId, storeId: order.store_id, mode: order.mode, bankCode: account.bankCode, accountSealed: sealed, holderName: account.holderName, at: deps.clock.now() });
}

/** Whether an order is a 가상계좌 one and, if so, whether the buyer's refund account is on file. */
export async function refundAccountState(db: Db, orderId: string): Promise<'not_virtual_account' | 'on_file' | 'missing'> {
  const va = await repo.findVirtualAccount(db, orderId);
  if (!va) return 'not_virtual_account';
  return va.refund_account_sealed && va.refund_bank_code && va.refund_holder_name ? 'on_file' : 'missing';
}

/** The refund account of a 가상계좌 order (decrypted for the gateway call), or null when the buyer has not given one. */
export async function refundAccountOf(db: Db, masterKey: Buffer, orderId: string): Promise<RefundReceiveAccount | null> {
  const va = await repo.findVirtualAccount(db, orderId);
  if (!va) {
    const other = await repo.findOtherRefundAccount(db, orderId);
    return other ? { bankCode: other.refund_bank_code, accountNumber: decryptSecret(masterKey, other.refund_account_sealed).toString('utf8'), holderName: other.refund_holder_name } : null;
  }
  if (!va?.refund_account_sealed || !va.refund_bank_code || !va.refund_holder_name) return null;
  return { bankCode: va.refund_bank_code, accountNumber: decryptSecret(masterKey, va.refund_account_sealed).toString('utf8'), holderName: va.refund_holder_name };
}

/** The last four digits of the refund account, for pages ("신한 ****1234, 홍길동"). */
export async function refundAccountSummary(db: Db, masterKey: Buffer, orderId: string): Promise<string | null> {
  const a = await refundAccountOf(db, masterKey, orderId);
  return a ? `${bankName(a.bankCode)} ****${a.accountNumber.slice(-4)} (${a.holderName})` : null;
}

export function registerVirtualAccountJobs(deps: Deps & Pick<AppDeps, 'worker'>): void {
  deps.worker.registerJob(DEPOSIT_JOB, async (payload) => {
    await confirmDeposit(deps, String(payload.orderId));
  });
  deps.worker.addTask({ name: 'checkout.virtual-account-expiry', intervalMs: 60_000, run: (now) => expireVirtualAccounts(deps, now) });
}
