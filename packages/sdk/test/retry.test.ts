import { test } from 'node:test';
import assert from 'node:assert/strict';
import { retryAfterMs, retryingFetch, type RetryOptions } from '../src/retry.js';

// The retry rules on their own, with a scripted fetch and a fake sleep (the service-backed tests are in client.test.ts).

function harness(answers: Array<Response | Error>, o: Partial<RetryOptions> = {}) {
  const seen: Request[] = [];
  const slept: number[] = [];
  let n = 0;
  const f = retryingFetch(
    async (req) => {
      seen.push(req);
      const a = answers[Math.min(n++, answers.length - 1)];
      if (a instanceof Error) throw a;
      return a.clone();
    },
    { maxRetries: 2, maxDelayMs: 60_000, sleep: async (ms) => void slept.push(ms), now: () => Date.parse('2026-11-24T00:00:00Z'), newIdempotencyKey: () => `key-${seen.length}`, ...o },
  );
  return { f, seen, slept };
}
const ok = () => new Response('{}', { status: 200 });

test('Retry-After in seconds or as an HTTP date; nothing usable gives null', () => {
  assert.equal(retryAfterMs('3', 0), 3_000);
  assert.equal(retryAfterMs('Tue, 24 Nov 2026 00:00:05 GMT', Date.parse('2026-11-24T00:00:00Z')), 5_000);
  assert.equal(retryAfterMs('Tue, 24 Nov 2026 00:00:05 GMT', Date.parse('2026-11-24T00:01:00Z')), 0);
  assert.equal(retryAfterMs('soon', 0), null);
  assert.equal(retryAfterMs(null, 0), null);
});

test('a 503 without Retry-After backs off 0.5 s then 1 s; a third failure is returned to the caller', async () => {
  const h = harness([new Response('', { status: 503 })]);
  const res = await h.f(new Request('https://api.example/v1/orders'));
  assert.equal(res.status, 503);
  assert.deepEqual(h.slept, [500, 1_000]);
  assert.equal(h.seen.length, 3);
});

test('a Retry-After longer than maxDelayMs is not slept through: the 429 is returned at once', async () => {
  const h = harness([new Response('', { status: 429, headers: { 'retry-after': '120' } }), ok()]);
  const res = await h.f(new Request('https://api.example/v1/orders'));
  assert.equal(res.status, 429);
  assert.deepEqual(h.slept, []);
});

test('network errors: a GET is retried; a POST keeps its one generated key across attempts; the license app API gets no key and no resend', async () => {
  const get = harness([new TypeError('fetch failed'), ok()]);
  assert.equal((await get.f(new Request('https://api.example/v1/orders'))).status, 200);
  assert.equal(get.seen.length, 2);

  const postH = harness([new TypeError('fetch failed'), new TypeError('fetch failed'), ok()]);
  await postH.f(new Request('https://api.example/v1/checkout/sessions', { method: 'POST', body: '{"productId":"prod_1"}' }));
  assert.deepEqual(postH.seen.map((r) => r.headers.get('idempotency-key')), ['key-0', 'key-0', 'key-0']);
  assert.deepEqual(await Promise.all(postH.seen.map((r) => r.text())), Array(3).fill('{"productId":"prod_1"}'), 'the body is sent whole every time');

  const app = harness([new TypeError('fetch failed'), ok()]);
  await assert.rejects(app.f(new Request('https://api.example/v1/licenses/activate', { method: 'POST', body: '{}' })), TypeError);
  assert.equal(app.seen.length, 1);
  assert.equal(app.seen[0].headers.has('idempotency-key'), false);
});
