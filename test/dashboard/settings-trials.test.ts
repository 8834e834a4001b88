import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, createTestApp } from '../helpers/app';
import { postForm, signIn } from './helpers';

test('Settings → free trials: the switch shows and sets allowRepeatTrials (the console field), audited', async (tc) => {
  const t = await createTestApp();
  tc.after(() => t.close());
  const owner = await signIn(t, { name: '윤사장' });
  const s = owner.store;
  const page = await t.app.inject({ url: '/dashboard/settings', headers: owner.headers });
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /<input type="checkbox" name="allowRepeatTrials" value="1" aria-describedby="tr-hint" data-testid="allow-repeat-trials">/, 'off by default');
  const on = await postForm(t, owner, '/dashboard/settings/trials', { allowRepeatTrials: '1' });
  assert.equal(on.statusCode, 200, on.body);
  assert.match(on.body, /name="allowRepeatTrials" value="1" checked/);
  assert.equal((await t.app.inject({ url: '/admin/v1/store', headers: bearer(s.ownerToken) })).json().allowRepeatTrials, true);
  const off = await postForm(t, owner, '/dashboard/settings/trials', {});
  assert.equal(off.statusCode, 200, off.body);
  assert.equal((await t.app.inject({ url: '/admin/v1/store', headers: bearer(s.ownerToken) })).json().allowRepeatTrials, false);
  const audit = (await t.app.inject({ url: '/admin/v1/audit-log?action=settings.trials_updated', headers: bearer(s.ownerToken) })).json().data;
  assert.deepEqual(audit.map((e: any) => e.details.allowRepeatTrials).sort(), [false, true]);
});
