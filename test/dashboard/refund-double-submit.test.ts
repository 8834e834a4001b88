import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../helpers/app';
import { signIn, postForm } from './helpers';
import { insertPaidOrder, refundRows } from '../refunds/factory';
import { createProduct } from '../checkout/factory';
import { simulatorFor } from '../../src/payments';

const idemOf = (body: string) => /name="idem" value="([^"]+)"/.exec(body)?.[1] ?? '';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/**
 * Reproduces what a server on PostgreSQL (a pool of connections) does with two copies of one form at once: both
 * look for a refund with the form's key before either has recorded one. `db` is the app's database handle with the
 * answers of the first two reads of `order_refunds` outside a transaction held back (after the read, so no
 * connection is held): the first until the second has run, the second until the first copy's refund is with the
 * gateway. No timers: every wait is a promise the test resolves.
 */
function raceBothLookups<T extends object>(db: T, gatewayAsked: Promise<void>): T {
  const secondRan = deferred();
  let seen = 0;
  const hold = async () => {
    seen += 1;
    if (seen === 1) await secondRan.promise;
    else if (seen === 2) {
      secondRan.resolve();
      await gatewayAsked;
    }
  };
  const wrap = (builder: any): any =>
    new Proxy(builder, {
      get(target, prop) {
        const value = target[prop];
        if (typeof value !== 'function') return value;
        if (prop === 'executeTakeFirst' || prop === 'execute') {
          return async (...args: unknown[]) => {
            const out = await value.apply(target, args);
            await hold();
            return out;
          };
        }
        return (...args: unknown[]) => {
          const out = value.apply(target, args);
          return out && typeof out === 'object' && 'executeTakeFirst' in out ? wrap(out) : out;
        };
      },
    });
  return new Proxy(db, {
    get(target: any, prop) {
      const value = target[prop];
      if (prop === 'selectFrom') return (table: unknown, ...rest: unknown[]) => (table === 'order_refunds' ? wrap(value.call(target, table, ...rest)) : value.call(target, table, ...rest));
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

test('the refund form sent twice at once: the copy that loses the race shows the refund in progress, then made; never a 5xx', async (tc) => {
  const t = await createTestApp();
  tc.after(() => t.close());
  const owner = await signIn(t, { name: '김사장' });
  const p = await createProduct(t, owner.store, { name: '전자책', price: 15_000 });
  const order = await insertPaidOrder(t, owner.storeId, p.id, { amount: 15_000 });

  // A gateway that answers only when the test lets it: the first copy stays in flight while the other answers.
  const sim = simulatorFor(t.clock);
  const orig = sim.refund.bind(sim);
  const gate = deferred();
  const asked = deferred();
  let calls = 0;
  sim.refund = async (input) => {
    calls += 1;
    asked.resolve();
    await gate.promise;
    return orig(input);
  };
  const db = t.deps.db;
  tc.after(() => {
    sim.refund = orig;
    t.deps.db = db;
  });

  const page = await t.app.inject({ url: `/dashboard/orders/${order}`, headers: owner.headers });
  const idem = idemOf(page.body);
  assert.ok(idem);
  t.deps.db = raceBothLookups(db, asked.promise);
  const posts = [0, 1].map(() => postForm(t, owner, `/dashboard/orders/${order}/refund`, { amount: '5,000', idem }));
  await asked.promise;
  // The copy that is not at the gateway answers while the other still is.
  const early = await Promise.race(posts);
  assert.equal(early.statusCode, 303, `the second copy answered ${early.statusCode}: ${early.body.slice(0, 400)}`);
  assert.equal(early.headers.location, `/dashboard/orders/${order}?done=inflight`);
  t.deps.db = db;
  const shown = await t.app.inject({ url: String(early.headers.location), headers: owner.headers });
  assert.equal(shown.statusCode, 200);
  assert.match(shown.body, /이미 처리 중입니다/);
  assert.match(shown.body, />처리 중</);

  gate.resolve();
  const all = await Promise.all(posts);
  assert.equal(calls, 1, 'the gateway was asked once');
  assert.deepEqual(all.map((r) => r.statusCode), [303, 303]);
  assert.deepEqual(all.map((r) => String(r.headers.location)).sort(), [`/dashboard/orders/${order}?done=inflight`, `/dashboard/orders/${order}?done=refunded`]);
  const rows = await refundRows(t, order);
  assert.equal(rows.length, 1);
  assert.equal(rows[0]!.status, 'succeeded');
  assert.equal(rows[0]!.amount, 5_000);

  // The form sent again once the refund is made shows it as made.
  const later = await postForm(t, owner, `/dashboard/orders/${order}/refund`, { amount: '5,000', idem });
  assert.equal(later.statusCode, 303);
  assert.equal(later.headers.location, `/dashboard/orders/${order}?done=replayed`);
  const made = await t.app.inject({ url: String(later.headers.location), headers: owner.headers });
  assert.match(made.body, /이미 처리되었습니다/);
});
