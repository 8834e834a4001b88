-- Buyers abroad (issue 41): the payment page, receipt and portal choose their language from the buyer's switch, the
-- browser's Accept-Language, or the language the seller fixed at session creation. `locale` alone cannot tell a seller's
-- explicit 'ko' from the default, so whether the seller chose it is kept beside it. A session the seller did not fix
-- takes the language the buyer paid in (recorded on submit), so the order's mails follow the page.
alter table checkout_sessions add column locale_fixed boolean not null default false;
update checkout_sessions set locale_fixed = true where locale = 'en';
