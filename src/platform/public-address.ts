import type { Db } from '../db';
import { findPublicAddress, upsertPublicAddress } from './public-address-repo';

/**
 * The service's public address outside the server process. `commerce start` records the address it serves at
 * (PUBLIC_BASE_URL, or http://localhost:<the port it listens on>); CLI commands run beside it (setup, member create,
 * demo) put links in the mails and text they send, and must not guess http://localhost:3000 when the server runs
 * elsewhere. Their own PUBLIC_BASE_URL wins; else the server's record; else what their own PORT says.
 */
export type PublicAddressSource = 'env' | 'server' | 'default';

export async function recordPublicAddress(db: Db, o: { publicBaseUrl: string; configured: boolean; listeningPort: number | null; now: Date }): Promise<string> {
  // Without PUBLIC_BASE_URL the address is this machine's; PORT=0 picks a free port, known only once listening.
  const url = o.configured || o.listeningPort === null ? o.publicBaseUrl : `http://localhost:${o.listeningPort}`;
  await upsertPublicAddress(db, { url, configured: o.configured, now: o.now });
  return url;
}

export async function resolvePublicAddress(db: Db, env: Record<string, string | undefined>, fallback: string): Promise<{ url: string; source: PublicAddressSource }> {
  if (env.PUBLIC_BASE_URL) return { url: fallback, source: 'env' };
  const recorded = await findPublicAddress(db);
  if (recorded) return { url: recorded.url, source: 'server' };
  return { url: fallback, source: 'default' };
}
