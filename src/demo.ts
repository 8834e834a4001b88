import type { AppDeps } from './deps';
import { createStore, updateBusinessDetails, updateModeSettings } from './stores/service';
import { createApiKey, ALL_SCOPES } from './stores/api-keys';
import { anyStoreId, findStoreIdByName } from './stores/repo';
import { seedDemoCatalog } from './catalog/demo';
import { createMember } from './dashboard/members';
import { LOCK_KEYS, withAdvisoryLock } from './db/locks';

export const DEMO_STORE_NAME = '데모 상점';
/** The coupon seedDemoCatalog creates (test mode). */
export const DEMO_COUPON = { code: 'WELCOME10', about: '10% off, type it on the payment page' };

/** The demo store's dashboard owner (a member who signs in at /dashboard); the password is generated and shown once. */
export const DEMO_MEMBER = { email: 'owner@demo.example', name: '데모 대표' };

export interface DemoInfo {
  storeId: string;
  ownerToken: string;
  testApiKey: string;
  /** The generated password of DEMO_MEMBER. */
  dashboardPassword: string;
}

/** A test-mode store with sample products, a test key and localhost on its return-URL allow-list. Never live. */
export async function createDemo(deps: Pick<AppDeps, 'db' | 'clock' | 'config'>): Promise<DemoInfo> {
  const { store, ownerToken } = await createStore(deps, { name: DEMO_STORE_NAME, publicContactVerified: true });
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
  // A person to sign in to the dashboard as, so a newcomer meets the store in a browser without the CLI (the embedded
  // database admits one process: the CLI would need the server stopped).
  const { password } = await createMember(deps, { storeId: store.id, email: DEMO_MEMBER.email, name: DEMO_MEMBER.name, role: 'owner' }, { kind: 'operator', id: null, name: null });
  return { storeId: store.id, ownerToken, testApiKey: secret, dashboardPassword: password };
}

/**
 * The demo store on an empty database, made once even when several processes start together (`start --demo` on
 * PostgreSQL): the check and the creation run under one advisory lock, so the others wait, then find a store.
 * Returns null when the database already had a store.
 */
export async function createDemoIfEmpty(deps: Pick<AppDeps, 'db' | 'clock' | 'config' | 'database'>): Promise<DemoInfo | null> {
  return withAdvisoryLock(deps.database, deps.config.databaseDirectUrl || deps.config.databaseUrl, LOCK_KEYS.demo, async (db) => {
    if (await hasAnyStore({ db })) return null;
    return createDemo({ ...deps, db });
  });
}

export async function hasAnyStore(deps: Pick<AppDeps, 'db'>): Promise<boolean> {
  return !!(await anyStoreId(deps.db));
}

/** The first demo store, if any: a restart prints its id instead of creating another one. */
export async function findDemoStore(deps: Pick<AppDeps, 'db'>): Promise<string | null> {
  const row = await findStoreIdByName(deps.db, DEMO_STORE_NAME);
  return row?.id ?? null;
}

/**
 * Printed when the server starts on a database that already has the demo store. Its key and owner token were shown
 * once (only their hashes are stored), so this says how to get new ones. The embedded database admits one process:
 * the CLI commands run with the server stopped; the console call works while it runs.
 */
export function demoRestartBanner(storeId: string, baseUrl: string): string {
  return [
    '',
    '  Demo store (test mode, created at an earlier start)',
    `  store id     : ${storeId}`,
    '  Its test API key was printed once, at that first start. To make a new one, stop the server and run:',
    `    npx commerce key create --store ${storeId} --mode test`,
    '  or, while it runs, with the owner token: POST /admin/v1/api-keys (seller console).',
    `  Lost the owner token too? With the server stopped: npx commerce store token rotate --store ${storeId}`,
    `  Dashboard: ${baseUrl}/dashboard (${DEMO_MEMBER.email}); a new password, with the server stopped:`,
    `    npx commerce member reset-password --store ${storeId} --email ${DEMO_MEMBER.email}`,
    `  Demo coupon: ${DEMO_COUPON.code} (${DEMO_COUPON.about})`,
    '',
    `  API docs: ${baseUrl}/docs (guides and reference)    seller console docs: ${baseUrl}/admin/docs`,
    '',
  ].join('\n');
}

export function demoBanner(info: DemoInfo, baseUrl: string): string {
  return [
    '',
    '  Demo store created (test mode)',
    `  store id     : ${info.storeId}`,
    `  owner token  : ${info.ownerToken}`,
    `  test API key : ${info.testApiKey}`,
    `  dashboard    : ${baseUrl}/dashboard  e-mail ${DEMO_MEMBER.email}  password ${info.dashboardPassword}`,
    '',
    '  Try it:',
    `  curl -s ${baseUrl}/v1/products -H "Authorization: Bearer ${info.testApiKey}"`,
    `  Demo coupon: ${DEMO_COUPON.code} (${DEMO_COUPON.about})`,
    '',
    `  API docs: ${baseUrl}/docs (guides and reference)    seller console docs: ${baseUrl}/admin/docs`,
    '',
  ].join('\n');
}
