import type { App, AppDeps } from '../../deps';

/** A dashboard page registers its routes on the dashboard's scope (cookies, CSRF, form bodies, error pages ready). */
export type DashboardPage = (app: App, deps: AppDeps) => Promise<void>;
