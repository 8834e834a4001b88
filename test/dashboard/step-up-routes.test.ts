import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../helpers/app';
import { createServer } from '../../src/platform/http/server';
import dashboardModule from '../../src/dashboard/routes';
import { assertAllAttached, NO_STEP_UP_ROUTES, STEP_UP_ROUTES } from '../../src/dashboard/step-up-actions';
import type { App, AppDeps } from '../../src/deps';

/** Every route the dashboard registers (method and URL), read with an onRoute hook set before the module registers. */
async function dashboardRoutes(deps: AppDeps): Promise<Array<{ method: string; url: string }>> {
  const app = createServer(deps, false);
  const seen: Array<{ method: string; url: string }> = [];
  app.addHook('onRoute', (r) => {
    for (const method of Array.isArray(r.method) ? r.method : [r.method]) seen.push({ method, url: r.url });
  });
  // Its background task goes nowhere: this instance only lists routes.
  await app.register(async (scope) => dashboardModule(scope as App, { ...deps, worker: { addTask() {} } } as unknown as AppDeps));
  await app.ready();
  await app.close();
  return seen;
}

test('every state-changing dashboard route is on the step-up list or on the commented "moves no money, widens no access" list', async () => {
  const t = await createTestApp();
  try {
    const routes = await dashboardRoutes(t.deps);
    const changing = routes.filter((r) => r.method !== 'GET' && r.method !== 'HEAD');
    assert.ok(changing.length > 40, `the dashboard's forms were found (${changing.length})`);
    const guarded = new Set(STEP_UP_ROUTES.map((r) => r.url));
    const exempt = new Set(Object.keys(NO_STEP_UP_ROUTES));

    const unlisted = changing.filter((r) => !(r.method === 'POST' && (guarded.has(r.url) || exempt.has(r.url)))).map((r) => `${r.method} ${r.url}`);
    assert.deepEqual(unlisted, [], 'add each to STEP_UP_ROUTES or, with the reason, NO_STEP_UP_ROUTES (src/dashboard/step-up-actions.ts)');
    assert.deepEqual([...guarded].filter((u) => exempt.has(u)), [], 'no route on both lists');
    const posted = new Set(changing.map((r) => r.url));
    assert.deepEqual([...guarded, ...exempt].filter((u) => !posted.has(u)), [], 'every listed URL is a registered POST route (no stale entry)');
    for (const [url, why] of Object.entries(NO_STEP_UP_ROUTES)) assert.ok(why.length > 10, `${url}: says why it needs no step-up`);
  } finally {
    await t.close();
  }
});

test('a step-up entry naming no registered route stops the dashboard from starting (it would guard nothing)', () => {
  const all = new Set(STEP_UP_ROUTES.map((r) => r.url));
  assert.doesNotThrow(() => assertAllAttached(all));
  all.delete('/dashboard/subscriptions/:id/cancel');
  assert.throws(() => assertAllAttached(all), /\/dashboard\/subscriptions\/:id\/cancel/);
});
