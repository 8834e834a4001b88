import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newId } from '../../src/platform/ids';
import { ManualClock } from '../../src/platform/clock';

test('ids made in the same millisecond share the time part and never the random part, across refills of the random pool', () => {
  const clock = new ManualClock(new Date('2026-11-27T00:00:00Z'));
  const ids = Array.from({ length: 3000 }, () => newId('ord', clock));
  assert.equal(new Set(ids).size, ids.length);
  const time = ids[0]!.slice(4, 14);
  for (const id of ids) {
    assert.match(id, /^ord_[0-9a-hjkmnp-tv-z]{26}$/);
    assert.equal(id.slice(4, 14), time);
  }
  // 80 random bits each: no two random parts alike, and every symbol of the alphabet shows up in them.
  const randoms = ids.map((id) => id.slice(14));
  assert.equal(new Set(randoms).size, randoms.length);
  assert.equal(new Set(randoms.join('')).size, 32);
  // Later ids sort after earlier ones by time.
  clock.advance(1);
  assert.ok(newId('ord', clock) > ids.sort().at(-1)!);
});
