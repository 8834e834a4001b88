-- Issue 30: free trials once per buyer, and a buyer e-mail the seller fixes on a checkout session.

-- Whether a buyer may take a product's free trial again (same e-mail or same card). Default: once.
alter table stores add column allow_repeat_trials boolean not null default false;

-- The card a trial was started with, as a fingerprint: sha256 of the gateway's masked card (Toss: issuer and
-- `card.number` as `12345678****000*`); null without a trial or without a card summary. Compared, never shown.
alter table subscriptions add column trial_card_fingerprint text;
create index subscriptions_trial_email on subscriptions (store_id, mode, product_id, lower(buyer_email)) where trial_ends_at is not null;
create index subscriptions_trial_card on subscriptions (store_id, mode, product_id, trial_card_fingerprint) where trial_card_fingerprint is not null;

-- The seller fixed the buyer's e-mail (customer.email) on the session: the payment page shows it read-only and the
-- server refuses any other.
alter table checkout_sessions add column customer_email_locked boolean not null default false;
