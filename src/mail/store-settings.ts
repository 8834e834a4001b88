import { Type } from '@sinclair/typebox';
import type { StoreSettingsSection } from '../stores/settings-section';
import { BuyerMailsPatch, BuyerMailsSchema } from './schemas';
import { getBuyerMails, updateBuyerMails } from './settings';
import { checkTestCopyRecipients, getTestCopyRecipients, updateTestCopyRecipients } from './test-copies';

/**
 * The mail settings a seller keeps on their store: which buyer mails are sent (`buyerMails`) and who gets the [테스트]
 * copies of test-mode mails (`testMailRecipients`). Mail owns them; the store's console shows and changes them inside
 * `Store` / `UpdateStoreRequest` through the `StoreSettingsSection` port, so the store module never imports mail.
 */

const TestMailRecipientsSchema = Type.Array(Type.String({ maxLength: 254 }), {
  maxItems: 20,
  description:
    'Test mode: a copy of every test-mode buyer mail, its subject starting with [테스트], goes through SMTP_URL to these addresses, so the seller ' +
    'sees the mails in a real inbox before going live. Each must be the e-mail of an active dashboard member of the store (VALIDATION_FAILED ' +
    'otherwise; a member disabled later is skipped); buyers are never mailed in test mode. Empty: off (the mails are only kept in the mailbox).',
});

export const storeMailSettings: StoreSettingsSection = {
  view: { buyerMails: BuyerMailsSchema, testMailRecipients: TestMailRecipientsSchema },
  patch: { buyerMails: Type.Optional(BuyerMailsPatch), testMailRecipients: Type.Optional(TestMailRecipientsSchema) },
  async read(deps, storeId) {
    return { buyerMails: await getBuyerMails(deps.db, storeId), testMailRecipients: await getTestCopyRecipients(deps, storeId) };
  },
  async check(deps, storeId, body) {
    const recipients = body.testMailRecipients as string[] | undefined;
    if (recipients) await checkTestCopyRecipients(deps, storeId, recipients);
  },
  async write(deps, storeId, body, now) {
    const buyerMails = body.buyerMails as Record<string, unknown> | undefined;
    const recipients = body.testMailRecipients as string[] | undefined;
    if (buyerMails) await updateBuyerMails(deps.db, storeId, buyerMails, now);
    if (recipients) await updateTestCopyRecipients(deps, storeId, recipients, now);
  },
};
