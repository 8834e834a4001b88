-- The seller's business details (전자상거래법 제10조 / 제13조: 상호, 대표자, 사업자등록번호, 통신판매업 신고번호, 주소,
-- 연락처), shown in the footer of every hosted page and required before live checkout sessions can be created.
-- One row per store, written by the seller console (PUT /admin/v1/store/business-details). `sample` marks the demo
-- store's made-up details so pages can say they are samples.
create table store_business_details (
  store_id text primary key references stores(id) on delete cascade,
  company_name text not null,
  representative text not null,
  business_number text not null,
  mail_order_number text not null,
  address text not null,
  support_phone text,
  support_email text,
  sample boolean not null default false,
  updated_at timestamptz not null,
  check (support_phone is not null or support_email is not null)
);
