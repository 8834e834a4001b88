import type { Module } from './deps';
import { storesModule } from './stores/routes';
import catalog from './catalog/routes';
import checkout from './checkout/routes';
import orders from './orders/routes';
import refunds from './refunds/routes';
import refundRequests from './refunds/requests/routes';
import subscriptions from './subscriptions/routes';
import subscriptionsBilling from './subscriptions/console-routes';
import priceChanges from './subscriptions/price-change/routes';
import licenses from './licenses/routes';
import webhooks from './webhooks/routes';
import pages from './pages/routes';
import receiptPages from './pages/receipt/module';
import portalPages from './pages/portal/module';
import buyerPages from './pages/buyer/module';
import maintenance from './jobs/maintenance';
import benchReference from './bench/reference';
import audit from './audit/routes';
import dashboard from './dashboard/routes';
import reconciliation from './reconciliation/routes';
import tax from './tax/routes';
import gateway from './gateway/routes';
import mail from './mail/module';
import { storeMailSettings } from './mail/store-settings';

/** Every module, in registration order. Each registers its routes, jobs and background tasks. */
export const MODULES: Module[] = [maintenance, storesModule([storeMailSettings]), catalog, checkout, orders, refunds, refundRequests, subscriptions, subscriptionsBilling, priceChanges, licenses, webhooks, gateway, pages, receiptPages, portalPages, buyerPages, benchReference, audit, reconciliation, tax, mail, dashboard];
