-- Issue 32: buyers without a card pay by 계좌이체 (Toss's 퀵계좌이체, method TRANSFER) or 가상계좌 (VIRTUAL_ACCOUNT).
alter table orders drop constraint if exists orders_method_check;
alter table orders add constraint orders_method_check check (method in ('card', 'kakao_pay', 'naver_pay', 'toss', 'transfer', 'virtual_account'));
