import type { Mode } from '../platform/tables';

/** The URL a store registers in Toss's developer center for one mode (served by src/gateway/routes.ts). */
export function tossWebhookUrl(publicBaseUrl: string, storeId: string, mode: Mode): string {
  return `${publicBaseUrl}/gateway/toss/webhook/${encodeURIComponent(storeId)}/${mode}`;
}
