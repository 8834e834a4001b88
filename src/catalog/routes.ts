import type { Module } from '../deps';
import { op } from '../platform/http/route';
import { IdParams } from '../platform/http/schemas';
import { pageParams } from '../platform/http/pagination';
import {
  AdminListQuery,
  CouponPage,
  CouponSchema,
  CreateCouponBody,
  CreateProductBody,
  ListProductsQuery,
  ProductPage,
  ProductSchema,
  UpdateCouponBody,
  UpdateProductBody,
} from './schemas';
import { productView } from './model';
import * as svc from './service';
import * as coupons from './coupons';

const catalogModule: Module = async (app, deps) => {
  // ---------- public API ----------
  app.get(
    '/v1/products',
    op(
      {
        operationId: 'listProducts',
        summary: 'List products',
        description: 'Products of the key\'s mode, newest first. A key limited to certain products sees only those.',
        tags: ['Products'],
      },
      { auth: 'api_key', scope: 'products:read', errors: [] },
      { querystring: ListProductsQuery, response: { 200: ProductPage } },
    ),
    async (req) => svc.listProducts(deps, req.auth!, pageParams(req.query)),
  );

  app.get(
    '/v1/products/:id',
    op(
      {
        operationId: 'getProduct',
        summary: 'Read a product',
        description: 'A product of another mode or outside the key\'s product range answers PRODUCT_NOT_FOUND.',
        tags: ['Products'],
      },
      { auth: 'api_key', scope: 'products:read', errors: ['PRODUCT_NOT_FOUND'] },
      { params: IdParams, response: { 200: ProductSchema } },
    ),
    async (req) => productView(await svc.getProductForKey(deps, req.auth!, req.params.id)),
  );

  // ---------- seller console: products ----------
  const ptags = ['Products'];
  app.post(
    '/admin/v1/products',
    op({ operationId: 'adminCreateProduct', summary: 'Create a product in one mode', tags: ptags }, { auth: 'owner' }, { body: CreateProductBody, response: { 201: ProductSchema } }),
    async (req, reply) => {
      reply.code(201);
      return svc.createProduct(deps, req.owner!.storeId, req.body);
    },
  );
  app.get(
    '/admin/v1/products',
    op({ operationId: 'adminListProducts', summary: 'List products, newest first (`mode` filters)', tags: ptags }, { auth: 'owner' }, { querystring: AdminListQuery, response: { 200: ProductPage } }),
    async (req) => svc.listProductsForOwner(deps, req.owner!.storeId, { mode: req.query.mode, ...pageParams(req.query) }),
  );
  app.get(
    '/admin/v1/products/:id',
    op({ operationId: 'adminGetProduct', summary: 'Read a product', tags: ptags }, { auth: 'owner', errors: ['PRODUCT_NOT_FOUND'] }, { params: IdParams, response: { 200: ProductSchema } }),
    async (req) => productView(await svc.getProductForOwner(deps, req.owner!.storeId, req.params.id)),
  );
  app.patch(
    '/admin/v1/products/:id',
    op(
      {
        operationId: 'adminUpdateProduct',
        summary: 'Update a product',
        description: 'Fields left out stay as they are; `plans` replaces the whole list. The type and mode cannot change. Open checkout sessions keep the price they were created with.',
        tags: ptags,
      },
      { auth: 'owner', errors: ['PRODUCT_NOT_FOUND'] },
      { params: IdParams, body: UpdateProductBody, response: { 200: ProductSchema } },
    ),
    async (req) => svc.updateProduct(deps, req.owner!.storeId, req.params.id, req.body),
  );
  app.post(
    '/admin/v1/products/:id/archive',
    op(
      { operationId: 'adminArchiveProduct', summary: 'Archive a product (no new checkout sessions)', tags: ptags },
      { auth: 'owner', errors: ['PRODUCT_NOT_FOUND'] },
      { params: IdParams, response: { 200: ProductSchema } },
    ),
    async (req) => svc.archiveProduct(deps, req.owner!.storeId, req.params.id),
  );

  // ---------- seller console: coupons ----------
  const ctags = ['Coupons'];
  app.post(
    '/admin/v1/coupons',
    op(
      { operationId: 'adminCreateCoupon', summary: 'Create a coupon', description: 'Codes are unique per store and mode, case-insensitive.', tags: ctags },
      { auth: 'owner', errors: ['COUPON_CODE_TAKEN'] },
      { body: CreateCouponBody, response: { 201: CouponSchema } },
    ),
    async (req, reply) => {
      reply.code(201);
      return coupons.createCoupon(deps, req.owner!.storeId, req.body);
    },
  );
  app.get(
    '/admin/v1/coupons',
    op({ operationId: 'adminListCoupons', summary: 'List coupons, newest first (`mode` filters)', tags: ctags }, { auth: 'owner' }, { querystring: AdminListQuery, response: { 200: CouponPage } }),
    async (req) => coupons.listCoupons(deps, req.owner!.storeId, { mode: req.query.mode, ...pageParams(req.query) }),
  );
  app.get(
    '/admin/v1/coupons/:id',
    op({ operationId: 'adminGetCoupon', summary: 'Read a coupon', tags: ctags }, { auth: 'owner', errors: ['COUPON_NOT_FOUND'] }, { params: IdParams, response: { 200: CouponSchema } }),
    async (req) => coupons.getCoupon(deps, req.owner!.storeId, req.params.id),
  );
  app.patch(
    '/admin/v1/coupons/:id',
    op(
      { operationId: 'adminUpdateCoupon', summary: 'Update a coupon (name, validity, usage limit, products, status)', tags: ctags },
      { auth: 'owner', errors: ['COUPON_NOT_FOUND'] },
      { params: IdParams, body: UpdateCouponBody, response: { 200: CouponSchema } },
    ),
    async (req) => coupons.updateCoupon(deps, req.owner!.storeId, req.params.id, req.body),
  );
  app.post(
    '/admin/v1/coupons/:id/archive',
    op({ operationId: 'adminArchiveCoupon', summary: 'Archive a coupon (no longer redeemable)', tags: ctags }, { auth: 'owner', errors: ['COUPON_NOT_FOUND'] }, { params: IdParams, response: { 200: CouponSchema } }),
    async (req) => coupons.archiveCoupon(deps, req.owner!.storeId, req.params.id),
  );
};

export default catalogModule;
