import type { AppDeps } from '../deps';
import { createProduct } from './service';
import { createCoupon } from './coupons';

/**
 * Test-mode sample products for the demo store, so the README walk-through has something to sell: a one-time
 * e-book, a subscription with monthly and yearly plans, a product that issues licenses, and a 10% coupon.
 */
export async function seedDemoCatalog(deps: Pick<AppDeps, 'db' | 'clock' | 'config'>, storeId: string): Promise<void> {
  await createProduct(deps, storeId, {
    mode: 'test',
    type: 'one_time',
    name: '전자책: 타입스크립트 실전 가이드',
    description: 'PDF와 EPUB으로 받는 전자책입니다.',
    pricing: { price: 15_000 },
  });
  await createProduct(deps, storeId, {
    mode: 'test',
    type: 'subscription',
    name: '프리미엄 멤버십',
    description: '매달 새 강의와 자료를 받아 보는 구독입니다.',
    pricing: { plans: [{ id: 'premium', name: '프리미엄', monthlyPrice: 9_900, yearlyPrice: 99_000 }] },
  });
  await createProduct(deps, storeId, {
    mode: 'test',
    type: 'one_time',
    name: '데스크톱 앱 라이선스',
    description: '기기 3대까지 활성화할 수 있는 영구 라이선스입니다.',
    pricing: { price: 49_000 },
    license: { mode: 'service', maxActivations: 3, validityDays: null },
  });
  await createCoupon(deps, storeId, {
    mode: 'test',
    code: 'WELCOME10',
    name: '첫 구매 10% 할인',
    discountType: 'percent',
    discountValue: 10,
  });
}
