import type { PlatformTables } from '../platform/tables';
import type { CatalogTables } from '../catalog/tables';
import type { CheckoutTables } from '../checkout/tables';
import type { OrdersTables } from '../orders/tables';
import type { WebhooksTables } from '../webhooks/tables';
import type { LicensesTables } from '../licenses/tables';
import type { RefundsTables } from '../refunds/tables';
import type { SubscriptionsTables } from '../subscriptions/tables';
import type { CancelPortalTables } from '../subscriptions/cancel/tables';
import type { DashboardTables } from '../dashboard/tables';
import type { AuditTables } from '../audit/tables';
import type { StoresTables } from '../stores/tables';
import type { ReconciliationTables } from '../reconciliation/tables';
import type { MailTables } from '../mail/tables';
import type { BuyersTables } from '../buyers/tables';
import type { TaxInvoiceTables } from '../tax/invoices/tables';
import type { GatewayTables } from '../gateway/tables';

/** The whole database as Kysely sees it: each module owns the table types in its own tables.ts. */
export interface DB
  extends PlatformTables,
    CatalogTables,
    CheckoutTables,
    OrdersTables,
    WebhooksTables,
    LicensesTables,
    RefundsTables,
    SubscriptionsTables,
    CancelPortalTables,
    DashboardTables,
    AuditTables,
    StoresTables,
    ReconciliationTables,
    MailTables,
    BuyersTables,
    TaxInvoiceTables,
    GatewayTables {}
