import type { AppDeps } from '../deps';

/** Sample products for the demo store (one-time, subscription with monthly and yearly plans, licensed). Filled in by the catalog issue. */
export async function seedDemoCatalog(_deps: Pick<AppDeps, 'db' | 'clock' | 'config'>, _storeId: string): Promise<void> {}
