import type { TProperties } from '@sinclair/typebox';
import type { AppDeps } from '../deps';

/**
 * The port through which the store's console carries settings another module keeps. The buyer-mail switches and the
 * test-mail recipients are mail's (`mail/store-settings.ts`), yet a seller reads them in `Store` and changes them with
 * `PATCH /admin/v1/store`: the store module answers and takes them through this interface, so it never imports mail.
 * The composition (`modules.ts`) plugs the sections in.
 */
export interface StoreSettingsSection {
  /** Properties of `Store` (placed after `settings`). */
  view: TProperties;
  /** Properties of `UpdateStoreRequest` (placed after `name`); all optional. */
  patch: TProperties;
  /** The section's part of the store's view. */
  read(deps: Pick<AppDeps, 'db'>, storeId: string): Promise<Record<string, unknown>>;
  /** Refuses a bad change (an ApiError) before anything of the update is written. */
  check(deps: Pick<AppDeps, 'db'>, storeId: string, body: Record<string, unknown>): Promise<void>;
  /** Writes the section's fields of the update (after the store's own row). */
  write(deps: Pick<AppDeps, 'db'>, storeId: string, body: Record<string, unknown>, now: Date): Promise<void>;
}
