import type { DashboardPage } from './page';
import homePage from './home';
import auditPage from './audit';
import developersKeysPage from './developers-keys';
import developersWebhooksPage from './developers-webhooks';
import developersEventsPage from './developers-events';
import settingsPage from './settings';
import settingsMembersPage from './settings-members';
import settingsSettlementsPage from './settings-settlements';
import ordersPage from './orders';
import refundRequestsPage from './refund-requests';
import subscriptionsPage from './subscriptions';
import productsPage from './products';
import licensesPage from './licenses';
import reconciliationPage from './reconciliation';
import vatPage from './vat';
import taxInvoicesPage from './tax-invoices';
import mailboxPage from './mailbox';
import accountSecurityPage from './account-security';
import accountSessionsPage from './account-sessions';
import settingsSecurityPage from './settings-security';

export type { DashboardPage };

/** Every dashboard page, in registration order. Add yours here (and its NAV entry in ../layout.ts). */
export const PAGES: DashboardPage[] = [
  homePage, developersKeysPage, developersWebhooksPage, developersEventsPage, settingsPage, settingsMembersPage, settingsSettlementsPage, auditPage,
  ordersPage, refundRequestsPage, subscriptionsPage, productsPage, licensesPage, reconciliationPage, vatPage, taxInvoicesPage, mailboxPage,
  accountSecurityPage, accountSessionsPage, settingsSecurityPage,
];
