import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../helpers/app';
import { createDemo, demoBanner, demoRestartBanner, DEMO_MEMBER } from '../../src/demo';
import { signInAs } from './helpers';

test('the demo store comes with a dashboard owner whose generated password the first-start banner prints; a restart says how to reset it', async () => {
  const t = await createTestApp();
  try {
    const info = await createDemo(t.deps);
    const banner = demoBanner(info, 'http://localhost:3000');
    assert.ok(banner.includes(`http://localhost:3000/dashboard  e-mail ${DEMO_MEMBER.email}  password ${info.dashboardPassword}`), banner);

    // The printed credentials sign in, as the store's owner.
    const s = await signInAs(t, DEMO_MEMBER.email, info.dashboardPassword);
    const members = await t.app.inject({ url: '/dashboard/settings/members', headers: s.headers });
    assert.equal(members.statusCode, 200, 'only an owner may open Members');
    assert.ok(members.body.includes(DEMO_MEMBER.name));

    const restart = demoRestartBanner(info.storeId, 'http://localhost:3000');
    assert.ok(restart.includes(`npx commerce member reset-password --store ${info.storeId} --email ${DEMO_MEMBER.email}`), restart);
  } finally {
    await t.close();
  }
});
