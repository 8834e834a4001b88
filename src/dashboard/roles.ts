import type { MemberRole } from './tables';

/**
 * The one permission table of the dashboard: what each role may open or do. Every route names one permission in
 * `requireRole(...)`; nothing else in the dashboard checks roles.
 *   owner     everything
 *   admin     everything but members and live-mode API keys
 *   support   orders, refunds, refund requests, subscriptions, licenses (cancelling a subscription at once refunds, so
 *             it takes `refunds`; above the owner's threshold every refund also asks for a step-up, step-up-actions.ts)
 *   developer API keys, webhooks, events, test mode (test mode only: live mode is for money)
 */
export const PERMISSIONS = {
  home: ['owner', 'admin', 'support', 'developer'],
  /** Switch the session to live mode (every role works in test mode). */
  'mode.live': ['owner', 'admin', 'support'],
  orders: ['owner', 'admin', 'support'],
  refunds: ['owner', 'admin', 'support'],
  subscriptions: ['owner', 'admin', 'support'],
  /** Test-mode subscriptions and their test clock: the developer's "test mode" too (a developer session is always test mode). */
  'subscriptions.test': ['owner', 'admin', 'support', 'developer'],
  licenses: ['owner', 'admin', 'support'],
  products: ['owner', 'admin'],
  /** API keys, webhook endpoints, the event and delivery log (in the session's mode). */
  developers: ['owner', 'admin', 'developer'],
  /** Create, rotate or revoke a live-mode API key. */
  'keys.live': ['owner'],
  settings: ['owner', 'admin'],
  settlements: ['owner', 'admin'],
  /** Reconciliation with Toss Payments (대사): read runs and start one. */
  reconciliation: ['owner', 'admin'],
  /** The 부가세 신고 figures (a period's sales by evidence, their lines and CSV): the store's whole turnover, as settlements. */
  tax: ['owner', 'admin'],
  members: ['owner'],
  audit: ['owner', 'admin'],
} as const satisfies Record<string, readonly MemberRole[]>;

export type Permission = keyof typeof PERMISSIONS;

export function can(role: MemberRole, permission: Permission): boolean {
  return (PERMISSIONS[permission] as readonly MemberRole[]).includes(role);
}
