import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SimulatorMemory, SIMULATOR_MEMORY_LIMIT } from '../../src/payments/simulator-memory';
import { ManualClock } from '../../src/platform/clock';

/**
 * The payment simulator (test mode) runs inside the server for as long as it runs: it kept every approval, refund and
 * transaction it ever made, and a soak's heap grew with every test payment. It now keeps the last entries of each
 * collection, forgetting the oldest first, as a restart would.
 */
test('the simulator remembers the last payments and transactions, not every one since the process started', () => {
  const mem = new SimulatorMemory(new ManualClock(), 100);
  for (let i = 0; i < 1_000; i++) {
    mem.approve(`pk_${i}`, 'card', 1_000, `ord_${i}`);
    mem.refunds.set(`idem_${i}`, { paymentKey: `pk_${i}`, amount: 1, result: { status: 'failed', code: 'X', message: 'x' } });
    mem.deposited.add(`pk_${i}`);
  }
  assert.equal(mem.payments.size, 100);
  assert.equal(mem.refunds.size, 100);
  assert.equal(mem.deposited.size, 100);
  assert.equal(mem.transactions.length, 100);
  assert.ok(mem.payments.has('pk_999') && !mem.payments.has('pk_899'), 'the newest kept, the oldest forgotten');
  assert.deepEqual(mem.transactions.map((t) => t.orderId), Array.from({ length: 100 }, (_, i) => `ord_${900 + i}`), 'the last transactions, in order');
  const numbers = mem.transactions.map((t) => Number(t.transactionKey.split('_')[1]));
  assert.deepEqual(numbers, Array.from({ length: 100 }, (_, i) => 901 + i), 'transaction keys keep counting past the forgotten ones');
  assert.ok(SIMULATOR_MEMORY_LIMIT <= 10_000, 'the default bound stays small');
});
