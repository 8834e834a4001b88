// Kysely table types of the mail module (composed into DB in src/db/types.ts). See migration 019_mail_outbox.sql.
import type { Json, Mode, Timestamp } from '../platform/tables';

export type MailStatus = 'pending' | 'sent' | 'captured' | 'unconfigured' | 'failed';

export interface MailOutboxTable {
  id: string;
  store_id: string;
  mode: Mode;
  kind: string;
  event_id: string;
  event_type: string;
  data: Json<Record<string, unknown>>;
  recipient: string;
  status: MailStatus;
  attempts: number;
  next_attempt_at: Date;
  locked_by: string | null;
  locked_until: Date | null;
  last_error: string | null;
  subject: string | null;
  text_body: string | null;
  html_body: string | null;
  sent_at: Date | null;
  created_at: Timestamp;
  updated_at: Date;
}

export interface StoreMailSettingsTable {
  store_id: string;
  disabled_kinds: Json<string[]>;
  updated_at: Date;
}

export interface MailRenewalNoticesTable {
  subscription_id: string;
  period_end: Date;
  created_at: Date;
}

export interface MailTables {
  mail_outbox: MailOutboxTable;
  store_mail_settings: StoreMailSettingsTable;
  mail_renewal_notices: MailRenewalNoticesTable;
}
