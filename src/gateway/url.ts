import type { Mode } from '../platform/tables';

/** The URL a store registers in Toss's developer center for one mode (served by src/gateway/routes.ts). */
export function tossWebhookUrl(publicBaseUrl: string, storeId: string, mode: Mode): string {
  return `${publicBaseUrl}/gateway/toss/webhook/${encodeURIComponent(storeId)}/${mode}`;
}

/** The URL a store registers in PortOne's console (웹훅, version 2024-04-25) for one mode (src/gateway/portone.ts). */
export function portoneWebhookUrl(publicBaseUrl: string, storeId: string, mode: Mode): string {
  return `${publicBaseUrl}/gateway/portone/webhook/${encodeURIComponent(storeId)}/${mode}`;
}
