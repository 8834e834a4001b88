// Kysely table types of the mail module (composed into DB in src/db/types.ts). See migration 019_mail_outbox.sql.
import type { ColumnType } from 'kysely';
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
  /** Migration 036: the copy of a captured test mail sent to the store's own addresses (when, to whom, or why not). */
  test_copy_sent_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  test_copy_recipients: Json<string[] | null>;
  test_copy_error: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  updated_at: Date;
}

export interface StoreMailSettingsTable {
  store_id: string;
  disabled_kinds: Json<string[]>;
  /** Migration 036: members' e-mails that get a [테스트] copy of every test-mode mail (empty: off). */
  test_copy_recipients: Json<string[]>;
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
