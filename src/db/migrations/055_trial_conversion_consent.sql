-- Trials longer than 30 days (issue 29 item 4; 전자상거래법 제13조⑥, 시행령 제20조의2): the consent given at checkout is
-- more than 30 days before the first charge, so the buyer is asked again within the 30 days before it. The fresh
-- consent ({ text, consentedAt, version }) is kept here; without it the trial ends at its end, nothing charged.
alter table subscriptions add column trial_consent jsonb;

alter table subscriptions drop constraint if exists subscriptions_end_reason_check;
alter table subscriptions add constraint subscriptions_end_reason_check check (end_reason in ('canceled', 'payment_failed', 'price_change_declined', 'withdrawn', 'refunded', 'trial_not_confirmed'));
