import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nextRetryAt, parseCardSummary, subscriptionIdForSession, subscriptionNow } from '../../src/subscriptions/model';

test('dunning retries run 1, 3 and 7 days after the period start, and none after the third', () => {
  const start = new Date('2026-12-01T00:00:00.000Z');
  assert.equal(nextRetryAt(start, 1)?.toISOString(), '2026-12-02T00:00:00.000Z');
  assert.equal(nextRetryAt(start, 2)?.toISOString(), '2026-12-04T00:00:00.000Z');
  assert.equal(nextRetryAt(start, 3)?.toISOString(), '2026-12-08T00:00:00.000Z');
  assert.equal(nextRetryAt(start, 4), null);
});

test('card summaries from the simulator and Toss split into brand and last four', () => {
  assert.deepEqual(parseCardSummary('카드 ****4242'), { brand: '카드', last4: '4242' });
  assert.deepEqual(parseCardSummary('신한 4330-12**-****-123*'), { brand: '신한', last4: '123*' });
  assert.deepEqual(parseCardSummary('43301234****123*'), { brand: null, last4: '123*' });
  assert.deepEqual(parseCardSummary(null), { brand: null, last4: null });
});

test('a subscription id is derived from its checkout session; its clock runs ahead by its test clock offset', () => {
  assert.equal(subscriptionIdForSession('cs_01jd0000000000000000000000'), 'sub_01jd0000000000000000000000');
  assert.equal(subscriptionNow({ test_clock_offset_ms: 86_400_000 }, new Date('2026-11-01T00:00:00.000Z')).toISOString(), '2026-11-02T00:00:00.000Z');
});
