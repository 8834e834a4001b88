-- The buyer's language for mails and the receipt link (issue 21 item 3): chosen at checkout session creation
-- (`locale`, 'ko' by default), carried to the order and to a subscription started from it; renewals and every
-- subscription mail use the subscription's. The payment page stays Korean.
alter table checkout_sessions add column locale text not null default 'ko' check (locale in ('ko', 'en'));
alter table orders add column locale text not null default 'ko' check (locale in ('ko', 'en'));
alter table subscriptions add column locale text not null default 'ko' check (locale in ('ko', 'en'));
