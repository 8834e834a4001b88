import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, createTestApp } from '../helpers/app';
import { postForm, signIn } from './helpers';

test('Settings → 현금영수증: the 의무발행업종 switch shows and sets cashReceiptMandatory (the console field), audited', async (tc) => {
  const t = await createTestApp();
  tc.after(() => t.close());
  const owner = await signIn(t, { name: '윤사장' });
  const s = owner.store;
  const page = await t.app.inject({ url: '/dashboard/settings', headers: owner.headers });
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /<input type="checkbox" name="cashReceiptMandatory" value="1" aria-describedby="cr-hint" data-testid="cash-receipt-mandatory">/, 'off by default');
  assert.match(page.body, /010-000-1234/);
  const on = await postForm(t, owner, '/dashboard/settings/cash-receipts', { cashReceiptMandatory: '1' });
  assert.equal(on.statusCode, 200, on.body);
  assert.match(on.body, /name="cashReceiptMandatory" value="1" checked/);
  assert.equal((await t.app.inject({ url: '/admin/v1/store', headers: bearer(s.ownerToken) })).json().cashReceiptMandatory, true);
  const off = await postForm(t, owner, '/dashboard/settings/cash-receipts', {});
  assert.equal(off.statusCode, 200, off.body);
  assert.equal((await t.app.inject({ url: '/admin/v1/store', headers: bearer(s.ownerToken) })).json().cashReceiptMandatory, false);
  const audit = (await t.app.inject({ url: '/admin/v1/audit-log?action=settings.cash_receipts_updated', headers: bearer(s.ownerToken) })).json().data;
  assert.deepEqual(audit.map((e: any) => e.details.cashReceiptMandatory).sort(), [false, true]);
});
