/**
 * What one simulator instance remembers in this process: first approvals and their refunded totals, refunds, charges
 * and separately issued 현금영수증 by idempotency key (so retries answer what the first call did), issued and deposited
 * 가상계좌, the transactions it made (for listTransactions), and failures a test injected. Nothing here survives a
 * restart; what must survive lives in the payment key itself (simulator-keys.ts).
 *
 * Each collection keeps the last `limit` entries (default SIMULATOR_MEMORY_LIMIT), the oldest forgotten first, as a
 * restart would forget them: a server taking test payments for hours kept every one (a soak's heap grew by about 1 KB
 * per payment, issue 43). A payment forgotten here is still known from its key (stateOf), with nothing refunded yet.
 */
import { randomBytes } from 'node:crypto';
import type { PaymentMethod } from './method';
import type { Clock } from '../platform/clock';
import type { CashReceiptIssued, CashReceiptRequest, ConfirmResult, GatewayTransaction, Outcome, PaymentLookup, RefundResult } from './provider';
import { APPROVED, UNKNOWN_MESSAGE } from './simulator-cards';
import { parseKey, simulatedCashReceipt } from './simulator-keys';

/** `lost` (refund only): the refund happens at the gateway but its answer is lost (`unknown`). */
export type Injected = 'failed' | 'unknown' | 'lost';
export type Operation = 'confirm' | 'refund' | 'lookup' | 'issueBillingKey' | 'chargeBillingKey' | 'listTransactions';

export interface PaymentState {
  method: PaymentMethod;
  totalAmount: number;
  approvedAt: Date;
  canceled: number;
  /** The order id it was confirmed or charged for; null for a key this process only learned of from a refund or lookup. */
  orderId: string | null;
}

/**
 * How many entries each of the simulator's collections keeps in one process. A retry of a test payment or refund
 * comes within minutes, so the last 500 are plenty; at 2,000 a soak at 20 operations a second filled the refunds and
 * charges only after 33 and 54 minutes, and the heap grew for the whole first hour (heap snapshots, issue 43).
 */
export const SIMULATOR_MEMORY_LIMIT = 500;

/** A Map that keeps its last `limit` keys: setting a new key past it forgets the oldest one. */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(readonly limit: number) {
    super();
  }

  override set(key: K, value: V): this {
    super.set(key, value);
    while (this.size > this.limit) this.delete(this.keys().next().value as K);
    return this;
  }
}

/** A Set that keeps its last `limit` values. */
export class BoundedSet<T> extends Set<T> {
  constructor(readonly limit: number) {
    super();
  }

  override add(value: T): this {
    super.add(value);
    while (this.size > this.limit) this.delete(this.values().next().value as T);
    return this;
  }
}

export class SimulatorMemory {
  readonly payments: Map<string, PaymentState>;
  readonly refunds: Map<string, { paymentKey: string; amount: number; result: Outcome<RefundResult> }>;
  readonly charges: Map<string, Outcome<ConfirmResult>>;
  readonly injected: Array<{ op: Operation; result: Injected }> = [];
  /** 가상계좌: when each was issued, and which have been deposited (testDeposit). */
  readonly issued: Map<string, Date>;
  readonly deposited: Set<string>;
  /** 가상계좌: the 현금영수증 asked for with the payment, issued at the deposit (as Toss issues it then). */
  readonly cashReceiptAsked: Map<string, CashReceiptRequest>;
  /** Separately issued 현금영수증 by idempotency key: a retry answers the first issue. */
  readonly cashReceipts: Map<string, Outcome<CashReceiptIssued>>;
  /** Approvals and cancels in the order they happened, for listTransactions (this process's memory only, the last `limit`). */
  readonly transactions: GatewayTransaction[] = [];
  #recorded = 0;

  constructor(
    readonly clock: Clock,
    readonly limit = SIMULATOR_MEMORY_LIMIT,
  ) {
    this.payments = new BoundedMap(limit);
    this.refunds = new BoundedMap(limit);
    this.charges = new BoundedMap(limit);
    this.issued = new BoundedMap(limit);
    this.deposited = new BoundedSet(limit);
    this.cashReceiptAsked = new BoundedMap(limit);
    this.cashReceipts = new BoundedMap(limit);
  }

  takeInjected<T>(op: Operation): Outcome<T> | null {
    const i = this.injected.findIndex((x) => x.op === op);
    if (i < 0) return null;
    if (this.injected[i].result === 'lost') return null; // taken by the operation itself, once it has done its work
    const [{ result }] = this.injected.splice(i, 1);
    return result === 'failed'
      ? { status: 'failed', code: 'SIMULATED_FAILURE', message: '결제사에서 요청을 처리하지 못했습니다.' }
      : { status: 'unknown', message: UNKNOWN_MESSAGE };
  }

  approve(paymentKey: string, method: PaymentMethod, amount: number, orderId: string | null = null): PaymentState {
    let state = this.payments.get(paymentKey);
    if (!state) {
      state = { method, totalAmount: amount, approvedAt: this.clock.now(), canceled: 0, orderId };
      this.payments.set(paymentKey, state);
      if (orderId) this.record({ paymentKey, orderId, kind: 'approval', status: 'DONE', amount, ...(method === 'paypal' ? { currency: 'USD' as const } : {}), transactionAt: state.approvedAt });
    }
    return state;
  }

  record(t: Omit<GatewayTransaction, 'transactionKey'>): void {
    this.#recorded++;
    this.transactions.push({ ...t, transactionKey: `simtx_${String(this.#recorded).padStart(8, '0')}_${randomBytes(4).toString('hex')}` });
    if (this.transactions.length > this.limit) this.transactions.splice(0, this.transactions.length - this.limit);
  }

  /** A success key is treated as approved even when this process has not seen its confirm (restart, other process). */
  stateOf(paymentKey: string): PaymentState | null {
    const known = this.payments.get(paymentKey);
    if (known) return known;
    const key = parseKey(paymentKey);
    if (key?.method === 'virtual_account' && !this.deposited.has(paymentKey)) return null;
    return key && APPROVED.has(key.outcome) ? this.approve(paymentKey, key.method, key.amount) : null;
  }

  /** A deposited 가상계좌's 현금영수증 (the one asked for with the payment), covering what is still paid. */
  depositReceipt(paymentKey: string, balance: number): Pick<PaymentLookup, 'cashReceipt'> {
    const asked = this.deposited.has(paymentKey) ? this.cashReceiptAsked.get(paymentKey) : undefined;
    return asked ? { cashReceipt: simulatedCashReceipt(paymentKey, asked, balance) } : {};
  }
}
