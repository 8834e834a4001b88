-- Test-mode mails in the seller's own inbox: a copy of every test-mode buyer mail, its subject marked [테스트], goes
-- through SMTP_URL to the addresses the store lists here. Each is the e-mail of one of the store's dashboard members
-- (checked when saved and again at each send), never a buyer's. Empty: off (the mails are only kept in the mailbox).
alter table store_mail_settings add column test_copy_recipients jsonb not null default '[]';

-- What happened to a captured test mail's copies: when they went, to whom, or why not.
alter table mail_outbox add column test_copy_sent_at timestamptz;
alter table mail_outbox add column test_copy_recipients jsonb;
alter table mail_outbox add column test_copy_error text;
