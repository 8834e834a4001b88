-- Mail to buyers (issue 21): a transactional outbox of mails, written in the transaction of the event that causes
-- them and sent later by the workers (src/mail/dispatch.ts). Test mode never sends: its mails are kept ('captured')
-- and shown in the dashboard's mailbox.
create table mail_outbox (
  id text primary key,
  store_id text not null references stores(id) on delete cascade,
  mode text not null check (mode in ('live', 'test')),
  -- the mail kind (src/mail/kinds.ts), e.g. 'order_confirmation'
  kind text not null,
  -- the event that caused the mail; with kind and recipient it makes the dedupe key: one mail per event, kind and recipient
  event_id text not null,
  event_type text not null,
  -- what the event said (rendered at send time, so licence keys issued after the payment are in the mail)
  data jsonb not null,
  recipient text not null,
  -- pending: waiting for a worker; sent: handed to SMTP (live); captured: rendered and kept, never sent (test mode);
  -- unconfigured: live mode without SMTP_URL (retried when the workers find SMTP configured); failed: gave up after retries
  status text not null check (status in ('pending', 'sent', 'captured', 'unconfigured', 'failed')),
  attempts integer not null default 0,
  next_attempt_at timestamptz not null,
  locked_by text,
  locked_until timestamptz,
  last_error text,
  -- the rendered mail: kept in full for test mode (the mailbox); a live mail keeps its subject only (no keys at rest)
  subject text,
  text_body text,
  html_body text,
  sent_at timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create unique index mail_outbox_dedupe on mail_outbox (event_id, kind, recipient);
create index mail_outbox_due on mail_outbox (next_attempt_at) where status in ('pending', 'unconfigured');
create index mail_outbox_list on mail_outbox (store_id, mode, created_at desc, id desc);

-- Per store: the mail kinds the service does NOT send to its buyers (a seller with its own mails turns them off).
-- No row, or an empty list: every kind is on.
create table store_mail_settings (
  store_id text primary key references stores(id) on delete cascade,
  disabled_kinds jsonb not null default '[]',
  updated_at timestamptz not null
);

-- The upcoming-renewal notice is written once per subscription period (the daily job is safe to run twice).
create table mail_renewal_notices (
  subscription_id text not null references subscriptions(id) on delete cascade,
  period_end timestamptz not null,
  created_at timestamptz not null,
  primary key (subscription_id, period_end)
);
