-- Issue 30: nothing in a Toss webhook body is believed that Toss's API cannot confirm.
--
-- BILLING_DELETED cannot be read back (Toss has no billing-key lookup), so it no longer removes a card: it only marks
-- the subscription's card as reported deleted. The next charge settles it: a success clears the mark, Toss's
-- NOT_FOUND_BILLING removes the card (the card-gone path). Null: nothing reported.
alter table subscriptions add column card_reported_deleted_at timestamptz;

-- Toss lookups a store's webhooks may cost per minute (the webhook job spends one per lookup; over the budget the
-- lookup waits for the next window). A fixed window on the service clock: the window's start and what it used.
alter table store_toss_state add column lookup_window_start timestamptz;
alter table store_toss_state add column lookups_used integer not null default 0;
