import type { AppDeps } from './deps';
import { createApiKey, createStore, updateBusinessDetails, updateModeSettings, ALL_SCOPES } from './stores/service';
import { seedDemoCatalog } from './catalog/demo';

export interface DemoInfo {
  storeId: string;
  ownerToken: string;
  testApiKey: string;
}

/** A test-mode store with sample products, a test key and localhost on its return-URL allow-list. Never live. */
export async function createDemo(deps: Pick<AppDeps, 'db' | 'clock' | 'config'>): Promise<DemoInfo> {
  const { store, ownerToken } = await createStore(deps, { name: '데모 상점', publicContactVerified: true });
  await updateModeSettings(deps, store.id, 'test', { returnUrlDomains: ['localhost', '127.0.0.1'], paymentProvider: 'simulator' });
  // Made-up details (the 사업자등록번호 only has a valid check digit), marked as samples so the page footers say so.
  await updateBusinessDetails(
    deps,
    store.id,
    {
      companyName: '데모 상점 (샘플)',
      representative: '홍길동',
      businessNumber: '123-45-67891',
      mailOrderNumber: '제2026-서울강남-00000호',
      address: '서울특별시 강남구 테헤란로 000 (샘플 주소)',
      supportPhone: '02-000-0000',
      supportEmail: 'help@example.com',
    },
    { sample: true },
  );
  const { secret } = await createApiKey(deps, store.id, { mode: 'test', name: 'demo', scopes: ALL_SCOPES });
  await seedDemoCatalog(deps, store.id);
  return { storeId: store.id, ownerToken, testApiKey: secret };
}

export async function hasAnyStore(deps: Pick<AppDeps, 'db'>): Promise<boolean> {
  return !!(await deps.db.selectFrom('stores').select('id').limit(1).executeTakeFirst());
}

export function demoBanner(info: DemoInfo, baseUrl: string): string {
  return [
    '',
    '  Demo store created (test mode)',
    `  store id     : ${info.storeId}`,
    `  owner token  : ${info.ownerToken}`,
    `  test API key : ${info.testApiKey}`,
    '',
    '  Try it:',
    `  curl -s ${baseUrl}/v1/products -H "Authorization: Bearer ${info.testApiKey}"`,
    '',
    `  API docs: ${baseUrl}/docs    seller console docs: ${baseUrl}/admin/docs`,
    '',
  ].join('\n');
}
