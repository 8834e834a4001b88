-- Issue 32: the store is a 현금영수증 의무발행업종 (전자상거래 소매업, 소프트웨어 소매업 since 2021): a cash-type sale
-- (계좌이체, 가상계좌) of 100,000원 or more gets a 현금영수증 even when the buyer asks for none, issued as 소득공제 to the
-- National Tax Service's self-issue number 010-000-1234. See docs/manual/04-checkout-and-orders.md.
alter table stores add column cash_receipt_mandatory boolean not null default false;
