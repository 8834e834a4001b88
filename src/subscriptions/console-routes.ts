import type { Module } from '../deps';
import { billingTask } from './renewal';

/**
 * The subscriptions module's background work and seller-console operations: the billing run (renewals, dunning,
 * period-end endings) and the console's test clock and plan change.
 */
const subscriptionsBillingModule: Module = async (_app, deps) => {
  deps.worker.addTask(billingTask(deps));
};

export default subscriptionsBillingModule;
