import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GO_LIVE_ITEMS, goLiveChecklist, goLiveItemDone, type GoLiveFacts } from '../../src/stores/go-live';

// The go-live checklist's rules, one fact at a time: each item is done exactly when its own fact holds.

const READY: GoLiveFacts = {
  businessDetails: { sample: false },
  publicContactVerified: true,
  live: { paymentProvider: 'toss', tossClientKey: 'live_ck_a', tossSecretKeySet: true, returnUrlDomains: ['shop.example.com'] },
  keysVerifiedAt: new Date('2026-11-01T00:00:00Z'),
  firstWebhookAt: new Date('2026-11-02T00:00:00Z'),
  livePaymentDone: true,
  liveRefundDone: true,
};

test('a store with every fact in place has the whole checklist done, in the documented order', () => {
  const list = goLiveChecklist(READY);
  assert.deepEqual(list.items.map((i) => i.item), ['businessDetails', 'verifiedContact', 'tossKeys', 'returnUrlDomains', 'tossWebhook', 'firstLivePayment', 'firstLiveRefund']);
  assert.equal(list.done, 7);
  assert.equal(list.complete, true);
});

test('each missing fact leaves exactly its own item missing', () => {
  const cases: [GoLiveFacts, string][] = [
    [{ ...READY, businessDetails: null }, 'businessDetails'],
    [{ ...READY, businessDetails: { sample: true } }, 'businessDetails'],
    [{ ...READY, publicContactVerified: false }, 'verifiedContact'],
    [{ ...READY, keysVerifiedAt: null }, 'tossKeys'],
    [{ ...READY, live: { ...READY.live, tossSecretKeySet: false } }, 'tossKeys'],
    [{ ...READY, live: { ...READY.live, tossClientKey: null } }, 'tossKeys'],
    [{ ...READY, live: { ...READY.live, paymentProvider: null } }, 'tossKeys'],
    [{ ...READY, live: { ...READY.live, returnUrlDomains: [] } }, 'returnUrlDomains'],
    [{ ...READY, firstWebhookAt: null }, 'tossWebhook'],
    [{ ...READY, livePaymentDone: false }, 'firstLivePayment'],
    [{ ...READY, liveRefundDone: false }, 'firstLiveRefund'],
  ];
  for (const [facts, missing] of cases) {
    const list = goLiveChecklist(facts);
    assert.deepEqual(list.items.filter((i) => !i.done).map((i) => i.item), [missing], JSON.stringify(facts));
    assert.equal(list.done, 6);
    assert.equal(list.complete, false);
  }
  for (const item of GO_LIVE_ITEMS) assert.equal(goLiveItemDone(item, READY), true);
});
