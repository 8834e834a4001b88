import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderMail } from '../../src/mail/render';
import type { MailKind } from '../../src/mail/kinds';
import { manageLinkPath, verifyManageLink, MANAGE_LINK_TTL_MS } from '../../src/subscriptions/portal/manage-link';
import { manageLinkExpiry } from '../../src/mail/dispatch';

/**
 * Every subscription mail lets the buyer manage the subscription with no seller code (전자상거래법 제21조의2: cancel
 * where you signed up): the layout adds the signed 구독 관리 link to any mail whose copy has no portal link of its
 * own, once, in both languages.
 */
const SUBSCRIPTION_KINDS: MailKind[] = [
  'subscription_started',
  'renewal_receipt',
  'renewal_upcoming',
  'price_change_scheduled',
  'price_change_accepted',
  'plan_change_offered',
  'trial_will_end',
  'payment_failed',
  'cancellation_confirmed',
  'subscription_ended',
];

function input(kind: MailKind, portalUrl: string | null) {
  const order = { id: 'ord_1', productName: '프로', amount: 9_900, paidAt: '2026-11-01T06:05:00.000Z', planId: 'basic', billingInterval: 'monthly', receiptUrl: 'https://pay.example.com/receipt/ord_1?t=tok', licenses: [] };
  const subscription = { id: 'sub_1', productName: '프로', planId: 'basic', billingInterval: 'monthly', amount: 9_900, currentPeriodEnd: '2026-12-01T00:00:00.000Z', nextRetryAt: '2026-12-02T00:00:00.000Z', trialEndsAt: '2026-11-15T00:00:00.000Z' };
  const change = { renewsAt: '2026-12-01T00:00:00.000Z', amount: 99_000, trialEndsAt: '2026-11-15T00:00:00.000Z', effectiveAt: '2027-01-01T00:00:00.000Z', currentAmount: 9_900, newAmount: 12_900, decideBy: '2026-12-31T00:00:00.000Z' };
  return { kind, data: { ...order, orderId: 'ord_1', change }, order: order as any, subscription, storeName: '상점', business: null, portalUrl, manageUrl: 'https://pay.example.com/manage/sub_1.1.mac' };
}

test('every subscription mail, in Korean and English, carries one way to the portal: its own action link or the 구독 관리 link', () => {
  for (const kind of SUBSCRIPTION_KINDS) {
    for (const lang of ['ko', 'en'] as const) {
      // Without a minted portal link (every kind but the ones asking for an answer): the 구독 관리 link, once.
      const plain = renderMail({ ...input(kind, null), lang });
      const label = lang === 'ko' ? '구독 관리 (카드 변경·해지)' : 'Manage the subscription (change card, cancel)';
      assert.equal(plain.text.split(`${label}: https://pay.example.com/manage/sub_1.1.mac`).length - 1, 1, `${kind} ${lang}: ${plain.text}`);
      assert.match(plain.html, /<a class="btn" href="https:\/\/pay\.example\.com\/manage\/sub_1\.1\.mac">/);
      // With the copy's own portal link (an action the mail asks for): that link, and no second one.
      const own = renderMail({ ...input(kind, 'https://pay.example.com/portal/x'), lang });
      // (A price-change notice links its two answers, agree and decline, to anchors of the same portal page.)
      const links = own.text.match(/https:\/\/pay\.example\.com\/(portal|manage)\/\S+/g) ?? [];
      assert.ok(links.length >= 1, `${kind} ${lang}: a portal link\n${own.text}`);
      const ownLinks = links.filter((l) => l.startsWith('https://pay.example.com/portal/x')).length;
      const manageLinks = links.filter((l) => l.startsWith('https://pay.example.com/manage/')).length;
      assert.ok(ownLinks > 0 ? manageLinks === 0 : manageLinks === 1, `${kind} ${lang}: the copy's own portal links or one 구독 관리 link, never both\n${own.text}`);
    }
  }
});

test('a mail about no subscription gets no 구독 관리 link', () => {
  const one = renderMail({ ...input('order_confirmation', null), subscription: null, manageUrl: null });
  assert.doesNotMatch(one.text, /manage|구독 관리/);
});

test('the 구독 관리 link is signed: an altered id, expiry or MAC and a past expiry open nothing', () => {
  const key = Buffer.alloc(32, 7);
  const now = new Date('2026-11-01T00:00:00.000Z');
  const path = manageLinkPath(key, 'sub_01abc', new Date(now.getTime() + MANAGE_LINK_TTL_MS));
  const link = path.slice('/manage/'.length);
  assert.deepEqual(verifyManageLink(key, link, now), { subscriptionId: 'sub_01abc' });
  const [id, exp, mac] = link.split('.');
  assert.deepEqual(verifyManageLink(key, `sub_01abd.${exp}.${mac}`, now), { refused: 'invalid' });
  assert.deepEqual(verifyManageLink(key, `${id}.${Number(exp) + 1}.${mac}`, now), { refused: 'invalid' });
  assert.deepEqual(verifyManageLink(key, `${id}.${exp}.${mac!.slice(0, -1)}${mac!.endsWith('A') ? 'B' : 'A'}`, now), { refused: 'invalid' });
  assert.deepEqual(verifyManageLink(Buffer.alloc(32, 8), link, now), { refused: 'invalid' }, 'another master key');
  assert.deepEqual(verifyManageLink(key, link, new Date(now.getTime() + MANAGE_LINK_TTL_MS)), { refused: 'expired' });
});

test('the link lasts 30 days, or until the answer a mail asks for when that is later', () => {
  const now = new Date('2026-11-01T00:00:00.000Z');
  assert.equal(manageLinkExpiry('subscription_started', undefined, 0, now).getTime(), now.getTime() + MANAGE_LINK_TTL_MS);
  const late = manageLinkExpiry('price_change_scheduled', { decideBy: '2027-02-01T00:00:00.000Z' }, 0, now);
  assert.equal(late.toISOString(), '2027-02-01T00:00:00.000Z');
});
